/**
 * Events: written to the outbox (ir.event) in the transaction of the change that emitted them,
 * delivered asynchronously by the event worker in emission order per tenant, retried with
 * backoff, parked as dead letters an admin can replay; `track_fields` emits field_changed.
 * Asynchronous effects are awaited by polling with a deadline, never asserted after a sleep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { systemPrincipal, type FwEvent } from '../../src/kernel/env.ts';
import { Conflict } from '../../src/kernel/errors.ts';
import {
  adminPrincipal, bootTestKernel, expectFwError, fixtureApp, PROVIDERS, uniquePgPrefix, dropPgDatabases,
  userPrincipal, waitFor, type TestKernel,
} from '../helpers/kernel.ts';

type Row = Record<string, unknown> & { id: string };
type Page = { items: Row[] };

/** What the fixture handlers saw, in delivery order. */
const seen = {
  pings: [] as FwEvent[],
  flakyAttempts: new Map<string, number[]>(),
  healed: new Set<string>(),
  filtered: [] as FwEvent[],
  codeChanges: [] as FwEvent[],
};

const emitCommand: CommandDecl = {
  name: 'event_fixture.emit',
  description: 'Emits the given events; fails after emitting them when asked',
  async handler(env, p) {
    for (const e of p.events as Array<{ name: string; payload: Record<string, unknown> }>) env.emit(e.name, e.payload);
    if (p.fail) throw new Conflict('failed after emitting', undefined, 'EMIT_FAILED');
    return { emitted: (p.events as unknown[]).length };
  },
};

const handlers: EventHandlerDecl[] = [
  { id: 'event_fixture.collect', event: 'event_fixture.ping', handler: async (_env, e) => { seen.pings.push(e); } },
  {
    id: 'event_fixture.flaky',
    event: 'event_fixture.flaky',
    max_attempts: 3,
    async handler(_env, e) {
      const key = String(e.payload.key);
      const times = seen.flakyAttempts.get(key) ?? [];
      times.push(Date.now());
      seen.flakyAttempts.set(key, times);
      const healAfter = Number(e.payload.heal_after ?? Infinity);
      if (!seen.healed.has(key) && times.length <= healAfter) throw new Error(`boom ${key} #${times.length}`);
    },
  },
  { id: 'event_fixture.only_matching', event: 'event_fixture.kind', filter: { kind: 'match' }, handler: async (_env, e) => { seen.filtered.push(e); } },
  { id: 'event_fixture.code_changed', event: 'res.organization.field_changed', filter: { field: 'code' }, handler: async (_env, e) => { seen.codeChanges.push(e); } },
  // emits the next event of a chain itself, outside any command
  { id: 'event_fixture.relay', event: 'event_fixture.relay', handler: async (env, e) => { env.emit('event_fixture.ping', { tag: e.payload.tag, relayed: true }); } },
];

const app = fixtureApp('event_fixture', {
  commands: [emitCommand], eventHandlers: handlers,
  // event_fixture.emit emits whatever it is given
  events: ['event_fixture.ping', 'event_fixture.flaky', 'event_fixture.kind', 'event_fixture.relay'],
  // a seed that emits: its event is recorded as coming from seed:<app>
  seed: async (env) => { env.emit('event_fixture.ping', { tag: 'seeded' }); },
});

describe.each(PROVIDERS)('events on %s', (provider) => {
  let tk: TestKernel;
  const T = 'events';
  const admin = adminPrincipal(T);
  const emit = (events: Array<{ name: string; payload: Record<string, unknown> }>, fail = false) =>
    tk.kernel.dispatch('event_fixture.emit', { events, fail }, admin);
  const outbox = async (domain: unknown[]) =>
    (await tk.kernel.dispatch<Page>('fw.search', { model: 'ir.event', domain, order: 'dbid asc' }, systemPrincipal(T))).items;
  const run = (tag: string) => `${provider}-${tag}-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    tk = await bootTestKernel({ provider, apps: [app], worker: true });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('an emitted event is written to the outbox (ir.event) by the same transaction, one row per matching handler', async () => {
    const tag = run('outbox');
    await emit([{ name: 'event_fixture.ping', payload: { tag } }]);
    // the row exists as soon as the command returned, whether or not the worker got to it yet
    const rows = (await outbox([['name', '=', 'event_fixture.ping']])).filter((r) => (r.payload as { tag?: string }).tag === tag);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ handler: 'event_fixture.collect', tenant_id: T, source: 'event_fixture.emit', payload: { tag } });
    expect(['pending', 'processing', 'done']).toContain(rows[0].status);
  });

  it('a rolled-back command leaves no outbox row and nothing is delivered', async () => {
    const tag = run('rollback');
    const before = (await outbox([['name', '=', 'event_fixture.ping']])).length;
    await expectFwError(emit([{ name: 'event_fixture.ping', payload: { tag } }], true), 409, 'EMIT_FAILED');
    expect((await outbox([['name', '=', 'event_fixture.ping']])).length).toBe(before);
    // a later event is delivered; the rolled-back one never is
    const later = run('after-rollback');
    await emit([{ name: 'event_fixture.ping', payload: { tag: later } }]);
    await waitFor(() => seen.pings.some((e) => e.payload.tag === later), 'the later ping');
    expect(seen.pings.some((e) => e.payload.tag === tag)).toBe(false);
  });

  it('the worker delivers asynchronously with the envelope: id, name, payload, tenant_id, emitted_at, source', async () => {
    const tag = run('envelope');
    await emit([{ name: 'event_fixture.ping', payload: { tag, n: 1 } }]);
    const e = await waitFor(() => seen.pings.find((x) => x.payload.tag === tag), 'delivery of the ping');
    expect(e).toMatchObject({ name: 'event_fixture.ping', payload: { tag, n: 1 }, tenant_id: T, source: 'event_fixture.emit' });
    expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(e.emitted_at)).not.toBeNaN();
    await waitFor(async () => (await outbox([['event_uuid', '=', e.id]]))[0]?.status === 'done', 'the delivery marked done');
    const [row] = await outbox([['event_uuid', '=', e.id]]);
    expect(row).toMatchObject({ status: 'done', attempts: 1, last_error: null });
    expect(row.delivered_at).toBeTruthy();
  });

  it('deliveries of a tenant arrive in emission order, within one command and across commands', async () => {
    const tag = run('order');
    const ping = (seq: number) => ({ name: 'event_fixture.ping', payload: { tag, seq } });
    await emit(Array.from({ length: 10 }, (_, i) => ping(i + 1)));
    for (let seq = 11; seq <= 15; seq++) await emit([ping(seq)]);
    await emit([ping(16), ping(17)]);
    const mine = () => seen.pings.filter((e) => e.payload.tag === tag);
    await waitFor(() => mine().length === 17, 'all 17 pings');
    expect(mine().map((e) => e.payload.seq)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
  });

  it('an event a handler emits is recorded as coming from that handler (handler:<id>), and delivered', async () => {
    const tag = run('relay');
    await emit([{ name: 'event_fixture.relay', payload: { tag } }]);
    const e = await waitFor(() => seen.pings.find((x) => x.payload.tag === tag), 'the relayed ping');
    expect(e).toMatchObject({ payload: { tag, relayed: true }, source: 'handler:event_fixture.relay' });
    expect((await outbox([['event_uuid', '=', e.id]]))[0]).toMatchObject({ source: 'handler:event_fixture.relay' });
  });

  it('an event an app\'s seed emits is recorded as coming from seed:<app>', async () => {
    const rows = (await outbox([['name', '=', 'event_fixture.ping']])).filter((r) => (r.payload as { tag?: string }).tag === 'seeded');
    expect(rows.map((r) => r.source)).toEqual(['seed:event_fixture']);
  });

  it('a handler filter selects payloads: only matching events get a delivery (and an outbox row)', async () => {
    const tag = run('filter');
    await emit([
      { name: 'event_fixture.kind', payload: { tag, kind: 'other' } },
      { name: 'event_fixture.kind', payload: { tag, kind: 'match' } },
    ]);
    await waitFor(() => seen.filtered.some((e) => e.payload.tag === tag), 'the matching event');
    expect(seen.filtered.filter((e) => e.payload.tag === tag).map((e) => e.payload.kind)).toEqual(['match']);
    expect((await outbox([['name', '=', 'event_fixture.kind']])).filter((r) => (r.payload as { tag: string }).tag === tag)).toHaveLength(1);
  });

  it('a failing handler is retried with exponential backoff and delivered once it succeeds', async () => {
    const key = run('heals');
    await emit([{ name: 'event_fixture.flaky', payload: { key, heal_after: 2 } }]);
    const row = await waitFor(async () => (await outbox([['name', '=', 'event_fixture.flaky'], ['status', '=', 'done']]))
      .find((r) => (r.payload as { key: string }).key === key), 'the flaky delivery to succeed');
    expect(row).toMatchObject({ attempts: 3, last_error: null });
    const times = seen.flakyAttempts.get(key)!;
    expect(times).toHaveLength(3);
    // attempts in order, one after the other (no duration is asserted here: the backoff schedule,
    // available_at = failure + EVENT_RETRY_BASE_MS × 2^(attempts−1), is checked from the stored
    // rows in events-lease.test.ts; timing figures belong to bench/)
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('after max_attempts a failing delivery is parked as dead with last_error; an admin replays it and it is delivered', async () => {
    const key = run('dead');
    await emit([{ name: 'event_fixture.flaky', payload: { key } }]);
    const dead = await waitFor(async () => (await outbox([['name', '=', 'event_fixture.flaky'], ['status', '=', 'dead']]))
      .find((r) => (r.payload as { key: string }).key === key), 'the delivery to be parked as dead');
    expect(dead).toMatchObject({ attempts: 3, handler: 'event_fixture.flaky' });
    expect(dead.last_error).toMatch(new RegExp(`^Error: boom ${key} #3`));
    expect(seen.flakyAttempts.get(key)).toHaveLength(3);

    // dead letters are listed with a plain search by an admin; users may not see the outbox at all
    const listed = await tk.kernel.dispatch<Page>('fw.search', { model: 'ir.event', domain: [['status', '=', 'dead']] }, admin);
    expect(listed.items.map((r) => r.id)).toContain(dead.id);
    const user = userPrincipal(T, { role: 'user' });
    await expectFwError(tk.kernel.dispatch('fw.search', { model: 'ir.event' }, user), 403, 'ACCESS_DENIED');
    await expectFwError(tk.kernel.dispatch('ir.event.replay', { id: dead.id }, user), 403, 'ACCESS_DENIED');
    expect((await outbox([['event_uuid', '=', dead.event_uuid as string]]))[0].status).toBe('dead');

    seen.healed.add(key);
    expect(await tk.kernel.dispatch('ir.event.replay', { id: dead.id }, admin)).toEqual({ id: dead.id, status: 'pending' });
    const done = await waitFor(async () => (await outbox([['event_uuid', '=', dead.event_uuid as string]])).find((r) => r.status === 'done'), 'the replayed delivery');
    expect(done).toMatchObject({ attempts: 1, last_error: null });
    expect(seen.flakyAttempts.get(key)).toHaveLength(4);
  });

  it('deliveries a stopped process left in the outbox are delivered when another process opens the tenant', async () => {
    const T2 = `left-${provider === 'sqlite' ? 's' : 'p'}`;
    const tag = run('left');
    const before = await bootTestKernel({ provider, apps: [app], worker: false, dataDir: tk.dataDir, pgPrefix: tk.pgPrefix });
    await before.kernel.dispatch('event_fixture.emit', { events: [{ name: 'event_fixture.ping', payload: { tag } }] }, adminPrincipal(T2));
    await before.cleanup();
    expect(seen.pings.some((e) => e.payload.tag === tag)).toBe(false);
    const after = await bootTestKernel({ provider, apps: [app], worker: true, dataDir: tk.dataDir, pgPrefix: tk.pgPrefix });
    try {
      await after.kernel.tenants.get(T2);
      await waitFor(() => seen.pings.some((e) => e.payload.tag === tag), 'the left-behind delivery');
    } finally {
      await after.cleanup();
    }
  });

  it('replaying an event id that does not exist answers 404', async () => {
    await expectFwError(tk.kernel.dispatch('ir.event.replay', { id: crypto.randomUUID() }, admin), 404, 'RECORD_NOT_FOUND');
  });

  it('track_fields on post.res.organization.update (base app, field code) emits res.organization.field_changed with field, old_value, new_value, record_id and tenant_id', async () => {
    const org = await tk.kernel.dispatch<Row>('fw.create', { model: 'res.organization', values: { name: 'Tracked', code: `${provider}-old-slug` } }, admin);
    await tk.kernel.dispatch('fw.update', { model: 'res.organization', id: org.id, values: { code: `${provider}-new-slug` } }, admin);
    const e = await waitFor(() => seen.codeChanges.find((x) => x.payload.record_id === org.id), 'res.organization.field_changed');
    expect(e.name).toBe('res.organization.field_changed');
    expect(e.tenant_id).toBe(T);
    expect(e.payload).toMatchObject({ field: 'code', old_value: `${provider}-old-slug`, new_value: `${provider}-new-slug`, record_id: org.id });
  });

  it('an update that leaves the tracked field unchanged emits no field_changed event', async () => {
    const org = await tk.kernel.dispatch<Row>('fw.create', { model: 'res.organization', values: { name: 'Quiet', code: `${provider}-quiet` } }, admin);
    const before = (await outbox([['name', '=', 'res.organization.field_changed']])).length;
    await tk.kernel.dispatch('fw.update', { model: 'res.organization', id: org.id, values: { name: 'Quieter', code: `${provider}-quiet` } }, admin);
    expect((await outbox([['name', '=', 'res.organization.field_changed']])).length).toBe(before);
  });
});

describe('two kernels (two server processes) on one PostgreSQL tenant', () => {
  const deliveries = new Map<number, string[]>();
  const twin = fixtureApp('twin_fixture', {
    commands: [{
      name: 'twin_fixture.emit',
      async handler(env, p) {
        for (let seq = p.from as number; seq <= (p.to as number); seq++) env.emit('twin_fixture.tick', { seq });
        return null;
      },
    }],
    events: ['twin_fixture.tick'],
    eventHandlers: [{
      id: 'twin_fixture.count',
      event: 'twin_fixture.tick',
      async handler(env, e) {
        const seq = e.payload.seq as number;
        deliveries.set(seq, [...(deliveries.get(seq) ?? []), env.settings.extra.FW_TEST_PROCESS ?? '?']);
        await new Promise((r) => setTimeout(r, 3)); // widen the window in which both workers compete
      },
    }],
  });
  const T = 'shared';
  const prefix = uniquePgPrefix();
  let a: TestKernel;
  let b: TestKernel;

  beforeAll(async () => {
    a = await bootTestKernel({ provider: 'postgresql', pgPrefix: prefix, apps: [twin], worker: true, settings: { FW_TEST_PROCESS: 'A' } });
    await a.kernel.tenants.get(T); // create and seed the tenant once, before the second process opens it
    b = await bootTestKernel({ provider: 'postgresql', pgPrefix: prefix, apps: [twin], worker: true, settings: { FW_TEST_PROCESS: 'B' } });
    await b.kernel.tenants.get(T);
  });
  afterAll(async () => {
    await a?.cleanup();
    await b?.cleanup();
    await dropPgDatabases(prefix);
  });

  it('with both workers running, every event is delivered exactly once (FOR UPDATE SKIP LOCKED)', async () => {
    const N = 120;
    const sys = systemPrincipal(T);
    await Promise.all([
      a.kernel.dispatch('twin_fixture.emit', { from: 1, to: 30 }, sys),
      b.kernel.dispatch('twin_fixture.emit', { from: 31, to: 60 }, sys),
      a.kernel.dispatch('twin_fixture.emit', { from: 61, to: 90 }, sys),
      b.kernel.dispatch('twin_fixture.emit', { from: 91, to: 120 }, sys),
    ]);
    // on top of the running workers, both processes drain the same tenant at the same time
    await Promise.all([a.kernel.worker.drain(T), b.kernel.worker.drain(T), a.kernel.worker.drain(T), b.kernel.worker.drain(T)]);
    const settled = async () => {
      const r = await a.kernel.dispatch<{ count: number }>('fw.count', { model: 'ir.event', domain: [['name', '=', 'twin_fixture.tick'], ['status', '!=', 'done']] }, sys);
      return r.count === 0;
    };
    await waitFor(settled, 'every tick delivery to be done', 20_000);
    expect(await a.kernel.dispatch('fw.count', { model: 'ir.event', domain: [['name', '=', 'twin_fixture.tick']] }, sys)).toEqual({ count: N });
    expect([...deliveries.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    const twice = [...deliveries].filter(([, by]) => by.length !== 1);
    expect(twice, 'events delivered more than once').toEqual([]);
    // both processes took part
    const by = new Set([...deliveries.values()].flat());
    expect(by).toEqual(new Set(['A', 'B']));
  });
});
