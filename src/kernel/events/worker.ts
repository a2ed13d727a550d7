import type { EventHandlerDecl } from '../app.js';
import type { FwEvent, RootDbClient } from '../env.js';
import type { Registry } from '../registry/registry.js';
import type { Settings } from '../settings.js';
import { claimDue, markDone, markFailed, nextDue, type Delivery } from './outbox.js';

export interface WorkerHost {
  registry: Registry;
  settings: Settings;
  provider: 'sqlite' | 'postgresql';
  /** Runs `fn` with the tenant's client held open for its whole duration. */
  withClient<T>(tenant: string, fn: (db: RootDbClient) => Promise<T>): Promise<T>;
  /** Runs a handler as the system principal of the tenant; events it emits are written on success. */
  deliver(tenant: string, event: FwEvent, handler: EventHandlerDecl): Promise<void>;
  log(level: 'warn' | 'error', msg: string, extra?: Record<string, unknown>): void;
  /** Tenants open in this process now; the sweep looks at these only and never opens one. */
  openTenants(): string[];
  /**
   * Whether an open tenant has deliveries still to make (pending, or leased by any process): one
   * count on its reader, without building its Prisma client. False once it is no longer open.
   */
  hasOpenDeliveries(tenant: string): Promise<boolean>;
}

/**
 * Drains the outbox asynchronously. A tenant is drained:
 *
 * - at once when a commit in this process wrote events for it (`kick`), and when this process
 *   opens it (deliveries another process left behind);
 * - when a retry or an expired lease it saw in its last drain falls due (a timer every
 *   EVENT_POLL_INTERVAL_MS looks at those times, no query);
 * - by the sweep: every EVENT_SWEEP_INTERVAL_MS each tenant open in this process is looked at
 *   with one count of its pending and leased rows on its reader, and drained if it has any.
 *   Those rows may have been written, or claimed, by another process: one killed before it
 *   delivered them is replaced by any process that has the tenant open, within the lease
 *   (EVENT_LEASE_SECONDS) plus one sweep interval, without waiting for a write; and while every
 *   process is alive they share the work (claims take different rows). A tenant no process has
 *   open is drained when one opens it.
 *
 * Deliveries of one tenant run one at a time in emission order in this process: every drain of a
 * tenant (kicked, swept, or asked for with `drain`) waits for the one before it; across processes
 * a row is delivered only by the drain whose claim changed it (`claimDue`).
 */
export class EventWorker {
  /** tenant → the end of its queue of drains (settles, never rejects, when the last one is over) */
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** tenant → epoch ms when its next pending delivery becomes due */
  private readonly due = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  /** The sweep under way, if any (one at a time; stop waits for it). */
  private sweeping: Promise<void> | null = null;
  /** Ends the sweep's pause between two tenants at once (stop). */
  private wakeSweep?: () => void;
  private started = false;
  private stopped = false;

  constructor(private readonly host: WorkerHost) {}

  start(): void {
    // started again (after a stop): the timers of the earlier start go first
    if (this.timer) clearInterval(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    this.started = true;
    this.stopped = false;
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const [t, at] of this.due) if (at <= now) this.kick(t);
    }, this.host.settings.EVENT_POLL_INTERVAL_MS);
    this.timer.unref();
    this.sweeper = setInterval(() => {
      this.sweeping ??= this.sweep().finally(() => { this.sweeping = null; });
    }, this.host.settings.EVENT_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    this.wakeSweep?.();
    await this.sweeping;
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * Looks at every tenant open in this process and kicks those with deliveries still to make. One
   * tenant after the other, spread over most of the interval (a burst of counts over hundreds of
   * open tenants would stall requests and compete with them for connections). A tenant already
   * draining here is skipped: its drain reads the outbox anyway.
   */
  private async sweep(): Promise<void> {
    const tenants = this.host.openTenants();
    const gap = (this.host.settings.EVENT_SWEEP_INTERVAL_MS * 0.8) / Math.max(1, tenants.length);
    for (const [i, tenant] of tenants.entries()) {
      if (i > 0 && gap >= 1) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, gap);
          t.unref();
          this.wakeSweep = () => { clearTimeout(t); resolve(); };
        });
        this.wakeSweep = undefined;
      }
      if (this.stopped) return;
      if (this.running.has(tenant)) continue;
      try {
        if (await this.host.hasOpenDeliveries(tenant)) this.kick(tenant);
      } catch (err) {
        // a database that is busy or gone for a moment: the next sweep looks again
        this.host.log('warn', 'event sweep could not look at a tenant', { tenant, err: String(err) });
      }
    }
  }

  kick(tenant: string): void {
    if (!this.started || this.stopped) return;
    if (this.running.has(tenant)) {
      // the drain under way may have read the outbox already: one more follows it
      this.again.add(tenant);
      return;
    }
    this.drain(tenant).catch((err) => this.host.log('error', 'event worker failed', { tenant, err: String(err) }));
  }

  /**
   * Delivers every due event of a tenant; resolves when none is left (tests and the CLI wait on
   * it). A drain of the tenant already under way in this process (a commit's kick) is waited for
   * first, so the two never deliver side by side.
   */
  drain(tenant: string): Promise<number> {
    const before = this.running.get(tenant) ?? Promise.resolve();
    const run = before.then(() => this.host.withClient(tenant, (db) => this.drainWith(tenant, db)));
    const end: Promise<void> = run.then(() => undefined, () => undefined).then(() => {
      if (this.running.get(tenant) !== end) return; // a later drain is queued: it ends the queue
      this.running.delete(tenant);
      if (this.again.delete(tenant)) this.kick(tenant);
    });
    this.running.set(tenant, end);
    return run;
  }

  private async drainWith(tenant: string, db: RootDbClient): Promise<number> {
    const { registry, settings, provider } = this.host;
    let delivered = 0;
    for (;;) {
      const batch = await claimDue(db, provider, registry, 20, settings.EVENT_LEASE_SECONDS * 1000);
      if (!batch.length) {
        const next = await nextDue(db, registry);
        if (next === null) this.due.delete(tenant);
        else this.due.set(tenant, next);
        return delivered;
      }
      for (const d of batch) {
        if (this.stopped) return delivered;
        await this.deliverOne(tenant, db, d, settings);
        delivered++;
      }
    }
  }

  private async deliverOne(tenant: string, db: RootDbClient, d: Delivery, settings: Settings): Promise<void> {
    const { registry } = this.host;
    const handler = registry.handlersById.get(d.handler);
    const event: FwEvent = {
      id: d.event_uuid, name: d.name, payload: d.payload, tenant_id: d.tenant_id,
      emitted_at: new Date(d.emitted_at).toISOString(), source: d.source ?? undefined,
    };
    try {
      if (!handler) throw new Error(`no handler "${d.handler}" is registered (app not active?)`);
      await this.host.deliver(tenant, event, handler);
      await markDone(db, registry, d);
    } catch (err) {
      const outcome = await markFailed(db, registry, d, err, {
        maxAttempts: handler?.max_attempts ?? settings.EVENT_MAX_ATTEMPTS,
        baseMs: settings.EVENT_RETRY_BASE_MS,
      });
      this.host.log(outcome === 'dead' ? 'error' : 'warn', `event ${d.name} → ${d.handler} failed (${outcome})`, { tenant, err: String(err) });
    }
  }
}
