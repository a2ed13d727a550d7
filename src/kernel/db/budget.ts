import pg from 'pg';
import { DatabaseBusy } from '../errors.js';

/**
 * The process's PostgreSQL connection budget (PG_MAX_CONNECTIONS_PER_PROCESS): every tenant's
 * pool opens its connections through it, so the process never holds more than `max`, however
 * many tenants are open. A pool needing a connection when the budget is full:
 *
 * 1. takes the slot of an idle connection: the idle connections of the pool used least recently
 *    are closed first (one per waiting request), and the slot goes to the request that waited
 *    longest;
 * 2. otherwise waits, in arrival order, for a connection of any pool to close (a pool's idle
 *    timeout, a tenant closed, a connection the server ended);
 * 3. after `waitMs`, the connect fails with DatabaseBusy (503 DATABASE_BUSY, Retry-After).
 *
 * A request whose tenant pool is itself full (PG_POOL_MAX connections busy) waits at most `waitMs`
 * for one of them as well, then fails the same way (reason `pool_full`).
 *
 * A connection held by a request or a transaction is never taken away. The budget counts
 * connections from the moment one is asked of the server until it has ended.
 */
export class ConnectionBudget {
  private used = 0;
  private readonly waiters: Array<{ grant: () => void; fail: (err: Error) => void }> = [];
  /** pool → when it last handed out a connection (its place in least-recently-used order) */
  private readonly pools = new Map<pg.Pool, number>();
  /** Idle connections closed for a waiter whose slot has not come back yet. */
  private reclaiming = 0;
  private readonly reclaimed = new WeakSet<pg.ClientBase>();

  constructor(readonly max: number, readonly waitMs: number) {}

  /** Connections open or opening now (tests, diagnostics). */
  inUse(): number {
    return this.used;
  }

  /** Requests waiting for a slot now. */
  waiting(): number {
    return this.waiters.length;
  }

  /** A pg.Pool whose connections are counted against this budget. */
  pool(config: pg.PoolConfig): pg.Pool {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const budget = this;
    let pool: pg.Pool | undefined;
    class BudgetedClient extends pg.Client {
      // the pool connects with a callback; the promise form is kept for completeness
      override connect(): Promise<pg.Client>;
      override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
      override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
        const run = budget.acquire().then(async (release) => {
          let released = false;
          const releaseOnce = () => {
            if (released) return;
            released = true;
            release(this);
          };
          this.once('end', releaseOnce);
          try {
            await super.connect();
          } catch (err) {
            releaseOnce();
            throw err;
          }
          return this as pg.Client;
        });
        if (callback) {
          const cb = callback as (err: Error | null, c?: pg.Client) => void;
          run.then((c) => cb(null, c), (err: Error) => cb(err));
          return;
        }
        return run;
      }
    }
    /**
     * A request finding every connection of its tenant's pool (PG_POOL_MAX) busy waits in
     * pg-pool's queue, which has no bound of its own: that wait is bounded by `waitMs` as the
     * budget's is, so one busy tenant is answered DATABASE_BUSY too instead of piling requests up.
     */
    class BudgetedPool extends pg.Pool {
      override connect(): Promise<pg.PoolClient>;
      override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
      override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
        const internals = this as unknown as { _idle?: unknown[]; _isFull?: () => boolean; _pendingQueue?: Array<{ callback: unknown }> };
        const queued = !this.ending && internals._idle?.length === 0 && internals._isFull?.() === true;
        if (!queued) return callback ? super.connect(callback) : super.connect();
        const waited = new Promise<pg.PoolClient>((resolve, reject) => {
          let timedOut = false;
          const onClient = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => {
            clearTimeout(timer);
            if (timedOut) {
              // handed over after the wait was given up (the queue entry could not be removed)
              if (!err && client) done();
              return;
            }
            if (err || !client) reject(err ?? new Error('pg-pool gave no client'));
            else resolve(client);
          };
          const timer = setTimeout(() => {
            timedOut = true;
            const queue = internals._pendingQueue;
            const i = queue?.findIndex((item) => item.callback === onClient) ?? -1;
            if (i >= 0) queue!.splice(i, 1);
            reject(new DatabaseBusy(
              `no connection of this tenant's pool freed within ${budget.waitMs} ms (PG_POOL_MAX=${config.max ?? 10}, all in use); try again shortly`,
              Math.max(1, Math.ceil(budget.waitMs / 1000)),
              { reason: 'pool_full', pool_max: config.max ?? 10, waited_ms: budget.waitMs },
            ));
          }, budget.waitMs);
          timer.unref?.();
          super.connect(onClient);
        });
        if (!callback) return waited;
        waited.then((client) => callback(undefined, client, (release) => client.release(release as boolean | Error | undefined)), (err: Error) => callback(err, undefined, () => {}));
      }
    }
    pool = new BudgetedPool({ ...config, Client: BudgetedClient as unknown as new () => pg.ClientBase });
    const p = pool;
    this.pools.set(p, Date.now());
    p.on('acquire', () => this.pools.set(p, Date.now()));
    // a connection handed back may now be idle: a waiter of another pool can take its slot (on a
    // later turn, after the pool has given it to its own queued requests, if any)
    p.on('release', () => { if (this.waiters.length) setImmediate(() => this.reclaim()); });
    return p;
  }

  /** Stops tracking a pool that was ended (its connections release their slots as they close). */
  forget(pool: pg.Pool): void {
    this.pools.delete(pool);
  }

  private acquire(): Promise<(client: pg.ClientBase) => void> {
    const release = (client: pg.ClientBase) => this.release(client);
    if (this.used < this.max && this.waiters.length === 0) {
      this.used++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(release);
        },
        fail: (err: Error) => reject(err),
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new DatabaseBusy(
          `no PostgreSQL connection of this process freed within ${this.waitMs} ms (PG_MAX_CONNECTIONS_PER_PROCESS=${this.max}, all in use); try again shortly`,
          Math.max(1, Math.ceil(this.waitMs / 1000)),
          { reason: 'budget_full', max_connections: this.max, waited_ms: this.waitMs },
        ));
      }, this.waitMs);
      timer.unref?.();
      this.waiters.push(waiter);
      this.reclaim();
    });
  }

  /** A connection ended: its slot goes to the longest waiter, or back to the budget. */
  private release(client: pg.ClientBase): void {
    if (this.reclaimed.has(client)) {
      this.reclaimed.delete(client);
      this.reclaiming--;
    }
    const next = this.waiters.shift();
    if (next) next.grant();
    else this.used--;
    if (this.waiters.length) this.reclaim();
  }

  /**
   * Closes idle connections, least recently used pool first, until every waiter has a slot on
   * its way. Uses pg-pool's own removal of an idle client (`_idle`, `_remove`), the path its
   * idle timeout takes, so the pool forgets the connection before it ends.
   */
  private reclaim(): void {
    if (this.waiters.length <= this.reclaiming) return;
    const byAge = [...this.pools.entries()].sort((a, b) => a[1] - b[1]).map(([p]) => p);
    for (const p of byAge) {
      const internals = p as unknown as { ending?: boolean; ended?: boolean; _idle?: Array<{ client: pg.ClientBase }>; _remove?: (c: pg.ClientBase) => void };
      if (internals.ended) {
        this.pools.delete(p);
        continue;
      }
      if (!Array.isArray(internals._idle) || typeof internals._remove !== 'function') continue;
      // the oldest idle connection of the pool first (pg-pool reuses from the end)
      while (internals._idle.length && this.waiters.length > this.reclaiming) {
        const { client } = internals._idle[0]!;
        this.reclaimed.add(client);
        this.reclaiming++;
        internals._remove.call(p, client);
      }
      if (this.waiters.length <= this.reclaiming) return;
    }
  }
}
