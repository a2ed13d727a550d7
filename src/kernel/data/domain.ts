import { DbNull } from '@prisma/client/runtime/client';
import type { Domain } from '../declare.js';
import { BadRequest } from '../errors.js';
import type { ResolvedField, ResolvedModel } from '../registry/model.js';
import { relationFieldName } from '../registry/names.js';
import type { Registry } from '../registry/registry.js';
import { coerceScalar } from './values.js';

export type Where = Record<string, unknown>;

export interface DomainContext {
  registry: Registry;
  provider: 'sqlite' | 'postgresql';
  /** Resolves `$principal.x`-style placeholders; returns undefined for unknown ones. */
  placeholder?: (name: string) => unknown;
  /** Field names the caller may not filter on (private or read-restricted). */
  hidden?: (model: ResolvedModel, field: ResolvedField) => boolean;
  /**
   * What the caller may see of a model reached through a relation path: throws when the role
   * may not read it, returns its record-rule filter (or null). Without it, paths are unscoped.
   */
  scope?: (model: ResolvedModel) => Where | null;
}

const withScope = (inner: Where, target: ResolvedModel, ctx: DomainContext): Where => {
  const rules = ctx.scope?.(target);
  return rules ? { AND: [inner, rules] } : inner;
};

export const DOMAIN_OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'like', 'ilike', 'not like', 'not ilike', 'startswith', 'istartswith', 'any'] as const;
export type DomainOperator = (typeof DOMAIN_OPERATORS)[number];

const EQUALITY = ['=', '!=', 'in', 'not in'] as const;
const ORDERING = ['<', '<=', '>', '>='] as const;
const PATTERN = ['like', 'ilike', 'not like', 'not ilike', 'startswith', 'istartswith'] as const;

/**
 * The operators each field type accepts; anything else is 400 `INVALID_DOMAIN` on every read
 * path. Comparisons need an order that means something (not Boolean, not ids, not Enum values,
 * whose stored text order is not their declared order); patterns need text. JSON fields may only
 * be compared with `null`. docs/api.md ("Filters") prints this table.
 */
export const OPERATORS_BY_TYPE: Readonly<Record<string, readonly DomainOperator[]>> = {
  char: [...EQUALITY, ...ORDERING, ...PATTERN],
  text: [...EQUALITY, ...ORDERING, ...PATTERN],
  enum: [...EQUALITY, ...PATTERN],
  integer: [...EQUALITY, ...ORDERING],
  float: [...EQUALITY, ...ORDERING],
  datetime: [...EQUALITY, ...ORDERING],
  boolean: [...EQUALITY],
  uuid: [...EQUALITY],
  reference: [...EQUALITY, 'any'],
  one2many: ['any'],
  json: ['=', '!='],
};

const invalid = (message: string, details?: Record<string, unknown>) => new BadRequest(message, details, 'INVALID_DOMAIN');

/**
 * Translates a spec domain (`[field, op, value]` terms with `&`, `|`, `!` prefix operators,
 * implicit AND between terms, dotted paths through references) into a Prisma `where`.
 */
export function domainToWhere(model: ResolvedModel, domain: unknown, ctx: DomainContext): Where {
  if (domain === undefined || domain === null) return {};
  if (!Array.isArray(domain)) throw invalid('a domain is a list of [field, operator, value] terms');
  const terms = domain as Domain;
  let i = 0;
  const parse = (): Where => {
    if (i >= terms.length) throw invalid('domain ends where an operand was expected');
    const t = terms[i++];
    if (t === '&' || t === '|') {
      const a = parse();
      const b = parse();
      return t === '&' ? { AND: [a, b] } : { OR: [a, b] };
    }
    // `!` is the complement: every record the operand does not match, also those where the
    // operand compares a NULL (which SQL's NOT alone would drop, and Prisma's joins would
    // drop differently from EXISTS), so ["!", [f, "=", v]] means what [f, "!=", v] means
    if (t === '!') return { NOT: twoValued(ctx.registry, model, parse()) };
    if (!Array.isArray(t) || t.length !== 3 || typeof t[0] !== 'string' || typeof t[1] !== 'string') {
      throw invalid(`domain term ${JSON.stringify(t)} must be [field, operator, value] or one of & | !`);
    }
    return leaf(model, t[0], t[1], t[2], ctx, '');
  };
  const parts: Where[] = [];
  while (i < terms.length) parts.push(parse());
  if (parts.length === 0) return {};
  return parts.length === 1 ? parts[0] : { AND: parts };
}

function resolveValue(value: unknown, ctx: DomainContext): unknown {
  if (typeof value === 'string' && value.startsWith('$')) {
    const v = ctx.placeholder?.(value.slice(1));
    if (v === undefined) throw invalid(`unknown placeholder "${value}"`);
    return v;
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, ctx));
  return value;
}

/**
 * Matches no record / every record, on both read paths and under a NOT. Written as a comparison
 * of the always-set `dbid`, not as an empty OR/AND or an empty `in`, which Prisma drops from a
 * NOT (`NOT: { AND: [] }` would match every record).
 */
const INT_MIN = -(2 ** 31);
const nothing = (): Where => ({ dbid: { lt: INT_MIN } });
const everything = (): Where => ({ dbid: { gte: INT_MIN } });

const isNullValue = (v: unknown): boolean => v === null || v === DbNull;

/**
 * `where` rewritten so that it is TRUE or FALSE for every row, never NULL: each condition on a
 * nullable column that a NULL would make unknown also requires the column to be set, and a
 * reference path requires the reference to be set. Under a NOT this makes the two read paths
 * agree with each other and with the complement (the compiled SQL reads relation paths with
 * EXISTS, which is never unknown; Prisma reads them with a LEFT JOIN, where it is).
 */
export function twoValued(registry: Registry, model: ResolvedModel, where: Where): Where {
  const parts: Where[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR') {
      const list = (Array.isArray(value) ? value : [value]) as Where[];
      parts.push({ [key]: list.map((w) => twoValued(registry, model, w)) });
      continue;
    }
    if (key === 'NOT') {
      const list = (Array.isArray(value) ? value : [value]) as Where[];
      parts.push({ NOT: list.length === 1 ? twoValued(registry, model, list[0]) : { AND: list.map((w) => twoValued(registry, model, w)) } });
      continue;
    }
    // `<reference>_rel: { is }` and `<one2many>: { some }` are relation filters; a reference's own
    // key (`organization: { equals: id }`) is a plain column condition
    const relation = key.endsWith('_rel') ? model.fields.get(key.slice(0, -4)) : undefined;
    const field = relation ?? model.fields.get(key);
    if (field && (relation || field.type === 'one2many') && value !== null && typeof value === 'object') {
      const target = registry.model(field.target!);
      const [mode, inner] = Object.entries(value as Where)[0] as [string, Where];
      if (field.type === 'reference' && !field.notNull) parts.push({ [field.name]: { not: null } });
      parts.push({ [key]: { [mode]: twoValued(registry, target, inner) } });
      continue;
    }
    parts.push({ [key]: value });
    if (!field || field.notNull || value === null || typeof value !== 'object') continue;
    // null checks are never unknown; anything else compared with a NULL is
    const ops = Object.entries(value as Record<string, unknown>).filter(([op]) => op !== 'mode');
    if (!ops.every(([op, v]) => (op === 'equals' || op === 'not') && isNullValue(v))) {
      parts.push({ [key]: { not: field.type === 'json' ? DbNull : null } });
    }
  }
  if (parts.length === 0) return {};
  return parts.length === 1 ? parts[0] : { AND: parts };
}

function leaf(model: ResolvedModel, path: string, op: string, rawValue: unknown, ctx: DomainContext, prefix: string): Where {
  const [head, ...rest] = path.split('.');
  const full = `${prefix}${path}`;
  const field = model.fields.get(head);
  if (!field) throw invalid(`${model.key} has no field "${head}"`, { model: model.key, field: `${prefix}${head}` });
  if (ctx.hidden?.(model, field)) throw invalid(`field "${head}" of ${model.key} cannot be filtered on`, { field: `${prefix}${head}` });
  if (rest.length) {
    if (field.type !== 'reference' && field.type !== 'one2many') {
      throw invalid(`"${full}": ${head} is not a relation`, { field: full });
    }
    const target = ctx.registry.model(field.target!);
    const inner = withScope(leaf(target, rest.join('.'), op, rawValue, ctx, `${prefix}${head}.`), target, ctx);
    return field.type === 'reference'
      ? { [relationFieldName(head)]: { is: inner } }
      : { [head]: { some: inner } };
  }
  if (!(DOMAIN_OPERATORS as readonly string[]).includes(op)) {
    throw invalid(`unknown operator "${op}" on "${full}"; use one of ${DOMAIN_OPERATORS.join(', ')}`, { field: full, operator: op });
  }
  const allowed = OPERATORS_BY_TYPE[field.type] ?? [];
  if (!allowed.includes(op as DomainOperator)) {
    const hint = field.type === 'one2many' ? `; filter on one of its fields (${full}.<field>) or use "any"`
      : field.type === 'enum' && (ORDERING as readonly string[]).includes(op) ? '; Enum values have no order, use "in"'
        : '';
    throw invalid(`operator "${op}" does not apply to ${field.type} field "${full}"${hint}`, { field: full, operator: op, type: field.type });
  }
  if (op === 'any') {
    // [relation, 'any', subdomain]: the referenced record (or some child) matches the whole subdomain
    const target = ctx.registry.model(field.target!);
    const inner = withScope(domainToWhere(target, rawValue, ctx), target, ctx);
    return field.type === 'reference' ? { [relationFieldName(head)]: { is: inner } } : { [head]: { some: inner } };
  }
  const value = resolveValue(rawValue, ctx);
  if (field.type === 'json') {
    // a JSON column is only ever compared with NULL (Prisma names the database NULL DbNull)
    if (value !== null) throw invalid(`"${full}" is a JSON field: only "= null" and "!= null" apply`, { field: full, operator: op, type: field.type });
    return { [head]: op === '=' ? { equals: DbNull } : { not: DbNull } };
  }
  const scalar = (v: unknown) => {
    try {
      return coerceScalar(field, v, 'filter');
    } catch (err) {
      throw invalid(`"${full}" ${op}: ${(err as Error).message}`, { field: full, operator: op });
    }
  };
  const nullable = !field.notNull;
  const orNull = (cond: Where): Where => (nullable ? { OR: [cond, { [head]: null }] } : cond);
  switch (op) {
    // a column that cannot hold NULL: `= null` matches nothing and `!= null` everything (Prisma
    // refuses a null comparison on a required field)
    case '=':
      if (value === null) return nullable ? { [head]: null } : nothing();
      return { [head]: { equals: scalar(value) } };
    case '!=':
      if (value === null) return nullable ? { [head]: { not: null } } : everything();
      return orNull({ [head]: { not: scalar(value) } });
    case '<': return { [head]: { lt: scalar(value) } };
    case '<=': return { [head]: { lte: scalar(value) } };
    case '>': return { [head]: { gt: scalar(value) } };
    case '>=': return { [head]: { gte: scalar(value) } };
    case 'in':
    case 'not in': {
      if (!Array.isArray(value)) throw invalid(`"${op}" on "${full}" needs a list value`, { field: full, operator: op });
      const list = [...new Set(value.map(scalar))];
      if (!list.length) return op === 'in' ? nothing() : everything();
      if (field.type === 'boolean') {
        // Prisma's Boolean filter has no `in`: a list of true/false is a list of equalities
        const each = (cond: 'equals' | 'not') => list.map((v) => ({ [head]: { [cond]: v } }));
        if (op === 'in') return list.length === 1 ? each('equals')[0] : { OR: each('equals') };
        return orNull(list.length === 1 ? each('not')[0] : { AND: each('not') });
      }
      return op === 'in' ? { [head]: { in: list } } : orNull({ [head]: { notIn: list } });
    }
    default: {
      // like, ilike, not like, not ilike, startswith, istartswith (Char, text, Enum)
      if (typeof value !== 'string') throw invalid(`"${op}" on "${full}" needs a text value`, { field: full, operator: op });
      // `%` and `_` stay wildcards (Prisma's contains), but a backslash is a plain character on
      // both engines: PostgreSQL's LIKE would read it as its escape character, SQLite's does not
      const text = ctx.provider === 'postgresql' ? value.replaceAll('\\', '\\\\') : value;
      const cond: Record<string, unknown> = op.endsWith('startswith') ? { startsWith: text } : { contains: text };
      // PostgreSQL LIKE is case-sensitive; SQLite's is already ASCII-case-insensitive and has no mode
      if ((op.endsWith('ilike') || op === 'istartswith') && ctx.provider === 'postgresql') cond.mode = 'insensitive';
      return op.startsWith('not') ? orNull({ NOT: { [head]: cond } }) : { [head]: cond };
    }
  }
}
