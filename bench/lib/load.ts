/** Runs the load worker as a separate process on the load core and collects its results. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadJob, LoadResult } from './load-worker.ts';
import { pinning, spawnPinned, waitExit } from './proc.ts';

export type { LoadJob, LoadResult };

export const BENCH_DIR = path.dirname(path.dirname(new URL(import.meta.url).pathname));

/** A bench script as its own node process (tsx loader), pinned to `core`. */
export function spawnScript(name: string, script: string, args: string[], core: number | null, env?: NodeJS.ProcessEnv) {
  return spawnPinned(name, core, process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, script), ...args], { env, cwd: path.dirname(BENCH_DIR) });
}

/** `onMeasureStart` runs when every warm-up is over (reset the server's peak RSS there). */
export async function runLoad(jobs: LoadJob[], onMeasureStart?: () => void): Promise<LoadResult[]> {
  // an argument is limited to 128 KiB on Linux (E2BIG): a larger spec (a 259 KB document) goes
  // through a temp file, passed as `@<file>`
  const spec = JSON.stringify(jobs);
  const specDir = spec.length > 64 * 1024 ? fs.mkdtempSync(path.join(os.tmpdir(), 'fw-load-')) : null;
  if (specDir) fs.writeFileSync(path.join(specDir, 'jobs.json'), spec);
  try {
    return await runLoadWith(jobs, specDir ? `@${path.join(specDir, 'jobs.json')}` : spec, onMeasureStart);
  } finally {
    if (specDir) fs.rmSync(specDir, { recursive: true, force: true });
  }
}

async function runLoadWith(jobs: LoadJob[], spec: string, onMeasureStart?: () => void): Promise<LoadResult[]> {
  const child = spawnScript(`load ${jobs.map((j) => j.name).join('+')}`, 'lib/load-worker.ts', [spec], pinning.loadCore);
  let buf = '';
  let result: LoadResult[] | null = null;
  child.proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line.startsWith('{')) continue;
      const msg = JSON.parse(line) as { event: string; results?: LoadResult[] };
      if (msg.event === 'measure-start') onMeasureStart?.();
      if (msg.event === 'result') result = msg.results!;
    }
  });
  const limitS = Math.max(...jobs.map((j) => j.warmupS + j.durationS + (j.timeoutS ?? 30))) + 30;
  const code = await waitExit(child, limitS * 1000);
  if (code !== 0 || !result) throw new Error(`load generator failed (exit ${code}): ${child.err().slice(-1500)}`);
  return result;
}
