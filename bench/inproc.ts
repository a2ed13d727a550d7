/**
 * CPU time per request inside one server process: `npx tsx bench/inproc.ts [options]`.
 *
 * req/s on a shared machine move by ±10 % between runs of the same commit, which hides changes of
 * a few percent; the CPU a process spends per request moves far less. This boots the server in
 * this process (production mode, SQLite or PostgreSQL, the read cache off by default), seeds 60
 * organizations with countries, and sends requests through `server.inject` (no sockets), timing
 * them with `process.cpuUsage` after a warm-up. To compare two commits, run it in both at the
 * same time, each pinned to one core, then with the cores swapped (`bench/ab.sh`).
 *
 * The requests (`--only`, by index):
 *   0–8  workload 16's nine reads (pages, filters, orders of the organization list with country)
 *   9    workload 16's write (an update of one organization)
 *   10   workload 2's REST list of 50
 *   11   workload 1's GraphQL list of 50
 *
 * Options:
 *   --only 0,6,9   the requests to time (default: all)
 *   --n 2000       requests per request kind and round      --rounds 3   rounds (the best is what counts)
 *   --cycle        send the chosen requests in turn, as workload 16's users do, and print one figure
 *   --pg           PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres); each
 *                  figure then also gives the CPU the tenant database's server processes spent
 *                  per request (`+ N µs PostgreSQL`, from /proc: they run outside this process)
 *   --cache N      READ_CACHE_ROWS (default 0)
 *   --pg-statements N   PG_STATEMENT_CACHE (default: the setting's default)
 *   --split        also print each figure's user and system CPU (system: the syscalls; a
 *                  PostgreSQL round trip costs about 30 µs of it on these machines)
 *   --sql-time     time every SQLite statement (better-sqlite3's `all`), printed at the end
 *   --profile F    write a CPU profile of the timed requests only (not boot or seeding) to F
 *
 * Prints one line per round, `index:µs` per request kind (or the cycle's µs per request).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import pgLib from 'pg';
import { Kernel } from '../src/kernel/kernel.ts';
import { loadSettings } from '../src/kernel/settings.ts';
import { buildServer } from '../src/server/index.ts';
import { bodiesOf } from './workloads/mixed.ts';
import { GQL_LIST_BODY, REST_LIST } from './workloads/queries.ts';

process.env.NODE_ENV = 'production';
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const flag = (name: string): boolean => args.includes(`--${name}`);
const N = Number(opt('n') ?? 2000);
const ROUNDS = Number(opt('rounds') ?? 3);
const pg = flag('pg');

/** better-sqlite3's `all`, timed per SQL text (SQLite only). */
const sqlTimes = new Map<string, { calls: number; ns: bigint; rows: number }>();
if (flag('sql-time')) {
  const proto = Object.getPrototypeOf(new Database(':memory:').prepare('select 1')) as { all(...a: unknown[]): unknown[] };
  const all = proto.all;
  proto.all = function timed(this: { source: string }, ...params: unknown[]) {
    const t = process.hrtime.bigint();
    const rows = all.apply(this, params);
    const e = sqlTimes.get(this.source) ?? { calls: 0, ns: 0n, rows: 0 };
    e.calls++;
    e.ns += process.hrtime.bigint() - t;
    e.rows += rows.length;
    sqlTimes.set(this.source, e);
    return rows;
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-inproc-'));
const password = crypto.randomBytes(12).toString('base64url');
const pgPrefix = `fwinproc_${crypto.randomBytes(3).toString('hex')}_`;
const settings = loadSettings({
  DATA_DIR: dataDir, ACTIVE_MODULES: 'base,auth', LOG_LEVEL: 'silent', BCRYPT_COST: '4',
  ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: password,
  JWT_SECRET_KEY: crypto.randomBytes(32).toString('base64url'), CONNECTOR_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
  READ_CACHE_ROWS: opt('cache') ?? '0', EVENT_WORKER: 'false', PG_STATEMENT_CACHE: opt('pg-statements'),
  ...(pg ? { DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', PG_DATABASE_PREFIX: pgPrefix } : {}),
});
const kernel = await Kernel.boot({ settings, worker: false, log: () => {} });
let server: FastifyInstance | undefined;
try {
  server = await buildServer(kernel);
  await kernel.tenants.get(settings.DEFAULT_TENANT);
  await measure(server);
} finally {
  if (pg) for (const tenant of await kernel.tenants.list()) await kernel.tenants.drop(tenant);
  await (server ? server.close() : kernel.close());
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * CPU time (µs) the PostgreSQL server processes of the default tenant's database have used so far,
 * read from /proc (the server runs on this machine): the reads' parse, plan and execution happen
 * there, outside `process.cpuUsage`. Backends are listed at each call; pooled ones live across a
 * round (PG_IDLE_TIMEOUT_MS 10 s).
 */
async function pgBackendMicros(): Promise<number> {
  const database = `${pgPrefix}${settings.DEFAULT_TENANT.replace(/-/g, '_')}`;
  const client = new pgLib.Client({ connectionString: settings.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
    const tick = 1e6 / 100; // USER_HZ: 100 on Linux
    let total = 0;
    for (const { pid } of rows) {
      try {
        const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        total += (Number(fields[11]) + Number(fields[12])) * tick; // utime, stime
      } catch { /* ended meanwhile */ }
    }
    return total;
  } finally {
    await client.end();
  }
}

async function measure(app: FastifyInstance): Promise<void> {
  // the timed requests are checked, not parsed: parsing 50 rows would be counted as the server's CPU
  const call = async (method: 'GET' | 'POST', url: string, token: string | null, payload?: string): Promise<string> => {
    const res = await app.inject({ method, url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) }, payload });
    if (res.statusCode >= 300 || res.body.includes('"errors"')) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.body;
  };
  const json = async (...a: Parameters<typeof call>) => JSON.parse(await call(...a)) as Record<string, unknown>;
  const token = (await json('POST', '/api/auth/login', null, JSON.stringify({ email: 'admin@example.com', password }))).access_token as string;
  const countries = (await json('GET', '/api/data/res.country?limit=250&fields=code', token)).items as Array<{ id: string }>;
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) {
    const org = await json('POST', '/api/data/res.organization', token, JSON.stringify({ name: `Org ${String(i).padStart(4, '0')}`, country: countries[i % countries.length]!.id }));
    ids.push(org.id as string);
  }
  const requests: Array<() => Promise<unknown>> = [
    ...bodiesOf(ids).map((body) => () => call('POST', '/graphql', token, body)),
    () => call('GET', REST_LIST, token),
    () => call('POST', '/graphql', token, GQL_LIST_BODY),
  ];
  const only = opt('only')?.split(',').map(Number) ?? requests.map((_, i) => i);
  for (const i of only) if (!requests[i]) throw new Error(`no request ${i}: 0–${requests.length - 1}`);
  for (const i of only) for (let k = 0; k < 200; k++) await requests[i]!();
  sqlTimes.clear();

  const profileTo = opt('profile');
  const session = new Session();
  if (profileTo) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  const perRequest = (since: NodeJS.CpuUsage, count: number) => {
    const d = process.cpuUsage(since);
    if (flag('split')) console.log(`  user ${Math.round(d.user / count)} µs, system ${Math.round(d.system / count)} µs`);
    return Math.round((d.user + d.system) / count);
  };
  const pgSince = async () => (pg ? await pgBackendMicros() : 0);
  /** The database server's CPU per request since `since`, or null on SQLite. */
  const pgPerRequest = async (since: number, count: number) => (pg ? Math.round((await pgBackendMicros() - since) / count) : null);
  for (let round = 0; round < ROUNDS; round++) {
    if (flag('cycle')) {
      const pgStart = await pgSince();
      const since = process.cpuUsage();
      for (let k = 0; k < N; k++) for (const i of only) await requests[i]!();
      const own = perRequest(since, N * only.length);
      const server = await pgPerRequest(pgStart, N * only.length);
      console.log(`cycle of ${only.length}: ${own} µs per request${server === null ? '' : ` (+ ${server} µs PostgreSQL)`}`);
      continue;
    }
    const line: string[] = [];
    for (const i of only) {
      const pgStart = await pgSince();
      const since = process.cpuUsage();
      for (let k = 0; k < N; k++) await requests[i]!();
      const own = perRequest(since, N);
      const server = await pgPerRequest(pgStart, N);
      line.push(`${i}:${own}${server === null ? '' : ` (+ ${server} pg)`}`);
    }
    console.log(line.join(' '));
  }
  if (profileTo) {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(profileTo, JSON.stringify(profile));
    session.disconnect();
  }
  for (const [sql, e] of [...sqlTimes].sort((a, b) => Number(b[1].ns - a[1].ns))) {
    console.log(`${(Number(e.ns) / e.calls / 1000).toFixed(1)} µs × ${e.calls}, ${(e.rows / e.calls).toFixed(1)} rows: ${sql.slice(0, 300)}`);
  }
}
