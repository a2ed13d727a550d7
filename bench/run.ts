/**
 * `npm run bench [-- --quick] [-- --pg] [-- --only 1,2,login] [-- --cpu-prof] [-- --soak-seconds N] [-- --soak-rate R]`
 *
 * Starts the real fw server and the in-run floors as child processes on 127.0.0.1, seeds data
 * through the API, drives every workload of issue 7 from a separate load-generator process,
 * prints one table and writes bench/results/<date>.json. Exit 0 even when targets are missed
 * (they print MISSED); 1 when the harness itself failed. See docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dbFloor, floors, yogaDbFloor } from './floors/index.ts';
import { job, type Bench } from './lib/bench.ts';
import { BENCH_DIR } from './lib/load.ts';
import { pinning, stopAll } from './lib/proc.ts';
import { renderTable, type Row } from './lib/report.ts';
import { ok } from './lib/http.ts';
import { login, seedOrganizations } from './lib/seed.ts';
import { startFw, tenantDatabase, type FwServer, type RunContext } from './lib/server.ts';
import { apiWorkloads, fixtureOf } from './workloads/api.ts';
import { GQL_LIST_BODY, REST_LIST } from './workloads/queries.ts';
import { loginWorkload } from './workloads/login.ts';
import { sqlWorkload } from './workloads/sql.ts';
import { storageWorkload } from './workloads/storage.ts';
import { tenantsWorkload } from './workloads/tenants.ts';
import { webWorkload } from './workloads/web.ts';
import { aiWorkload } from './workloads/ai.ts';
import { SOAK_DEFAULTS, soakOptions, soakWorkload } from './workloads/soak.ts';
import { gqlfloodWorkload } from './workloads/gqlflood.ts';
import { instancesWorkload } from './workloads/instances.ts';
import { transferWorkload } from './workloads/transfer.ts';
import { tenantMemoryWorkload } from './workloads/tenant-memory.ts';
import { mixedWorkload } from './workloads/mixed.ts';

const NAMES: Record<string, string> = { 'gql-list': '1', 'rest-list': '2', read: '3', create: '4', login: '5', storage: '6', tenants: '7', sql: '8', web: '9', ai: '10', soak: '11', gqlflood: '12', instances: '13', transfer: '14', 'tenant-memory': '15', mixed: '16' };
const { values } = parseArgs({
  options: {
    pg: { type: 'boolean' }, quick: { type: 'boolean' }, only: { type: 'string' }, 'cpu-prof': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    'soak-seconds': { type: 'string' }, 'soak-rate': { type: 'string' }, pairs: { type: 'string' },
  },
});
if (values.help) {
  console.log(`npm run bench -- [--quick] [--pg] [--only <w,...>] [--cpu-prof] [--pairs K] [--soak-seconds N] [--soak-rate R]\n  workloads: 1..16 or ${Object.keys(NAMES).join(', ')}\n  --pairs K: rows with a ratio target (1, 1c, 2, 2c, 16, 16c) measured in K turns with their floor, judged by the median ratio (default 3; 1 with --quick: once, against the floor's first figure)\n  soak (11): N seconds (env SOAK_SECONDS; default ${SOAK_DEFAULTS.seconds}, 30 with --quick), R operations/s (env SOAK_RATE; default ${SOAK_DEFAULTS.rate})`);
  process.exit(0);
}
const selected = values.only ? new Set(values.only.split(',').map((s) => NAMES[s.trim()] ?? s.trim())) : null;
for (const s of selected ?? []) if (!/^([1-9]|1[0-6])$/.test(s)) { console.error(`unknown workload "${s}"`); process.exit(1); }
const only = (w: string) => !selected || selected.has(w);
const positive = (name: string, v: string | undefined, fallback: number): number => {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) { console.error(`${name} must be a positive number, not "${v}"`); process.exit(1); }
  return n;
};
const soakSeconds = Math.round(positive('--soak-seconds', values['soak-seconds'] ?? process.env.SOAK_SECONDS, values.quick ? 30 : SOAK_DEFAULTS.seconds));
const pairs = Math.round(positive('--pairs', values.pairs, values.quick ? 1 : 3));
const soakRate = positive('--soak-rate', values['soak-rate'] ?? process.env.SOAK_RATE, SOAK_DEFAULTS.rate);
// a soak of another length than the default gets its own result file
const soakTag = only('11') && soakSeconds !== SOAK_DEFAULTS.seconds ? `-soak${soakSeconds}s` : '';

const root = path.dirname(BENCH_DIR);
const rand = crypto.randomBytes(3).toString('hex');
const ctx: RunContext = {
  quick: Boolean(values.quick),
  tmp: fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-')),
  bcryptCost: Number(process.env.BCRYPT_COST ?? 12),
  adminEmail: 'admin@example.com',
  adminPassword: `bench-${crypto.randomBytes(9).toString('base64url')}`,
  jwtKey: crypto.randomBytes(32).toString('base64url'),
  pg: values.pg ? { url: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres', prefix: `fwb_${rand}_` } : null,
  cpuProfDir: null,
};
if (values['cpu-prof']) {
  ctx.cpuProfDir = path.join(root, '.tmp', 'bench-profiles');
  fs.mkdirSync(ctx.cpuProfDir, { recursive: true });
}
const started = Date.now();
const log = (msg: string) => console.error(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const b: Bench = {
  ctx, connections: 20, warmupS: ctx.quick ? 1 : 3, durationS: ctx.quick ? 3 : 10, rows: [], raw: {}, floors: {}, floorServers: {}, pairs, log,
};

// ---- cleanup: every child, the temp folder, this run's PostgreSQL databases; also on Ctrl-C
let cleaned: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    await stopAll();
    if (ctx.pg) {
      try {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: ctx.pg.url, connectionTimeoutMillis: 10_000 });
        await client.connect();
        const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [ctx.pg.prefix]);
        await client.end();
        if (rows.length > 20) log(`dropping ${rows.length} PostgreSQL databases ${ctx.pg.prefix}*`);
        // four connections side by side: a database drop mostly waits on the disk
        const queue = rows.map((r) => r.datname);
        await Promise.all(Array.from({ length: Math.min(4, queue.length) }, async () => {
          const c = new pg.Client({ connectionString: ctx.pg!.url, connectionTimeoutMillis: 10_000 });
          await c.connect();
          try {
            for (let name = queue.shift(); name; name = queue.shift()) await c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
          } finally {
            await c.end();
          }
        }));
        log(`dropped ${rows.length} PostgreSQL database(s) ${ctx.pg.prefix}*`);
      } catch (err) {
        console.error(`[bench] could not drop databases ${ctx.pg.prefix}*: ${String(err)}`);
      }
    }
    fs.rmSync(ctx.tmp, { recursive: true, force: true });
  })();
  return cleaned;
}
let aborting = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    aborting = true;
    console.error(`\n[bench] ${sig}: stopping every child process and removing ${ctx.tmp}`);
    // the workload that was running may still write into the temp folder: remove it again last
    void cleanup().finally(() => { fs.rmSync(ctx.tmp, { recursive: true, force: true }); process.exit(130); });
  });
}
const watchdog = setTimeout(() => {
  console.error('[bench] the run took longer than its limit; stopping');
  void cleanup().finally(() => process.exit(1));
}, (ctx.quick ? 30 : 120) * 60_000 + (only('11') ? soakSeconds * 1000 : 0));
watchdog.unref();

const sh = (cmd: string, args: string[]) => { try { return execFileSync(cmd, args, { encoding: 'utf8', timeout: 10_000 }).trim(); } catch { return ''; } };
const errors: string[] = [];
async function section(name: string, fn: () => Promise<void>): Promise<void> {
  if (aborting) return;
  try {
    await fn();
  } catch (err) {
    if (aborting) return;
    const msg = err instanceof Error ? err.message : String(err);
    errors.push(`${name}: ${msg}`);
    log(`ERROR in ${name}: ${msg}`);
    b.rows.push({ id: 'err', workload: name, note: `ERROR: ${msg.split('\n')[0]!.slice(0, 160)}` });
  }
}

async function main(): Promise<void> {
  const uptimeBefore = sh('uptime', []);
  log(`temp ${ctx.tmp}; ${pinning.enabled ? `server on core ${pinning.serverCore}, load on core ${pinning.loadCore}` : 'no pinning (taskset missing or one core)'}; ${ctx.pg ? `PostgreSQL ${ctx.pg.prefix}*` : 'SQLite'}`);
  log(`uptime: ${uptimeBefore}`);

  if (['1', '2', '3', '4', '5', '16'].some(only)) {
    let server: FwServer | null = null;
    await section('main server', async () => {
      log('starting fw server (main)');
      server = await startFw(ctx, 'main');
      const token = await login(server.base, ctx);
      log('seeding 60 organizations through the API');
      const orgIds = await seedOrganizations(server.base, token, 60);
      const fixture = path.join(ctx.tmp, 'fixture.json');
      fs.writeFileSync(fixture, JSON.stringify(await fixtureOf(server.base, token)));
      const fr = await ok<{ items: Array<{ id: string }> }>(server.base, 'GET', `/api/data/res.country?limit=1&filter=${encodeURIComponent('[["code","=","FR"]]')}`, { token });
      const countryId = fr.items[0]!.id;
      // the floors keep running for the workloads below, which are measured in turns with them
      const running: { stopFloors?: () => Promise<void> } = {};
      await section('floors', async () => { running.stopFloors = await floors(b, fixture); });
      try {
        await section('workloads 1-4', () => apiWorkloads(b, { server: server!, token, orgIds, countryId }, only));
        // the same reads with the read cache off, on a server of its own with the same data
        if (['1', '2', '3'].some(only)) {
          await section('workloads 1-3, cache off', async () => {
            log('starting fw server (cache off, READ_CACHE_ROWS=0)');
            const cold = await startFw(ctx, 'nocache', { READ_CACHE_ROWS: '0' });
            try {
              const coldToken = await login(cold.base, ctx);
              const coldIds = await seedOrganizations(cold.base, coldToken, 60);
              // what reading the page per request allows at all, next to rows 1c and 2c
              const dialect = ctx.pg ? 'postgresql' : 'sqlite';
              const engine = ctx.pg ? 'PostgreSQL' : 'SQLite';
              const database = tenantDatabase(ctx, cold, 'default');
              let floorDb: { engine: string; ratio: number } | null = null;
              if (only('2')) {
                const restFixture = path.join(ctx.tmp, 'fixture-rest.json');
                fs.writeFileSync(restFixture, JSON.stringify(await ok(cold.base, 'GET', REST_LIST, { token: coldToken })));
                const ratio = await dbFloor(b, dialect, database, restFixture);
                floorDb = ratio === null ? null : { engine, ratio };
              }
              let floorYogaDb: { engine: string; ratio: number } | null = null;
              if (only('1')) {
                const list = job(b, { name: 'w1c', base: cold.base, method: 'POST', paths: ['/graphql'], headers: { authorization: `Bearer ${coldToken}` }, bodies: [GQL_LIST_BODY] });
                const ratio = await yogaDbFloor(b, dialect, { [coldToken]: database }, [list], cold.base, '1');
                floorYogaDb = ratio === null ? null : { engine, ratio };
              }
              await apiWorkloads(b, { server: cold, token: coldToken, orgIds: coldIds, countryId, dbFloor: floorDb, yogaDbFloor: floorYogaDb }, only, 'off');
            } finally {
              await cold.stop();
            }
          });
        }
        if (only('5')) await section('workload 5', () => loginWorkload(b, server!, token));
        // against the same floors as workload 1, on a server of its own (five tenants)
        if (only('16')) await section('workload 16', () => mixedWorkload(b));
      } finally {
        await running.stopFloors?.();
      }
    });
    if (server) await (server as FwServer).stop();
  }
  if (only('8')) await section('workload 8', () => sqlWorkload(b));
  if (only('6')) await section('workload 6', () => storageWorkload(b));
  if (only('7')) await section('workload 7', () => tenantsWorkload(b));
  if (only('9')) await section('workload 9', () => webWorkload(b));
  if (only('10')) await section('workload 10', () => aiWorkload(b));
  if (only('11')) await section('workload 11', () => soakWorkload(b, soakOptions(soakSeconds, soakRate)));
  if (only('12')) await section('workload 12', () => gqlfloodWorkload(b));
  if (only('13')) await section('workload 13', () => instancesWorkload(b));
  if (only('14')) await section('workload 14', () => transferWorkload(b));
  if (only('15')) await section('workload 15', () => tenantMemoryWorkload(b));

  if (aborting) return;
  const uptimeAfter = sh('uptime', []);
  log(`uptime: ${uptimeAfter}`);
  const order = (r: Row) => (r.id === 'floor' ? '0' : r.id);
  const rows = [...b.rows].sort((x, y) => order(x).localeCompare(order(y), 'en', { numeric: true }));
  const table = renderTable(rows);
  console.log(`\n${table}\n`);
  const missed = rows.filter((r) => r.met === false).map((r) => `${r.id} ${r.workload}`);
  const notRun = rows.filter((r) => r.met === null).map((r) => `${r.id} ${r.workload}`);
  console.log(`targets: ${rows.filter((r) => r.met === true).length} met, ${missed.length} MISSED${missed.length ? ` (${missed.join('; ')})` : ''}${notRun.length ? `, ${notRun.length} NOT RUN` : ''}`);

  const date = new Date().toISOString().slice(0, 10);
  const stem = path.join(BENCH_DIR, 'results', `${date}${ctx.quick ? '-quick' : ''}${ctx.pg ? '-pg' : ''}${selected ? `-only-${[...selected].sort().join('')}` : ''}${soakTag}`);
  // a second run of the same day and selection gets -2, -3, …: results quoted in docs are never overwritten
  let file = `${stem}.json`;
  for (let n = 2; fs.existsSync(file); n++) file = `${stem}-${n}.json`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model, memoryGb: +(os.totalmem() / 2 ** 30).toFixed(1), node: process.version, kernel: os.release() },
    git: { commit: sh('git', ['-C', root, 'rev-parse', 'HEAD']), dirty: sh('git', ['-C', root, 'status', '--porcelain', '--', 'src']).split('\n').filter(Boolean).length },
    uptimeBefore, uptimeAfter,
    settings: { provider: ctx.pg ? 'postgresql' : 'sqlite', bcryptCost: ctx.bcryptCost, connections: b.connections, warmupS: b.warmupS, durationS: b.durationS, pinning, ...(only('11') ? { soak: soakOptions(soakSeconds, soakRate) } : {}) },
    table, rows, errors, raw: b.raw,
  }, null, 2)}\n`);
  log(`wrote ${path.relative(root, file)}`);
}

main()
  .catch((err) => { errors.push(String(err)); console.error(err); })
  .finally(async () => {
    await cleanup();
    clearTimeout(watchdog);
    if (aborting) fs.rmSync(ctx.tmp, { recursive: true, force: true });
    process.exit(aborting ? 130 : errors.length ? 1 : 0);
  });
