import type { RootDbClient } from '../env.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import type { Settings } from '../settings.js';

type ClientCtor = new (opts: { adapter: unknown; log?: unknown[] }) => RootDbClient;

// Loaded lazily so a process only pays for the query compiler of the provider it uses.
const ctors = new Map<DbProvider, Promise<ClientCtor>>();

function clientCtor(provider: DbProvider): Promise<ClientCtor> {
  let c = ctors.get(provider);
  if (!c) {
    c = (provider === 'sqlite'
      ? import('../../../generated/prisma/sqlite/client.ts')
      : import('../../../generated/prisma/postgresql/client.ts')
    ).then((m) => m.PrismaClient as unknown as ClientCtor);
    ctors.set(provider, c);
  }
  return c;
}

/** Query listeners (tests counting SQL, the benchmark) see every statement of every tenant. */
export type QueryListener = (e: { query: string; duration: number; tenantLocation: string }) => void;
const listeners = new Set<QueryListener>();
export function onQuery(fn: QueryListener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export async function createClient(provider: DbProvider, location: string, settings: Settings): Promise<RootDbClient> {
  const Ctor = await clientCtor(provider);
  let adapter: unknown;
  if (provider === 'sqlite') {
    const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
    adapter = new PrismaBetterSqlite3({ url: location, timeout: 10_000 });
  } else {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    adapter = new PrismaPg({ connectionString: location, max: settings.PG_POOL_MAX });
  }
  const client = new Ctor({ adapter, log: [{ emit: 'event', level: 'query' }] });
  (client as unknown as { $on(e: 'query', fn: (q: { query: string; duration: number }) => void): void })
    .$on('query', (q) => {
      for (const fn of listeners) fn({ query: q.query, duration: q.duration, tenantLocation: location });
    });
  return client;
}
