import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { registerSortKey, type SqliteFunctionHost } from '../data/collation.js';
import type { RootDbClient } from '../env.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import type { Settings } from '../settings.js';
import type { ConnectionBudget } from './budget.js';
import { createConnectionReader as createPgConnectionReader, createPostgresReader } from './readers/postgresql/index.js';
import { createConnectionReader, createSqliteReader } from './readers/sqlite/index.js';
import type { Reader } from './readers/types.js';
import { inScope, lentClient, type SharedPrismaClients } from './shared-prisma.js';
import { gateOutsideTransactions } from './sqlite-gate.js';
import { noteTransactionConnection, openedConnection, openingTransaction } from './transaction-sql.js';

type ClientCtor = new (opts: { adapter: unknown; log?: unknown[] }) => RootDbClient;

// Loaded lazily so a process only pays for the query compiler of the provider it uses.
const ctors = new Map<string, Promise<ClientCtor>>();

/**
 * The Prisma client generated for the project (`<project>/generated/prisma/<provider>`, written by
 * `fw generate` from every app of the project): a team's project has its own, covering its models.
 */
function clientCtor(provider: DbProvider, clientsDir: string): Promise<ClientCtor> {
  const file = path.join(clientsDir, provider, 'client.ts');
  let c = ctors.get(file);
  if (!c) {
    c = (import(pathToFileURL(file).href) as Promise<{ PrismaClient: unknown }>)
      .then((m) => m.PrismaClient as ClientCtor)
      .catch((err: unknown) => {
        ctors.delete(file);
        throw new Error(`no generated Prisma client at ${file}: run fw generate (${err instanceof Error ? err.message : String(err)})`);
      });
    ctors.set(file, c);
  }
  return c;
}

/**
 * Query listeners (tests counting SQL, the benchmark) see every statement of every tenant, on
 * both paths. A read answered from the reader's result cache is still reported: the N+1 guard
 * counts what a request asks for, cached or not.
 */
export type QueryListener = (e: { query: string; duration: number; tenantLocation: string }) => void;
const listeners = new Set<QueryListener>();
export function onQuery(fn: QueryListener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function report(query: string, duration: number, tenantLocation: string): void {
  for (const fn of listeners) fn({ query, duration, tenantLocation });
}

/** The reader, reporting its statements to the query listeners like Prisma's do. */
function withQueryLog(reader: Reader, location: string): Reader {
  return {
    async rows(sql, params) {
      if (listeners.size === 0) return reader.rows(sql, params);
      const start = performance.now();
      try {
        return await reader.rows(sql, params);
      } finally {
        report(sql, performance.now() - start, location);
      }
    },
    stats: () => reader.stats(),
    close: () => reader.close(),
  };
}

export interface TenantConnection {
  /** Prisma: writes, transactions, and everything that is not a plain read. */
  client: RootDbClient;
  /** Plain reads outside transactions (src/kernel/data/sql). */
  reader: Reader;
  /**
   * Statements on the connection of a Prisma transaction (./transaction-sql.ts). SQLite: the
   * one connection Prisma's transactions run on, once Prisma has opened it. PostgreSQL: the pool
   * connection the transaction whose callback runs now was begun on (`openingTransaction`).
   */
  transactionSql?: () => Reader | undefined;
  /**
   * Opens a write transaction (`open` calls Prisma's `$transaction`) so that `transactionSql`
   * finds its connection: on PostgreSQL in an async context of its own (`openingTransaction`);
   * SQLite needs none (its one connection is known), and calls `open` as it is.
   */
  openTransaction?: <T>(open: () => Promise<T>) => Promise<T>;
  /** Runs `fn` as this tenant's work: on PostgreSQL, in the scope its shared Prisma client is lent to. */
  enter<T>(fn: () => Promise<T>): Promise<T>;
  /** Nobody holds the tenant any more: on PostgreSQL, its shared Prisma client goes back (./shared-prisma.ts). */
  idle(): void;
}

/** The process's shared Prisma clients for PostgreSQL tenants (./shared-prisma.ts), built on demand. */
export async function sharedPrismaClients(clientsDir: string, spareMax: number): Promise<SharedPrismaClients> {
  const [{ SharedPrismaClients }, Ctor, { PrismaPg }] = await Promise.all([
    import('./shared-prisma.js'), clientCtor('postgresql', clientsDir), import('@prisma/adapter-pg'),
  ]);
  return new SharedPrismaClients((routing) => {
    const c = new Ctor({ adapter: withTransactionConnections(new PrismaPg(routing)), log: [{ emit: 'event', level: 'query' }] });
    (c as unknown as { $on(e: 'query', fn: (q: { query: string; duration: number }) => void): void })
      .$on('query', (q) => report(q.query, q.duration, routing.binding?.location ?? ''));
    return c;
  }, spareMax);
}

type PgAdapterFactory = InstanceType<typeof import('@prisma/adapter-pg').PrismaPg>;

const isPgConnection = (x: unknown): x is pg.PoolClient =>
  typeof x === 'object' && x !== null && 'query' in x && typeof x.query === 'function' && 'release' in x;

/**
 * Prisma's PostgreSQL adapter, noting the pool connection each transaction it begins runs on
 * (./transaction-sql.ts). The transaction object it returns keeps the connection as `client`;
 * a Prisma release that renames it fails here, on the first write, instead of quietly sending
 * the compiled statements outside the transaction.
 */
function withTransactionConnections(factory: PgAdapterFactory): Pick<PgAdapterFactory, 'provider' | 'adapterName' | 'connect' | 'connectToShadowDb'> {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      const begin = adapter.startTransaction.bind(adapter);
      adapter.startTransaction = async (isolationLevel) => {
        const tx = await begin(isolationLevel);
        const connection: unknown = 'client' in tx ? tx.client : undefined;
        if (!isPgConnection(connection)) {
          await tx.rollback();
          throw new Error('@prisma/adapter-pg no longer exposes a transaction\'s connection as `client`: compiled writes cannot join its transactions');
        }
        noteTransactionConnection(connection);
        return tx;
      };
      return adapter;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

type SqliteAdapterFactory = InstanceType<typeof import('@prisma/adapter-better-sqlite3').PrismaBetterSqlite3>;

const isFunctionHost = (x: unknown): x is SqliteFunctionHost =>
  typeof x === 'object' && x !== null && 'function' in x && typeof x.function === 'function';

/**
 * Prisma's SQLite adapter, whose connection gets `fw_sortkey`: it writes tables with sort
 * indexes (./sort-indexes.ts), and SQLite computes an index's keys on every insert and update.
 * The adapter opens its better-sqlite3 connection itself and offers no hook, so the connection is
 * taken from the adapter it returns (`client`); a Prisma release that renames it fails here, on
 * the first write, instead of in every write to an indexed table.
 */
function withSortKey(factory: SqliteAdapterFactory, connected: (db: Database.Database) => void): Pick<SqliteAdapterFactory, 'provider' | 'adapterName' | 'connect' | 'connectToShadowDb'> {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      const db: unknown = 'client' in adapter ? adapter.client : undefined;
      if (!isFunctionHost(db)) throw new Error('@prisma/adapter-better-sqlite3 no longer exposes its connection as `client`: fw_sortkey cannot be registered');
      registerSortKey(db);
      if (db instanceof Database) connected(db);
      // queries outside a transaction wait for the open one (./sqlite-gate.ts)
      return gateOutsideTransactions(adapter);
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

/**
 * On PostgreSQL the tenant's pool opens its connections through `budget` (the process-wide
 * PG_MAX_CONNECTIONS_PER_PROCESS, ./budget.ts); without one (CLI paths) the pool is bounded by
 * PG_POOL_MAX alone.
 */
export async function createConnection(provider: DbProvider, location: string, settings: Settings, clientsDir: string, budget?: ConnectionBudget, shared?: Promise<SharedPrismaClients>): Promise<TenantConnection> {
  if (provider === 'sqlite') {
    const Ctor = await clientCtor(provider, clientsDir);
    const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
    const reader = createSqliteReader(location, { cacheRows: settings.READ_CACHE_ROWS });
    // statements on the connection Prisma's adapter holds, for its transactions (./transaction-sql.ts)
    let transactionSql: Reader | undefined;
    const connected = (db: Database.Database) => {
      transactionSql = withQueryLog(createConnectionReader(db), location);
    };
    const client = lazyClient(() => {
      const c = new Ctor({ adapter: withSortKey(new PrismaBetterSqlite3({ url: location, timeout: 10_000 }), connected), log: [{ emit: 'event', level: 'query' }] });
      (c as unknown as { $on(e: 'query', fn: (q: { query: string; duration: number }) => void): void })
        .$on('query', (q) => report(q.query, q.duration, location));
      return c;
    });
    return { client, reader: withQueryLog(reader, location), transactionSql: () => transactionSql, enter: (fn) => fn(), idle: () => {} };
  }
  // one pool per tenant database, shared by Prisma and the reader; the reader's close ends it
  // a connection idle for PG_IDLE_TIMEOUT_MS is closed (pg's default is 10 s too); 0 = never
  const config: pg.PoolConfig = { connectionString: location, max: settings.PG_POOL_MAX, idleTimeoutMillis: settings.PG_IDLE_TIMEOUT_MS };
  const pool = budget ? budget.pool(config) : new pg.Pool(config);
  // the reader listens for the pool's 'error' (a connection ended while the pool holds it)
  const pgReader = createPostgresReader(pool, { cacheRows: settings.READ_CACHE_ROWS, statementsPerConnection: settings.PG_STATEMENT_CACHE });
  const reader: Reader = {
    rows: (sql, params) => pgReader.rows(sql, params),
    stats: () => pgReader.stats(),
    close: async () => {
      await pgReader.close();
      budget?.forget(pool);
    },
  };
  const lent = lentClient(await (shared ?? sharedPrismaClients(clientsDir, 0)), pool, location);
  // statements on the connection of the transaction whose callback runs now (./transaction-sql.ts)
  const transactionSql = () => {
    const connection = openedConnection();
    return isPgConnection(connection) ? withQueryLog(createPgConnectionReader(connection), location) : undefined;
  };
  return {
    client: lent.client, reader: withQueryLog(reader, location), transactionSql, openTransaction: openingTransaction,
    enter: (fn) => inScope(pool, fn), idle: () => lent.release(),
  };
}

/**
 * SQLite: a Prisma client that is built on first use. A client object holds about 3 MB even
 * before its first query, and a tenant that is only read (the reader serves plain reads) never
 * needs one: with 1,000 tenants that is the difference between 3 GB and a few hundred MB.
 * (PostgreSQL tenants borrow shared clients instead: ./shared-prisma.ts.)
 */
function lazyClient(create: () => RootDbClient): RootDbClient {
  let real: RootDbClient | null = null;
  return new Proxy({} as RootDbClient, {
    get(_target, prop) {
      // a never-built client has nothing to close; `then` must stay absent so the proxy is not
      // mistaken for a promise when an async function returns it
      if (prop === '$disconnect' && !real) return () => Promise.resolve();
      if (prop === 'then') return undefined;
      real ??= create();
      const value = (real as unknown as Record<PropertyKey, unknown>)[prop];
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
}

/** Closes Prisma first (it may still hand a pooled connection back), then the reader. */
export async function closeConnection(c: TenantConnection): Promise<void> {
  await c.client.$disconnect();
  await c.reader.close();
}
