/**
 * `npx tsx bench/lib/profile-top.ts <file.cpuprofile> [n] [--last-busy]`: self time by function
 * and by package of a `node --cpu-prof` profile (written by `npm run bench -- --cpu-prof`).
 * `--last-busy` keeps only the last stretch of seconds in which the process was busy more than
 * half the time: with `--only <one workload>`, that is the workload's load (boot, seeding and
 * the floors' turns, when the server idles, fall outside it).
 */
import fs from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const args = process.argv.slice(2);
const lastBusy = args.includes('--last-busy');
const [file, n = '25'] = args.filter((a) => !a.startsWith('--'));
if (!file) { console.error('usage: profile-top.ts <file.cpuprofile> [n]'); process.exit(1); }
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const idle = new Set(prof.nodes.filter((x) => x.callFrame.functionName === '(idle)').map((x) => x.id));
// sample times (µs from the start), and the window kept
const times: number[] = [];
prof.timeDeltas.reduce((t, d, i) => (times[i] = t + d), 0);
let [from, to] = [0, Infinity];
if (lastBusy) {
  const buckets = new Map<number, { busy: number; all: number }>();
  prof.samples.forEach((id, i) => {
    const k = Math.floor(times[i]! / 1e6);
    const b = buckets.get(k) ?? { busy: 0, all: 0 };
    b.all += prof.timeDeltas[i] ?? 0;
    if (!idle.has(id)) b.busy += prof.timeDeltas[i] ?? 0;
    buckets.set(k, b);
  });
  const busy = (k: number) => { const b = buckets.get(k); return Boolean(b && b.busy > b.all / 2); };
  let end = Math.max(...buckets.keys());
  while (end > 0 && !busy(end)) end--;
  let start = end;
  while (start > 0 && busy(start - 1)) start--;
  [from, to] = [start * 1e6, (end + 1) * 1e6];
  console.log(`window: ${start}–${end + 1} s of the profile`);
}
const self = new Map<number, number>();
prof.samples.forEach((id, i) => { if (times[i]! >= from && times[i]! < to) self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)); });
const total = [...self.values()].reduce((a, x) => a + x, 0);

const pkgOf = (x: Node) => {
  const url = x.callFrame.url;
  if (!url) return x.callFrame.functionName.startsWith('(') ? x.callFrame.functionName : `(native) ${x.callFrame.functionName}`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return 'node core';
  const p = /\/work\/[^/]+\/(src\/[^/]+(?:\/[^/]+)?)/.exec(url);
  return p ? p[1]! : url.replace(/^file:\/\//, '');
};
const fnKey = (x: Node) => `${x.callFrame.functionName || '(anonymous)'}  ${x.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${x.callFrame.lineNumber + 1}`;

const agg = (key: (x: Node) => string) => {
  const m = new Map<string, number>();
  for (const [id, t] of self) { const k = key(byId.get(id)!); m.set(k, (m.get(k) ?? 0) + t); }
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(n));
};
const pct = (t: number) => `${(100 * t / total).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
console.log('\nself time by package');
for (const [k, t] of agg(pkgOf)) console.log(`${pct(t)}  ${k}`);
// each sample charged to the innermost frame of this project on its stack (what our code asked for)
const parent = new Map<number, number>();
for (const x of prof.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const ours = (x: Node) => /\/(src|bench)\//.test(x.callFrame.url) && !x.callFrame.url.includes('node_modules');
const owner = new Map<number, string>();
const ownerOf = (id: number): string => {
  let o = owner.get(id);
  if (o === undefined) {
    const x = byId.get(id)!;
    o = ours(x) ? fnKey(x) : parent.has(id) ? ownerOf(parent.get(id)!) : '(no project frame)';
    owner.set(id, o);
  }
  return o;
};
const byOwner = new Map<string, number>();
for (const [id, t] of self) { const k = idle.has(id) ? '(idle)' : ownerOf(id); byOwner.set(k, (byOwner.get(k) ?? 0) + t); }
console.log('\ntime by innermost project frame (src/…) on the stack');
for (const [k, t] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(t)}  ${k}`);
console.log('\nself time by function');
for (const [k, t] of agg(fnKey)) console.log(`${pct(t)}  ${k}`);
