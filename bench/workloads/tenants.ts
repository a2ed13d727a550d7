/**
 * Workload 7: many tenant databases opened one after another through real requests. Tenants are
 * provisioned first (in-process kernel API, not over HTTP: anonymous requests never create a
 * tenant), then a fresh server gets each tenant's first request; latency p50/p99 and RSS after.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type { Bench } from '../lib/bench.ts';
import { spawnScript } from '../lib/load.ts';
import { pinning, procStatusKb, RssWatch, waitExit } from '../lib/proc.ts';
import { fwEnv, startFw } from '../lib/server.ts';

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))] ?? NaN; };

export async function tenantsWorkload(b: Bench): Promise<void> {
  const n = b.ctx.quick ? 50 : 1000;
  const name = 'tenants';
  const dataDir = path.join(b.ctx.tmp, `data-${name}`);
  fs.mkdirSync(dataDir, { recursive: true });
  // tokens must outlive the provisioning
  const shared = { JWT_ACCESS_TOKEN_EXPIRE_MINUTES: '600' };
  const procs = Math.max(1, Math.min(2, os.availableParallelism()));
  const per = Math.ceil(n / procs);
  const maxSeconds = b.ctx.quick ? 300 : 1800;
  b.log(`workload 7: provisioning ${n} tenants (${procs} processes, bcrypt cost 4 for their seeded admins)`);
  const t0 = Date.now();
  const parts = Array.from({ length: procs }, (_, k) => {
    const out = path.join(b.ctx.tmp, `tokens-${k}.json`);
    const env = fwEnv(b.ctx, name, dataDir, { ...shared, BCRYPT_COST: '4', EVENT_WORKER: 'false' });
    const child = spawnScript(`provision ${k}`, 'workloads/provision-tenants.ts', [out, String(k * per), String(Math.min(per, n - k * per)), String(maxSeconds)], null, env);
    child.proc.stderr!.on('data', (d: Buffer) => { for (const l of d.toString().split('\n')) if (l.startsWith('provisioned')) b.log(`  [${k}] ${l}`); });
    return { out, child };
  });
  for (const p of parts) {
    const code = await waitExit(p.child, (maxSeconds + 120) * 1000);
    if (code !== 0) throw new Error(`tenant provisioning failed: ${p.child.err().slice(-1500)}`);
  }
  const tokens = Object.assign({}, ...parts.map((p) => JSON.parse(fs.readFileSync(p.out, 'utf8')) as Record<string, string>));
  const provisioned = Object.keys(tokens).length;
  const tokensFile = path.join(b.ctx.tmp, 'tokens.json');
  fs.writeFileSync(tokensFile, JSON.stringify(tokens));
  const provisionS = (Date.now() - t0) / 1000;
  b.log(`  ${provisioned} tenants in ${provisionS.toFixed(0)} s`);

  const server = await startFw(b.ctx, name, shared);
  try {
    const rssBeforeMb = (procStatusKb(server.pid, 'VmRSS') ?? 0) / 1024;
    const watch = new RssWatch(server.pid).start();
    const worker = spawnScript('tenant client', 'workloads/tenant-worker.ts', [JSON.stringify({ base: server.base, tokensFile, maxSeconds })], pinning.loadCore);
    const rssAt: Record<number, number> = {};
    let buf = '';
    worker.proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = /"event":"progress","done":(\d+)/.exec(line);
        if (m) rssAt[Number(m[1])] = Math.round((procStatusKb(server.pid, 'VmRSS') ?? 0) / 1024);
      }
    });
    const code = await waitExit(worker, (maxSeconds + 60) * 1000);
    const peakMb = watch.stop();
    const rssAfterMb = (procStatusKb(server.pid, 'VmRSS') ?? 0) / 1024;
    if (code !== 0) throw new Error(`tenant client failed: ${worker.err().slice(-800)}`);
    const r = JSON.parse(worker.out().trim().split('\n').pop()!) as { first: number[]; second: number[]; errors: string[]; seconds: number };
    const done = r.first.length;
    b.raw.w7 = { tenants: n, provisioned, provisionSeconds: provisionS, opened: done, rssBeforeMb, rssAfterMb, peakMb, rssMbAfter: rssAt, errors: r.errors, seconds: r.seconds, first: { p50: pct(r.first, 50), p90: pct(r.first, 90), p99: pct(r.first, 99), max: Math.max(...r.first) }, second: { p50: pct(r.second, 50), p99: pct(r.second, 99) }, tenantCacheMax: Number(process.env.TENANT_CACHE_MAX ?? 256) };
    const p99 = pct(r.first, 99);
    b.rows.push({
      id: '7', workload: `${done} fresh tenants, first request each`, p50: pct(r.first, 50), p99, peakRssMb: peakMb,
      // the target is about 1,000 tenants: a --quick run's 50 are not judged
      target: '< 1 GB RSS, first p99 < 100 ms', met: n < 1000 ? undefined : done === n && r.errors.length === 0 && p99 < 100 && rssAfterMb < 1024,
      note: `RSS ${rssBeforeMb.toFixed(0)} → ${[100, 300, 600].filter((k) => rssAt[k]).map((k) => `${rssAt[k]} at ${k} → `).join('')}${rssAfterMb.toFixed(0)} MB after ${done}; 2nd request p50 ${pct(r.second, 50).toFixed(1)} ms${r.errors.length ? `; ${r.errors.length} failed: ${r.errors[0]}` : ''}`,
    });
  } finally {
    await server.stop();
  }
}
