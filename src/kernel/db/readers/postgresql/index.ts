import pg from 'pg';
import type { Reader } from '../types.js';

/**
 * timestamptz values stay text (the column decoder turns them into ISO strings): pg's default
 * parser builds a Date per value by regular expression, which the record then prints again; on a
 * PostgreSQL list that was about a tenth of the server's CPU.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (oid === pg.types.builtins.TIMESTAMPTZ ? (text: string) => text : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

/**
 * Reads on the same pool the Prisma adapter uses (one pool per tenant database), with rows as
 * arrays. Unnamed statements: the server plans each one, and no per-connection statement
 * bookkeeping can go stale when a migration changes a table.
 */
export function createPostgresReader(pool: pg.Pool): Reader {
  return {
    async rows(sql, params) {
      const r = await pool.query({ text: sql, values: params as unknown[], rowMode: 'array', types });
      return r.rows as unknown[][];
    },
    // no cheap "has anything committed?" check on PostgreSQL, so results are never kept
    stats: () => ({ hits: 0, misses: 0 }),
    async close() {
      await pool.end();
    },
  };
}
