/**
 * A tenant's read connection for commands that run outside a transaction (searches, counts,
 * reads by id). Rows come back as arrays in select order, which skips building an object per
 * row that the record builder would copy anyway.
 */
export interface Reader {
  /** Rows of a statement; callers never mutate them (a cached result is handed out again). */
  rows(sql: string, params: readonly unknown[]): Promise<unknown[][]>;
  /** Result-cache counters since the reader opened (zero where there is no cache). */
  stats(): { hits: number; misses: number };
  close(): Promise<void>;
}
