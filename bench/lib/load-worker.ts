/**
 * The load generator, run as its own process (pinned to the load core): autocannon jobs from a
 * JSON spec (argv[2], or the file named by `@<file>` there), warm-up first, then the measured run of every job side by side. Prints
 * JSON lines on stdout: {"event":"measure-start"} when warm-up ends, {"event":"result",...} last.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';

export interface LoadJob {
  name: string;
  base: string;
  method: 'GET' | 'POST';
  /** Cycled one per request. */
  paths: string[];
  headers?: Record<string, string>;
  /** Cycled one per request. */
  bodies?: string[];
  /**
   * Body with `{{n}}` replaced by a number unique in this run (creates), and `{{id}}` by a text
   * unique in this run that is valid inside a GraphQL name (fresh documents).
   */
  bodyTemplate?: string;
  connections: number;
  warmupS: number;
  durationS: number;
  timeoutS?: number;
  /**
   * A latency probe instead of a load: one request at a time on one keep-alive connection, timed
   * to the microsecond (autocannon's histogram counts whole milliseconds).
   */
  probe?: boolean;
  /**
   * Probe only: send at most one request per interval (open loop). A probe that measures latency
   * must not itself load the server: closed-loop pings took ~15% of the server core away from
   * the logins they were measured beside.
   */
  intervalMs?: number;
}

export interface LoadResult {
  name: string;
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  durationS: number;
  connections: number;
}

const runId = crypto.randomBytes(3).toString('hex');

function options(job: LoadJob, durationS: number) {
  const url = new URL(job.base);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to load ${url.hostname}: only 127.0.0.1`);
  let n = 0;
  const setupRequest = (req: Record<string, unknown>) => {
    const i = n++;
    req.path = job.paths[i % job.paths.length];
    if (job.bodies) req.body = job.bodies[i % job.bodies.length];
    else if (job.bodyTemplate) req.body = job.bodyTemplate.replaceAll('{{n}}', `${runId}-${process.pid}-${i}`).replaceAll('{{id}}', `${runId}_${process.pid}_${i}`);
    return req;
  };
  return {
    url: job.base,
    method: job.method,
    headers: { ...(job.headers ?? {}), ...(job.bodies || job.bodyTemplate ? { 'content-type': 'application/json' } : {}) },
    connections: job.connections,
    duration: durationS,
    timeout: job.timeoutS ?? 30,
    requests: [{ setupRequest }],
  };
}

function run(job: LoadJob, durationS: number): Promise<any> {
  return new Promise((resolve, reject) => {
    autocannon(options(job, durationS), (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res)));
  });
}

async function probe(job: LoadJob, durationS: number): Promise<any> {
  const url = new URL(job.base);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to load ${url.hostname}: only 127.0.0.1`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lat: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < durationS * 1000 && i < 1_000_000; i++) {
    if (job.intervalMs) {
      const wait = t0 + i * job.intervalMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const t = performance.now();
    const status = await new Promise<number>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, method: job.method, path: job.paths[i % job.paths.length], headers: job.headers, agent, timeout: (job.timeoutS ?? 30) * 1000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(-1));
      req.end();
    });
    if (status < 0) errors++;
    else if (status < 200 || status >= 300) non2xx++;
    else lat.push(performance.now() - t);
  }
  agent.destroy();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p / 100 * lat.length))] ?? NaN;
  const duration = (performance.now() - t0) / 1000;
  return { '2xx': lat.length, non2xx, errors, timeouts: 0, duration, latency: { p50: q(50), p90: q(90), p99: q(99), max: lat[lat.length - 1] ?? NaN, average: lat.reduce((a, x) => a + x, 0) / (lat.length || 1) } };
}

function summarise(job: LoadJob, r: any): LoadResult {
  const ok = r['2xx'] as number;
  return {
    name: job.name,
    rps: r.duration > 0 ? ok / r.duration : 0,
    ok,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    mean: r.latency.average,
    durationS: r.duration,
    connections: job.connections,
  };
}

async function main(): Promise<void> {
  const arg = process.argv[2]!;
  const jobs = JSON.parse(arg.startsWith('@') ? fs.readFileSync(arg.slice(1), 'utf8') : arg) as LoadJob[];
  const warm = jobs.filter((j) => j.warmupS > 0);
  const go = (j: LoadJob, s: number) => (j.probe ? probe(j, s) : run(j, s));
  await Promise.all(warm.map((j) => go(j, j.warmupS)));
  console.log(JSON.stringify({ event: 'measure-start' }));
  const results = await Promise.all(jobs.map(async (j) => summarise(j, await go(j, j.durationS))));
  console.log(JSON.stringify({ event: 'result', results }));
}

// a load generator whose orchestrator is gone stops at once
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(2); }, 1_000).unref();
main().then(() => process.exit(0), (err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
