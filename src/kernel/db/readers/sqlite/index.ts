import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Reader } from '../types.js';

type Statement = Database.Statement<unknown[], unknown[]>;

/**
 * A second, read-only connection to the tenant's file. WAL lets it read the last committed
 * state while the Prisma connection writes, and its prepared statements are kept by SQL text
 * (the compiler gives one text per query shape), which Prisma's adapter does not do.
 */
export function createSqliteReader(file: string, opts: { statements?: number; busyTimeoutMs?: number } = {}): Reader {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs ?? 10_000 });
  const cache = new LRUCache<string, Statement>({ max: opts.statements ?? 200 });
  return {
    rows(sql, params) {
      let st = cache.get(sql);
      if (!st) {
        st = db.prepare<unknown[], unknown[]>(sql).raw(true);
        cache.set(sql, st);
      }
      try {
        return Promise.resolve(st.all(...params));
      } catch (err) {
        return Promise.reject(err);
      }
    },
    close() {
      cache.clear();
      db.close();
      return Promise.resolve();
    },
  };
}
