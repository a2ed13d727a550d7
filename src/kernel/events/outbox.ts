import crypto from 'node:crypto';
import type { EventHandlerDecl } from '../app.js';
import { delegateOf } from '../data/delegate.js';
import type { DbClient, Delegate } from '../env.js';
import type { Registry } from '../registry/registry.js';
import type { EmittedEvent } from '../bus/pipeline.js';

export interface Delivery {
  dbid: number;
  event_uuid: string;
  name: string;
  handler: string;
  tenant_id: string;
  payload: Record<string, unknown>;
  source: string | null;
  attempts: number;
  emitted_at: Date;
}

const matches = (h: EventHandlerDecl, payload: Record<string, unknown>) =>
  !h.filter || Object.entries(h.filter).every(([k, v]) => payload[k] === v);

/**
 * Writes one outbox row per (event, matching handler) in the caller's transaction, so an event
 * exists exactly when the change that emitted it committed. Returns how many were written.
 */
export async function writeOutbox(db: DbClient, registry: Registry, tenant: string, events: EmittedEvent[]): Promise<number> {
  const rows: Record<string, unknown>[] = [];
  for (const e of events) {
    const eventUuid = crypto.randomUUID();
    for (const h of registry.handlersFor(e.name)) {
      if (!matches(h, e.payload)) continue;
      rows.push({
        record_uuid: crypto.randomUUID(), event_uuid: eventUuid, name: e.name, handler: h.id,
        tenant_id: tenant, payload: e.payload, source: e.source,
      });
    }
  }
  if (!rows.length) return 0;
  const outbox = delegateOf(db, registry.model('ir.event'));
  // createMany keeps the write to one statement; ids (dbid) keep emission order
  await (outbox as unknown as { createMany(a: object): Promise<unknown> }).createMany({ data: rows });
  return rows.length;
}

/**
 * Claims due deliveries for this worker and returns exactly the rows this call claimed: two
 * drains that read the same due rows at once (another server, `fw events drain` next to
 * `fw serve`) never both deliver one. PostgreSQL: `FOR UPDATE SKIP LOCKED`. SQLite: the due rows
 * are read, then claimed by one conditional UPDATE … RETURNING that repeats the due condition,
 * so a row another drain claimed (or delivered) in between is not taken; SQLite runs each
 * statement alone, so of two such updates only the first changes a row.
 * A claim is a lease of `leaseMs` (EVENT_LEASE_SECONDS): rows of a worker that died become due
 * again when it expires.
 */
export async function claimDue(db: DbClient & { $transaction?: unknown }, provider: 'sqlite' | 'postgresql', registry: Registry, batch: number, leaseMs: number): Promise<Delivery[]> {
  const now = new Date();
  const lease = new Date(now.getTime() + leaseMs);
  if (provider === 'postgresql') {
    return db.$queryRaw<Delivery[]>`
      UPDATE ir_event SET status = 'processing', locked_until = ${lease}, updated_at_utc = ${now}
      WHERE dbid IN (
        SELECT dbid FROM ir_event
        WHERE (status = 'pending' AND available_at <= ${now})
           OR (status = 'processing' AND locked_until < ${now})
        ORDER BY dbid
        LIMIT ${batch}
        FOR UPDATE SKIP LOCKED)
      RETURNING dbid, event_uuid::text AS event_uuid, name, handler, tenant_id, payload, source, attempts, emitted_at`
      .then((rows) => rows.sort((a, b) => a.dbid - b.dbid));
  }
  const outbox = delegateOf(db, registry.model('ir.event')) as Delegate & {
    updateManyAndReturn(args: object): Promise<Record<string, unknown>[]>;
  };
  const due = {
    OR: [
      { status: 'pending', available_at: { lte: now } },
      { status: 'processing', locked_until: { lt: now } },
    ],
  };
  const candidates = await outbox.findMany({ where: due, orderBy: { dbid: 'asc' }, take: batch, select: { dbid: true } });
  if (!candidates.length) return [];
  const claimed = await outbox.updateManyAndReturn({
    where: { dbid: { in: candidates.map((r) => r.dbid) }, ...due },
    data: { status: 'processing', locked_until: lease },
  });
  return (claimed as unknown as Delivery[]).sort((a, b) => a.dbid - b.dbid);
}

/** When the earliest undelivered row of a tenant becomes claimable (epoch ms), or null if none. */
export async function nextDue(db: DbClient, registry: Registry): Promise<number | null> {
  const outbox = delegateOf(db, registry.model('ir.event'));
  const [pending, leased] = await Promise.all([
    outbox.findFirst({ where: { status: 'pending' }, orderBy: { available_at: 'asc' }, select: { available_at: true } }),
    outbox.findFirst({ where: { status: 'processing' }, orderBy: { locked_until: 'asc' }, select: { locked_until: true } }),
  ]);
  const times = [pending?.available_at, leased?.locked_until].filter((d): d is Date => d instanceof Date).map((d) => d.getTime());
  return times.length ? Math.min(...times) : null;
}

export async function markDone(db: DbClient, registry: Registry, d: Delivery): Promise<void> {
  await delegateOf(db, registry.model('ir.event')).update({
    where: { dbid: d.dbid },
    data: { status: 'done', delivered_at: new Date(), attempts: d.attempts + 1, locked_until: null, last_error: null },
  });
}

/** Backoff doubles from EVENT_RETRY_BASE_MS; past max attempts the delivery is parked as dead. */
export async function markFailed(db: DbClient, registry: Registry, d: Delivery, err: unknown, opts: { maxAttempts: number; baseMs: number }): Promise<'retry' | 'dead'> {
  const attempts = d.attempts + 1;
  const dead = attempts >= opts.maxAttempts;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  await delegateOf(db, registry.model('ir.event')).update({
    where: { dbid: d.dbid },
    data: {
      status: dead ? 'dead' : 'pending',
      attempts,
      locked_until: null,
      last_error: message.slice(0, 4000),
      available_at: new Date(Date.now() + opts.baseMs * 2 ** (attempts - 1)),
    },
  });
  return dead ? 'dead' : 'retry';
}
