/**
 * The event worker's sweep (src/kernel/events/worker.ts): every EVENT_SWEEP_INTERVAL_MS each
 * tenant open in a process is looked at for deliveries still to make, whoever wrote or claimed
 * them, so no crash of another process strands events waiting for an unrelated write:
 *
 * - rows another process committed and never delivered (it died first) are delivered by a process
 *   that has the tenant open, within one sweep interval, with no write of its own;
 * - rows another process claimed and then died holding are left alone while their lease runs and
 *   delivered once it has expired, within the lease plus one interval; shown with a real child
 *   process killed with SIGKILL mid-delivery (tests/durability/lease-worker.ts);
 * - while both processes live, deliveries of one process's commits are shared: the other
 *   process's sweep takes the rows the first has not claimed yet, and each row is delivered once;
 * - a tenant that is not open in a process is never opened by its sweep;
 * - a tenant the sweep cannot look at is logged and does not stop the sweep of the others.
 *
 * Two kernels on the same storage stand in for two processes (their own connections, their own
 * workers), except in the SIGKILL test, where the dead one is a real process.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { claimDue } from '../../src/kernel/events/outbox.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, adminPrincipal, bootTestKernel, fixtureApp, PG_URL, PROVIDERS, waitFor, withPgClient, type TestKernel } from '../helpers/kernel.ts';
import { LEASE_HANDLER, leaseApp } from '../durability/lease-worker.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SWEEP_MS = 200;

/** every delivery: the kernel that made it, its tag, when */
const log: Array<{ kernel: string; tag: string; at: number }> = [];
let kernelName = new WeakMap<object, string>();

const emitCommand: CommandDecl = {
  name: 'sweep_fixture.emit',
  description: 'Emits one sweep_fixture.ping per tag',
  async handler(env, p) {
    for (const tag of p.tags as string[]) env.emit('sweep_fixture.ping', { tag });
    return {};
  },
};
const collect: EventHandlerDecl = {
  id: 'sweep_fixture.collect',
  event: 'sweep_fixture.ping',
  handler: async (env, e) => {
    log.push({ kernel: kernelName.get(env.registry) ?? '?', tag: e.payload.tag as string, at: Date.now() });
    // a delivery that takes a moment, so a burst of them outlasts a sweep interval
    await new Promise((r) => setTimeout(r, 15));
  },
};
const app = fixtureApp('sweep_fixture', { commands: [emitCommand], events: ['sweep_fixture.ping'], eventHandlers: [collect] });

type Row = Record<string, unknown> & { dbid: number; status: string; attempts: number; payload: { tag?: string } };

describe.each(PROVIDERS)('the event sweep on %s', (provider) => {
  /** the survivor: its worker runs, and it never writes in these tests */
  let b: TestKernel;
  /** the other process, booted per test on b's storage */
  let a: TestKernel | undefined;
  const T = 'sweep';
  let round = 0;
  const warnings: Array<{ level: string; msg: string; tenant?: string }> = [];
  const tagsOf = (n: number) => {
    round++;
    return Array.from({ length: n }, (_, i) => `${provider}-${round}-${i}`);
  };
  const deliveredOf = (tags: string[]) => log.filter((d) => tags.includes(d.tag));
  const rowsOf = async (tags: string[]): Promise<Row[]> => {
    const outbox = delegateOf(await b.kernel.tenants.get(T), b.kernel.registry.model('ir.event'));
    return ((await outbox.findMany({ orderBy: { dbid: 'asc' } })) as Row[]).filter((r) => tags.includes(r.payload.tag ?? ''));
  };
  const bootA = async (worker: boolean) => {
    a = await bootTestKernel({ provider, apps: [app], worker, dataDir: b.dataDir, pgPrefix: b.pgPrefix, settings: { EVENT_SWEEP_INTERVAL_MS: String(SWEEP_MS) } });
    kernelName.set(a.kernel.registry, 'a');
    await a.kernel.tenants.get(T);
    return a;
  };

  beforeAll(async () => {
    b = await bootTestKernel({
      provider, apps: [app], worker: true, settings: { EVENT_SWEEP_INTERVAL_MS: String(SWEEP_MS) },
      log: (level, msg, extra) => warnings.push({ level, msg, tenant: extra?.tenant as string | undefined }),
    });
    kernelName = new WeakMap([[b.kernel.registry, 'b']]);
    // open, with nothing to deliver yet: what opening kicks is not what is tested here
    await b.kernel.tenants.get(T);
  });
  afterEach(async () => {
    await a?.cleanup();
    a = undefined;
  });
  afterAll(async () => {
    await b?.cleanup();
  });

  it('events another process committed and never delivered (it stopped first) are delivered by a process that has the tenant open, within one sweep interval, without a write of its own', async () => {
    const other = await bootA(false); // no worker: its commits are never delivered by it
    const tags = tagsOf(3);
    await other.kernel.dispatch('sweep_fixture.emit', { tags }, adminPrincipal(T));
    const committed = Date.now();
    await other.cleanup();

    await waitFor(() => deliveredOf(tags).length === tags.length, 'the other process\'s events delivered by b', 10_000);
    const last = Math.max(...deliveredOf(tags).map((d) => d.at));
    // one sweep interval, plus the drain itself and a shared CPU's scheduling
    expect(last - committed).toBeLessThan(SWEEP_MS + 1_500);
    expect(deliveredOf(tags).every((d) => d.kernel === 'b')).toBe(true);
    await waitFor(async () => (await rowsOf(tags)).every((r) => r.status === 'done'), 'the rows marked done');
    for (const r of await rowsOf(tags)) expect(r).toMatchObject({ status: 'done', attempts: 1, locked_until: null });
  });

  it('events another process claimed and then stopped holding are not taken while their lease runs, and are delivered within the lease plus one interval once it has expired', async () => {
    const other = await bootA(false);
    const tags = tagsOf(2);
    await other.kernel.dispatch('sweep_fixture.emit', { tags }, adminPrincipal(T));
    // the other process claims them with a 1.5 s lease … and is gone before delivering any
    const leaseMs = 1_500;
    const claimed = await claimDue(await other.kernel.tenants.get(T), provider, other.kernel.registry, 20, leaseMs);
    const leaseEnd = Date.now() + leaseMs;
    expect(claimed.map((d) => (d.payload as { tag: string }).tag)).toEqual(expect.arrayContaining(tags));
    await other.cleanup();

    // several sweeps of b run during the lease: nothing delivered
    await new Promise((r) => setTimeout(r, leaseMs - 500));
    expect(deliveredOf(tags)).toEqual([]);
    for (const r of await rowsOf(tags)) expect(r.status).toBe('processing');

    await waitFor(() => deliveredOf(tags).length === tags.length, 'the abandoned events delivered by b', 10_000);
    const first = Math.min(...deliveredOf(tags).map((d) => d.at));
    expect(first).toBeGreaterThanOrEqual(leaseEnd - 50);
    expect(first - leaseEnd).toBeLessThan(SWEEP_MS + 1_500);
    await waitFor(async () => (await rowsOf(tags)).every((r) => r.status === 'done'), 'the rows marked done');
    for (const r of await rowsOf(tags)) expect(r).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('while both processes run, the events of one process\'s commits are shared with the other one\'s sweep, each delivered once', async () => {
    const other = await bootA(true);
    const tags = tagsOf(60); // 60 × 15 ms: the committing process is still at it when b sweeps
    await other.kernel.dispatch('sweep_fixture.emit', { tags }, adminPrincipal(T));
    await waitFor(() => deliveredOf(tags).length >= tags.length, 'every event delivered', 20_000);
    await new Promise((r) => setTimeout(r, SWEEP_MS));
    const delivered = deliveredOf(tags);
    expect([...delivered.map((d) => d.tag)].sort()).toEqual([...tags].sort());
    expect(delivered.filter((d) => d.kernel === 'a').length).toBeGreaterThan(0);
    expect(delivered.filter((d) => d.kernel === 'b').length).toBeGreaterThan(0);
  });

  it.runIf(provider === 'postgresql')('a tenant the sweep cannot look at (its database dropped behind the process\'s back) is logged, and the other open tenants are still swept', async () => {
    const broken = 'sweep-broken';
    await b.kernel.tenants.get(broken); // opened after T: looked at first
    await withPgClient(PG_URL, (c) => c.query(`DROP DATABASE ${b.kernel.tenants.pgDatabase(broken)} WITH (FORCE)`));
    const other = await bootA(false);
    const tags = tagsOf(1);
    await other.kernel.dispatch('sweep_fixture.emit', { tags }, adminPrincipal(T));
    await waitFor(() => deliveredOf(tags).length === 1, 'T\'s event delivered by b\'s sweep', 10_000);
    expect(warnings).toContainEqual({ level: 'warn', msg: 'event sweep could not look at a tenant', tenant: broken });
  });

  it('the sweep looks only at tenants open in its process: a tenant it has not opened stays closed', async () => {
    const other = await bootA(false);
    const closed = 'sweep-closed';
    await other.kernel.tenants.get(closed);
    await other.kernel.dispatch('sweep_fixture.emit', { tags: tagsOf(1) }, adminPrincipal(closed));
    await new Promise((r) => setTimeout(r, SWEEP_MS * 3));
    expect(b.kernel.tenants.openTenants()).not.toContain(closed);
    // opening it (a request, `fw events drain`) delivers what is there
    await b.kernel.tenants.get(closed);
    await waitFor(() => log.some((d) => d.tag === `${provider}-${round}-0` && d.kernel === 'b'), 'the closed tenant\'s event delivered once b opened it');
  });
});

interface Exit { code: number | null; signal: NodeJS.Signals | null; output: string }

/** `node --import tsx <script>` from the project root with exactly `env` (plus PATH and HOME). */
function run(script: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

describe.each(PROVIDERS)('a server process killed with SIGKILL mid-delivery (%s)', (provider) => {
  let survivor: TestKernel;
  const taken: Array<{ tag: string; at: number }> = [];
  const T = 'killed';

  beforeAll(async () => {
    // its worker starts once the other process has claimed the event (started before, its sweep
    // may take the event first: the work is shared, the dead process would then have nothing)
    survivor = await bootTestKernel({
      provider, worker: false, settings: { EVENT_SWEEP_INTERVAL_MS: String(SWEEP_MS) },
      apps: [leaseApp(async (_env, e) => { taken.push({ tag: e.payload.tag as string, at: Date.now() }); })],
    });
    await survivor.kernel.tenants.get(T);
  });
  afterAll(async () => {
    await survivor?.cleanup();
  });

  it('the survivor, which writes nothing, delivers the dead process\'s claimed event once, after its lease and within the lease plus one interval', async () => {
    const tag = `killed-${provider}`;
    const marker = path.join(survivor.dataDir, `delivering-${tag}.json`);
    const res = await run('tests/durability/lease-worker.ts', {
      DATA_DIR: survivor.dataDir,
      DATABASE_URL: provider === 'postgresql' ? PG_URL : '',
      PG_DATABASE_PREFIX: survivor.pgPrefix,
      REDIS_URL: '', ACTIVE_MODULES: 'base,auth', ACTIVE_DOMAINS: 'crm',
      ADMIN_EMAIL, ADMIN_PASSWORD, BCRYPT_COST: '4', LOG_LEVEL: 'silent',
      EVENT_WORKER: 'true', EVENT_POLL_INTERVAL_MS: '50', EVENT_LEASE_SECONDS: '2',
      FW_LEASE_TENANT: T, FW_LEASE_TAG: tag, FW_LEASE_MARKER: marker,
    });
    expect(res.signal, `the worker process should have died delivering ${tag}: exit ${res.code}\n${res.output}`).toBe('SIGKILL');
    const died = (JSON.parse(fs.readFileSync(marker, 'utf8')) as { at: number }).at;
    // started as `fw serve` starts it: nothing kicks the tenant, which is already open
    survivor.kernel.worker.start();

    const outbox = delegateOf(await survivor.kernel.tenants.get(T), survivor.kernel.registry.model('ir.event'));
    const row = async () => ((await outbox.findMany({ orderBy: { dbid: 'asc' } })) as Row[]).find((r) => r.payload.tag === tag)!;
    const leased = await row();
    expect(leased).toMatchObject({ handler: LEASE_HANDLER, status: 'processing', attempts: 0 });
    const leaseEnd = (leased.locked_until as Date).getTime();
    expect(leaseEnd).toBeLessThanOrEqual(died + 2_000);

    const delivery = await waitFor(() => taken.find((d) => d.tag === tag), 'the killed process\'s event delivered by the survivor', 20_000);
    expect(delivery.at).toBeGreaterThanOrEqual(leaseEnd);
    expect(delivery.at - leaseEnd).toBeLessThan(SWEEP_MS + 1_500);
    await waitFor(async () => (await row()).status === 'done', 'the row marked done');
    expect(await row()).toMatchObject({ status: 'done', attempts: 1, locked_until: null });
    await new Promise((r) => setTimeout(r, SWEEP_MS * 2));
    expect(taken.filter((d) => d.tag === tag)).toHaveLength(1);
  }, 90_000);
});
