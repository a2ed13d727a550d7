/**
 * Workload 11 (soak, issue 17 §4): one fw server for 10 minutes (`--soak-seconds`) under a paced
 * mix of REST and GraphQL reads and writes, storage uploads, new versions, downloads, updates and
 * deletes, and live subscriptions (graphql-ws, GraphQL over SSE, the presentation event stream)
 * that must receive one event per write; beside it, a ping probe (`GET /health` every 100 ms) in
 * its own process (soak-worker.ts has both clients). The orchestrator samples the server's VmRSS,
 * open file descriptors and CPU time every 5 s, and reads VmRSS right after a full GC (through the
 * server's `--inspect` port on loopback) once after warm-up and once 5 s before the load ends.
 * Targets: 0 errors (requests, subscriptions, missed events, pings), RSS growth after warm-up
 * < 50 MB, ping p99 < 50 ms; and no stored object left over by deleted documents.
 */
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import type { Bench } from '../lib/bench.ts';
import { freePort, HOST, ok } from '../lib/http.ts';
import { spawnScript } from '../lib/load.ts';
import { pinning, stop, waitExit, type Child } from '../lib/proc.ts';
import { login, seedOrganizations } from '../lib/seed.ts';
import { startFw } from '../lib/server.ts';
import type { MixResult, PingResult, SoakSpec } from './soak-worker.ts';

export interface SoakOptions {
  seconds: number;
  /** RSS is compared from this point on (JIT, caches and pools have filled by then). */
  warmupS: number;
  /** Operations per second of the mix. */
  rate: number;
  concurrency: number;
  pingMs: number;
  sampleS: number;
}

export const SOAK_DEFAULTS = { seconds: 600, rate: 100, concurrency: 16, pingMs: 100, sampleS: 5 };

/** Warm-up: 60 s, or a third of a shorter run, on a sample boundary. */
export function soakOptions(seconds: number, rate = SOAK_DEFAULTS.rate): SoakOptions {
  const s = SOAK_DEFAULTS.sampleS;
  return { ...SOAK_DEFAULTS, seconds, rate, warmupS: Math.max(s, Math.min(60, Math.floor(seconds / 3 / s) * s)) };
}

/** RSS and its parts (anonymous memory, mapped files, shared memory such as SQLite's WAL index), in MB. */
interface Sample { t: number; rssMb: number; anonMb: number; fileMb: number; shmemMb: number; fds: number; cpuS: number }

const CLK_TCK = 100;
/** utime + stime of `pid` in seconds (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return NaN;
  }
}
/** VmRSS and its parts from /proc/<pid>/status, in MB. */
function rssParts(pid: number): Pick<Sample, 'rssMb' | 'anonMb' | 'fileMb' | 'shmemMb'> {
  let status = '';
  try { status = fs.readFileSync(`/proc/${pid}/status`, 'utf8'); } catch { /* gone */ }
  const mb = (field: string) => { const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status); return m ? Number(m[1]) / 1024 : NaN; };
  return { rssMb: mb('VmRSS'), anonMb: mb('RssAnon'), fileMb: mb('RssFile'), shmemMb: mb('RssShmem') };
}
const fdCount = (pid: number) => { try { return fs.readdirSync(`/proc/${pid}/fd`).length; } catch { return NaN; } };

/** The server's RSS right after a full garbage collection, and its JS heap then. */
interface Collected { t: number; rssMb: number; anonMb: number; heapUsedMb: number; heapTotalMb: number; gcMs: number }

/**
 * Runs a full garbage collection in the server through its inspector (`--inspect` on a loopback
 * port; nothing is attached in between), then reads its RSS. V8 collects its old generation only
 * when it has grown past a limit, so two raw samples of a steady server can differ by tens of MB
 * depending on where in that saw-tooth they fall; two samples taken after a full collection compare
 * what the server holds. null when the inspector does not answer.
 */
export async function collectedRss(inspectBase: string, pid: number, t: number, gcWindows: Array<[number, number]>): Promise<Collected | null> {
  let ws: WebSocket | null = null;
  try {
    const targets = await (await fetch(`${inspectBase}/json/list`, { signal: AbortSignal.timeout(5_000) })).json() as Array<{ webSocketDebuggerUrl: string }>;
    ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => { ws!.once('open', resolve); ws!.once('error', reject); });
    const pending = new Map<number, (m: { result?: any; error?: { message: string } }) => void>();
    ws.on('message', (d) => { const m = JSON.parse(String(d)) as { id?: number; result?: unknown; error?: { message: string } }; if (m.id) pending.get(m.id)?.(m); });
    let seq = 0;
    const call = (method: string) => new Promise<any>((resolve, reject) => {
      const id = ++seq;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 30 s`)), 30_000);
      pending.set(id, (m) => { clearTimeout(timer); if (m.error) reject(new Error(m.error.message)); else resolve(m.result); });
      ws!.send(JSON.stringify({ id, method }));
    });
    const t0 = performance.now();
    const from = Date.now();
    await call('HeapProfiler.collectGarbage');
    const gcMs = performance.now() - t0;
    gcWindows.push([from, Date.now()]);
    const heap = await call('Runtime.getHeapUsage') as { usedSize: number; totalSize: number };
    await new Promise((r) => setTimeout(r, 200));
    const r = rssParts(pid);
    return { t, rssMb: r.rssMb, anonMb: r.anonMb, heapUsedMb: heap.usedSize / 2 ** 20, heapTotalMb: heap.totalSize / 2 ** 20, gcMs };
  } catch {
    return null;
  } finally {
    ws?.close();
  }
}

/** Files under the local storage backend's root: stored objects, and temp files of uploads. */
function storageFiles(root: string): { objects: number; temp: number; mb: number } {
  const out = { objects: 0, temp: 0, mb: 0 };
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.fwtmp')) out.temp++;
      else { out.objects++; out.mb += fs.statSync(p).size / 2 ** 20; }
    }
  };
  walk(root);
  return out;
}

/** Least-squares slope of y over t, per minute. */
function slopePerMin(xs: Sample[]): number {
  if (xs.length < 3) return NaN;
  const n = xs.length;
  const mt = xs.reduce((a, s) => a + s.t, 0) / n;
  const my = xs.reduce((a, s) => a + s.rssMb, 0) / n;
  const num = xs.reduce((a, s) => a + (s.t - mt) * (s.rssMb - my), 0);
  const den = xs.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return den ? (num / den) * 60 : NaN;
}

/** Collects the JSON lines of a soak worker: events as they come, the result last. */
function follow<T>(child: Child, on: (msg: { event: string; [k: string]: unknown }) => void): { result: () => T | null } {
  let buf = '';
  let result: T | null = null;
  child.proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line.startsWith('{')) continue;
      const msg = JSON.parse(line) as { event: string; result?: T };
      if (msg.event === 'result') result = msg.result!;
      on(msg);
    }
  });
  return { result: () => result };
}

interface PingStats { count: number; failed: number; p50: number; p90: number; p99: number; max: number; windows: Array<{ t: number; count: number; p99: number; max: number }> }
/** Percentiles of the answered pings, and p99 and max per 30 s window (by its start, s). */
function pingStats(pings: Array<[number, number, number]>, start: number): PingStats {
  const okPings = pings.filter(([, , status]) => status === 200);
  const all = okPings.map(([, ms]) => ms).sort((a, b) => a - b);
  const q = (p: number) => all[Math.min(all.length - 1, Math.floor(p / 100 * all.length))] ?? NaN;
  const windows: PingStats['windows'] = [];
  const byWindow = new Map<number, number[]>();
  for (const [t, ms] of okPings) {
    const w = Math.floor((t - start) / 30_000) * 30;
    const xs = byWindow.get(w);
    if (xs) xs.push(ms);
    else byWindow.set(w, [ms]);
  }
  for (const [t, xs] of [...byWindow].sort((a, b) => a[0] - b[0])) {
    xs.sort((a, b) => a - b);
    windows.push({ t, count: xs.length, p99: xs[Math.min(xs.length - 1, Math.floor(0.99 * xs.length))]!, max: xs.at(-1)! });
  }
  return { count: all.length, failed: pings.length - okPings.length, p50: q(50), p90: q(90), p99: q(99), max: all.at(-1) ?? NaN, windows };
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

export async function soakWorkload(b: Bench, o: SoakOptions): Promise<void> {
  b.log(`workload 11: soak for ${o.seconds} s at ${o.rate} operations/s (warm-up ${o.warmupS} s), ping every ${o.pingMs} ms`);
  // the streams live as long as their session: an access token must outlast the run
  const tokenMinutes = Math.max(30, Math.ceil(o.seconds / 60) + 15);
  const inspectPort = await freePort();
  const server = await startFw(b.ctx, 'soak', { JWT_ACCESS_TOKEN_EXPIRE_MINUTES: String(tokenMinutes) }, [`--inspect=${HOST}:${inspectPort}`]);
  const inspectBase = `http://${HOST}:${inspectPort}`;
  const children: Child[] = [];
  try {
    const token = await login(server.base, b.ctx);
    b.log('soak: seeding 60 organizations through the API');
    const orgIds = await seedOrganizations(server.base, token, 60, 'Soak Seed');
    const countries = await ok<{ items: Array<{ id: string }> }>(server.base, 'GET', '/api/data/res.country?limit=50&fields=code', { token });

    // both clients start at the same moment, once the mix's subscriptions are open (they take a
    // few seconds to load on a busy machine)
    const startAt = Date.now() + 10_000;
    const spec = (role: SoakSpec['role']): SoakSpec => ({
      role, base: server.base, token, seconds: o.seconds, startAt, rate: o.rate, concurrency: o.concurrency,
      orgIds, countryIds: countries.items.map((c) => c.id), pingMs: o.pingMs,
    });
    const mixChild = spawnScript('soak mix', 'workloads/soak-worker.ts', [JSON.stringify(spec('mix'))], pinning.loadCore);
    children.push(mixChild);
    const pingChild = spawnScript('soak ping', 'workloads/soak-worker.ts', [JSON.stringify(spec('ping'))], pinning.loadCore);
    children.push(pingChild);

    const samples: Sample[] = [];
    let t0 = 0;
    let endSample: Sample | null = null;
    let timer: NodeJS.Timeout | null = null;
    let warmTimer: NodeJS.Timeout | null = null;
    let endTimer: NodeJS.Timeout | null = null;
    const gcWindows: Array<[number, number]> = [];
    const collected: { warm: Promise<Collected | null> | null; end: Promise<Collected | null> | null } = { warm: null, end: null };
    const sample = (): Sample => ({ t: (Date.now() - t0) / 1000, ...rssParts(server.pid), fds: fdCount(server.pid), cpuS: cpuSeconds(server.pid) });
    let ready = false;
    const mix = follow<MixResult>(mixChild, (msg) => {
      if (msg.event === 'ready') ready = true;
      if (msg.event === 'start') {
        t0 = msg.at as number;
        samples.push(sample());
        b.log(`soak: load started; RSS ${fmt(samples[0]!.rssMb)} MB, ${samples[0]!.fds} fds`);
        timer = setInterval(() => samples.push(sample()), o.sampleS * 1000);
        // both under load (a collection at the end of the load, with nothing in flight, would
        // compare a quieter server with a busy one)
        warmTimer = setTimeout(() => { collected.warm = collectedRss(inspectBase, server.pid, (Date.now() - t0) / 1000, gcWindows); }, o.warmupS * 1000 + 1000);
        endTimer = setTimeout(() => { collected.end = collectedRss(inspectBase, server.pid, (Date.now() - t0) / 1000, gcWindows); }, Math.max(o.warmupS + 2, o.seconds - 5) * 1000);
      }
      if (msg.event === 'progress' && (msg.t as number) % 60 < 10) {
        const last = samples.at(-1);
        b.log(`soak: ${msg.t} s, ${fmt(msg.ops as number)} operations, ${msg.errors} errors, RSS ${last ? fmt(last.rssMb) : '?'} MB, ${last?.fds ?? '?'} fds`);
      }
      if (msg.event === 'load-end') {
        if (timer) clearInterval(timer);
        timer = null;
        endSample = sample();
        samples.push(endSample);
        b.log('soak: load ended; waiting for the last events');
      }
    });
    const ping = follow<PingResult>(pingChild, () => undefined);
    const limitMs = (o.seconds + 120) * 1000;
    const [mixCode, pingCode] = await Promise.all([waitExit(mixChild, limitMs), waitExit(pingChild, limitMs)]);
    if (timer) clearInterval(timer);
    if (warmTimer) clearTimeout(warmTimer);
    if (endTimer) clearTimeout(endTimer);
    const gc = { warm: await collected.warm, end: await collected.end };
    const m = mix.result();
    const p = ping.result();
    if (mixCode !== 0 || !m) throw new Error(`soak mix client failed (exit ${mixCode}${ready ? '' : ', before its subscriptions were open'}): ${mixChild.err().slice(-1500)}`);
    if (pingCode !== 0 || !p) throw new Error(`soak ping client failed (exit ${pingCode}): ${pingChild.err().slice(-1500)}`);
    // what the run left on disk: one object per version of the documents the mix did not delete
    const files = storageFiles(path.join(server.dataDir, 'storage'));
    report(b, o, m, p, samples, endSample, gc, gcWindows, files);
  } finally {
    for (const c of children) await stop(c);
    await server.stop();
  }
}

const GROUPS: Array<{ id: string; label: string; kinds: string[] }> = [
  { id: '11b', label: 'REST reads', kinds: ['rest list', 'rest read', 'rest read deleted (404 intended)'] },
  { id: '11c', label: 'GraphQL reads', kinds: ['gql list', 'gql read'] },
  { id: '11d', label: 'REST writes (create, update, delete)', kinds: ['rest create', 'rest update', 'rest slug change', 'rest delete'] },
  { id: '11e', label: 'GraphQL writes (create, update, delete)', kinds: ['gql create', 'gql update', 'gql delete'] },
  { id: '11f', label: 'storage uploads, new versions, updates, deletes', kinds: ['upload', 'doc new version', 'doc update', 'doc delete'] },
  { id: '11g', label: 'storage downloads and lists', kinds: ['download', 'download range', 'download 304 (intended)', 'doc list'] },
  { id: '11h', label: 'short-lived subscriptions (ws, SSE)', kinds: ['ws churn', 'sse churn'] },
];

function report(b: Bench, o: SoakOptions, m: MixResult, p: PingResult, samples: Sample[], endSample: Sample | null, gc: { warm: Collected | null; end: Collected | null }, gcWindows: Array<[number, number]>, files: ReturnType<typeof storageFiles>): void {
  const all = m.kinds.all!;
  const kinds = Object.entries(m.kinds).filter(([k]) => k !== 'all');
  const total = all.count;
  const failedStreams = m.streams.filter((s) => s.failed);
  const missedEvents = m.streams.reduce((a, s) => a + s.missed, 0);
  const failedPings = p.pings.filter(([, , status]) => status !== 200).length;
  const cpu = endSample && samples.length ? (endSample.cpuS - samples[0]!.cpuS) / endSample.t : NaN;
  b.rows.push({
    id: '11a', workload: `soak: ${fmt(m.seconds / 60, 1)} min mix, all requests`, rps: total / m.seconds,
    target: '0 errors', met: m.errors + failedStreams.length + missedEvents + failedPings === 0,
    note: `${fmt(total)} requests (aimed at ${o.rate}/s; ${m.skipped} slots skipped); errors: ${m.errors} requests, ${failedStreams.length} subscriptions, `
      + `${missedEvents} missed events, ${failedPings} pings; server CPU ${fmt(cpu * 100)} %; `
      + `${fmt(m.bytes.uploaded / 2 ** 20)} MiB up, ${fmt(m.bytes.downloaded / 2 ** 20)} MiB down; max ${fmt(all.max)} ms`,
    p50: all.p50, p99: all.p99,
  });
  for (const g of GROUPS) {
    const ks = kinds.filter(([k]) => g.kinds.includes(k));
    const n = ks.reduce((a, [, k]) => a + k.count, 0);
    const e = ks.reduce((a, [, k]) => a + k.errors, 0);
    const worst = (f: 'p50' | 'p99') => Math.max(...ks.map(([, k]) => k[f]).filter(Number.isFinite));
    b.rows.push({
      id: g.id, workload: `soak: ${g.label}`, rps: n / m.seconds, p50: ks.length ? worst('p50') : undefined, p99: ks.length ? worst('p99') : undefined,
      note: `${ks.map(([k, s]) => `${k} ${fmt(s.count)}${s.errors ? ` (${s.errors} errors)` : ''}`).join(', ') || 'none'}; ${e} errors; p50/p99: the slowest kind's`,
    });
  }
  const f = b.rows.find((r) => r.id === '11f')!;
  f.target = 'no orphan objects';
  f.met = files.objects === m.livePool.versions && files.temp === 0;
  f.note = `${f.note}; left on disk: ${files.objects} objects (${fmt(files.mb, 1)} MB) for ${m.livePool.versions} live versions of ${m.livePool.docs} documents, ${files.temp} temp files`;
  const short = (s: string) => s.replace('ws resOrganizationChanged { op id }', 'ws org').replace('ws resOrganizationChanged with record', 'ws org+record')
    .replace('GraphQL over SSE resOrganizationChanged', 'GraphQL-SSE org').replace('ws storageDocumentChanged', 'ws docs')
    .replace('ws clientReload', 'ws reload').replace('SSE /api/presentation/events', 'SSE reload');
  b.rows.push({
    id: '11i', workload: 'soak: live subscriptions, events vs writes', target: '0 missed, 0 failed', met: missedEvents === 0 && failedStreams.length === 0,
    note: `${m.streams.map((s) => `${short(s.name)} ${fmt(s.received)}/${fmt(s.expected)}${s.missed ? ` (${s.missed} missed)` : ''}${s.extra ? ` (+${s.extra})` : ''}${s.failed ? ' FAILED' : ''}`).join(', ')}`
      + `; writes: ${m.writes.orgCreate}/${m.writes.orgUpdate}/${m.writes.orgDelete} org c/u/d (${m.writes.slugChange} slug changes), ${m.writes.docUpload}/${m.writes.docVersion}/${m.writes.docUpdate}/${m.writes.docDelete} doc create/version/update/delete`,
  });

  const warm = samples.reduce<Sample | null>((best, s) => (!best || Math.abs(s.t - o.warmupS) < Math.abs(best.t - o.warmupS) ? s : best), null);
  const last = endSample ?? samples.at(-1) ?? null;
  const after = samples.filter((s) => warm && s.t >= warm.t);
  const rawGrowth = warm && last ? last.rssMb - warm.rssMb : NaN;
  const peak = Math.max(...samples.map((s) => s.rssMb));
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${fmt(x, 1)}`;
  b.rows.push({
    id: '11j', workload: `soak: server RSS, sampled every ${o.sampleS} s`, peakRssMb: peak,
    note: warm && last
      ? `${fmt(samples[0]!.rssMb)} MB at start → ${fmt(warm.rssMb)} at ${fmt(warm.t)} s → ${fmt(last.rssMb)} at ${fmt(last.t)} s: ${signed(rawGrowth)} MB `
        + `(after warm-up min ${fmt(Math.min(...after.map((s) => s.rssMb)))}, max ${fmt(Math.max(...after.map((s) => s.rssMb)))}, trend ${fmt(slopePerMin(after), 2)} MB/min); `
        + `anon ${fmt(warm.anonMb)} → ${fmt(last.anonMb)}, file ${fmt(warm.fileMb)} → ${fmt(last.fileMb)} MB; fds ${warm.fds} → ${last.fds}`
      : 'no samples',
  });
  // judged on two samples taken right after a full collection; on the raw samples if the inspector failed
  const judged = gc.warm && gc.end ? gc.end.rssMb - gc.warm.rssMb : rawGrowth;
  b.rows.push({
    id: '11k', workload: 'soak: server RSS growth after warm-up, after a full GC', peakRssMb: gc.end?.rssMb,
    target: '< +50 MB after warm-up', met: Number.isFinite(judged) ? judged < 50 : null,
    note: gc.warm && gc.end
      ? `${fmt(gc.warm.rssMb)} MB at ${fmt(gc.warm.t)} s → ${fmt(gc.end.rssMb)} MB at ${fmt(gc.end.t)} s: ${signed(judged)} MB; `
        + `JS heap used ${fmt(gc.warm.heapUsedMb)} → ${fmt(gc.end.heapUsedMb)} MB (${signed(gc.end.heapUsedMb - gc.warm.heapUsedMb)}); GC pauses ${fmt(gc.warm.gcMs)} and ${fmt(gc.end.gcMs)} ms`
      : `the inspector did not answer (${gc.warm ? 'end' : 'warm-up'}): judged on the raw samples, ${signed(rawGrowth)} MB`,
  });
  // a ping in flight during one of the two forced collections above measured the harness, not the server
  const overlaps = (t: number, ms: number) => gcWindows.some(([from, to]) => t < to && t + ms > from);
  const judgedPings = p.pings.filter(([t, ms]) => !overlaps(t, ms));
  const ps = pingStats(judgedPings, p.pings[0]?.[0] ?? 0);
  const withGc = pingStats(p.pings, p.pings[0]?.[0] ?? 0);
  b.rows.push({
    id: '11l', workload: `soak: ping GET /health every ${o.pingMs} ms`, rps: p.pings.length / p.seconds, p50: ps.p50, p99: ps.p99,
    target: 'p99 < 50 ms', met: ps.failed === 0 && ps.p99 < 50,
    note: `max ${fmt(ps.max, 1)} ms, ${fmt(judgedPings.length)} pings, ${ps.failed} failed; worst 30 s window p99 ${fmt(Math.max(...ps.windows.map((w) => w.p99)), 1)} ms; `
      + `${p.pings.length - judgedPings.length} pings during the forced GCs left out (with them p99 ${fmt(withGc.p99, 1)}, max ${fmt(withGc.max, 1)} ms); `
      + `client CPU on the load core: mix ${fmt(100 * m.cpuS / m.seconds)} %, ping ${fmt(100 * p.cpuS / p.seconds)} %`,
  });
  if (m.errorSamples.length) b.log(`soak: first errors:\n  ${m.errorSamples.slice(0, 10).join('\n  ')}`);
  for (const s of failedStreams) b.log(`soak: subscription failed: ${s.failed}`);
  b.raw.w11 = { settings: o, storageFiles: files, mix: m, ping: { ...withGc, judged: ps, cpuS: p.cpuS, gcWindows, pings: p.pings }, samples, afterFullGc: gc };
}
