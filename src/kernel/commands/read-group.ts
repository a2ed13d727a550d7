import { canReadField } from '../access.js';
import { delegateOf } from '../data/delegate.js';
import type { Where } from '../data/domain.js';
import { rowComparator } from '../data/sort-rows.js';
import type { Env } from '../env.js';
import { BadRequest } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';
import { bucketStart, GRANULARITIES, isGranularity, type Granularity } from './date-buckets.js';

const AGGREGATES = ['sum', 'avg', 'min', 'max', 'count'] as const;
type Aggregate = (typeof AGGREGATES)[number];
const NUMERIC = new Set(['integer', 'float']);
const ORDERED = new Set(['integer', 'float', 'datetime', 'char', 'text', 'enum']);

const bad = (message: string, details?: Record<string, unknown>) => new BadRequest(message, details, 'INVALID_GROUPING');

/** One entry of `groupby`: a field, or a datetime field by a granularity (`closed_at:month`). */
interface GroupKey { key: string; field: string; granularity: Granularity | null }

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
async function groupComparator(env: Env, model: ResolvedModel, groupby: GroupKey[], rows: Row[]): Promise<(a: Row, b: Row) => number> {
  const keys = await Promise.all(groupby.map(async ({ key: g, granularity }): Promise<(a: Row, b: Row) => number> => {
    // a bucket's key is the ISO instant it starts at: chronological as text
    if (granularity) {
      const byStart = nullsLast((x, y) => (String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0));
      return (a, b) => byStart(a[g], b[g]);
    }
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
/** `groupby`'s entries, checked: stored, readable, non-JSON fields; a granularity only on a datetime. */
function groupKeys(env: Env, model: ResolvedModel, groupby: unknown): GroupKey[] {
  if (!Array.isArray(groupby) || !groupby.length || groupby.some((g) => typeof g !== 'string')) {
    throw bad('groupby must be a non-empty list of field names');
  }
  return (groupby as string[]).map((key) => {
    const [field, granularity, ...rest] = key.split(':');
    const f = model.fields.get(field);
    if (!f?.stored || f.type === 'json' || !canReadField(model, f, env.principal)) throw bad(`cannot group ${model.key} by "${field}"`);
    if (granularity === undefined) return { key, field, granularity: null };
    if (f.type !== 'datetime') throw bad(`"${key}": only a datetime field groups by a granularity; ${field} is ${f.type}`, { field, granularity });
    if (rest.length || !isGranularity(granularity)) {
      throw bad(`"${key}": unknown granularity "${[granularity, ...rest].join(':')}"; use ${GRANULARITIES.join(', ')}`, { field, granularity, allowed: GRANULARITIES });
    }
    return { key, field, granularity };
  });
}

/** Order of two aggregated values: text by its characters (as the database's min and max), else by number (a Date by its instant). */
const before = (x: unknown, y: unknown): boolean =>
  typeof x === 'string' && typeof y === 'string' ? x < y : Number(x) < Number(y);

/**
 * Rows of a grouping by whole datetime values, merged into their buckets: counts and sums add
 * up, min and max keep the extreme, an average is recomputed from the sum and count of non-null
 * values asked for alongside it (`_avgParts`).
 */
function mergeBuckets(rows: Row[], keys: GroupKey[], wanted: Array<[string, Aggregate]>): Row[] {
  const merged = new Map<string, Row>();
  for (const r of rows) {
    const keyed: Row = {};
    for (const k of keys) keyed[k.key] = k.granularity ? bucketStart(r[k.field], k.granularity) : r[k.field];
    const id = JSON.stringify(keys.map((k) => keyed[k.key]));
    const into = merged.get(id);
    if (!into) {
      merged.set(id, { ...keyed, _count: { ...(r._count as Row) }, _sum: { ...(r._sum as Row) }, _min: { ...(r._min as Row) }, _max: { ...(r._max as Row) }, _avg: {} });
      continue;
    }
    const count = into._count as Record<string, number>;
    for (const [f, n] of Object.entries(r._count as Record<string, number>)) count[f] = (count[f] ?? 0) + n;
    const sum = into._sum as Row;
    for (const [f, v] of Object.entries((r._sum ?? {}) as Row)) if (!isNull(v)) sum[f] = Number(sum[f] ?? 0) + Number(v);
    const pick = (agg: '_min' | '_max', better: (x: unknown, y: unknown) => boolean) => {
      const acc = into[agg] as Row;
      for (const [f, v] of Object.entries((r[agg] ?? {}) as Row)) if (!isNull(v) && (isNull(acc[f]) || better(v, acc[f]))) acc[f] = v;
    };
    pick('_min', (x, y) => before(x, y));
    pick('_max', (x, y) => before(y, x));
  }
  const out = [...merged.values()];
  for (const r of out) {
    for (const [field, a] of wanted) {
      if (a !== 'avg') continue;
      const n = (r._count as Record<string, number>)[field] ?? 0;
      (r._avg as Row)[field] = n ? Number((r._sum as Row)[field]) / n : null;
    }
  }
  return out;
}

/**
 * `fw.read_group`: one row per distinct combination of `groupby` values with `count` and the
 * requested aggregates as `<field>_<aggregate>`, ordered by the group keys. A datetime field
 * may be grouped by a granularity (`closed_at:month`): its key is the start of the bucket (UTC),
 * and such groups come in chronological order.
 */
export async function readGroup(env: Env, model: ResolvedModel, payload: Record<string, unknown>, where: Where) {
  const keys = groupKeys(env, model, payload.groupby);
  const granular = keys.some((k) => k.granularity);
  const aggregates = (payload.aggregates ?? {}) as Record<string, unknown>;
  if (typeof aggregates !== 'object' || Array.isArray(aggregates)) throw bad('aggregates must map field names to sum, avg, min, max or count');
  const args: Record<string, Record<string, true>> = {};
  const wanted: Array<[string, Aggregate]> = [];
  const ask = (a: string, field: string) => { args[`_${a}`] = { ...(args[`_${a}`] ?? {}), [field]: true }; };
  for (const [field, agg] of Object.entries(aggregates)) {
    const f = model.fields.get(field);
    if (!f?.stored || !canReadField(model, f, env.principal)) throw bad(`${model.key} has no field "${field}" to aggregate`);
    if (!AGGREGATES.includes(agg as Aggregate)) throw bad(`unknown aggregate "${String(agg)}" for ${field}; use ${AGGREGATES.join(', ')}`);
    const a = agg as Aggregate;
    if ((a === 'sum' || a === 'avg') && !NUMERIC.has(f.type)) throw bad(`${a} needs a numeric field; ${field} is ${f.type}`);
    if ((a === 'min' || a === 'max') && !ORDERED.has(f.type)) throw bad(`${a} needs an ordered field; ${field} is ${f.type}`);
    // buckets are merged from finer groups: an average is rebuilt from its sum and count
    if (a === 'avg' && granular) { ask('sum', field); ask('count', field); } else ask(a, field);
    wanted.push([field, a]);
  }
  const by = [...new Set(keys.map((k) => k.field))];
  let rows: Row[] = await delegateOf(env.db, model).groupBy({
    by,
    where,
    ...args,
    // a `count` aggregate adds to _count; it must not replace the group's own _all count
    _count: { ...(args._count ?? {}), _all: true },
    orderBy: by.map((g) => ({ [g]: 'asc' as const })),
  });
  if (granular) rows = mergeBuckets(rows, keys, wanted);
  // groups come in the order people expect of each key, not the database's: there is no paging,
  // so they are sorted here (see groupComparator)
  rows.sort(await groupComparator(env, model, keys, rows));
  const groups = rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const { key } of keys) out[key] = r[key] instanceof Date ? (r[key] as Date).toISOString() : r[key];
    out.count = (r._count as { _all: number })._all;
    for (const [field, a] of wanted) {
      const v = (r[`_${a}`] as Record<string, unknown>)[field];
      out[`${field}_${a}`] = v instanceof Date ? v.toISOString() : v ?? null;
    }
    return out;
  });
  return { groups };
}
