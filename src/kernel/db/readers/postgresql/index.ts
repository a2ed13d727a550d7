import pg from 'pg';
import { createResultCache, statementKey } from '../result-cache.js';
import type { Reader } from '../types.js';
import { arrayRows, POOLER_REFUSALS, pooledStatements } from './statements.js';

/**
 * timestamptz values stay text (the column decoder turns them into ISO strings): pg's default
 * parser builds a Date per value by regular expression, which the record then prints again; on a
 * PostgreSQL list that was about a tenth of the server's CPU. json and jsonb stay text too, and
 * the decoder parses them for each record: a kept result is handed out again, and a parsed
 * object in it would be one object shared by every caller, which one of them could change.
 */
const TEXT_OIDS = new Set([pg.types.builtins.TIMESTAMPTZ, pg.types.builtins.JSON, pg.types.builtins.JSONB]);
export const readerTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (TEXT_OIDS.has(oid) ? (text: string) => text : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

/**
 * The version a cached result is checked against. `pg_current_snapshot()` (PostgreSQL 13+) is
 * the server's xmin:xmax:in-progress list; no transaction can commit a change without it
 * changing (a writer gets a transaction id, which moves xmax or sits in the in-progress list
 * until it ends), so two equal snapshots mean nothing was committed in between. It is
 * cluster-wide, so writes to other databases move it too: those cost a miss, never a stale row.
 * What it does not see, and the compiled reads therefore never use: changes outside
 * transactions (`nextval`), and the clock (`now()`). On a hot standby the text leaves out most
 * in-progress ids, so this reader must only ever read from the primary (it shares Prisma's
 * pool, which writes there). Unnamed: it is one short statement, not worth a name per connection.
 */
const SNAPSHOT: pg.QueryArrayConfig = { text: 'SELECT pg_current_snapshot()::text', rowMode: 'array' };

/**
 * A check costs a round trip, and pays only when reads find their result kept: the snapshot is
 * cluster-wide, so steady writes to any database make most checks find a new one, and reads of
 * many different statements between writes (many users on many pages) find nothing kept even
 * when the snapshot holds. So every CHECK_WINDOW checks, if the reads served from the cache since
 * the last window are fewer than half as many as the checks, reads go straight through for
 * BYPASS_MS (always fresh: no cache, no check), then the checks start again.
 */
const CHECK_WINDOW = 16;
const BYPASS_MS = 1000;

/**
 * One snapshot query answers every read that arrived before it was sent: reads that arrive in the
 * same turn of the event loop (concurrent requests) wait for the same check, and a read that
 * arrives after a check was sent waits for the next one, so no read is answered from a state
 * older than its own start. `bypassed()` says whether recent checks were not worth their round
 * trip (above), counted per check, not per read; `hit()` counts a read a check let the cache serve.
 */
function snapshotChecks(pool: pg.Pool): { check(): Promise<string>; bypassed(): boolean; hit(): void } {
  let next: Promise<string> | null = null;
  let checks = 0;
  let hits = 0;
  let bypassUntil = 0;
  const counted = (version: string) => {
    if (++checks >= CHECK_WINDOW) {
      if (hits * 2 < checks) bypassUntil = performance.now() + BYPASS_MS;
      checks = 0;
      hits = 0;
    }
    return version;
  };
  return {
    check() {
      next ??= new Promise<string>((resolve, reject) => {
        setImmediate(() => {
          next = null;
          pool.query<[string]>(SNAPSHOT).then((r) => resolve(counted(r.rows[0]![0])), reject);
        });
      });
      return next;
    },
    bypassed: () => performance.now() < bypassUntil,
    hit: () => { hits++; },
  };
}

/**
 * Statements on a connection someone else holds (the one Prisma's adapter runs a transaction on:
 * src/kernel/db/transaction-sql.ts): rows as arrays, values parsed as the pool reader parses them,
 * no result cache, and closing it leaves the connection to its owner.
 */
export function createConnectionReader(connection: pg.ClientBase): Reader {
  return {
    rows: (sql, params) => arrayRows(connection, sql, params, readerTypes),
    stats: () => ({ hits: 0, misses: 0 }),
    close: () => Promise.resolve(),
  };
}

const ignorePoolError = (): void => {};

/**
 * Reads on the same pool the Prisma adapter uses (one pool per tenant database), with rows as
 * arrays. With `statementsPerConnection` > 0 (PG_STATEMENT_CACHE) the reads are named statements,
 * parsed and planned once per connection (./statements.ts); with 0, unnamed: the server parses
 * and plans each one, as a transaction-mode pooler without prepared-statement support needs.
 *
 * With `cacheRows` > 0, results are kept like SQLite's reader keeps them, and checked against the
 * batched snapshot above instead of `PRAGMA data_version`: a hit costs a share of one small round
 * trip instead of a statement and its rows.
 */
export function createPostgresReader(pool: pg.Pool, opts: { cacheRows?: number; statementsPerConnection?: number } = {}): Reader {
  // The reader owns the pool (its close ends it), so it listens for the pool's 'error': pg-pool
  // emits it for a connection the server or the network ends while the pool holds it, idle or
  // released after a failed read (restart, dropped database, admin termination, a reset socket).
  // The pool has already discarded that connection and opens a new one on the next read; without
  // a listener the event would end the process (Prisma's adapter listens on the shared client's
  // routing pool, not on this one).
  pool.on('error', ignorePoolError);
  const query = pooledStatements(pool, {
    perConnection: opts.statementsPerConnection ?? 0, types: readerTypes,
    onPooler: () => process.emitWarning(`a connection pooler refused named statements ${POOLER_REFUSALS} times (PgBouncer < 1.21 in transaction mode?): this pool's reads are sent unnamed from now on; set PG_STATEMENT_CACHE=0 to start that way`, { code: 'FW_PG_STATEMENTS_UNNAMED' }),
  });
  const results = (opts.cacheRows ?? 0) > 0 ? createResultCache(opts.cacheRows!) : null;
  const snapshots = snapshotChecks(pool);
  // concurrent misses of one statement at one snapshot run it once (a batch of requests that
  // find the cache empty would otherwise all run it)
  const running = new Map<string, Promise<unknown[][]>>();

  return {
    async rows(sql, params) {
      if (!results || snapshots.bypassed()) return query(sql, params);
      const version = await snapshots.check();
      const key = statementKey(sql, params);
      const cached = results.get(version, key);
      if (cached) {
        snapshots.hit();
        return cached;
      }
      const runKey = `${version}\u0000${key}`;
      let pending = running.get(runKey);
      if (!pending) {
        pending = query(sql, params)
          .then((rows) => {
            results.set(version, key, rows);
            return rows;
          })
          .finally(() => running.delete(runKey));
        running.set(runKey, pending);
      }
      return pending;
    },
    stats: () => results?.stats() ?? { hits: 0, misses: 0 },
    async close() {
      results?.clear();
      await pool.end();
    },
  };
}
