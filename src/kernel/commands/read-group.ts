import { canReadField } from '../access.js';
import { delegateOf } from '../data/delegate.js';
import type { Where } from '../data/domain.js';
import { ordersByText, rowComparator } from '../data/sort-rows.js';
import type { Env } from '../env.js';
import { BadRequest } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';

const AGGREGATES = ['sum', 'avg', 'min', 'max', 'count'] as const;
type Aggregate = (typeof AGGREGATES)[number];
const NUMERIC = new Set(['integer', 'float']);
const ORDERED = new Set(['integer', 'float', 'datetime', 'char', 'text', 'enum']);

const bad = (message: string) => new BadRequest(message, undefined, 'INVALID_GROUPING');

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
  const rows = await delegateOf(env.db, model).groupBy({
    by: groupby,
    where,
    ...args,
    // a `count` aggregate adds to _count; it must not replace the group's own _all count
    _count: { ...(args._count ?? {}), _all: true },
    orderBy: order,
  });
  // Prisma orders text keys by their bytes; there is no paging, so the groups are re-sorted as
  // people read text, the same order as the list reads (src/kernel/data/collation.ts)
  if (ordersByText(model, order)) rows.sort(rowComparator(model, order, env.provider));
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
