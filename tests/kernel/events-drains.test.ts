/**
 * Drains that run at the same time over one tenant's outbox (src/kernel/events/worker.ts,
 * outbox.ts) still deliver every row once:
 *
 * - In one process, `worker.drain(tenant)` (the CLI, tests) can start while the worker's own
 *   drain of that tenant runs (kicked by a commit, by opening the tenant, by a due lease). Drains
 *   of one tenant are run one after another: every due row is delivered once, one delivery at a
 *   time, in emission order, and each caller's drain still ends with nothing due left.
 * - Across processes (`fw events drain` next to `fw serve` on one SQLite file, two servers on one
 *   PostgreSQL database), two drains read the same due rows: a row is delivered only by the
 *   drain whose claim actually changed it (SQLite: a conditional update; PostgreSQL: `FOR UPDATE
 *   SKIP LOCKED`), so the other one leaves it alone.
 *
 * Two kernels on the same storage stand in for two processes: each has its own connections and
 * its own EventWorker, so their claims race exactly as two processes' would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { adminPrincipal, bootTestKernel, fixtureApp, PROVIDERS, type TestKernel } from '../helpers/kernel.ts';

/** every delivery: which kernel, which tag, in the order the handler ran */
const log: Array<{ kernel: string; tag: string }> = [];
/** deliveries running right now, per kernel, and the most seen at once */
const active = new Map<string, number>();
const maxActive = new Map<string, number>();
let kernelName = new WeakMap<object, string>();

const emitCommand: CommandDecl = {
  name: 'drains_fixture.emit',
  description: 'Emits one drains_fixture.ping per tag',
  async handler(env, p) {
    for (const tag of p.tags as string[]) env.emit('drains_fixture.ping', { tag });
    return {};
  },
};
const collect: EventHandlerDecl = {
  id: 'drains_fixture.collect',
  event: 'drains_fixture.ping',
  handler: async (env, e) => {
    const k = kernelName.get(env.registry) ?? '?';
    active.set(k, (active.get(k) ?? 0) + 1);
    maxActive.set(k, Math.max(maxActive.get(k) ?? 0, active.get(k)!));
    log.push({ kernel: k, tag: e.payload.tag as string });
    // a delivery that takes a moment, so drains running side by side overlap
    await new Promise((r) => setTimeout(r, 5));
    active.set(k, active.get(k)! - 1);
  },
};
const app = fixtureApp('drains_fixture', { commands: [emitCommand], events: ['drains_fixture.ping'], eventHandlers: [collect] });

type Row = Record<string, unknown> & { dbid: number };

describe.each(PROVIDERS)('drains running at the same time on %s', (provider) => {
  let k1: TestKernel;
  let k2: TestKernel;
  const T = 'drains';
  let round = 0;

  beforeAll(async () => {
    // k1 runs its worker (commits kick it); k2 shares k1's storage, as a second process would
    k1 = await bootTestKernel({ provider, apps: [app], worker: true });
    k2 = await bootTestKernel({ provider, apps: [app], worker: false, dataDir: k1.dataDir, pgPrefix: k1.pgPrefix });
    kernelName = new WeakMap([[k1.kernel.registry, 'k1'], [k2.kernel.registry, 'k2']]);
    await k1.kernel.tenants.get(T);
    await k2.kernel.tenants.get(T);
  });
  afterAll(async () => {
    await k2?.cleanup();
    await k1?.cleanup();
  });

  const tagsOf = (n: number) => {
    round++;
    return Array.from({ length: n }, (_, i) => `${provider}-${round}-${i}`);
  };
  const deliveredOf = (tags: string[]) => log.filter((d) => tags.includes(d.tag));
  const rowsOf = async (tags: string[]): Promise<Row[]> => {
    const outbox = delegateOf(await k1.kernel.tenants.get(T), k1.kernel.registry.model('ir.event'));
    return ((await outbox.findMany({ orderBy: { dbid: 'asc' } })) as Row[]).filter((r) => tags.includes((r.payload as { tag?: string }).tag ?? ''));
  };

  it('in one process: drain() calls next to the drain a commit kicked deliver each row once, one at a time, in emission order', async () => {
    const tags = tagsOf(12);
    maxActive.clear();
    // the commit kicks k1's worker, and two drains are asked for while that drain runs
    await k1.kernel.dispatch('drains_fixture.emit', { tags }, adminPrincipal(T));
    const counts = await Promise.all([k1.kernel.worker.drain(T), k1.kernel.worker.drain(T)]);

    // each drain resolves only once nothing is due: everything is delivered by now
    expect(deliveredOf(tags).map((d) => d.tag)).toEqual(tags);
    expect(deliveredOf(tags).every((d) => d.kernel === 'k1')).toBe(true);
    expect(maxActive.get('k1')).toBe(1);
    expect(counts[0] + counts[1]).toBeLessThanOrEqual(tags.length);
    const rows = await rowsOf(tags);
    expect(rows).toHaveLength(tags.length);
    for (const r of rows) expect(r).toMatchObject({ status: 'done', attempts: 1, locked_until: null });
  });

  it('in two processes: two drains at once deliver each row once, by whichever claimed it', async () => {
    const tags = tagsOf(12);
    // written by k2 (no worker, nothing kicked), then drained by both kernels at the same moment
    await k2.kernel.dispatch('drains_fixture.emit', { tags }, adminPrincipal(T));
    const counts = await Promise.all([k1.kernel.worker.drain(T), k2.kernel.worker.drain(T)]);

    const delivered = deliveredOf(tags);
    expect([...delivered.map((d) => d.tag)].sort()).toEqual([...tags].sort());
    expect(counts[0] + counts[1]).toBe(tags.length);
    // each kernel delivered its share in emission order
    for (const k of ['k1', 'k2']) {
      const mine = delivered.filter((d) => d.kernel === k).map((d) => d.tag);
      expect(mine).toEqual(tags.filter((t) => mine.includes(t)));
    }
    const rows = await rowsOf(tags);
    expect(rows).toHaveLength(tags.length);
    for (const r of rows) expect(r).toMatchObject({ status: 'done', attempts: 1, locked_until: null });
  });
});
