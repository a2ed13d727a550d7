import pg from 'pg';
import type { ResolvedField } from '../../registry/model.js';

export type Dialect = 'sqlite' | 'postgresql';

/**
 * A filter value as the column stores it. On SQLite this must match what Prisma's
 * better-sqlite3 adapter writes (ISO text with `+00:00`, booleans as 1/0), or comparisons
 * between the two paths would disagree.
 */
export function encodeValue(field: ResolvedField, v: unknown, dialect: Dialect): unknown {
  if (dialect === 'postgresql') return v;
  if (v instanceof Date) return v.toISOString().replace('Z', '+00:00');
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (field.type === 'json' && v !== null && typeof v === 'object') return JSON.stringify(v);
  return v;
}

type Decode = (v: unknown) => unknown;

const isoFromSqlite = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  // the adapter's format, `2026-01-02T03:04:05.678+00:00`, becomes `…678Z` without a Date
  if (v.length === 29 && v.endsWith('+00:00')) return `${v.slice(0, 23)}Z`;
  // a date-time without a zone (SQLite's CURRENT_TIMESTAMP, text another tool wrote) is UTC,
  // whatever the process's time zone; anything else names its own instant
  const d = new Date(NO_ZONE.test(v) ? `${v.replace(' ', 'T')}Z` : v);
  return Number.isNaN(d.getTime()) ? v : d.toISOString();
};
const NO_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;
const PG_UTC = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?\+00$/;

/**
 * PostgreSQL's text for a timestamptz (the reader keeps it as text): `2026-01-02 03:04:05.67+00`
 * in a UTC session becomes `2026-01-02T03:04:05.670Z` without a Date; another session time zone,
 * or anything unusual, goes through pg's own parser.
 */
export const isoFromPostgres = (v: unknown): unknown => {
  if (typeof v !== 'string') return v instanceof Date ? v.toISOString() : v;
  const m = PG_UTC.exec(v);
  if (m) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  const d = parseTimestamptz(v);
  return d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : v;
};

/** How one column read back becomes the value a record carries (same output as `toRecord`). */
export function decoderOf(field: ResolvedField, dialect: Dialect): Decode | null {
  switch (field.type) {
    case 'datetime':
      return dialect === 'sqlite' ? isoFromSqlite : isoFromPostgres;
    case 'boolean':
      // a boolean declared without required/default is a nullable column: null stays null
      return dialect === 'sqlite' ? (v) => (v === null ? null : v === 1) : null;
    case 'json':
      // both readers hand json over as text (PostgreSQL's keeps it so), so every record gets
      // an object of its own even when the row came from the read cache
      return (v) => (typeof v === 'string' ? JSON.parse(v) : v);
    default:
      // text, numbers and ids come back as they are (integers are 32-bit, so never bigint)
      return null;
  }
}
