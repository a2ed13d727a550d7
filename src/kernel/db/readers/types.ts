/**
 * A tenant's read connection for commands that run outside a transaction (searches, counts,
 * reads by id). Rows come back as arrays in select order, which skips building an object per
 * row that the record builder would copy anyway.
 */
export interface Reader {
  rows(sql: string, params: readonly unknown[]): Promise<unknown[][]>;
  close(): Promise<void>;
}
