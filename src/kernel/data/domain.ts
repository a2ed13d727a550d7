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
    if (t === '!') return { NOT: parse() };
    if (!Array.isArray(t) || t.length !== 3 || typeof t[0] !== 'string' || typeof t[1] !== 'string') {
      throw invalid(`domain term ${JSON.stringify(t)} must be [field, operator, value] or one of & | !`);
    }
    return leaf(model, t[0], t[1], t[2], ctx);
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

function leaf(model: ResolvedModel, path: string, op: string, rawValue: unknown, ctx: DomainContext): Where {
  const [head, ...rest] = path.split('.');
  const field = model.fields.get(head);
  if (!field) throw invalid(`${model.key} has no field "${head}"`, { model: model.key, field: head });
  if (ctx.hidden?.(model, field)) throw invalid(`field "${head}" of ${model.key} cannot be filtered on`, { field: head });
  if (rest.length) {
    if (field.type !== 'reference' && field.type !== 'one2many') {
      throw invalid(`"${path}": ${head} is not a relation`, { field: head });
    }
    const target = ctx.registry.model(field.target!);
    const inner = withScope(leaf(target, rest.join('.'), op, rawValue, ctx), target, ctx);
    return field.type === 'reference'
      ? { [relationFieldName(head)]: { is: inner } }
      : { [head]: { some: inner } };
  }
  if (op === 'any') {
    // [relation, 'any', subdomain]: the referenced record (or some child) matches the whole subdomain
    if (field.type !== 'reference' && field.type !== 'one2many') throw invalid(`"any" needs a relation; ${path} is ${field.type}`);
    const target = ctx.registry.model(field.target!);
    const inner = withScope(domainToWhere(target, rawValue, ctx), target, ctx);
    return field.type === 'reference' ? { [relationFieldName(head)]: { is: inner } } : { [head]: { some: inner } };
  }
  if (field.type === 'one2many') throw invalid(`"${path}" is a One2Many; filter on one of its fields (${path}.<field>) or use "any"`);
  const value = resolveValue(rawValue, ctx);
  const scalar = (v: unknown) => {
    try {
      return coerceScalar(field, v);
    } catch (err) {
      throw invalid(`"${path}": ${(err as Error).message}`, { field: path });
    }
  };
  const nullable = !field.notNull;
  const orNull = (cond: Where): Where => (nullable ? { OR: [cond, { [head]: null }] } : cond);
  switch (op) {
    case '=':
      return { [head]: value === null ? null : { equals: scalar(value) } };
    case '!=':
      return value === null ? { [head]: { not: null } } : orNull({ [head]: { not: scalar(value) } });
    case '<': return { [head]: { lt: scalar(value) } };
    case '<=': return { [head]: { lte: scalar(value) } };
    case '>': return { [head]: { gt: scalar(value) } };
    case '>=': return { [head]: { gte: scalar(value) } };
    case 'in':
    case 'not in': {
      if (!Array.isArray(value)) throw invalid(`"${op}" needs a list value`, { field: path });
      const list = value.map(scalar);
      return op === 'in' ? { [head]: { in: list } } : orNull({ [head]: { notIn: list } });
    }
    case 'like':
    case 'ilike':
    case 'not like':
    case 'not ilike':
    case 'startswith':
    case 'istartswith': {
      if (field.type !== 'char' && field.type !== 'text' && field.type !== 'enum') {
        throw invalid(`"${op}" applies to text fields; ${path} is ${field.type}`, { field: path });
      }
      if (typeof value !== 'string') throw invalid(`"${op}" needs a text value`, { field: path });
      const cond: Record<string, unknown> = op.endsWith('startswith') ? { startsWith: value } : { contains: value };
      // PostgreSQL LIKE is case-sensitive; SQLite's is already ASCII-case-insensitive and has no mode
      if ((op.endsWith('ilike') || op === 'istartswith') && ctx.provider === 'postgresql') cond.mode = 'insensitive';
      return op.startsWith('not') ? orNull({ NOT: { [head]: cond } }) : { [head]: cond };
    }
    default:
      throw invalid(`unknown operator "${op}"; use one of ${DOMAIN_OPERATORS.join(', ')}`, { operator: op });
  }
}
