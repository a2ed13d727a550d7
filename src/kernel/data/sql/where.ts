import { DbNull } from '@prisma/client/runtime/client';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { ResolvedField, ResolvedModel } from '../../registry/model.js';
import type { Registry } from '../../registry/registry.js';
import type { Where } from '../domain.js';
import { FOLLOW, type FollowNode } from '../rules.js';
import { encodeValue, type Dialect } from './values.js';

/*
 * The SQL read path compiles the same `where` that `domainToWhere` builds for Prisma, so the
 * domain language has one parser and the two paths cannot drift in what a domain means; the
 * differential test (tests/kernel/data/sql-reads.test.ts) runs every operator through both, and
 * tests/kernel/data/domain-corpus.test.ts checks each path against fixed expected records.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EB = ExpressionBuilder<any, any>;
type Cond = Expression<SqlBool>;

export interface WhereScope {
  registry: Registry;
  dialect: Dialect;
  /** Next free table alias number; subqueries take t1, t2, … */
  next: { n: number };
}

const TRUE = sql<SqlBool>`1 = 1`;
const FALSE = sql<SqlBool>`1 = 0`;

const all = (eb: EB, parts: Cond[]): Cond => (parts.length === 0 ? TRUE : parts.length === 1 ? parts[0] : eb.and(parts));

/** `where` of `model` (table alias `alias`) as one SQL condition. */
export function whereToSql(eb: EB, model: ResolvedModel, alias: string, where: Where, scope: WhereScope): Cond {
  const parts: Cond[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR') {
      const list = (Array.isArray(value) ? value : [value]) as Where[];
      const conds = list.map((w) => whereToSql(eb, model, alias, w, scope));
      parts.push(key === 'AND' ? all(eb, conds) : conds.length ? eb.or(conds) : FALSE);
    } else if (key === 'NOT') {
      const list = (Array.isArray(value) ? value : [value]) as Where[];
      parts.push(eb.not(all(eb, list.map((w) => whereToSql(eb, model, alias, w, scope)))));
    } else if (key === FOLLOW) {
      parts.push(followToSql(eb, alias, value as FollowNode, scope));
    } else {
      parts.push(fieldToSql(eb, model, alias, key, value, scope));
    }
  }
  return all(eb, parts);
}

function fieldToSql(eb: EB, model: ResolvedModel, alias: string, key: string, value: unknown, scope: WhereScope): Cond {
  const direct = model.fields.get(key);
  if (key.endsWith('_rel') || direct?.type === 'one2many') return relationToSql(eb, model, alias, key, value as Where, scope);
  if (!direct?.stored) throw new Error(`SQL reads: ${model.key} has no column "${key}"`);
  const col = eb.ref(`${alias}.${key}`);
  if (value === null) return eb(col, 'is', null);
  const ops = value as Record<string, unknown>;
  const enc = (v: unknown) => encodeValue(direct, v, scope.dialect);
  const parts: Cond[] = [];
  for (const [op, v] of Object.entries(ops)) {
    switch (op) {
      // Prisma names a JSON column's NULL DbNull; both mean IS NULL here
      case 'equals': parts.push(v === null || v === DbNull ? eb(col, 'is', null) : eb(col, '=', enc(v))); break;
      case 'not': parts.push(v === null || v === DbNull ? eb(col, 'is not', null) : eb(col, '<>', enc(v))); break;
      case 'lt': parts.push(eb(col, '<', enc(v))); break;
      case 'lte': parts.push(eb(col, '<=', enc(v))); break;
      case 'gt': parts.push(eb(col, '>', enc(v))); break;
      case 'gte': parts.push(eb(col, '>=', enc(v))); break;
      case 'in':
      case 'notIn': {
        const list = (v as unknown[]).map(enc);
        if (!list.length) parts.push(op === 'in' ? FALSE : TRUE);
        else parts.push(eb(col, op === 'in' ? 'in' : 'not in', list));
        break;
      }
      case 'contains':
      case 'startsWith': {
        // no escaping: `_` and `%` in the value stay wildcards, as in Odoo's like and in Prisma's
        // contains (which the transaction path uses), so both paths match the same rows
        const pattern = op === 'contains' ? `%${String(v)}%` : `${String(v)}%`;
        // SQLite's LIKE already ignores ASCII case, as Prisma's contains does there
        parts.push(eb(col, ops.mode === 'insensitive' && scope.dialect === 'postgresql' ? 'ilike' : 'like', pattern));
        break;
      }
      case 'mode': break;
      default: throw new Error(`SQL reads: unsupported filter "${op}" on ${model.key}.${key}`);
    }
  }
  return all(eb, parts);
}

/** `{ country_rel: { is } }` and `{ users: { some } }` as EXISTS over the related table. */
function relationToSql(eb: EB, model: ResolvedModel, alias: string, key: string, value: Where, scope: WhereScope): Cond {
  const field: ResolvedField | undefined = model.fields.get(key.endsWith('_rel') ? key.slice(0, -4) : key);
  if (!field?.target) throw new Error(`SQL reads: ${model.key} has no relation "${key}"`);
  const target = scope.registry.model(field.target);
  const sub = `t${scope.next.n++}`;
  const [mode, inner] = Object.entries(value)[0] as ['is' | 'some', Where];
  if ((field.type === 'reference') !== (mode === 'is')) throw new Error(`SQL reads: "${mode}" does not fit ${model.key}.${field.name}`);
  const join = field.type === 'reference'
    ? eb(eb.ref(`${sub}.record_uuid`), '=', eb.ref(`${alias}.${field.name}`))
    : eb(eb.ref(`${sub}.${field.inverse!}`), '=', eb.ref(`${alias}.record_uuid`));
  return eb.exists(
    eb.selectFrom(`${target.names.table} as ${sub}`)
      .select(sql.lit(1).as('one'))
      .where((s: EB) => s.and([join, whereToSql(s, target, sub, inner, scope)])),
  );
}

/** A followed model-and-id pair (src/kernel/data/rules.ts) as EXISTS over the named model's table. */
function followToSql(eb: EB, alias: string, node: FollowNode, scope: WhereScope): Cond {
  const target = scope.registry.model(node.model);
  const sub = `t${scope.next.n++}`;
  return eb.exists(
    eb.selectFrom(`${target.names.table} as ${sub}`)
      .select(sql.lit(1).as('one'))
      .where((s: EB) => s.and([s(s.ref(`${sub}.record_uuid`), '=', s.ref(`${alias}.${node.field}`)), whereToSql(s, target, sub, node.where, scope)])),
  );
}
