/**
 * EVENT_LEASE_SECONDS (src/kernel/settings.ts, used by claimDue in src/kernel/events/outbox.ts):
 * how long a worker holds the deliveries it claimed.
 *
 * - The setting is read and checked at boot: an integer from 1 to 86400, default 60; anything
 *   else stops `fw serve` with a BootError naming the setting (exit code 1, nothing served).
 * - A worker process that dies mid-delivery (tests/durability/lease-worker.ts: a real process,
 *   booted from its environment, whose handler SIGKILLs it) leaves its row `processing` under the
 *   lease *it* configured. With EVENT_LEASE_SECONDS=3 a second worker (another kernel on the same
 *   SQLite file or PostgreSQL database) takes the event over by itself once those 3 s have passed,
 *   never before, and delivers it once; an event abandoned by a worker with the default lease
 *   stays claimed (60 s after its claim) meanwhile. Both engines.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bootTestKernel, dropPgDatabases, PG_URL, PROVIDERS, tempDir, uniquePgPrefix, waitFor, type Provider, type TestKernel } from '../helpers/kernel.ts';
import { LEASE_HANDLER, leaseApp } from './lease-worker.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Exit { code: number | null; signal: NodeJS.Signals | null; output: string }

/** Runs `node --import tsx <args>` from the project root with exactly `env` (plus PATH and HOME); kills it after `timeoutMs`. */
function run(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
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

describe('EVENT_LEASE_SECONDS is checked at boot', () => {
  it('default 60; an integer from 1 to 86400; an empty value is the default', () => {
    expect(loadSettings({}).EVENT_LEASE_SECONDS).toBe(60);
    expect(loadSettings({ EVENT_LEASE_SECONDS: '' }).EVENT_LEASE_SECONDS).toBe(60);
    expect(loadSettings({ EVENT_LEASE_SECONDS: '1' }).EVENT_LEASE_SECONDS).toBe(1);
    expect(loadSettings({ EVENT_LEASE_SECONDS: '86400' }).EVENT_LEASE_SECONDS).toBe(86400);
  });

  it('0, negative, fractional, text and values past a day are refused with a BootError naming the setting', () => {
    for (const bad of ['0', '-5', '86401', '1e20']) {
      expect(() => loadSettings({ EVENT_LEASE_SECONDS: bad })).toThrow(`setting EVENT_LEASE_SECONDS="${bad}" must be between 1 and 86400`);
    }
    for (const bad of ['1.5', 'sixty', '60s']) {
      expect(() => loadSettings({ EVENT_LEASE_SECONDS: bad })).toThrow(`setting EVENT_LEASE_SECONDS="${bad}" must be an integer`);
    }
  });

  it('`fw serve` with EVENT_LEASE_SECONDS=0 stops before it serves: exit code 1 and the reason on stderr', async () => {
    const dataDir = tempDir('lease-boot');
    try {
      const res = await run(['src/cli.ts', 'serve'], {
        DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', PORT: '0', LOG_LEVEL: 'silent', ADMIN_PASSWORD, EVENT_LEASE_SECONDS: '0',
      });
      expect(res.code, res.output).toBe(1);
      expect(res.output.trim()).toBe('BOOT_ERROR: setting EVENT_LEASE_SECONDS="0" must be between 1 and 86400');
      // it stopped while reading its settings: no tenant was created
      expect(fs.existsSync(path.join(dataDir, 'tenants'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

type Row = { dbid: number; handler: string; status: string; attempts: number; locked_until: Date | null; payload: { tag?: string } };

describe.each(PROVIDERS)('a shorter lease lets a second worker take over an abandoned event (%s)', (provider: Provider) => {
  const T = 'lease';
  const dataDir = tempDir(`lease-${provider}`);
  const pgPrefix = uniquePgPrefix();
  let taker: TestKernel | undefined;
  const taken: Array<{ tag: string; at: number }> = [];

  /** A worker process that claims `tag` with its own EVENT_LEASE_SECONDS and dies delivering it; resolves with when it died. */
  async function abandon(tag: string, leaseSeconds?: string): Promise<number> {
    const marker = path.join(dataDir, `delivering-${tag}.json`);
    const res = await run(['tests/durability/lease-worker.ts'], {
      DATA_DIR: dataDir,
      DATABASE_URL: provider === 'postgresql' ? PG_URL : '',
      PG_DATABASE_PREFIX: pgPrefix,
      REDIS_URL: '',
      ACTIVE_MODULES: 'base,auth', ACTIVE_DOMAINS: 'crm',
      ADMIN_EMAIL, ADMIN_PASSWORD, BCRYPT_COST: '4', LOG_LEVEL: 'silent',
      EVENT_WORKER: 'true', EVENT_POLL_INTERVAL_MS: '50',
      ...(leaseSeconds ? { EVENT_LEASE_SECONDS: leaseSeconds } : {}),
      FW_LEASE_TENANT: T, FW_LEASE_TAG: tag, FW_LEASE_MARKER: marker,
    });
    expect(res.signal, `the worker process should have died delivering ${tag}: exit ${res.code}\n${res.output}`).toBe('SIGKILL');
    return (JSON.parse(fs.readFileSync(marker, 'utf8')) as { at: number }).at;
  }

  beforeAll(() => {
    taken.length = 0;
  });
  afterAll(async () => {
    await taker?.cleanup();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the row a dead worker leased for 3 s is delivered by another worker after those 3 s, once; one leased for the default 60 s stays claimed', async () => {
    // first a worker with the default lease dies delivering `slow`, then one with a 3 s lease
    // dies delivering `fast` (it leaves `slow` alone: that lease still runs)
    const slowDied = await abandon('slow');
    const fastDied = await abandon('fast', '3');

    // the second worker: another kernel on the same database, its worker started below
    taker = await bootTestKernel({
      provider, dataDir, pgPrefix, worker: false,
      apps: [leaseApp(async (_env, e) => { taken.push({ tag: e.payload.tag as string, at: Date.now() }); })],
    });
    const outbox = delegateOf(await taker.kernel.tenants.get(T), taker.kernel.registry.model('ir.event'));
    const row = async (tag: string): Promise<Row> =>
      ((await outbox.findMany({ orderBy: { dbid: 'asc' } })) as Row[]).find((r) => r.payload.tag === tag)!;

    // what the dead workers left: claimed (processing, nothing counted), each under its own lease,
    // which began when it claimed the row, just before its handler started
    const fast = await row('fast');
    const slow = await row('slow');
    expect(fast).toMatchObject({ handler: LEASE_HANDLER, status: 'processing', attempts: 0 });
    expect(slow).toMatchObject({ handler: LEASE_HANDLER, status: 'processing', attempts: 0 });
    const fastUntil = fast.locked_until!.getTime();
    const slowUntil = slow.locked_until!.getTime();
    expect(fastUntil).toBeLessThanOrEqual(fastDied + 3_000);
    expect(fastUntil).toBeGreaterThan(fastDied + 3_000 - 1_000);
    expect(slowUntil).toBeLessThanOrEqual(slowDied + 60_000);
    expect(slowUntil).toBeGreaterThan(slowDied + 60_000 - 1_000);

    // the worker starts as `fw serve` starts it; the tenant was opened before, so only this kick
    // (or, EVENT_SWEEP_INTERVAL_MS later, the sweep) starts a drain
    taker.kernel.worker.start();
    taker.kernel.worker.kick(T);
    const delivery = await waitFor(() => taken.find((d) => d.tag === 'fast'), 'the abandoned `fast` event taken over', 20_000);
    // never before the dead worker's lease ran out
    expect(delivery.at).toBeGreaterThanOrEqual(fastUntil);
    await waitFor(async () => (await row('fast')).status === 'done', 'the taken-over row marked done');
    expect(await row('fast')).toMatchObject({ status: 'done', attempts: 1, locked_until: null });

    // a little longer: `fast` is not delivered again, `slow` stays with its dead worker's lease
    await new Promise((r) => setTimeout(r, 500));
    expect(taken.map((d) => d.tag)).toEqual(['fast']);
    expect(await row('slow')).toMatchObject({ status: 'processing', attempts: 0, locked_until: slow.locked_until });
    expect(Date.now()).toBeLessThan(slowUntil);
  }, 120_000);
});
