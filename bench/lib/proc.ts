/**
 * Child processes of a bench run: spawned (pinned to a core with taskset when it exists),
 * remembered, and all stopped by `stopAll` — on success, on error and on Ctrl-C.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

const HAS_TASKSET = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
const CORES = os.availableParallelism();

/** Server, floors and bcrypt on one core; the load generator on another (when there are two). */
export const pinning = {
  enabled: HAS_TASKSET && CORES >= 2,
  serverCore: 0,
  loadCore: CORES >= 2 ? 1 : 0,
};

export interface Child {
  proc: ChildProcess;
  pid: number;
  name: string;
  /** stdout and stderr so far (last 64 KiB each), for error reports. */
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

const live = new Set<Child>();
let closing = false;

export function spawnPinned(name: string, core: number | null, cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Child {
  if (closing) throw new Error(`not starting ${name}: the run is stopping`);
  const [file, argv] = core !== null && pinning.enabled ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args];
  const proc = spawn(file, argv, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const keep = (s: string) => (s.length > 65_536 ? s.slice(-65_536) : s);
  proc.stdout!.on('data', (d: Buffer) => { out = keep(out + d.toString()); });
  proc.stderr!.on('data', (d: Buffer) => { err = keep(err + d.toString()); });
  const exited = new Promise<number | null>((resolve) => {
    proc.on('exit', (code) => resolve(code));
    proc.on('error', () => resolve(-1));
  });
  if (proc.pid === undefined) throw new Error(`could not start ${name}`);
  const child: Child = { proc, pid: proc.pid, name, out: () => out, err: () => err, exited };
  live.add(child);
  void exited.then(() => live.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stop(child: Child, graceMs = 5_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  const t = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(t);
}

export async function stopAll(): Promise<void> {
  closing = true;
  await Promise.all([...live].map((c) => stop(c, 3_000)));
}

/** Waits for a child to exit, killing it if it runs past `timeoutMs`. */
export async function waitExit(child: Child, timeoutMs: number): Promise<number | null> {
  let timedOut = false;
  const t = setTimeout(() => { timedOut = true; void stop(child, 2_000); }, timeoutMs);
  const code = await child.exited;
  clearTimeout(t);
  if (timedOut) throw new Error(`${child.name} ran past ${Math.round(timeoutMs / 1000)} s and was stopped`);
  return code;
}

/** Fields of /proc/<pid>/status in kB (VmRSS, VmHWM); null when the process is gone. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Resets the peak RSS (VmHWM) to the current RSS; false where the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Peak RSS of `pid` while `fn` runs: VmHWM after a reset when the kernel allows it, and VmRSS
 * polled every 50 ms either way; the larger of both, in MB.
 */
export class RssWatch {
  private polled = 0;
  private timer: NodeJS.Timeout | null = null;
  private hwmReset = false;
  readonly startMb: number;
  constructor(private readonly pid: number) {
    this.startMb = (procStatusKb(pid, 'VmRSS') ?? 0) / 1024;
  }
  start(): this {
    this.hwmReset = resetPeak(this.pid);
    this.polled = procStatusKb(this.pid, 'VmRSS') ?? 0;
    this.timer = setInterval(() => { this.polled = Math.max(this.polled, procStatusKb(this.pid, 'VmRSS') ?? 0); }, 50);
    return this;
  }
  /** Peak MB since start(). */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const hwm = this.hwmReset ? procStatusKb(this.pid, 'VmHWM') ?? 0 : 0;
    return Math.max(hwm, this.polled, procStatusKb(this.pid, 'VmRSS') ?? 0) / 1024;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
