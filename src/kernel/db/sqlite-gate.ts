/**
 * SQLite: Prisma's adapter runs every query of a tenant on one better-sqlite3 connection, its
 * transactions' and the others'. It serialises transactions (a mutex around BEGIN … COMMIT), but a
 * query made outside any transaction runs at once, on the same connection, so while a transaction
 * is open it reads that transaction's uncommitted rows, and a write it makes becomes part of that
 * transaction and is undone if the transaction rolls back (measured: an outbox row marked
 * delivered by the event worker while a request's write was open came back as due after the
 * request failed, and was delivered again). On PostgreSQL each transaction has a pool connection
 * of its own, so this is SQLite's alone.
 *
 * The gate makes a query outside a transaction wait until no transaction is open: a transaction
 * is open from its BEGIN until Prisma ends it (`commit` or `rollback` of the adapter's
 * transaction, called after COMMIT or ROLLBACK ran). Queries inside a transaction go through the
 * transaction's own object and never wait. Code inside a transaction must use the transaction's
 * client (`env.db`), as the kernel gives it: the root client there would wait for the end of the
 * transaction it is part of, until Prisma's transaction timeout rolls it back.
 *
 * The compiled reads do not go through this: they use a read-only connection of their own, which
 * sees committed data only (./readers/sqlite).
 */
type SqliteAdapter = Awaited<ReturnType<InstanceType<typeof import('@prisma/adapter-better-sqlite3').PrismaBetterSqlite3>['connect']>>;
type Transaction = Awaited<ReturnType<SqliteAdapter['startTransaction']>>;

export function gateOutsideTransactions<A extends SqliteAdapter>(adapter: A): A {
  // the end of the open transaction, while one is open
  let open: Promise<void> | null = null;
  const settled = async () => {
    while (open) await open;
  };
  const gated = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    if (open) await settled();
    // no await between the check and the call: the adapter runs the statement synchronously
    return fn(...args);
  };
  adapter.queryRaw = gated(adapter.queryRaw.bind(adapter));
  adapter.executeRaw = gated(adapter.executeRaw.bind(adapter));
  adapter.executeScript = gated(adapter.executeScript.bind(adapter));
  const begin = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const tx = await begin(isolationLevel);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => { end = resolve; });
    open = ended;
    const finish = () => {
      if (open === ended) open = null;
      end();
    };
    const closing = (fn: () => Promise<void>) => async () => {
      try {
        await fn();
      } finally {
        finish();
      }
    };
    const t: Transaction = tx;
    t.commit = closing(tx.commit.bind(tx));
    t.rollback = closing(tx.rollback.bind(tx));
    return t;
  };
  return adapter;
}
