import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { RootDbClient } from '../env.js';

/**
 * PostgreSQL: Prisma clients shared by the tenants of a process, lent to one tenant at a time.
 *
 * A Prisma 7 client costs about 3.5 MB whatever database it talks to (its engine deserialises the
 * schema's parameter graph, about 22,000 objects, and its query compiler parses the schema into
 * WebAssembly memory), so one client per open tenant made 4 MB per tenant that had logged in once
 * (bench workload 15). Nothing of it depends on the tenant but the pool its adapter sends SQL to.
 * So a client's adapter is given a `RoutingPool`, and the client is lent to a tenant while that
 * tenant runs commands: `TenantDatabases.hold` runs them inside the tenant's scope, the first
 * use of the tenant's client there borrows one (binding its routing pool to the tenant's pool),
 * and the last holder leaving gives it back. Clients in use at once are about the tenants with a
 * command in flight at once, not the tenants open.
 *
 * Why lent exclusively rather than one client routing every query by the caller's scope: Prisma
 * merges `findUnique` calls of one tick into one query (its DataLoader), and that query would run
 * in the first caller's scope; with one tenant per client at a time, whatever Prisma merges is
 * one tenant's.
 *
 * The guard: a routing pool refuses a query made outside the scope of the tenant it is bound to
 * (a reference to a client kept past its command, used after the client went to another tenant),
 * instead of sending it to the wrong database. Code that uses a tenant's client without holding
 * it (tests, scripts) makes the loan sticky: the client stays with that tenant until its
 * connection closes, as a per-tenant client did.
 */

/** The tenant pool whose commands run now (set by `TenantDatabases.hold` through `inScope`). */
const scope = new AsyncLocalStorage<pg.Pool>();

export function inScope<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  // awaited inside the scope: a Prisma query is a lazy promise that runs when `then` is called
  return scope.getStore() === pool ? fn() : scope.run(pool, async () => await fn());
}

interface Binding { pool: pg.Pool; location: string; sticky: boolean }

/**
 * What a shared client's adapter sees as its pool (PrismaPg wants a `pg.Pool`): every query and
 * transaction goes to the pool of the tenant the client is lent to. It never opens a connection
 * of its own.
 */
export class RoutingPool extends pg.Pool {
  binding: Binding | null = null;

  constructor() {
    super({ max: 1 });
  }

  private target(): pg.Pool {
    const b = this.binding;
    if (!b) throw new Error('a shared Prisma client was used after it was given back (a client kept past its command?)');
    if (!b.sticky && scope.getStore() !== b.pool) {
      throw new Error(`a Prisma client lent to ${b.location} was used outside that tenant's commands; refused rather than sent to another database`);
    }
    return b.pool;
  }

  override query(...args: unknown[]): never {
    const pool = this.target();
    return Reflect.apply(pool.query, pool, args) as never;
  }

  override connect(...args: unknown[]): never {
    const pool = this.target();
    return Reflect.apply(pool.connect, pool, args) as never;
  }
}

export interface SharedClient { client: RootDbClient; routing: RoutingPool }

/** How long a client beyond the spares stays unused before it is closed (a burst's clients serve the next burst). */
const EXTRA_IDLE_MS = 30_000;

export class SharedPrismaClients {
  /** unused clients, the most recently given back last */
  private readonly spare: Array<SharedClient & { since: number }> = [];
  private lent = 0;
  private built = 0;
  private readonly trimTimer: NodeJS.Timeout;

  /**
   * `make` builds a client on the given routing pool. `spareMax` unused clients are kept for good;
   * more (after a burst of tenants at once) are kept while they were used within EXTRA_IDLE_MS,
   * since building one costs about 50 ms and 3.5 MB, and closed after.
   */
  constructor(private readonly make: (routing: RoutingPool) => RootDbClient, private readonly spareMax: number) {
    this.trimTimer = setInterval(() => this.trim(), EXTRA_IDLE_MS);
    this.trimTimer.unref();
  }

  borrow(pool: pg.Pool, location: string, sticky: boolean): SharedClient {
    let c: SharedClient | undefined = this.spare.pop();
    if (!c) {
      const routing = new RoutingPool();
      c = { client: this.make(routing), routing };
      this.built++;
    }
    c.routing.binding = { pool, location, sticky };
    this.lent++;
    return { client: c.client, routing: c.routing };
  }

  giveBack(c: SharedClient): void {
    c.routing.binding = null;
    this.lent--;
    this.spare.push({ ...c, since: Date.now() });
  }

  /** Closes the unused clients beyond `spareMax` that nobody borrowed for EXTRA_IDLE_MS (the oldest first). */
  trim(now = Date.now()): void {
    while (this.spare.length > this.spareMax && now - this.spare[0]!.since >= EXTRA_IDLE_MS) {
      const [old] = this.spare.splice(0, 1);
      void old!.client.$disconnect().catch(() => undefined);
    }
  }

  /** Clients lent now, kept unused, and built since the start (tests, the benchmark). */
  stats(): { lent: number; spare: number; built: number } {
    return { lent: this.lent, spare: this.spare.length, built: this.built };
  }

  async close(): Promise<void> {
    clearInterval(this.trimTimer);
    const all = this.spare.splice(0);
    await Promise.all(all.map((c) => c.client.$disconnect().catch(() => undefined)));
  }
}

/**
 * A tenant's client on PostgreSQL: borrows a shared client on first use inside the tenant's
 * scope and gives it back through `release` (called when the last holder leaves). Used outside
 * the scope, the loan becomes sticky and lasts until `$disconnect`.
 */
export function lentClient(shared: SharedPrismaClients, pool: pg.Pool, location: string): { client: RootDbClient; release(): void } {
  let loan: SharedClient | null = null;
  /** The client lent to this tenant now, borrowing one if it has none. */
  const real = (): Record<PropertyKey, unknown> => {
    const held = scope.getStore() === pool;
    if (!loan) loan = shared.borrow(pool, location, !held);
    else if (!held) loan.routing.binding!.sticky = true;
    return loan.client as unknown as Record<PropertyKey, unknown>;
  };
  // a model delegate (`client.resUser`) kept and called later resolves the loan again at each
  // call, so it keeps talking to this tenant's database whichever client is lent by then
  const delegates = new Map<PropertyKey, object>();
  const delegate = (prop: PropertyKey): object => {
    let d = delegates.get(prop);
    if (!d) {
      d = new Proxy({}, {
        get(_target, method) {
          const target = real()[prop] as Record<PropertyKey, unknown>;
          const value = target[method];
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      delegates.set(prop, d);
    }
    return d;
  };
  const client = new Proxy({} as RootDbClient, {
    get(_target, prop) {
      // `then` stays absent so the proxy is not mistaken for a promise when an async function returns it
      if (prop === 'then') return undefined;
      if (prop === '$disconnect') {
        return () => {
          if (loan) shared.giveBack(loan);
          loan = null;
          return Promise.resolve();
        };
      }
      const target = real();
      const value = target[prop];
      if (typeof value === 'function') return value.bind(target);
      return value !== null && typeof value === 'object' && typeof prop === 'string' && !prop.startsWith('$') ? delegate(prop) : value;
    },
  });
  return {
    client,
    release() {
      if (!loan || loan.routing.binding?.sticky) return;
      shared.giveBack(loan);
      loan = null;
    },
  };
}
