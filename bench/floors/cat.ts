/** Floor of workload 6: `cat file > copy` on the same disk, pinned to the server core. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { pinning } from '../lib/proc.ts';

export interface CatFloor { bytes: number; runs: number; medianMs: number; mibPerS: number }

/** `withFsync`: `cat file > copy && sync copy`, the durable copy the storage backend makes (it fsyncs). */
export function catFloor(file: string, reps: number, withFsync = false): CatFloor {
  const bytes = fs.statSync(file).size;
  const copy = `${file}.catcopy`;
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    fs.rmSync(copy, { force: true });
    const args = ['-c', withFsync ? 'cat "$0" > "$1" && sync "$1"' : 'cat "$0" > "$1"', file, copy];
    const [cmd, argv] = pinning.enabled ? ['taskset', ['-c', String(pinning.serverCore), 'sh', ...args]] : ['sh', args];
    const t = performance.now();
    const r = spawnSync(cmd, argv, { stdio: 'ignore', timeout: 60_000 });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`cat failed (${r.status ?? r.signal})`);
    if (fs.statSync(copy).size !== bytes) throw new Error('cat copied a different size');
    times.push(ms);
  }
  fs.rmSync(copy, { force: true });
  times.sort((a, b) => a - b);
  const medianMs = times[Math.floor(times.length / 2)]!;
  return { bytes, runs: reps, medianMs, mibPerS: bytes / 1048576 / (medianMs / 1000) };
}
