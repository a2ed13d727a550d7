/**
 * Durability §2 (issue 17): two kernels with event workers on ONE PostgreSQL tenant database
 * (same PG_DATABASE_PREFIX) deliver each event exactly once per handler.
 *
 * Two in-process kernels stand in for two server processes: a fixture app (with its handlers)
 * can only be added to a kernel in process (`Kernel.boot({ apps })`); `fw serve` loads apps from
 * `src/apps/` only. Each kernel has its own Prisma client, its own `pg.Pool` and its own
 * EventWorker, so the claims race over separate connections exactly as two processes would
 * (`FOR UPDATE SKIP LOCKED` in src/kernel/events/outbox.ts). Both kernels emit, both drain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { adminPrincipal, bootTestKernel, fixtureApp, waitFor, type TestKernel } from '../helpers/kernel.ts';

/** deliveries[handler id][event tag] = kernels that delivered it */
const deliveries = new Map<string, Map<string, string[]>>();
let currentKernel = new WeakMap<object, string>();

function record(handler: string, tag: string, who: string): void {
  let m = deliveries.get(handler);
  if (!m) deliveries.set(handler, (m = new Map()));
  m.set(tag, [...(m.get(tag) ?? []), who]);
}

const emitCommand: CommandDecl = {
  name: 'dur_events.emit',
  description: 'Emits one dur_events.ping per tag',
  async handler(env, p) {
    for (const tag of p.tags as string[]) env.emit('dur_events.ping', { tag });
    return {};
  },
};
const handler = (id: string): EventHandlerDecl => ({
  id,
  event: 'dur_events.ping',
  handler: async (env, e) => {
    // a little work inside the delivery transaction, so deliveries of the two workers overlap
    await (env.db as unknown as { $executeRawUnsafe(sql: string): Promise<number> }).$executeRawUnsafe('SELECT pg_sleep(0.002)');
    record(id, e.payload.tag as string, currentKernel.get(env.registry) ?? '?');
  },
});
const app = fixtureApp('dur_events', { commands: [emitCommand], events: ['dur_events.ping'], eventHandlers: [handler('dur_events.one'), handler('dur_events.two')] });

describe('two kernels with event workers on one PostgreSQL tenant', () => {
  let k1: TestKernel;
  let k2: TestKernel;
  const T = 'events';

  beforeAll(async () => {
    const settings = { EVENT_POLL_INTERVAL_MS: '100', PG_POOL_MAX: '5' };
    k1 = await bootTestKernel({ provider: 'postgresql', apps: [app], worker: true, settings });
    await k1.kernel.tenants.get(T);
    k2 = await bootTestKernel({ provider: 'postgresql', apps: [app], worker: true, settings, pgPrefix: k1.pgPrefix });
    await k2.kernel.tenants.get(T);
    currentKernel = new WeakMap([[k1.kernel.registry, 'k1'], [k2.kernel.registry, 'k2']]);
  });
  afterAll(async () => {
    await k2?.cleanup();
    await k1?.cleanup();
  });

  it('400 events emitted from both kernels: each handled exactly once per handler, all rows done', async () => {
    const N = 400;
    const tags = Array.from({ length: N }, (_, i) => `e${i}`);
    // 40 commits of 10 events, alternating kernels, several in flight at once
    const batches = Array.from({ length: 40 }, (_, b) => tags.slice(b * 10, b * 10 + 10));
    await Promise.all(batches.map((batch, b) =>
      (b % 2 ? k2 : k1).kernel.dispatch('dur_events.emit', { tags: batch }, adminPrincipal(T))));

    const outbox = delegateOf(await k1.kernel.tenants.get(T), k1.kernel.registry.model('ir.event'));
    try {
      await waitFor(async () => (await outbox.count({ where: { status: 'done' } })) === 2 * N, `${2 * N} outbox rows done`, 60_000, 100);
    } catch (err) {
      const rows = (await outbox.findMany({})) as Array<{ status: string; last_error: string | null }>;
      const st: Record<string, number> = {};
      for (const r of rows) st[r.status] = (st[r.status] ?? 0) + 1;
      throw new Error(`${(err as Error).message}; rows by status ${JSON.stringify(st)}; an error: ${rows.find((r) => r.last_error)?.last_error}`);
    }
    expect(await outbox.count({})).toBe(2 * N);
    expect(await outbox.count({ where: { NOT: { status: 'done' } } })).toBe(0);

    for (const id of ['dur_events.one', 'dur_events.two']) {
      const m = deliveries.get(id)!;
      expect(m.size, id).toBe(N);
      const twice = [...m.entries()].filter(([, who]) => who.length !== 1);
      expect(twice, `${id} delivered more than once`).toEqual([]);
    }
    // attempts: every row delivered on its first claim
    const rows = (await outbox.findMany({})) as Array<{ attempts: number }>;
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    const by = { k1: 0, k2: 0 } as Record<string, number>;
    for (const m of deliveries.values()) for (const who of m.values()) by[who[0]] = (by[who[0]] ?? 0) + 1;
    console.log(`[durability] ${2 * N} deliveries: k1 ${by.k1}, k2 ${by.k2}`);
    // both workers took part (otherwise the test proves nothing about concurrent claims)
    expect(by.k1).toBeGreaterThan(0);
    expect(by.k2).toBeGreaterThan(0);
  }, 120_000);
});
