import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { RootDbClient } from '../env.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import type { Settings } from '../settings.js';
import type { ConnectionBudget } from './budget.js';
import { createPostgresReader } from './readers/postgresql/index.js';
import { createSqliteReader } from './readers/sqlite/index.js';
import type { Reader } from './readers/types.js';

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
}

/**
 * On PostgreSQL the tenant's pool opens its connections through `budget` (the process-wide
 * PG_MAX_CONNECTIONS_PER_PROCESS, ./budget.ts); without one (CLI paths) the pool is bounded by
 * PG_POOL_MAX alone.
 */
export async function createConnection(provider: DbProvider, location: string, settings: Settings, clientsDir: string, budget?: ConnectionBudget): Promise<TenantConnection> {
  const Ctor = await clientCtor(provider, clientsDir);
  let makeAdapter: () => unknown;
  let reader: Reader;
  if (provider === 'sqlite') {
    const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
    makeAdapter = () => new PrismaBetterSqlite3({ url: location, timeout: 10_000 });
    reader = createSqliteReader(location, { cacheRows: settings.READ_CACHE_ROWS });
  } else {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    // one pool per tenant database, shared by Prisma and the reader; the reader's close ends it
    // a connection idle for PG_IDLE_TIMEOUT_MS is closed (pg's default is 10 s too); 0 = never
    const config: pg.PoolConfig = { connectionString: location, max: settings.PG_POOL_MAX, idleTimeoutMillis: settings.PG_IDLE_TIMEOUT_MS };
    const pool = budget ? budget.pool(config) : new pg.Pool(config);
    // An idle connection the server ends (restart, dropped database, admin termination) is
    // emitted here; the pool has already discarded it and opens a new one on the next query.
    // Without a listener the event would crash the process. Prisma's adapter adds its own only
    // once the (lazily built) client connects, so the pool needs one from the start.
    pool.on('error', () => {});
    makeAdapter = () => new PrismaPg(pool);
    const pgReader = createPostgresReader(pool, { cacheRows: settings.READ_CACHE_ROWS });
    reader = {
      rows: (sql, params) => pgReader.rows(sql, params),
      stats: () => pgReader.stats(),
      close: async () => {
        await pgReader.close();
        budget?.forget(pool);
      },
    };
  }
  const client = lazyClient(() => {
    const c = new Ctor({ adapter: makeAdapter(), log: [{ emit: 'event', level: 'query' }] });
    (c as unknown as { $on(e: 'query', fn: (q: { query: string; duration: number }) => void): void })
      .$on('query', (q) => report(q.query, q.duration, location));
    return c;
  });
  return { client, reader: withQueryLog(reader, location) };
}

/**
 * A Prisma client that is built on first use. A client object holds about 2 MB of heap even
 * before its first query, and a tenant that is only read (the reader serves plain reads) never
 * needs one: with 1,000 tenants that is the difference between 2 GB and a few hundred MB.
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
