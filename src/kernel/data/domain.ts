import { DbNull } from '@prisma/client/runtime/client';
import type { Domain, FieldType } from '../declare.js';
import { BadRequest } from '../errors.js';
import type { ResolvedField, ResolvedModel } from '../registry/model.js';
import { relationFieldName } from '../registry/names.js';
import type { Registry } from '../registry/registry.js';
import { coerceScalar, NUL_MESSAGE } from './values.js';

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
} satisfies Record<FieldType, readonly DomainOperator[]>;

const invalid = (message: string, details?: Record<string, unknown>) => new BadRequest(message, details, 'INVALID_DOMAIN');

/**
 * How deep a domain may nest, counted in levels of the filter it compiles to: each `!`, each run
 * of `&` (or of `|`) — `["&", a, "&", b, c]` is one AND of three, however it is written —, each
 * step of a dotted path and each `any`; a step into a model whose record rules apply to the
 * caller, and a negated condition on a field that may be NULL, take one more. Prisma parses a
 * query as JSON with a recursion limit of 128 and each level costs it up to two JSON levels, so
 * a deeper domain was a 500 on the Prisma paths (read_group, writes with a domain, reads in a
 * transaction) at ~120 `!` or ~60 written-out `&`; 32 leaves that headroom (and keeps every
 * recursion over a domain short) and is far beyond any hand-written or generated filter.
 */
export const MAX_DOMAIN_DEPTH = 32;

/**
 * How many relations a domain may go through one inside the other: each step of a dotted path and
 * each `any` is one (`["organization.country.code", "=", "FR"]` is two). Each is a subquery in the
 * SQL, and SQLite charges the expression depth of every subquery again to each one around it
 * (its limit is 1000): a path of 30 steps failed on SQLite (a 500) although it is within
 * MAX_DOMAIN_DEPTH. At 16 the deepest such domain, with the rest of MAX_DOMAIN_DEPTH spent inside
 * it, stays well within SQLite's budget; real paths have two or three steps.
 */
export const MAX_RELATION_DEPTH = 16;

/**
 * The longest text a pattern operator (`like`, `ilike`, `startswith`, …; GraphQL `contains`,
 * `notContains`, `startsWith`) takes, in characters (UTF-16 code units, as field sizes count).
 * SQLite refuses a LIKE pattern over 50,000 bytes ("LIKE or GLOB pattern too complex", a 500):
 * 10,000 characters are at most 40,000 UTF-8 bytes with the two `%` added, on both engines the
 * same bound, and no stored Char or text worth searching is longer.
 */
export const MAX_PATTERN_LENGTH = 10_000;

const tooDeep = () => invalid(
  `domain nests deeper than ${MAX_DOMAIN_DEPTH} levels (each "!", each run of "&" or "|", each step of a dotted path and each "any" is a level)`,
  { limit: MAX_DOMAIN_DEPTH },
);

const tooManyRelations = () => invalid(
  `domain goes through more than ${MAX_RELATION_DEPTH} relations one inside the other (each step of a dotted path and each "any" is one)`,
  { limit: MAX_RELATION_DEPTH },
);

/**
 * How many levels `where` nests: AND, OR, NOT and a relation filter (`{ x_rel: { is } }`,
 * `{ users: { some } }`) are one each; a field condition is none. Only run on filters whose parts
 * were bounded as they were built, so the recursion stays short.
 */
function whereDepth(where: Where): number {
  let max = 0;
  for (const [key, value] of Object.entries(where)) {
    if (value === null || typeof value !== 'object') continue;
    if (key === 'AND' || key === 'OR' || key === 'NOT') {
      for (const w of (Array.isArray(value) ? value : [value]) as Where[]) max = Math.max(max, 1 + whereDepth(w));
      continue;
    }
    const v = value as Record<string, unknown>;
    const inner = v.is ?? v.some;
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) max = Math.max(max, 1 + whereDepth(inner as Where));
  }
  return max;
}

/** A parsed operand: its filter, how deep that nests, and whether it is an AND or OR that may take more operands. */
interface Operand { where: Where; depth: number; group?: 'AND' | 'OR' }

/**
 * Translates a spec domain (`[field, op, value]` terms with `&`, `|`, `!` prefix operators,
 * implicit AND between terms, dotted paths through references) into a Prisma `where`.
 */
export function domainToWhere(model: ResolvedModel, domain: unknown, ctx: DomainContext): Where {
  if (countTerms(domain) > MAX_DOMAIN_TERMS) {
    throw invalid(`domain has more than ${MAX_DOMAIN_TERMS} [field, operator, value] terms (those inside "any" included)`, { limit: MAX_DOMAIN_TERMS });
  }
  return parseDomain(model, domain, ctx, 0);
}

/**
 * How many `[field, operator, value]` terms a domain holds, the subdomains of `any` included.
 * SQLite parses `a AND b AND c …` (and OR) as a chain as deep as it is long, and refuses an
 * expression deeper than 1000 ("Expression tree is too large", a 500): a group of about 1,000
 * `!=` terms failed, on the compiled-SQL and the Prisma paths. 500 leaves room for the levels
 * around the group and for conditions that compile to two comparisons; a longer list of values
 * belongs in one `in` term.
 */
export const MAX_DOMAIN_TERMS = 500;

function countTerms(domain: unknown): number {
  let n = 0;
  const stack: unknown[] = [domain];
  while (stack.length) {
    const d = stack.pop();
    if (!Array.isArray(d)) continue;
    for (const t of d) {
      if (!Array.isArray(t) || t.length !== 3) continue;
      n++;
      if (t[1] === 'any' && Array.isArray(t[2])) stack.push(t[2]);
    }
    if (n > MAX_DOMAIN_TERMS) break;
  }
  return n;
}

/**
 * `domainToWhere` for a domain inside `level` relations (an `any`), each of which is a level of
 * the whole domain. Prefix notation is read from the end with a stack of operands, so no operator
 * recurses: a list of a hundred thousand `!` or `&` costs a loop, and is refused as soon as it
 * nests too deep.
 */
function parseDomain(model: ResolvedModel, domain: unknown, ctx: DomainContext, level: number): Where {
  if (domain === undefined || domain === null) return {};
  if (!Array.isArray(domain)) throw invalid('a domain is a list of [field, operator, value] terms');
  const terms = domain as Domain;
  const bounded = (o: Operand): Operand => {
    if (level + o.depth > MAX_DOMAIN_DEPTH) throw tooDeep();
    return o;
  };
  // a run of the same operator is one group: its operands join the group, not a nested one
  const members = (o: Operand, group: 'AND' | 'OR') => (o.group === group ? (o.where[group] as Where[]) : [o.where]);
  const join = (group: 'AND' | 'OR', list: Operand[]): Operand => bounded({
    where: { [group]: list.flatMap((o) => members(o, group)) },
    depth: 1 + list.reduce((max, o) => Math.max(max, o.group === group ? o.depth - 1 : o.depth), 0),
    group,
  });
  // the terms first, in the order written (the first bad one is the one reported), then the
  // prefix operators from the end with a stack of operands
  const leaves: Array<Operand | null> = terms.map((t) => {
    if (t === '&' || t === '|' || t === '!') return null;
    if (!Array.isArray(t) || t.length !== 3 || typeof t[0] !== 'string' || typeof t[1] !== 'string') {
      throw invalid(`domain term ${JSON.stringify(t)} must be [field, operator, value] or one of & | !`);
    }
    const where = leaf(model, t[0], t[1], t[2], ctx, '', level);
    return bounded({ where, depth: whereDepth(where) });
  });
  /** Operands parsed so far, the next one to be taken on top. */
  const stack: Operand[] = [];
  const take = (): Operand => {
    const o = stack.pop();
    if (!o) throw invalid('domain ends where an operand was expected');
    return o;
  };
  for (let i = terms.length - 1; i >= 0; i--) {
    const t = terms[i];
    if (t === '&' || t === '|') {
      const a = take();
      const b = take();
      stack.push(join(t === '&' ? 'AND' : 'OR', [a, b]));
    } else if (t === '!') {
      // `!` is the complement: every record the operand does not match, also those where the
      // operand compares a NULL (which SQL's NOT alone would drop, and Prisma's joins would
      // drop differently from EXISTS), so ["!", [f, "=", v]] means what [f, "!=", v] means
      const where = { NOT: twoValued(ctx.registry, model, take().where) };
      TWO_VALUED.add(where);
      stack.push(bounded({ where, depth: whereDepth(where) }));
    } else {
      stack.push(leaves[i]!);
    }
  }
  if (stack.length === 0) return {};
  // terms side by side are ANDed, in the order written
  return stack.length === 1 ? stack[0].where : join('AND', stack.reverse()).where;
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
  // already rewritten (a `!` under a `!`): doing it again would only wrap it once more, one level
  // deeper for each `!` above
  if (TWO_VALUED.has(where)) return where;
  const out = rewriteTwoValued(registry, model, where);
  TWO_VALUED.add(out);
  return out;
}

/** Filters `twoValued` returned, and `NOT`s of them: TRUE or FALSE for every row already. */
const TWO_VALUED = new WeakSet<Where>();

function rewriteTwoValued(registry: Registry, model: ResolvedModel, where: Where): Where {
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

/** One `[path, op, value]` term inside `level` relations (each step of its path is one more). */
function leaf(model: ResolvedModel, path: string, op: string, rawValue: unknown, ctx: DomainContext, prefix: string, level: number): Where {
  const [head, ...rest] = path.split('.');
  const full = `${prefix}${path}`;
  if (level + rest.length > MAX_RELATION_DEPTH) throw tooManyRelations();
  const field = model.fields.get(head);
  if (!field) throw invalid(`${model.key} has no field "${head}"`, { model: model.key, field: `${prefix}${head}` });
  if (ctx.hidden?.(model, field)) throw invalid(`field "${head}" of ${model.key} cannot be filtered on`, { field: `${prefix}${head}` });
  if (rest.length) {
    if (field.type !== 'reference' && field.type !== 'one2many') {
      throw invalid(`"${full}": ${head} is not a relation`, { field: full });
    }
    const target = ctx.registry.model(field.target!);
    const inner = withScope(leaf(target, rest.join('.'), op, rawValue, ctx, `${prefix}${head}.`, level + 1), target, ctx);
    return field.type === 'reference'
      ? { [relationFieldName(head)]: { is: inner } }
      : { [head]: { some: inner } };
  }
  if (!(DOMAIN_OPERATORS as readonly string[]).includes(op)) {
    throw invalid(`unknown operator "${op}" on "${full}"; use one of ${DOMAIN_OPERATORS.join(', ')}`, { field: full, operator: op });
  }
  // every field type has its entry (the table `satisfies` Record<FieldType, …>)
  const allowed = OPERATORS_BY_TYPE[field.type];
  if (!allowed.includes(op as DomainOperator)) {
    const hint = field.type === 'one2many' ? `; filter on one of its fields (${full}.<field>) or use "any"`
      : field.type === 'enum' && (ORDERING as readonly string[]).includes(op) ? '; Enum values have no order, use "in"'
        : '';
    throw invalid(`operator "${op}" does not apply to ${field.type} field "${full}"${hint}`, { field: full, operator: op, type: field.type });
  }
  if (op === 'any') {
    // [relation, 'any', subdomain]: the referenced record (or some child) matches the whole subdomain
    if (level + 1 > MAX_RELATION_DEPTH) throw tooManyRelations();
    const target = ctx.registry.model(field.target!);
    const inner = withScope(parseDomain(target, rawValue, ctx, level + 1), target, ctx);
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
      // null in the list stands for "no value", as in `= null` (Odoo's False in a list)
      const withNull = value.includes(null);
      const list = [...new Set(value.filter((v) => v !== null).map(scalar))];
      const isNull: Where[] = withNull && nullable ? [{ [head]: null }] : [];
      if (op === 'in') {
        // Prisma's Boolean filter has no `in`: a list of true/false is a list of equalities
        const values: Where[] = !list.length ? []
          : field.type === 'boolean' ? list.map((v) => ({ [head]: { equals: v } }))
            : [{ [head]: { in: list } }];
        const parts = [...values, ...isNull];
        return !parts.length ? nothing() : parts.length === 1 ? parts[0] : { OR: parts };
      }
      if (!list.length) return isNull.length ? { [head]: { not: null } } : everything();
      const not: Where = field.type === 'boolean'
        ? (list.length === 1 ? { [head]: { not: list[0] } } : { AND: list.map((v) => ({ [head]: { not: v } })) })
        : { [head]: { notIn: list } };
      // SQL's NOT IN and <> leave rows without a value out: kept unless the list names null
      return withNull ? not : orNull(not);
    }
    default: {
      // like, ilike, not like, not ilike, startswith, istartswith (Char, text, Enum)
      if (typeof value !== 'string') throw invalid(`"${op}" on "${full}" needs a text value`, { field: full, operator: op });
      if (value.length > MAX_PATTERN_LENGTH) {
        throw invalid(`"${op}" on "${full}": the text is ${value.length} characters long, over the limit of ${MAX_PATTERN_LENGTH}`,
          { field: full, operator: op, limit: MAX_PATTERN_LENGTH });
      }
      if (value.includes('\u0000')) throw invalid(`"${full}" ${op}: ${NUL_MESSAGE}`, { field: full, operator: op });
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
