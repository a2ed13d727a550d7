/**
 * Workload 7's client (its own process, on the load core): one tenant after another, its first
 * request ever to this server (GET /api/data/res.organization?limit=5 with that tenant's token),
 * then a second one. JSON lines: progress every 100 tenants (the orchestrator reads the server's
 * RSS there), the result last.
 */
import fs from 'node:fs';
import http from 'node:http';

const { base, tokensFile, maxSeconds } = JSON.parse(process.argv[2]!) as { base: string; tokensFile: string; maxSeconds: number };
const url = new URL(base);
if (url.hostname !== '127.0.0.1') throw new Error('only 127.0.0.1');
const tokens = JSON.parse(fs.readFileSync(tokensFile, 'utf8')) as Record<string, string>;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(token: string): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.get({ host: url.hostname, port: url.port, path: '/api/data/res.organization?limit=5', agent, headers: { authorization: `Bearer ${token}` }, timeout: 30_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - t, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

const first: number[] = [];
const second: number[] = [];
const errors: string[] = [];
const t0 = performance.now();
for (const [tenant, token] of Object.entries(tokens)) {
  if ((performance.now() - t0) / 1000 > maxSeconds) break;
  const a = await get(token);
  const b = await get(token);
  if (a.status !== 200 || b.status !== 200 || !(JSON.parse(a.body) as { items?: unknown[] }).items?.length) {
    if (errors.length < 10) errors.push(`${tenant}: ${a.status}/${b.status} ${a.body.slice(0, 200)}`);
    continue;
  }
  first.push(a.ms);
  second.push(b.ms);
  if (first.length % 100 === 0) console.log(JSON.stringify({ event: 'progress', done: first.length }));
}
console.log(JSON.stringify({ event: 'result', first, second, errors, seconds: (performance.now() - t0) / 1000 }));
process.exit(0);
