/**
 * Compiled statements inside a write transaction, on the transaction's own connection.
 *
 * SQLite: Prisma's adapter holds one better-sqlite3 connection per tenant and runs an
 * interactive transaction as BEGIN … COMMIT on it, with a mutex that keeps other transactions
 * out until it ends. A statement run directly on that connection while the transaction's
 * callback runs is therefore part of the transaction: it sees the transaction's writes, its own
 * writes commit or roll back with it, and sort indexes are kept (`fw_sortkey` is registered on
 * the connection, ./clients.ts).
 *
 * PostgreSQL: Prisma's adapter takes a pool connection for each transaction, sends BEGIN on it,
 * and sends every query of the transaction there until COMMIT or ROLLBACK hands it back. The
 * adapter is wrapped (./clients.ts) so that the connection it opens a transaction on is noted
 * for the `$transaction` call that asked for it (`openingTransaction`, an async context per
 * call, so concurrent transactions never see each other's); statements sent on it while the
 * callback runs are part of the transaction, queued behind Prisma's own on that connection.
 * (Only PostgreSQL's transactions are opened in such a context: on Node 20 an AsyncLocalStorage,
 * once run, has every promise of the process tracked, which PostgreSQL's tenant scopes pay
 * already and SQLite's requests would pay for nothing.)
 *
 * What it saves is Prisma's own cost per query: ~290 µs of CPU for a findFirst and ~400 µs for
 * an update on SQLite, against ~10–30 µs for the same statements prepared once
 * (docs/performance.md, issue 30).
 *
 * The kernel binds the transaction client it hands a write command (`env.db`) to a Reader on
 * that connection; commands that know how look it up by `env.db`. A client nobody bound (a
 * savepoint, an env whose effects are guarded, which wraps `env.db`) finds none and keeps to
 * Prisma.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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

/** The connection a `$transaction` call's adapter opened its transaction on (PostgreSQL). */
const opening = new AsyncLocalStorage<{ connection?: unknown }>();

/**
 * Runs `open` (a Prisma `$transaction` call) in a context of its own, in which the adapter notes
 * the connection it begins the transaction on; its callback, which runs in the same context,
 * finds it with `openedConnection`.
 */
export function openingTransaction<T>(open: () => Promise<T>): Promise<T> {
  return opening.run({}, open);
}

/**
 * Called by the wrapped adapter when it has begun a transaction on `connection`. Only the first
 * is kept: a transaction another command opens from inside this one's callback runs its own
 * `openingTransaction`, and one opened without it (a script's `$transaction`) must not replace it.
 */
export function noteTransactionConnection(connection: unknown): void {
  const store = opening.getStore();
  if (store && store.connection === undefined) store.connection = connection;
}

/** The connection noted for the `$transaction` whose callback runs now, if any. */
export function openedConnection(): unknown {
  return opening.getStore()?.connection;
}
