import { canReadField } from '../access.js';
import { delegateOf } from '../data/delegate.js';
import type { Where } from '../data/domain.js';
import { rowComparator } from '../data/sort-rows.js';
import type { Env } from '../env.js';
import { BadRequest } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';

const AGGREGATES = ['sum', 'avg', 'min', 'max', 'count'] as const;
type Aggregate = (typeof AGGREGATES)[number];
const NUMERIC = new Set(['integer', 'float']);
const ORDERED = new Set(['integer', 'float', 'datetime', 'char', 'text', 'enum']);

const bad = (message: string) => new BadRequest(message, undefined, 'INVALID_GROUPING');

type Row = Record<string, unknown>;
const isNull = (v: unknown) => v === null || v === undefined;
/** Nulls ("None") after every value, whatever the engine does. */
const nullsLast = (cmp: (a: unknown, b: unknown) => number) => (a: unknown, b: unknown) =>
  isNull(a) || isNull(b) ? (isNull(a) === isNull(b) ? 0 : isNull(a) ? 1 : -1) : cmp(a, b);

/**
 * The order of the groups, key by key: an enum in its declaration order (new, qualified, won,
 * lost: the stages as a pipeline reads, not alphabetically), a Reference by the record name of
 * the record it points to (countries by name, not by id), text as people read it (the list's
 * collation), anything else by value; "None" last.
 */
async function groupComparator(env: Env, model: ResolvedModel, groupby: string[], rows: Row[]): Promise<(a: Row, b: Row) => number> {
  const keys = await Promise.all(groupby.map(async (g): Promise<(a: Row, b: Row) => number> => {
    const f = model.fields.get(g)!;
    if (f.type === 'enum' && f.values) {
      const rank = nullsLast((x, y) => f.values!.indexOf(String(x)) - f.values!.indexOf(String(y)));
      return (a, b) => rank(a[g], b[g]);
    }
    if (f.type === 'reference' && f.target) {
      const target = env.registry.model(f.target);
      const ids = [...new Set(rows.map((r) => r[g]).filter((v): v is string => typeof v === 'string'))];
      // the names are read with the system's rights: only their order is used, never returned
      const named = ids.length
        ? await delegateOf(env.db, target).findMany({ where: { record_uuid: { in: ids } }, select: { record_uuid: true, [target.recordName]: true } })
        : [];
      const nameOf = new Map(named.map((r) => [r.record_uuid as string, r[target.recordName]]));
      const byName = rowComparator(target, [{ [target.recordName]: 'asc' }], env.provider);
      const cmp = nullsLast((x, y) => byName({ [target.recordName]: nameOf.get(String(x)) ?? null }, { [target.recordName]: nameOf.get(String(y)) ?? null }));
      return (a, b) => cmp(a[g], b[g]);
    }
    const byValue = rowComparator(model, [{ [g]: 'asc' }], env.provider);
    return (a, b) => nullsLast(() => byValue(a, b))(a[g], b[g]);
  }));
  return (a, b) => {
    for (const k of keys) {
      const c = k(a, b);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/**
 * `fw.read_group`: one row per distinct combination of `groupby` values with `count` and the
 * requested aggregates as `<field>_<aggregate>`, ordered by the group keys.
 */
export async function readGroup(env: Env, model: ResolvedModel, payload: Record<string, unknown>, where: Where) {
  const groupby = payload.groupby;
  if (!Array.isArray(groupby) || !groupby.length || groupby.some((g) => typeof g !== 'string')) {
    throw bad('groupby must be a non-empty list of field names');
  }
  for (const g of groupby as string[]) {
    const f = model.fields.get(g);
    if (!f?.stored || f.type === 'json' || !canReadField(model, f, env.principal)) throw bad(`cannot group ${model.key} by "${g}"`);
  }
  const aggregates = (payload.aggregates ?? {}) as Record<string, unknown>;
  if (typeof aggregates !== 'object' || Array.isArray(aggregates)) throw bad('aggregates must map field names to sum, avg, min, max or count');
  const args: Record<string, Record<string, true>> = {};
  const wanted: Array<[string, Aggregate]> = [];
  for (const [field, agg] of Object.entries(aggregates)) {
    const f = model.fields.get(field);
    if (!f?.stored || !canReadField(model, f, env.principal)) throw bad(`${model.key} has no field "${field}" to aggregate`);
    if (!AGGREGATES.includes(agg as Aggregate)) throw bad(`unknown aggregate "${String(agg)}" for ${field}; use ${AGGREGATES.join(', ')}`);
    const a = agg as Aggregate;
    if ((a === 'sum' || a === 'avg') && !NUMERIC.has(f.type)) throw bad(`${a} needs a numeric field; ${field} is ${f.type}`);
    if ((a === 'min' || a === 'max') && !ORDERED.has(f.type)) throw bad(`${a} needs an ordered field; ${field} is ${f.type}`);
    const key = `_${a}`;
    args[key] = { ...(args[key] ?? {}), [field]: true };
    wanted.push([field, a]);
  }
  const order = (groupby as string[]).map((g) => ({ [g]: 'asc' as const }));
  const rows: Row[] = await delegateOf(env.db, model).groupBy({
    by: groupby,
    where,
    ...args,
    // a `count` aggregate adds to _count; it must not replace the group's own _all count
    _count: { ...(args._count ?? {}), _all: true },
    orderBy: order,
  });
  // groups come in the order people expect of each key, not the database's: there is no paging,
  // so they are sorted here (see groupComparator)
  rows.sort(await groupComparator(env, model, groupby as string[], rows));
  const groups = rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const g of groupby as string[]) out[g] = r[g] instanceof Date ? (r[g] as Date).toISOString() : r[g];
    out.count = (r._count as { _all: number })._all;
    for (const [field, a] of wanted) {
      const v = (r[`_${a}`] as Record<string, unknown>)[field];
      out[`${field}_${a}`] = v instanceof Date ? v.toISOString() : v ?? null;
    }
    return out;
  });
  return { groups };
}
