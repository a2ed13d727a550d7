/**
 * Ordering rows in JavaScript exactly as the engine's compiled ORDER BY does, for the reads
 * that cannot ask the database: Prisma can name neither a collation, a function nor an enum's
 * declaration order, so an ordered read inside a transaction and read_group's groups are sorted
 * here.
 */
import type { ResolvedModel } from '../registry/model.js';
import { COLLATED_TYPES, textComparator } from './collation.js';
import type { Dialect } from './sql/values.js';

type Row = Record<string, unknown>;
export type OrderItem = Record<string, 'asc' | 'desc'>;

/** Whether `field` is sorted by the collation (a name that is no field is not). */
const collated = (model: ResolvedModel, field: string): boolean => COLLATED_TYPES.has(model.fields.get(field)?.type ?? '');

/** An enum field, sorted by its declaration order (its values' rank), not by the values' bytes. */
const ranked = (model: ResolvedModel, field: string): readonly string[] | null => {
  const f = model.fields.get(field);
  return f?.type === 'enum' && f.values ? f.values : null;
};

/**
 * Whether `order` names a text field (needs the collation) or an enum (needs its declaration
 * order): Prisma can order by neither as the compiled read does, so such rows are sorted here.
 */
export function ordersInJavaScript(model: ResolvedModel, order: OrderItem[]): boolean {
  return order.some((o) => collated(model, Object.keys(o)[0]) || ranked(model, Object.keys(o)[0]) !== null);
}

const natural = (a: unknown, b: unknown): number => {
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  // ids: by their bytes, as the reader orders them; booleans too, as 'false'
  // sorts before 'true' just as false (0) before true (1)
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
};

/**
 * A comparator of rows (field → value) for `order`. NULL sorts as each engine sorts it by
 * default: first in ascending order on SQLite, last on PostgreSQL.
 */
export function rowComparator(model: ResolvedModel, order: OrderItem[], dialect: Dialect): (a: Row, b: Row) => number {
  // one comparator for the whole sort: on SQLite it keys each distinct text once
  const text = textComparator(dialect);
  const nullFirst = dialect === 'sqlite' ? -1 : 1;
  const items = order.map((o) => {
    const [field, dir] = Object.entries(o)[0];
    const values = ranked(model, field);
    // an enum compares by its value's rank; a value no longer declared ranks NULL, as in the
    // compiled CASE (src/kernel/data/sql/compile.ts)
    const key = values ? (v: unknown) => (v === null || v === undefined || !values.includes(String(v)) ? null : values.indexOf(String(v))) : null;
    const compare = collated(model, field) ? (a: unknown, b: unknown) => text(String(a), String(b)) : natural;
    return { field, key, sign: dir === 'desc' ? -1 : 1, compare };
  });
  return (a, b) => {
    for (const { field, key, sign, compare } of items) {
      const x = key ? key(a[field]) : a[field];
      const y = key ? key(b[field]) : b[field];
      const xNull = x === null || x === undefined;
      const yNull = y === null || y === undefined;
      const c = xNull || yNull ? (xNull === yNull ? 0 : xNull ? nullFirst : -nullFirst) : compare(x, y);
      if (c !== 0) return sign * c;
    }
    return 0;
  };
}
