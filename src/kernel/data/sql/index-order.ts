/**
 * Which orders a model's sort index serves (pure; src/kernel/db/sort-indexes.ts builds the
 * indexes from the same columns, compile.ts chooses a statement's shape by them).
 */
import type { ResolvedModel } from '../../registry/model.js';
import { COLLATED_TYPES } from '../collation.js';

export interface SortIndexColumn { column: string; sortKey: boolean }

/**
 * The leading terms of the model's default order that its sort index holds: plain columns up to
 * the last text one (`sortKey`). Enum terms sort by a CASE expression and `dbid` is the
 * tie-break every index ends with, so either ends the columns. Null: no text column among them,
 * so no sort index.
 */
export function sortIndexColumns(model: ResolvedModel): SortIndexColumn[] | null {
  const columns: SortIndexColumn[] = [];
  for (const o of model.defaultOrder) {
    const f = model.fields.get(o.field);
    if (!f || !f.stored || o.field === 'dbid' || f.type === 'enum' || f.type === 'json') break;
    columns.push({ column: o.field, sortKey: COLLATED_TYPES.has(f.type) });
  }
  const last = columns.map((c) => c.sortKey).lastIndexOf(true);
  return last < 0 ? null : columns.slice(0, last + 1);
}

const isTerm = (o: Record<string, 'asc' | 'desc'>, field: string, dir: 'asc' | 'desc') => {
  const keys = Object.keys(o);
  return keys.length === 1 && keys[0] === field && o[field] === dir;
};

/**
 * Whether an index hands out rows in this order, so that a database reading it stops after the
 * page: `dbid` alone (the primary key), or the sort index's columns all ascending or all
 * descending (the index read forwards or backwards) and then `dbid` either way. The index ends
 * with `dbid` (SQLite's with the rowid, which `dbid` is; PostgreSQL's with `dbid`); when the
 * tie-break runs against the read, each group of equal keys is sorted on its own as it is read
 * (SQLite's "temp b-tree for last term", PostgreSQL's incremental sort), which still stops with
 * the page. Mixed directions, or any other order, are sorted after reading every row.
 */
export function orderServedByIndex(model: ResolvedModel, orderBy: ReadonlyArray<Record<string, 'asc' | 'desc'>>): boolean {
  if (orderBy.length === 1) return isTerm(orderBy[0]!, 'dbid', 'asc') || isTerm(orderBy[0]!, 'dbid', 'desc');
  const columns = sortIndexColumns(model);
  if (!columns || orderBy.length !== columns.length + 1) return false;
  const tieBreak = orderBy[columns.length]!;
  if (!isTerm(tieBreak, 'dbid', 'asc') && !isTerm(tieBreak, 'dbid', 'desc')) return false;
  return (['asc', 'desc'] as const).some((dir) => columns.every((c, i) => isTerm(orderBy[i]!, c.column, dir)));
}
