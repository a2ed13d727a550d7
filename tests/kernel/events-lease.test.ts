/**
 * The outbox's crash paths (src/kernel/events/outbox.ts, worker.ts):
 *
 * - A worker claims due rows by setting them `processing` with a lease (`locked_until`). If the
 *   process dies mid-delivery, nobody marks the row: once the lease has expired another worker
 *   (or the same one after a restart) claims it again and delivers it (at-least-once). Before the
 *   lease expires nobody else touches it. A running worker also remembers when a lease falls due
 *   and picks the row up then, without any new commit to kick it.
 * - An event no handler listens to writes no outbox row at all (nor does one whose handlers'
 *   filters all refuse it); a row whose handler is not registered in this process (its app is not
 *   active here) is retried and parked as dead like a failing delivery, naming the handler.
 *
 * - The retry schedule: a failed delivery is due again EVENT_RETRY_BASE_MS × 2^(attempts−1) after
 *   the failure (read from the stored row, not measured), and parked as dead at max attempts.
 *
 * The dead worker is simulated the way it looks in the database: `claimDue` ran (the row is
 * `processing` with a lease) and nothing followed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal, type FwEvent } from '../../src/kernel/env.ts';
import { claimDue, markFailed, type Delivery } from '../../src/kernel/events/outbox.ts';
import { adminPrincipal, bootTestKernel, fixtureApp, PROVIDERS, waitFor, type TestKernel } from '../helpers/kernel.ts';

const delivered: FwEvent[] = [];

const emitCommand: CommandDecl = {
  name: 'lease_fixture.emit',
  description: 'Emits the given events',
  async handler(env, p) {
    for (const e of p.events as Array<{ name: string; payload: Record<string, unknown> }>) env.emit(e.name, e.payload);
    return {};
  },
};
const handlers: EventHandlerDecl[] = [
  { id: 'lease_fixture.collect', event: 'lease_fixture.ping', handler: async (_env, e) => { delivered.push(e); } },
  { id: 'lease_fixture.picky', event: 'lease_fixture.picky', filter: { kind: 'wanted' }, handler: async (_env, e) => { delivered.push(e); } },
];
const app = fixtureApp('lease_fixture', { commands: [emitCommand], events: ['lease_fixture.ping', 'lease_fixture.picky'], eventHandlers: handlers });

type Row = Record<string, unknown> & { dbid: number };

describe.each(PROVIDERS)('outbox crash paths on %s', (provider) => {
  let tk: TestKernel;
  const T = 'lease';
  const tag = () => Math.random().toString(36).slice(2, 10);
  const emit = (events: Array<{ name: string; payload: Record<string, unknown> }>) =>
    tk.kernel.dispatch('lease_fixture.emit', { events }, adminPrincipal(T));
  const outbox = async () => delegateOf(await tk.kernel.tenants.get(T), tk.kernel.registry.model('ir.event'));
  const rowsOf = async (t: string): Promise<Row[]> =>
    ((await (await outbox()).findMany({ orderBy: { dbid: 'asc' } })) as Row[]).filter((r) => (r.payload as { tag?: string })?.tag === t);
  const deliveriesOf = (t: string) => delivered.filter((e) => e.payload.tag === t);

  beforeAll(async () => {
    // the worker is driven by hand (kernel.worker.drain) so nothing delivers behind the test's
    // back; a failed delivery is due again only when a test makes it so (a drain that took longer
    // than the helpers' 20 ms backoff would otherwise retry it within the same drain)
    tk = await bootTestKernel({ provider, apps: [app], worker: false, settings: { EVENT_MAX_ATTEMPTS: '2', EVENT_RETRY_BASE_MS: '600000' } });
    await tk.kernel.tenants.get(T);
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('a row left `processing` by a worker that died is not taken while its lease runs, and is delivered once the lease has expired', async () => {
    const t = tag();
    await emit([{ name: 'lease_fixture.ping', payload: { tag: t } }]);
    const [pending] = await rowsOf(t);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

    // worker A claims the row … and dies before delivering or marking anything
    const claimed = await claimDue(await tk.kernel.tenants.get(T), provider, tk.kernel.registry, 20, tk.kernel.settings.EVENT_LEASE_SECONDS * 1000);
    expect(claimed.map((d) => d.dbid)).toContain(pending.dbid);
    const [leased] = await rowsOf(t);
    expect(leased.status).toBe('processing');
    expect((leased.locked_until as Date).getTime()).toBeGreaterThan(Date.now());

    // while the lease runs, another drain leaves it alone
    await tk.kernel.worker.drain(T);
    expect(deliveriesOf(t)).toHaveLength(0);
    expect((await rowsOf(t))[0].status).toBe('processing');

    // the lease expires (as it does EVENT_LEASE_SECONDS after the claim): the next drain claims and delivers it
    await (await outbox()).update({ where: { dbid: pending.dbid }, data: { locked_until: new Date(Date.now() - 1000) } });
    expect(await tk.kernel.worker.drain(T)).toBeGreaterThanOrEqual(1);
    expect(deliveriesOf(t)).toHaveLength(1);
    expect(deliveriesOf(t)[0]).toMatchObject({ name: 'lease_fixture.ping', payload: { tag: t }, tenant_id: T });
    expect((await rowsOf(t))[0]).toMatchObject({ status: 'done', attempts: 1, locked_until: null });

    // done is done: a further drain delivers nothing again
    await tk.kernel.worker.drain(T);
    expect(deliveriesOf(t)).toHaveLength(1);
  });

  it('a running worker picks up an expiring lease by itself, with no new commit to kick it', async () => {
    const t = tag();
    await emit([{ name: 'lease_fixture.ping', payload: { tag: t } }]);
    const [row] = await rowsOf(t);
    // a dead worker's row, under a lease that outlasts booting the other kernel (slow on a busy machine)
    await (await outbox()).update({ where: { dbid: row.dbid }, data: { status: 'processing', locked_until: new Date(Date.now() + 3_600_000) } });

    const other = await bootTestKernel({ provider, apps: [app], worker: true, dataDir: tk.dataDir, pgPrefix: tk.pgPrefix, settings: { EVENT_POLL_INTERVAL_MS: '50' } });
    try {
      // the lease runs out shortly after the other kernel has opened the tenant
      const expires = Date.now() + 2_000;
      await (await outbox()).update({ where: { dbid: row.dbid }, data: { locked_until: new Date(expires) } });
      // opening the tenant kicks a drain, and this drain runs after it: the lease still runs, so
      // nothing is delivered, and the worker notes when it expires
      await other.kernel.tenants.get(T);
      const drained = await other.kernel.worker.drain(T);
      const { status } = (await rowsOf(t))[0];
      const deliveredMeanwhile = deliveriesOf(t).length;
      expect(Date.now(), 'the drains ran before the lease expired (else this proves nothing)').toBeLessThan(expires);
      expect(drained).toBe(0);
      expect(deliveredMeanwhile).toBe(0);
      expect(status).toBe('processing');
      // no commit follows: only the worker's own timer can pick the row up
      await waitFor(() => deliveriesOf(t).length >= 1, 'the delivery after the lease expired', 10_000);
      await waitFor(async () => (await rowsOf(t))[0].status === 'done', 'the row marked done');
      expect(deliveriesOf(t)).toHaveLength(1);
      expect((await rowsOf(t))[0]).toMatchObject({ status: 'done', attempts: 1, locked_until: null });
    } finally {
      await other.cleanup();
    }
  });

  it('an event no handler listens to writes no outbox row; neither does one every handler filter refuses', async () => {
    const t = tag();
    const before = await (await outbox()).count({});
    await emit([
      { name: 'lease_fixture.nobody_listens', payload: { tag: t } },
      { name: 'lease_fixture.picky', payload: { tag: t, kind: 'unwanted' } },
    ]);
    expect(await (await outbox()).count({})).toBe(before);
    // the same command with a listened-to event writes exactly that one row
    await emit([
      { name: 'lease_fixture.nobody_listens', payload: { tag: t } },
      { name: 'lease_fixture.picky', payload: { tag: t, kind: 'wanted' } },
    ]);
    const rows = await rowsOf(t);
    expect(rows.map((r) => [r.name, r.handler])).toEqual([['lease_fixture.picky', 'lease_fixture.picky']]);
    expect(await (await outbox()).count({})).toBe(before + 1);
    await tk.kernel.worker.drain(T);
    expect(deliveriesOf(t).map((e) => e.name)).toEqual(['lease_fixture.picky']);
  });

  it('a failed delivery is due again after EVENT_RETRY_BASE_MS × 2^(attempts−1); at max attempts it is dead', async () => {
    const t = tag();
    await emit([{ name: 'lease_fixture.ping', payload: { tag: t } }]);
    const [row] = await rowsOf(t);
    const db = await tk.kernel.tenants.get(T);
    const baseMs = 60_000;
    for (const attempts of [0, 1, 2, 3]) {
      const before = Date.now();
      const outcome = await markFailed(db, tk.kernel.registry, { ...row, attempts } as unknown as Delivery, new Error(`boom ${attempts}`), { maxAttempts: 5, baseMs });
      const after = Date.now();
      const stored = (await rowsOf(t))[0];
      expect(outcome).toBe('retry');
      expect(stored).toMatchObject({ status: 'pending', attempts: attempts + 1, locked_until: null, last_error: `Error: boom ${attempts}` });
      // the failure happened between `before` and `after`; the row is due baseMs × 2^attempts later
      const due = (stored.available_at as Date).getTime();
      expect(due).toBeGreaterThanOrEqual(before + baseMs * 2 ** attempts);
      expect(due).toBeLessThanOrEqual(after + baseMs * 2 ** attempts);
    }
    // the retries are not due yet: a drain leaves the row alone
    await tk.kernel.worker.drain(T);
    expect(deliveriesOf(t)).toHaveLength(0);
    expect(await markFailed(db, tk.kernel.registry, { ...row, attempts: 4 } as unknown as Delivery, new Error('last'), { maxAttempts: 5, baseMs })).toBe('dead');
    expect((await rowsOf(t))[0]).toMatchObject({ status: 'dead', attempts: 5 });
  });

  it('a row whose handler is not registered in this process is retried, then parked as dead naming the handler', async () => {
    const t = tag();
    await emit([{ name: 'lease_fixture.ping', payload: { tag: t } }]);
    const [row] = await rowsOf(t);
    // as written by a process where another app (now inactive here) listened to the event
    await (await outbox()).update({ where: { dbid: row.dbid }, data: { handler: 'gone_app.handler' } });

    await tk.kernel.worker.drain(T);
    const first = (await rowsOf(t))[0];
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });
    expect(first.last_error).toMatch(/no handler "gone_app\.handler" is registered/);
    // EVENT_MAX_ATTEMPTS=2: the retry (made due now) is the last one
    await (await outbox()).update({ where: { dbid: row.dbid }, data: { available_at: new Date(Date.now() - 1000) } });
    await tk.kernel.worker.drain(T);
    expect((await rowsOf(t))[0]).toMatchObject({ status: 'dead', attempts: 2 });
    expect(deliveriesOf(t)).toHaveLength(0);
    // a dead row stays put
    await tk.kernel.worker.drain(T);
    expect((await rowsOf(t))[0]).toMatchObject({ status: 'dead', attempts: 2 });
    // and an admin sees it among the dead letters
    const dead = await tk.kernel.dispatch<{ items: Row[] }>('fw.search', { model: 'ir.event', domain: [['status', '=', 'dead']] }, systemPrincipal(T));
    expect(dead.items.some((r) => (r.payload as { tag?: string }).tag === t)).toBe(true);
  });
});
