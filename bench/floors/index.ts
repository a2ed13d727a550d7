/** The in-run floors: bare node:http and bare graphql-yoga, each a child process on the server core. */
import { freePort, HOST, waitHealthy } from '../lib/http.ts';
import { spawnScript } from '../lib/load.ts';
import { pinning, stop } from '../lib/proc.ts';
import { job, measure, type Bench, type Measured } from '../lib/bench.ts';
import { GQL_LIST_BODY } from '../workloads/queries.ts';

async function runFloor(b: Bench, kind: 'http' | 'yoga', fixture: string): Promise<Measured> {
  const port = await freePort();
  const child = spawnScript(`${kind} floor`, `floors/${kind}-floor.ts`, [], pinning.serverCore, { ...process.env, NODE_ENV: 'production', PORT: String(port), FIXTURE: fixture });
  const base = `http://${HOST}:${port}`;
  try {
    await waitHealthy(base, 30_000, () => child.proc.exitCode === null, kind === 'yoga' ? '/health' : '/');
    const [r] = kind === 'http'
      ? await measure(child.pid, [job(b, { name: 'node:http floor', base, method: 'GET', paths: ['/'] })])
      : await measure(child.pid, [job(b, { name: 'yoga floor', base, method: 'POST', paths: ['/graphql'], bodies: [GQL_LIST_BODY] })]);
    return r!;
  } finally {
    await stop(child);
  }
}

export async function floors(b: Bench, fixture: string): Promise<void> {
  for (const kind of ['http', 'yoga'] as const) {
    b.log(`floor: ${kind}`);
    const r = await runFloor(b, kind, fixture);
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
  const http = b.rows.find((r) => r.workload.startsWith('node:http'));
  if (http && b.floors.yoga) http.xYoga = http.rps! / b.floors.yoga;
}
