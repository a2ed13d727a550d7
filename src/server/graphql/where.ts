import type { DomainTerm } from '../../kernel/declare.js';
import { BadRequest } from '../../kernel/errors.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';
import type { Registry } from '../../kernel/registry/registry.js';

/** A domain expression: one term, or a prefix-notation group of several. */
type Expr = DomainTerm[];

const and = (exprs: Expr[]): Expr => (exprs.length === 0 ? [] : [...Array(exprs.length - 1).fill('&'), ...exprs.flat()]);
const or = (exprs: Expr[]): Expr => (exprs.length === 0 ? [] : [...Array(exprs.length - 1).fill('|'), ...exprs.flat()]);

const SCALAR_OPS: Record<string, string> = {
  eq: '=', ne: '!=', in: 'in', notIn: 'not in', lt: '<', lte: '<=', gt: '>', gte: '>=',
};

function scalarFilter(path: string, filter: Record<string, unknown>): Expr[] {
  const out: Expr[] = [];
  const insensitive = filter.mode === 'insensitive';
  for (const [op, value] of Object.entries(filter)) {
    if (value === undefined || op === 'mode') continue;
    if (op in SCALAR_OPS) out.push([[path, SCALAR_OPS[op], value]]);
    else if (op === 'contains') out.push([[path, insensitive ? 'ilike' : 'like', value]]);
    else if (op === 'notContains') out.push([[path, insensitive ? 'not ilike' : 'not like', value]]);
    else if (op === 'startsWith') out.push([[path, insensitive ? 'istartswith' : 'startswith', value]]);
    else if (op === 'is' || op === 'some' || op === 'none' || op === 'every') continue;
    else throw new BadRequest(`unknown filter operator ${op} on ${path}`, undefined, 'INVALID_FILTER');
  }
  return out;
}

/**
 * A GraphQL `where` input (typed filters per field, AND/OR/NOT, relation is/some/none/every)
 * turned into the command bus's domain, so GraphQL filters run exactly where REST ones do.
 */
export function whereToDomain(registry: Registry, model: ResolvedModel, where: Record<string, unknown> | null | undefined): DomainTerm[] {
  return and(whereExprs(registry, model, where));
}

function whereExprs(registry: Registry, model: ResolvedModel, where: Record<string, unknown> | null | undefined): Expr[] {
  if (!where) return [];
  const out: Expr[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined || value === null) continue;
    if (key === 'AND') {
      for (const w of value as Record<string, unknown>[]) out.push(...whereExprs(registry, model, w));
    } else if (key === 'OR') {
      out.push(or((value as Record<string, unknown>[]).map((w) => and(whereExprs(registry, model, w)))));
    } else if (key === 'NOT') {
      const inner = and(whereExprs(registry, model, value as Record<string, unknown>));
      if (inner.length) out.push(['!', ...inner]);
    } else {
      const field = model.fields.get(key === 'id' ? 'record_uuid' : key);
      if (!field) throw new BadRequest(`${model.key} has no field ${key}`, undefined, 'INVALID_FILTER');
      const f = value as Record<string, unknown>;
      out.push(...scalarFilter(field.name, f));
      if (field.type === 'reference' && f.is) {
        out.push([[field.name, 'any', whereToDomain(registry, registry.model(field.target!), f.is as Record<string, unknown>)]]);
      }
      if (field.type === 'one2many') {
        const target = registry.model(field.target!);
        const sub = (w: unknown) => whereToDomain(registry, target, w as Record<string, unknown>);
        if (f.some) out.push([[field.name, 'any', sub(f.some)]]);
        if (f.none) out.push(['!', [field.name, 'any', sub(f.none)]]);
        // every child matches ⇔ no child fails
        const every = f.every ? sub(f.every) : [];
        if (every.length) out.push(['!', [field.name, 'any', ['!', ...every]]]);
      }
    }
  }
  return out;
}
