/**
 * Workload 5: logins at the configured bcrypt cost against the raw bcrypt.compare floor measured
 * on the same core in the same run, and the latency of a cheap authenticated request (GET
 * /api/base/ping) idle and during the login burst.
 */
import { failures, job, measure, type Bench } from '../lib/bench.ts';
import { ok } from '../lib/http.ts';
import { spawnScript } from '../lib/load.ts';
import { pinning, waitExit } from '../lib/proc.ts';
import type { FwServer } from '../lib/server.ts';

interface BcryptFloor { cost: number; concurrency: number; compares: number; seconds: number; perSecond: number; singleMs: number }

/**
 * Logins finish in waves (a wave of 20 bcrypt compares fills the libuv pool queue, and each
 * login's token signing waits behind it), so 10 s would count one or two waves: logins and their
 * floor run 30 s (10 s with --quick).
 */
const loginSeconds = (b: Bench) => (b.ctx.quick ? 10 : 30);

async function bcryptFloor(b: Bench): Promise<BcryptFloor> {
  const child = spawnScript('bcrypt floor', 'floors/bcrypt-floor.ts', [String(b.ctx.bcryptCost), String(loginSeconds(b)), String(b.connections)], pinning.serverCore);
  const code = await waitExit(child, (loginSeconds(b) + 120) * 1000);
  if (code !== 0) throw new Error(`bcrypt floor failed: ${child.err().slice(-800)}`);
  return JSON.parse(child.out().trim().split('\n').pop()!) as BcryptFloor;
}

export async function loginWorkload(b: Bench, server: FwServer, token: string): Promise<void> {
  b.log(`floor: bcrypt.compare at cost ${b.ctx.bcryptCost}`);
  const floor = await bcryptFloor(b);
  b.floors.bcrypt = floor.perSecond;
  b.raw['floor-bcrypt'] = floor;
  b.rows.push({
    id: 'floor', workload: `bcrypt.compare cost ${floor.cost}, ${floor.concurrency} in flight`, rps: floor.perSecond,
    note: `one compare alone ${floor.singleMs.toFixed(0)} ms`,
  });

  const base = server.base;
  // The login throttle reserves an attempt per (email, address) before bcrypt runs (at most
  // LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP = 5 in flight per account from one address), so the load
  // logs in as one user per connection.
  b.log(`workload 5: registering ${b.connections} users through the API`);
  const bodies: string[] = [];
  for (let i = 0; i < b.connections; i++) {
    const email = `bench-login-${i}@example.com`;
    const password = `${b.ctx.adminPassword}-${i}`;
    await ok(base, 'POST', '/api/res/user', { token, body: { email, name: `Bench Login ${i}`, password }, timeoutMs: 60_000 });
    bodies.push(JSON.stringify({ email, password }));
  }
  for (const body of bodies.slice(0, 2)) await ok(base, 'POST', '/api/auth/login', { body: JSON.parse(body), timeoutMs: 60_000 });

  const probe = job(b, { name: 'probe', base, method: 'GET', paths: ['/api/base/ping'], headers: { authorization: `Bearer ${token}` }, connections: 1, probe: true, intervalMs: 10 });
  b.log('workload 5: cheap request, idle');
  const [idle] = await measure(server.pid, [probe]);

  // no warm-up run: logins a warm-up leaves queued behind bcrypt would run into the measured part
  b.log('workload 5: logins, with the cheap request alongside');
  const logins = job(b, { name: 'login', base, method: 'POST', paths: ['/api/auth/login'], bodies, timeoutS: 120, warmupS: 0, durationS: loginSeconds(b) });
  const [login, busy] = await measure(server.pid, [logins, { ...probe, warmupS: 0, durationS: loginSeconds(b) }]);
  b.raw.w5 = { login, probeIdle: idle, probeDuringLogins: busy };

  const ratio = login!.rps / floor.perSecond;
  const bad = failures(login!);
  b.rows.push({
    id: '5', workload: `login (bcrypt cost ${b.ctx.bcryptCost})`, rps: login!.rps, p50: login!.p50, p99: login!.p99, peakRssMb: login!.peakRssMb,
    xYoga: b.floors.yoga ? login!.rps / b.floors.yoga : undefined,
    vsFloor: { name: 'bcrypt', ratio }, target: '≥ 0.9× bcrypt', met: !bad && ratio >= 0.9, note: bad || undefined,
  });
  // a hash run on the event loop would hold every request for a whole compare
  const blocked = busy!.p99 >= floor.singleMs;
  b.rows.push({
    id: '5b', workload: 'GET /api/base/ping idle', rps: idle!.rps, p50: idle!.p50, p99: idle!.p99, peakRssMb: idle!.peakRssMb,
    note: failures(idle!) || undefined,
  });
  b.rows.push({
    id: '5c', workload: 'GET /api/base/ping during logins', rps: busy!.rps, p50: busy!.p50, p99: busy!.p99, peakRssMb: busy!.peakRssMb,
    target: `p99 < 1 compare (${floor.singleMs.toFixed(0)} ms)`, met: !failures(busy!) && !blocked,
    note: `p50 ${(busy!.p50 / Math.max(idle!.p50, 0.01)).toFixed(1)}× idle, p99 ${(busy!.p99 / Math.max(idle!.p99, 0.01)).toFixed(1)}× idle${failures(busy!) ? `; ${failures(busy!)}` : ''}`,
  });
}
