/**
 * Workload 15 (tenant-memory): memory per open tenant on PostgreSQL and the time of a batch
 * `fw tenant create` (issue 27 §5).
 *
 * 1. `fw tenant create --from-file` of 100 tenants (10 with --quick) in one command, timed (wall
 *    time of the process, node startup and kernel boot included), then the rest of the 300 (30)
 *    in a second command, untimed. bcrypt cost 4 for the seeded admins, as workload 7.
 * 2. A fresh `fw serve` (inspector on loopback for full garbage collections) with
 *    TENANT_CACHE_MAX above the tenant count and TENANT_IDLE_SECONDS 60: the default tenant gets
 *    20 logins and reads (warm-up: code paths compiled, the first Prisma client built), RSS after a
 *    full collection (two, a second apart); then each tenant in turn gets a login (`POST /api/auth/login`, which writes a
 *    session row) and a read (`GET /api/data/res.organization?limit=5`); RSS after a full
 *    collection again. (after − before) ÷ tenants is the figure per open tenant.
 * 3. Nothing more is asked; once every tenant has been idle past TENANT_IDLE_SECONDS (and the
 *    sweep that follows, at most half as long), RSS after a full collection: what releasing idle
 *    tenants gives back.
 *
 * Always on PostgreSQL: the run's server with --pg, otherwise the DATABASE_URL server (default
 * postgresql://postgres@127.0.0.1:5432/postgres) under a prefix of its own, dropped at the end.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Bench } from '../lib/bench.ts';
import { freePort, HOST, ok } from '../lib/http.ts';
import { BENCH_DIR } from '../lib/load.ts';
import { sleep, spawnPinned, waitExit } from '../lib/proc.ts';
import { fwEnv, startFw, type RunContext } from '../lib/server.ts';
import { collectedRss } from './soak.ts';

const IDLE_SECONDS = 60;
const key = (i: number) => `mem${String(i).padStart(4, '0')}`;

/** `fw tenant create --from-file` in a process of its own; its wall time in seconds. */
async function createBatch(b: Bench, ctx: RunContext, dataDir: string, keys: string[], file: string): Promise<number> {
  fs.writeFileSync(file, `${keys.join('\n')}\n`);
  const root = path.dirname(BENCH_DIR);
  const env = fwEnv(ctx, 'mem', dataDir, { BCRYPT_COST: '4', EVENT_WORKER: 'false' });
  const t0 = performance.now();
  const child = spawnPinned(`fw tenant create (${keys.length})`, null, process.execPath, [path.join(root, 'bin/fw.js'), 'tenant', 'create', '--from-file', file], { env, cwd: root });
  const code = await waitExit(child, 30 * 60_000);
  const s = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`fw tenant create exited ${code}: ${child.err().slice(-1500)}`);
  const created = child.out().split('\n').filter((l) => l.startsWith('created tenant')).length;
  if (created !== keys.length) throw new Error(`fw tenant create created ${created} of ${keys.length}: ${child.err().slice(-800)}`);
  b.log(`workload 15: fw tenant create of ${keys.length} tenants in one command: ${s.toFixed(1)} s`);
  return s;
}

async function loginAndRead(base: string, ctx: RunContext, tenant: string): Promise<void> {
  const { access_token: token } = await ok<{ access_token: string }>(base, 'POST', '/api/auth/login', {
    body: { email: ctx.adminEmail, password: ctx.adminPassword }, headers: { 'x-tenant': tenant }, timeoutMs: 60_000,
  });
  const list = await ok<{ items: unknown[] }>(base, 'GET', '/api/data/res.organization?limit=5', { token });
  if (!list.items.length) throw new Error(`tenant ${tenant}: no organization read`);
}

/**
 * RSS after a full collection, taken twice a second apart (the second kept): pages freed by the
 * first collection are not always handed back to the system at once.
 */
async function settledRss(inspect: string, pid: number, t: number) {
  await collectedRss(inspect, pid, t, []);
  await sleep(1000);
  return collectedRss(inspect, pid, t, []);
}

async function dropDatabases(url: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function tenantMemoryWorkload(b: Bench): Promise<void> {
  const own = !b.ctx.pg;
  const pgRun = b.ctx.pg ?? { url: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres', prefix: `fwb_${crypto.randomBytes(3).toString('hex')}_` };
  const ctx: RunContext = { ...b.ctx, pg: pgRun };
  const total = b.ctx.quick ? 30 : 300;
  const batch = b.ctx.quick ? 10 : 100;
  const dataDir = path.join(b.ctx.tmp, 'data-mem');
  fs.mkdirSync(dataDir, { recursive: true });
  const keys = Array.from({ length: total }, (_, i) => key(i));
  try {
    b.log(`workload 15: creating ${total} tenants on PostgreSQL ${pgRun.prefix}mem_* (${batch} timed in one command)`);
    const batchS = await createBatch(b, ctx, dataDir, keys.slice(0, batch), path.join(b.ctx.tmp, 'tenants-a.txt'));
    await createBatch(b, ctx, dataDir, keys.slice(batch), path.join(b.ctx.tmp, 'tenants-b.txt'));

    const inspectPort = await freePort();
    const server = await startFw(ctx, 'mem', {
      BCRYPT_COST: '4', TENANT_CACHE_MAX: String(total + 50), TENANT_IDLE_SECONDS: String(IDLE_SECONDS),
    }, [`--inspect=${HOST}:${inspectPort}`]);
    const inspect = `http://${HOST}:${inspectPort}`;
    try {
      // warm-up on the default tenant: code paths compiled, the first shared Prisma client built
      for (let i = 0; i < 20; i++) await loginAndRead(server.base, ctx, 'default');
      const before = await settledRss(inspect, server.pid, 0);
      const t0 = Date.now();
      for (const t of keys) await loginAndRead(server.base, ctx, t);
      const loopS = (Date.now() - t0) / 1000;
      if (loopS > IDLE_SECONDS) b.log(`workload 15: the logins took ${loopS.toFixed(0)} s, longer than TENANT_IDLE_SECONDS (${IDLE_SECONDS}): the first tenants were closed before the measure`);
      const open = await settledRss(inspect, server.pid, loopS);
      if (!before || !open) throw new Error('the server\'s inspector did not answer: no collected RSS');
      const perTenantMb = (open.rssMb - before.rssMb) / total;
      const perTenantHeapMb = (open.heapUsedMb - before.heapUsedMb) / total;
      b.log(`workload 15: ${total} tenants logged in and read in ${loopS.toFixed(1)} s; RSS ${before.rssMb.toFixed(0)} → ${open.rssMb.toFixed(0)} MB (${perTenantMb.toFixed(2)} MB per tenant, heap ${perTenantHeapMb.toFixed(2)}); waiting for the idle release`);
      // idle past TENANT_IDLE_SECONDS after the last request, and the sweep after it (at most 30 s)
      await sleep((IDLE_SECONDS + Math.min(30, IDLE_SECONDS / 2) + 5) * 1000);
      const released = await settledRss(inspect, server.pid, (Date.now() - t0) / 1000);
      const connections = await pgConnections(pgRun.url, `${pgRun.prefix}mem_`);
      b.raw.w15 = { tenants: total, batch, batchSeconds: batchS, loginReadSeconds: loopS, idleSeconds: IDLE_SECONDS, before, open, released, perTenantMb, perTenantHeapMb, connectionsAfterRelease: connections };
      b.rows.push({
        id: '15-mem', workload: `tenant memory: ${total} PostgreSQL tenants, login + read each`, peakRssMb: open.rssMb,
        target: '≤ 1.5 MB RSS per open tenant', met: b.ctx.quick ? undefined : perTenantMb <= 1.5,
        note: `RSS after GC ${before.rssMb.toFixed(0)} → ${open.rssMb.toFixed(0)} MB: ${perTenantMb.toFixed(2)} MB per tenant (JS heap ${perTenantHeapMb.toFixed(2)}); after ${IDLE_SECONDS} s idle ${released ? released.rssMb.toFixed(0) : '?'} MB, ${connections} PG connections`,
      });
      b.rows.push({
        id: '15-create', workload: `fw tenant create: ${batch} tenants in one command (PostgreSQL)`,
        target: '≤ 2 min for 100', met: b.ctx.quick ? undefined : batchS <= 120,
        note: `${batchS.toFixed(1)} s (${(batchS / batch).toFixed(2)} s per tenant, process start and boot included)`,
      });
    } finally {
      await server.stop();
    }
  } finally {
    if (own) await dropDatabases(pgRun.url, pgRun.prefix).catch((err) => b.log(`workload 15: could not drop ${pgRun.prefix}*: ${String(err)}`));
  }
}

async function pgConnections(url: string, prefix: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE starts_with(datname, $1)', [prefix]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
