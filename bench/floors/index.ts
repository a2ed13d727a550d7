/**
 * The in-run floors: bare node:http and bare graphql-yoga, each a child process on the server
 * core. Both stay up for the main server's workloads, so a row can be measured in turns with its
 * floor (`bench/lib/paired.ts`) as well as against the one figure each floor gives at the start.
 * Two more read the database per request (SQLite or PostgreSQL), each with the cache-off server
 * whose data it reads: node:http with workload 2's page (`db-floor.ts`), and graphql-yoga with
 * workload 16's reads and write (`yoga-db-floor.ts`).
 */
import fs from 'node:fs';
import { freePort, HOST, waitHealthy } from '../lib/http.ts';
import { spawnScript } from '../lib/load.ts';
import { pinning, stop, type Child } from '../lib/proc.ts';
import { job, measure, type Bench, type Measured } from '../lib/bench.ts';
import { paired, turnsNote } from '../lib/paired.ts';
import type { LoadJob } from '../lib/load.ts';
import { GQL_LIST_BODY } from '../workloads/queries.ts';

export type FloorKind = 'http' | 'yoga' | 'db';

/** A running floor server: `measure` loads it with its one request for the given durations. */
export interface FloorServer {
  kind: FloorKind;
  measure(durations?: Pick<LoadJob, 'warmupS' | 'durationS'>): Promise<Measured>;
}

async function startFloor(b: Bench, kind: FloorKind, fixture: string, env: Record<string, string> = {}, label = `${kind === 'http' ? 'node:http' : kind} floor`): Promise<{ server: FloorServer; child: Child; base: string }> {
  const port = await freePort();
  const child = spawnScript(`${kind} floor`, `floors/${kind}-floor.ts`, [], pinning.serverCore, { ...process.env, NODE_ENV: 'production', PORT: String(port), FIXTURE: fixture, ...env });
  const base = `http://${HOST}:${port}`;
  try {
    await waitHealthy(base, 30_000, () => child.proc.exitCode === null, kind === 'yoga' ? '/health' : '/');
  } catch (err) {
    await stop(child);
    throw err;
  }
  const load = kind === 'yoga'
    ? { name: 'yoga floor', base, method: 'POST' as const, paths: ['/graphql'], bodies: [GQL_LIST_BODY] }
    : { name: label, base, method: 'GET' as const, paths: ['/'] };
  return {
    child,
    base,
    server: { kind, measure: async (durations) => (await measure(child.pid, [job(b, { ...load, ...durations })]))[0]! },
  };
}

/**
 * Starts both floors, measures each once for the table's floor rows and `b.floors`, and leaves
 * them running in `b.floorServers` until the returned function stops them.
 */
export async function floors(b: Bench, fixture: string): Promise<() => Promise<void>> {
  const children: Child[] = [];
  const stopAll = async () => {
    b.floorServers = {};
    await Promise.all(children.map((c) => stop(c)));
  };
  try {
    for (const kind of ['http', 'yoga'] as const) {
      b.log(`floor: ${kind}`);
      const { server, child } = await startFloor(b, kind, fixture);
      children.push(child);
      b.floorServers[kind] = server;
      const r = await server.measure();
      b.floors[kind] = r.rps;
      b.raw[`floor-${kind}`] = r;
      b.rows.push({
        id: 'floor',
        workload: kind === 'http' ? 'node:http, same 50-object JSON' : 'graphql-yoga, same query, static objects',
        rps: r.rps, p50: r.p50, p99: r.p99, peakRssMb: r.peakRssMb,
        xYoga: kind === 'yoga' ? 1 : undefined,
        note: r.non2xx + r.errors ? `${r.non2xx} non-2xx, ${r.errors} errors` : undefined,
      });
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  const http = b.rows.find((r) => r.workload.startsWith('node:http'));
  if (http && b.floors.yoga) http.xYoga = http.rps! / b.floors.yoga;
  return stopAll;
}

/**
 * The node:http + database floor (`db-floor.ts`) on the cache-off server's default tenant
 * (`database`: its SQLite file or PostgreSQL URL), answering `restFixture` (fw's own answer to
 * workload 2, which the floor must repeat byte for byte). Measured in turns with the node:http
 * floor, as row 2c is, and shown as a floor row with that ratio: the most a server that reads the
 * page per request can reach. Answers that ratio, or null when the node:http floor is not running.
 */
export async function dbFloor(b: Bench, dialect: 'sqlite' | 'postgresql', database: string, restFixture: string): Promise<number | null> {
  const engine = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  b.log(`floor: node:http + ${engine}`);
  const { server, child, base } = await startFloor(b, 'db', restFixture, { DB: database, DIALECT: dialect }, `node:http + ${engine} floor`);
  try {
    const answer = await (await fetch(`${base}/`)).text();
    if (answer !== fs.readFileSync(restFixture, 'utf8')) throw new Error(`the node:http + ${engine} floor's answer differs from fw's: ${answer.slice(0, 300)}`);
    const turns = await paired(b, 'http', (d) => server.measure(d), (r) => r.rps);
    const r = turns?.fw ?? (await server.measure());
    const vsHttp = turns?.ratio ?? (b.floors.http ? r.rps / b.floors.http : undefined);
    b.raw[`floor-http-${dialect}`] = turns ? { ...r, turns: { ratios: turns.ratios, floorRps: turns.floorRps } } : r;
    b.rows.push({
      id: 'floor',
      workload: `node:http + ${engine}, REST list read per request`,
      rps: r.rps, p50: r.p50, p99: r.p99, peakRssMb: r.peakRssMb,
      xYoga: b.floors.yoga ? r.rps / b.floors.yoga : undefined,
      vsFloor: vsHttp === undefined ? undefined : { name: 'node:http', ratio: vsHttp },
      note: r.non2xx + r.errors ? `${r.non2xx} non-2xx, ${r.errors} errors` : turns ? turnsNote(turns, 'node:http') : undefined,
    });
    return vsHttp ?? null;
  } finally {
    await stop(child);
  }
}

/**
 * The yoga + database floor (`yoga-db-floor.ts`) on a cache-off server's tenant databases
 * (`databases`: token → SQLite file or PostgreSQL URL), loaded with the jobs of `workload` (1's
 * list or 16's reads and write, aimed at fw at `fwBase`) and checked first: every read must answer
 * fw's bytes for that tenant. Measured in turns with the yoga floor, as rows 1c and 16c are, and
 * shown as a floor row with that ratio: the most a GraphQL server that reads per request can
 * reach. Answers that ratio, or null when the yoga floor is not running.
 */
export async function yogaDbFloor(b: Bench, dialect: 'sqlite' | 'postgresql', databases: Record<string, string>, jobs: LoadJob[], fwBase: string, workload: '1' | '16'): Promise<number | null> {
  const engine = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  b.log(`floor: graphql-yoga + ${engine} (workload ${workload})`);
  const port = await freePort();
  const tenantsFile = `${b.ctx.tmp}/yoga-db-tenants.json`;
  fs.writeFileSync(tenantsFile, JSON.stringify(databases));
  const child = spawnScript(`yoga + ${engine} floor`, 'floors/yoga-db-floor.ts', [], pinning.serverCore, { ...process.env, NODE_ENV: 'production', PORT: String(port), TENANTS: tenantsFile, DIALECT: dialect });
  const base = `http://${HOST}:${port}`;
  try {
    await waitHealthy(base, 30_000, () => child.proc.exitCode === null);
    const post = async (at: string, j: LoadJob, body: string) => {
      const r = await fetch(`${at}/graphql`, { method: 'POST', headers: { ...j.headers, 'content-type': 'application/json' }, body });
      return r.text();
    };
    for (const j of jobs) {
      for (const body of j.bodies ?? []) {
        const mine = await post(base, j, body);
        if (body.includes('mutation')) {
          if (!mine.includes('"resOrganizationUpdate":{"id"')) throw new Error(`the yoga + ${engine} floor's write failed: ${mine.slice(0, 300)}`);
          continue;
        }
        const fw = await post(fwBase, j, body);
        if (mine !== fw) throw new Error(`the yoga + ${engine} floor's answer differs from fw's for ${body.slice(-160)}: ${mine.slice(0, 200)} / ${fw.slice(0, 200)}`);
      }
    }
    const floorJobs = jobs.map((j) => ({ ...j, name: `yoga+${engine} ${j.name}`, base }));
    const total = (rs: Measured[]) => rs.reduce((n, r) => n + r.rps, 0);
    const turns = await paired(b, 'yoga', (d) => measure(child.pid, floorJobs.map((j) => ({ ...j, ...d }))), total);
    const results = turns?.fw ?? (await measure(child.pid, floorJobs));
    const rps = total(results);
    const xYoga = turns?.ratio ?? (b.floors.yoga ? rps / b.floors.yoga : undefined);
    const bad = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
    b.raw[`floor-yoga-${dialect}-w${workload}`] = { rps, results, ...(turns ? { turns: { ratios: turns.ratios, floorRps: turns.floorRps } } : {}) };
    b.rows.push({
      id: 'floor',
      workload: `graphql-yoga + ${engine}, workload ${workload} read per request`,
      rps, p50: results.reduce((n, r) => n + r.p50 * r.rps, 0) / Math.max(rps, 1), p99: Math.max(...results.map((r) => r.p99)), peakRssMb: results[0]?.peakRssMb,
      xYoga,
      note: bad ? `${bad} failed requests` : turns ? turnsNote(turns, 'yoga') : undefined,
    });
    return bad ? null : xYoga ?? null;
  } finally {
    await stop(child);
  }
}
