import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { registerSortKey } from '../../../data/collation.js';
import { createResultCache, statementKey } from '../result-cache.js';
import type { Reader } from '../types.js';

type Statement = Database.Statement<unknown[], unknown[]>;

/**
 * Runs statements on `db`, keeping each prepared statement by its SQL text (the compiler gives
 * one text per query shape), which Prisma's adapter does not do. Rows come as arrays; a
 * statement that returns no rows (an UPDATE without RETURNING) gives none.
 */
export function statementRunner(db: Database.Database, max: number): { run(sql: string, params: readonly unknown[]): unknown[][]; clear(): void } {
  const statements = new LRUCache<string, Statement>({ max });
  return {
    run(sql, params) {
      let st = statements.get(sql);
      if (!st) {
        st = db.prepare<unknown[], unknown[]>(sql);
        // numbers, not BigInts, whatever the connection's default (Prisma's adapter turns
        // BigInts on for its connection): integers are 32-bit, ids far below 2^53
        if (st.reader) st.raw(true).safeIntegers(false);
        statements.set(sql, st);
      }
      if (!st.reader) {
        st.run(...params);
        return [];
      }
      return st.all(...params);
    },
    clear: () => statements.clear(),
  };
}

/**
 * Statements on a connection someone else owns (the one Prisma's SQLite adapter holds, for its
 * transactions: src/kernel/db/transaction-sql.ts): prepared statements kept, no result cache,
 * and closing it only drops the statements.
 */
export function createConnectionReader(db: Database.Database, statements = 200): Reader {
  const { run, clear } = statementRunner(db, statements);
  return {
    rows(sql, params) {
      try {
        return Promise.resolve(run(sql, params));
      } catch (err) {
        return Promise.reject(err);
      }
    },
    stats: () => ({ hits: 0, misses: 0 }),
    close: () => Promise.resolve(clear()),
  };
}

/**
 * A second, read-only connection to the tenant's file. WAL lets it read the last committed
 * state while the Prisma connection writes, and its prepared statements are kept by SQL text
 * (the compiler gives one text per query shape), which Prisma's adapter does not do.
 *
 * Results are kept too (`cacheRows` rows in all), and handed out again only while the database
 * is unchanged: `PRAGMA data_version` on this connection changes whenever any other connection
 * (the Prisma client, another process, a migration) commits, and since this one never writes,
 * every commit is another's. The check runs before every read, in the same synchronous call, so
 * a cached result is never older than the last commit seen.
 */
export function createSqliteReader(file: string, opts: { statements?: number; busyTimeoutMs?: number; cacheRows?: number } = {}): Reader {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs ?? 10_000 });
  // SQLite has no ICU and better-sqlite3 no custom collations: text is ordered by this key
  // (read from a sort index where the order has one, src/kernel/db/sort-indexes.ts)
  registerSortKey(db);
  const { run, clear } = statementRunner(db, opts.statements ?? 200);
  const results = (opts.cacheRows ?? 0) > 0 ? createResultCache(opts.cacheRows!) : null;
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();

  return {
    rows(sql, params) {
      try {
        if (!results) return Promise.resolve(run(sql, params));
        const version = dataVersion.get()!;
        const key = statementKey(sql, params);
        let rows = results.get(version, key);
        if (!rows) {
          rows = run(sql, params);
          results.set(version, key, rows);
        }
        return Promise.resolve(rows);
      } catch (err) {
        return Promise.reject(err);
      }
    },
    stats: () => results?.stats() ?? { hits: 0, misses: 0 },
    close() {
      clear();
      results?.clear();
      db.close();
      return Promise.resolve();
    },
  };
}
