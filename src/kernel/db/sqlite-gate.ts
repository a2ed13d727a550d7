/**
 * SQLite: Prisma's adapter runs every query of a tenant on one better-sqlite3 connection, its
 * transactions' and the others'. It serialises transactions (a mutex around BEGIN … COMMIT), but a
 * query made outside any transaction runs at once, on the same connection, so while a transaction
 * is open it reads that transaction's uncommitted rows, and a write it makes becomes part of that
 * transaction and is undone if the transaction rolls back (measured: an outbox row marked
 * delivered by the event worker while a request's write was open came back as due after the
 * request failed, so it would be delivered again). On PostgreSQL each transaction has a pool
 * connection of its own, so this is SQLite's alone.
 *
 * The gate makes a query outside a transaction wait until no transaction is open or about to
 * open: a transaction counts from the call that asks for it (before the adapter's mutex and its
 * BEGIN, so nothing slips in between) until Prisma ends it (`commit` or `rollback` of the
 * adapter's transaction, called after COMMIT or ROLLBACK ran). Queries inside a transaction go
 * through the transaction's own object and never wait. Code inside a transaction must use the transaction's
 * client (`env.db`), as the kernel gives it: the root client there would wait for the end of the
 * transaction it is part of, until Prisma's transaction timeout rolls it back.
 *
 * The compiled reads do not go through this: they use a read-only connection of their own, which
 * sees committed data only (./readers/sqlite).
 */
type SqliteAdapter = Awaited<ReturnType<InstanceType<typeof import('@prisma/adapter-better-sqlite3').PrismaBetterSqlite3>['connect']>>;
type Transaction = Awaited<ReturnType<SqliteAdapter['startTransaction']>>;

/** How long a query waits before the process is warned that it may be waiting for itself. */
export const GATE_WARN_MS = 10_000;

export function gateOutsideTransactions<A extends SqliteAdapter>(adapter: A, warnAfterMs = GATE_WARN_MS): A {
  // transactions begun or waiting for the adapter's mutex to begin; `idle` settles when none is left
  let active = 0;
  let idle: { done: Promise<void>; settle: () => void } | null = null;
  const enter = () => {
    active++;
    if (!idle) {
      let settle!: () => void;
      idle = { done: new Promise<void>((resolve) => { settle = resolve; }), settle };
    }
  };
  const leave = () => {
    if (--active > 0 || !idle) return;
    const was = idle;
    idle = null;
    was.settle();
  };
  // a query that waits long is most likely made inside the transaction it waits for (through the
  // kernel handle instead of ctx.env): said once, as a process warning, rather than left silent
  // until Prisma's transaction timeout
  const waitFor = async () => {
    const warn = setTimeout(() => {
      process.emitWarning(`a Prisma query outside a transaction has waited ${warnAfterMs} ms for a SQLite write transaction to end; if it is made from inside that transaction (the kernel handle instead of the hook's ctx.env), it waits until Prisma's transaction timeout`, { code: 'FW_SQLITE_OUTSIDE_WAIT' });
    }, warnAfterMs);
    warn.unref();
    try {
      while (idle) await idle.done;
    } finally {
      clearTimeout(warn);
    }
  };
  const gated = <Args extends unknown[], R>(fn: (...args: Args) => Promise<R>) => async (...args: Args): Promise<R> => {
    if (idle) await waitFor();
    // no await between the check and the call: the adapter runs the statement synchronously
    return fn(...args);
  };
  adapter.queryRaw = gated(adapter.queryRaw.bind(adapter));
  adapter.executeRaw = gated(adapter.executeRaw.bind(adapter));
  adapter.executeScript = gated(adapter.executeScript.bind(adapter));
  const begin = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    // counted before BEGIN: from the moment BEGIN runs, nothing outside may slip in
    enter();
    let tx: Transaction;
    try {
      tx = await begin(isolationLevel);
    } catch (err) {
      leave();
      throw err;
    }
    let ended = false;
    const closing = (fn: () => Promise<void>) => async () => {
      try {
        await fn();
      } finally {
        if (!ended) {
          ended = true;
          leave();
        }
      }
    };
    tx.commit = closing(tx.commit.bind(tx));
    tx.rollback = closing(tx.rollback.bind(tx));
    return tx;
  };
  return adapter;
}
