/**
 * Workload 13 (instances): two fw instances on one PostgreSQL server and one Redis, as
 * docs/operations.md sets them up (same keys, one database prefix, REDIS_URL), behind a
 * round-robin client, against one instance in the same run (issue 27 §7).
 *
 * Both instances run; the bench's connections go to instance A alone (B idle), then are dealt
 * round-robin between A and B (connection i to instance i mod 2, a balancer's round robin per
 * keep-alive connection), alternating three times (once with --quick) for half the bench's
 * duration each, so load that drifts on a shared machine hits both sides alike. For a read (REST
 * list of 50 organizations) and a write (REST create, whose events the workers deliver), it prints
 * the median req/s and latency of each side, the median of the rounds' two-to-one ratios, and the
 * peak of PostgreSQL connections to the run's databases (pg_stat_activity sampled every 50 ms
 * over the measured parts).
 *
 * Always on PostgreSQL (several instances need it): the run's server with --pg, otherwise the
 * DATABASE_URL server (default postgresql://postgres@127.0.0.1:5432/postgres) under a prefix of
 * its own, dropped at the end. Both instances are pinned to the server core like every other
 * server of the bench: on a 2-core machine the ratio is what splitting the same CPU into two
 * processes costs or gains, not scaling onto more cores.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { failures, job, type Bench } from '../lib/bench.ts';
import { ok } from '../lib/http.ts';
import { runLoad, type LoadJob, type LoadResult } from '../lib/load.ts';
import { RssWatch } from '../lib/proc.ts';
import { login, seedOrganizations } from '../lib/seed.ts';
import { startFw, type FwServer, type RunContext } from '../lib/server.ts';
import { REST_LIST } from './queries.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const SAMPLE_MS = 50;

/** Samples the connections to databases under `prefix` until stopped: the peak and the mean. */
function sampleConnections(url: string, prefix: string) {
  const client = new pg.Client({ connectionString: url });
  let peak = 0;
  let sum = 0;
  let n = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE starts_with(datname, $1)', [prefix]);
      const count = Number(rows[0]!.n);
      peak = Math.max(peak, count);
      sum += count;
      n++;
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
    await client.end();
  })();
  return {
    async stop(): Promise<{ peak: number; mean: number; samples: number }> {
      running = false;
      await loop;
      return { peak, mean: n ? sum / n : 0, samples: n };
    },
  };
}

interface Phase { results: LoadResult[]; rps: number; p50: number; p99: number; bad: string; connections: { peak: number; mean: number; samples: number }; peakRssMb: number[] }

/** The jobs side by side, with the connection sampler and each server's RSS over the measured part. */
async function phase(jobs: LoadJob[], servers: FwServer[], pgUrl: string, prefix: string): Promise<Phase> {
  let sampler: ReturnType<typeof sampleConnections> | undefined;
  let watches: RssWatch[] = [];
  try {
    const results = await runLoad(jobs, () => {
      sampler = sampleConnections(pgUrl, prefix);
      watches = servers.map((s) => new RssWatch(s.pid).start());
    });
    const connections = await sampler!.stop();
    sampler = undefined;
    const rps = results.reduce((a, r) => a + r.rps, 0);
    // latency of the slower side: a client behind the balancer sees both
    return {
      results, rps, connections,
      p50: Math.max(...results.map((r) => r.p50)), p99: Math.max(...results.map((r) => r.p99)),
      bad: results.map(failures).filter(Boolean).join('; '),
      peakRssMb: watches.map((w) => w.stop()),
    };
  } finally {
    await sampler?.stop().catch(() => undefined);
    for (const w of watches) w.stop();
  }
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

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

export async function instancesWorkload(b: Bench): Promise<void> {
  const own = !b.ctx.pg;
  const pgRun = b.ctx.pg ?? { url: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres', prefix: `fwb_${crypto.randomBytes(3).toString('hex')}_` };
  const ctx: RunContext = { ...b.ctx, pg: pgRun };
  // both instances on the same databases (fwEnv gives each server name its own prefix otherwise)
  const prefix = `${pgRun.prefix}inst_`;
  // one deployment: its own Redis prefix too, so a test run on the same Redis is not heard
  const shared = { PG_DATABASE_PREFIX: prefix, REDIS_URL, REDIS_PREFIX: prefix, CONNECTOR_SECRET_KEY: crypto.randomBytes(32).toString('base64url') };
  const rounds = b.ctx.quick ? 1 : 3;
  const durationS = Math.max(2, Math.round(b.durationS / 2));
  const servers: FwServer[] = [];
  try {
    b.log(`workload 13: instance A on PostgreSQL ${prefix}*, Redis ${REDIS_URL}`);
    const a = await startFw(ctx, 'inst-a', shared);
    servers.push(a);
    const token = await login(a.base, ctx);
    await seedOrganizations(a.base, token, 60, 'Instances Org');
    const fr = await ok<{ items: Array<{ id: string }> }>(a.base, 'GET', `/api/data/res.country?limit=1&filter=${encodeURIComponent('[["code","=","FR"]]')}`, { token });
    // B opens the tenant A created, as a second instance of a deployment does
    b.log('workload 13: instance B');
    const bInst = await startFw(ctx, 'inst-b', shared);
    servers.push(bInst);
    const check = await ok<{ items: unknown[] }>(bInst.base, 'GET', REST_LIST, { token });
    if (check.items.length !== 50) throw new Error(`instance B lists ${check.items.length} organizations, not 50`);

    const auth = { authorization: `Bearer ${token}` };
    const ops = [
      { id: 'read', label: 'REST list 50 orgs', method: 'GET' as const, paths: [REST_LIST] },
      { id: 'write', label: 'REST create 1 org', method: 'POST' as const, paths: ['/api/data/res.organization'], bodyTemplate: JSON.stringify({ name: 'Instances {{n}}', country: fr.items[0]!.id }) },
    ];
    const raw: Record<string, { one: Phase[]; two: Phase[] }> = {};
    for (const op of ops) {
      const spec = (name: string, base: string, connections: number): LoadJob =>
        job(b, { name, base, method: op.method, paths: op.paths, headers: auth, bodyTemplate: op.bodyTemplate, connections, warmupS: 1, durationS });
      const one: Phase[] = [];
      const two: Phase[] = [];
      // alternating, so load that drifts during the run (a shared machine) hits both sides alike
      for (let r = 0; r < rounds; r++) {
        b.log(`workload 13: ${op.label}, round ${r + 1}/${rounds}: A alone (B idle), ${b.connections} connections`);
        one.push(await phase([spec(`13-${op.id}-one`, a.base, b.connections)], servers, pgRun.url, prefix));
        b.log(`workload 13: ${op.label}, round ${r + 1}/${rounds}: A and B round-robin`);
        const half = Math.floor(b.connections / 2);
        two.push(await phase([spec(`13-${op.id}-a`, a.base, b.connections - half), spec(`13-${op.id}-b`, bInst.base, half)], servers, pgRun.url, prefix));
      }
      raw[op.id] = { one, two };
      // the round of the median rate on each side, for its latency
      const m1 = one.find((p) => p.rps === median(one.map((x) => x.rps)))!;
      const m2 = two.find((p) => p.rps === median(two.map((x) => x.rps)))!;
      const ratios = two.map((t, r) => t.rps / one[r]!.rps);
      const bad = [...one, ...two].map((p) => p.bad).filter(Boolean).join('; ');
      b.rows.push({
        id: `13-${op.id}-1`, workload: `instances: ${op.label}, 1 instance (other idle)`, rps: m1.rps, p50: m1.p50, p99: m1.p99, peakRssMb: m1.peakRssMb[0],
        note: [`median of ${rounds}: ${one.map((p) => Math.round(p.rps)).join(', ')} req/s`, `PG connections peak ${Math.max(...one.map((p) => p.connections.peak))} (the idle instance's included)`].join('; '),
      });
      b.rows.push({
        id: `13-${op.id}-2`, workload: `instances: ${op.label}, 2 instances round-robin`, rps: m2.rps, p50: m2.p50, p99: m2.p99, peakRssMb: Math.max(...m2.peakRssMb),
        note: [`${median(ratios).toFixed(2)}× 1 instance (median of rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
          `A ${Math.round(m2.results[0]!.rps)} + B ${Math.round(m2.results[1]!.rps)} req/s`,
          `PG connections peak ${Math.max(...two.map((p) => p.connections.peak))}`, bad].filter(Boolean).join('; '),
      });
    }
    b.raw.w13 = { prefix, redis: REDIS_URL, connections: b.connections, rounds, durationS, ...raw };
  } finally {
    for (const s of servers) await s.stop();
    if (own) await dropDatabases(pgRun.url, pgRun.prefix).catch((err) => b.log(`workload 13: could not drop ${pgRun.prefix}*: ${String(err)}`));
  }
}
