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
 * Whether an index hands out rows in exactly this order, so that a database reading it stops
 * after the page: the sort index's columns, each ascending, then `dbid` ascending (the order
 * the index holds: SQLite's end with the rowid, which `dbid` is, PostgreSQL's with `dbid`), or
 * `dbid` alone (the primary key). Any other order is sorted after reading.
 */
export function orderServedByIndex(model: ResolvedModel, orderBy: ReadonlyArray<Record<string, 'asc' | 'desc'>>): boolean {
  if (orderBy.length === 1) return isTerm(orderBy[0]!, 'dbid', 'asc') || isTerm(orderBy[0]!, 'dbid', 'desc');
  const columns = sortIndexColumns(model);
  if (!columns || orderBy.length !== columns.length + 1) return false;
  return columns.every((c, i) => isTerm(orderBy[i]!, c.column, 'asc')) && isTerm(orderBy[columns.length]!, 'dbid', 'asc');
}
