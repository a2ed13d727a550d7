/**
 * Compiled statements inside a SQLite write transaction, on the transaction's own connection.
 *
 * Prisma's SQLite adapter holds one better-sqlite3 connection per tenant and runs an
 * interactive transaction as BEGIN … COMMIT on it, with a mutex that keeps other transactions
 * out until it ends. A statement run directly on that connection while the transaction's
 * callback runs is therefore part of the transaction: it sees the transaction's writes, its own
 * writes commit or roll back with it, and sort indexes are kept (`fw_sortkey` is registered on
 * the connection, ./clients.ts). What it saves is Prisma's own cost per query: ~290 µs of CPU
 * for a findFirst and ~400 µs for an update, against ~10–30 µs for the same statements
 * prepared once (docs/performance.md, issue 30).
 *
 * The kernel binds the transaction client it hands a write command (`env.db`) to a Reader on
 * that connection; commands that know how look it up by `env.db`. A client nobody bound (a
 * PostgreSQL transaction, a savepoint, an env whose effects are guarded, which wraps `env.db`)
 * finds none and keeps to Prisma.
 */
import type { Reader } from './readers/types.js';

const bound = new WeakMap<object, Reader>();

/** Statements run through `sql` are part of the transaction `tx` stands for. */
export function bindTransactionSql(tx: object, sql: Reader): void {
  bound.set(tx, sql);
}

/** The statements of the transaction `db` stands for, if it was bound (else use Prisma). */
export function transactionSql(db: object): Reader | undefined {
  return bound.get(db);
}
