import type pg from 'pg';
import type { Reader } from '../types.js';

/**
 * Reads on the same pool the Prisma adapter uses (one pool per tenant database), with rows as
 * arrays. Unnamed statements: the server plans each one, and no per-connection statement
 * bookkeeping can go stale when a migration changes a table.
 */
export function createPostgresReader(pool: pg.Pool): Reader {
  return {
    async rows(sql, params) {
      const r = await pool.query({ text: sql, values: params as unknown[], rowMode: 'array' });
      return r.rows as unknown[][];
    },
    // no cheap "has anything committed?" check on PostgreSQL, so results are never kept
    stats: () => ({ hits: 0, misses: 0 }),
    async close() {
      await pool.end();
    },
  };
}
