import { LRUCache } from 'lru-cache';

/**
 * Read results kept by statement text and values, `maxRows` rows in all (LRU). Both readers use
 * it the same way: a result is stored under the database state ("version") its reader checked
 * before running the statement, and handed out again only to reads whose own check saw that same
 * version. How a version is read is the engine's business (see each reader).
 */
export interface ResultCache {
  /** Rows kept for a statement (its `statementKey`) at `version`; a different version empties the cache first. */
  get(version: string | number, key: string): unknown[][] | undefined;
  /** Keeps rows read after a check that saw `version`; dropped if the cache has moved on since. */
  set(version: string | number, key: string, rows: unknown[][]): void;
  stats(): { hits: number; misses: number };
  clear(): void;
}

/** One key per statement text and values. */
export const statementKey = (sql: string, params: readonly unknown[]): string => `${sql}\u0000${JSON.stringify(params)}`;

export function createResultCache(maxRows: number): ResultCache {
  const results = new LRUCache<string, unknown[][]>({ maxSize: maxRows, sizeCalculation: (rows) => rows.length + 1 });
  let current: string | number | undefined;
  let hits = 0;
  let misses = 0;

  return {
    get(version, key) {
      if (version !== current) {
        results.clear();
        current = version;
      }
      const rows = results.get(key);
      if (rows) hits++;
      else misses++;
      return rows;
    },
    set(version, key, rows) {
      if (version === current) results.set(key, rows);
    },
    stats: () => ({ hits, misses }),
    clear: () => results.clear(),
  };
}
