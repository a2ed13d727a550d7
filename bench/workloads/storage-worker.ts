/**
 * Storage client (its own process, on the load core): sequential binary uploads of a file, then
 * downloads of what it stored, first counted and dropped (what the server delivers), then written
 * to a file on the same disk (what a client that keeps the file gets). JSON lines on stdout:
 * phase-start / phase-end (the orchestrator watches the server's RSS in between), result last.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

interface Spec { base: string; token: string; files: Array<{ label: string; file: string }>; maxCount: number; maxSeconds: number; outDir: string }
interface Phase { phase: string; bytes: number; count: number; seconds: number; mibPerS: number; latenciesMs: number[] }

const spec = JSON.parse(process.argv[2]!) as Spec;
const base = new URL(spec.base);
if (base.hostname !== '127.0.0.1') throw new Error('only 127.0.0.1');
const emit = (o: object) => console.log(JSON.stringify(o));

/** `sink`: null keeps the body as text (JSON answers), 'drop' counts its bytes only, a stream gets it. */
function send(method: string, urlPath: string, headers: http.OutgoingHttpHeaders, body: fs.ReadStream | null, sink: NodeJS.WritableStream | 'drop' | null): Promise<{ status: number; text: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method, path: urlPath, headers: { authorization: `Bearer ${spec.token}`, ...headers }, timeout: 120_000 }, (res) => {
      let bytes = 0;
      let text = '';
      res.on('data', (d: Buffer) => { bytes += d.length; if (!sink && text.length < 65_536) text += d.toString(); });
      if (sink && sink !== 'drop') pipeline(res, sink).then(() => resolve({ status: res.statusCode!, text, bytes }), reject);
      else res.on('end', () => resolve({ status: res.statusCode!, text, bytes }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

/** `prepare` runs before each timed step, outside its time (as `cat`'s floor removes its copy untimed). */
async function phase(name: string, step: (i: number) => Promise<number>, prepare?: () => void): Promise<Phase> {
  emit({ event: 'phase-start', phase: name });
  const latenciesMs: number[] = [];
  let bytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < spec.maxCount && (performance.now() - t0) / 1000 < spec.maxSeconds; i++) {
    prepare?.();
    const t = performance.now();
    bytes += await step(i);
    latenciesMs.push(performance.now() - t);
  }
  const seconds = (performance.now() - t0) / 1000;
  // MiB/s over the timed transfers only, as the cat floor times only its copies
  const timedS = latenciesMs.reduce((a, x) => a + x, 0) / 1000;
  const p: Phase = { phase: name, bytes, count: latenciesMs.length, seconds, mibPerS: bytes / 1048576 / timedS, latenciesMs };
  emit({ event: 'phase-end', phase: name });
  return p;
}

const phases: Phase[] = [];
for (const { label, file } of spec.files) {
  const size = fs.statSync(file).size;
  const ids: string[] = [];
  phases.push(await phase(`upload ${label}`, async (i) => {
    const r = await send('POST', `/api/storage/documents?filename=${encodeURIComponent(`bench-${label}-${i}.bin`)}`, { 'content-type': 'application/octet-stream', 'content-length': size }, fs.createReadStream(file, { highWaterMark: 1 << 20 }), null);
    if (r.status !== 201) throw new Error(`upload ${label}: ${r.status} ${r.text.slice(0, 300)}`);
    ids.push((JSON.parse(r.text) as { id: string }).id);
    return size;
  }));
  const download = async (i: number, sink: NodeJS.WritableStream | 'drop') => {
    const r = await send('GET', `/api/storage/documents/${ids[i % ids.length]}/download`, {}, null, sink);
    if (r.status !== 200 || r.bytes !== size) throw new Error(`download ${label}: ${r.status}, ${r.bytes} of ${size} bytes`);
    return size;
  };
  phases.push(await phase(`download ${label}`, (i) => download(i, 'drop')));
  const out = path.join(spec.outDir, `download-${label}.bin`);
  // as the cat floor does: each download goes to a new file, not over one full of cached pages
  const removeOut = () => fs.rmSync(out, { force: true });
  phases.push(await phase(`download to disk ${label}`, (i) => download(i, fs.createWriteStream(out, { highWaterMark: 1 << 20 })), removeOut));
  removeOut();
}
emit({ event: 'result', phases });
process.exit(0);
