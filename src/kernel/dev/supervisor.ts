import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { classify, watchedPaths, type ChangeKind } from './classify.js';
import { watchTree } from './watch.js';

/**
 * `fw dev`: the project served by a child process (the `fw serve` path, FW_DEV on, embedded
 * SQLite) that is replaced whenever a watched file changes. The supervisor itself never loads an
 * app: Node's module cache would keep the old code, so every step that reads the project runs in
 * a fresh process.
 *
 * A change is handled in steps, the running server answering throughout:
 *   1. the next server (a spare `fw dev --child`, its modules loaded ahead) is told to boot; when
 *      declarations changed it first writes draft migrations and regenerates the Prisma client
 *      (prepare.ts), in the same process, so the apps it loads for that are the ones it serves;
 *   2. it boots, opens the default tenant (applying drafts, loading changed data files again)
 *      and reports ready over IPC, without listening yet;
 *   3. only then the old server is stopped and the new one told to listen.
 * A step that fails prints the error (its file and element, as boot errors name them) and leaves
 * the last good server running; the next save of any watched file tries again.
 */

export interface DevOptions {
  /** The project root. */
  root: string;
  /** fw's `bin/fw.js`, which the children run. */
  fwBin: string;
  /** The environment children start from: the shell's, without the project's .env (they read it themselves). */
  env: NodeJS.ProcessEnv;
  /** Where progress goes (stderr). */
  log?: (line: string) => void;
  /** How long changes are gathered before a cycle starts. */
  debounceMs?: number;
  /** Drafts may drop or narrow columns of the dev database (`fw dev --allow-data-loss`). */
  allowDataLoss?: boolean;
}

const BOOT = 'fw-dev:boot';
interface BootMessage { t: typeof BOOT; declarations: boolean }
const READY = 'fw-dev:ready';
const LISTEN = 'fw-dev:listen';
const LISTENING = 'fw-dev:listening';

export class DevSupervisor {
  private current: ChildProcess | null = null;
  private spare: ChildProcess | null = null;
  private pending = new Map<string, Exclude<ChangeKind, null>>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private unwatch: Array<() => void> = [];
  private stopped = false;
  /** A declaration change whose server did not start: the next cycle prepares declarations again. */
  private declarationsOwed = false;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: DevOptions) {
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
  }

  /** Prepares the declarations, starts the first server and watches the project. */
  async start(): Promise<boolean> {
    this.watch();
    const ok = await this.cycle(true);
    if (!ok) this.log('fw dev: no server is running; fix the file above and save it');
    return ok;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unwatch) u();
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    const spare = this.spare;
    this.spare = null;
    if (spare) await stopChild(spare);
    if (this.current) await stopChild(this.current);
    this.current = null;
  }

  private watch(): void {
    const { dirs, env } = watchedPaths(this.opts.root);
    const note = (file: string) => {
      const kind = classify(this.opts.root, file);
      if (!kind || this.stopped) return;
      if (this.pending.get(file) !== 'declarations') this.pending.set(file, kind);
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.drain(), this.opts.debounceMs ?? 150);
    };
    // an app's web/ folder (client sources, perhaps a node_modules) is the web build's business
    for (const dir of dirs) this.unwatch.push(watchTree(dir, note, (d) => path.basename(d) === 'node_modules' || path.basename(path.dirname(path.dirname(d))) === 'apps' && path.basename(d) === 'web'));
    // the root itself, not recursively: .env may not exist yet
    const rootWatcher = fs.watch(this.opts.root, (_e, name) => name?.toString() === '.env' && note(env));
    this.unwatch.push(() => rootWatcher.close());
  }

  /** Runs one cycle for what has gathered; changes arriving meanwhile wait for the next one. */
  private drain(): void {
    if (this.running) {
      void this.running.then(() => this.drain());
      return;
    }
    if (!this.pending.size || this.stopped) return;
    const declarations = [...this.pending.values()].includes('declarations');
    // an editor's temporary files come and go within the batch: name what is there (or all, if nothing is: removals)
    const all = [...this.pending.keys()];
    const present = all.filter((f) => fs.existsSync(f));
    const files = (present.length ? present : all).map((f) => path.relative(this.opts.root, f));
    this.pending.clear();
    this.log(`fw dev: ${files.join(', ')} changed`);
    this.running = this.cycle(declarations).then(() => { this.running = null; });
  }

  private async cycle(changed: boolean): Promise<boolean> {
    const declarations = changed || this.declarationsOwed;
    try {
      const ok = await this.replace(declarations);
      this.declarationsOwed = declarations && !ok;
      return ok;
    } finally {
      if (!this.stopped && !this.spare) this.spare = this.spawnSpare();
    }
  }

  private async replace(declarations: boolean): Promise<boolean> {
    const started = performance.now();
    const next = await this.stage(declarations);
    if ('error' in next) return this.failed(next.error);
    const previous = this.current;
    this.current = next.child;
    if (previous) await stopChild(previous);
    const up = await new Promise<boolean>((resolve) => {
      next.child.on('message', (m) => m === LISTENING && resolve(true));
      next.child.once('exit', () => resolve(false));
      next.child.send(LISTEN);
    });
    next.child.once('exit', (code) => {
      if (this.current !== next.child || this.stopped) return;
      this.current = null;
      this.log(`fw dev: the server stopped (exit ${code}); save a file to start it again`);
    });
    if (!up) this.current = null;
    this.log(`fw dev: ${up ? 'server ready' : 'the server failed to listen'} (${Math.round(performance.now() - started)} ms)`);
    return up;
  }

  private failed(output: string): false {
    this.log(`fw dev: the change does not load; ${this.current ? 'the last good server keeps running' : 'no server is running'}\n${output.trim()}`);
    return false;
  }

  private childEnv(): NodeJS.ProcessEnv {
    // the embedded default: a project's .env naming PostgreSQL is not used by the dev server
    return { ...this.opts.env, FW_DEV: 'true', DATABASE_URL: '' };
  }

  /**
   * A spare server process: node, tsx and the kernel's and server's modules loaded, no app yet
   * (apps are what changes). Started after each cycle so the next one skips those seconds.
   */
  private spawnSpare(): ChildProcess {
    const child = spawn(process.execPath, [this.opts.fwBin, 'dev', '--child', ...(this.opts.allowDataLoss ? ['--allow-data-loss'] : [])], {
      cwd: this.opts.root, env: this.childEnv(), stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // a spare that dies (or is killed with the supervisor) is simply replaced
    child.on('exit', () => { if (this.spare === child) this.spare = null; });
    return child;
  }

  /** The next server, booted and holding the default tenant open, not listening yet. */
  private stage(declarations: boolean): Promise<{ child: ChildProcess } | { error: string }> {
    const child = this.spare ?? this.spawnSpare();
    this.spare = null;
    return new Promise((resolve) => {
      let output = '';
      let ready = false;
      const collect = (c: Buffer) => { output += c.toString(); };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.on('message', (m) => {
        if (m !== READY) return;
        ready = true;
        // from now on it is the server: its output is the developer's
        child.stdout!.off('data', collect);
        child.stderr!.off('data', collect);
        if (output) process.stderr.write(output);
        child.stdout!.pipe(process.stdout);
        child.stderr!.pipe(process.stderr);
        resolve({ child });
      });
      child.on('exit', () => {
        if (!ready) resolve({ error: output || 'the server exited before it was ready' });
      });
      child.send({ t: BOOT, declarations } satisfies BootMessage);
    });
  }
}

/** SIGTERM (the server closes and exits), waited for: the port is free afterwards. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The child side of the handshake (`fw dev --child`): ready, then listen when told. */
export const childHandshake = {
  /** A spare waits here, its modules loaded, until it is the next server. */
  spare: (): Promise<{ declarations: boolean }> => new Promise((resolve) => {
    process.on('message', (m: BootMessage) => m?.t === BOOT && resolve({ declarations: m.declarations }));
  }),
  beforeListen: (): Promise<void> => new Promise((resolve) => {
    process.on('message', (m) => m === LISTEN && resolve());
    process.send?.(READY);
  }),
  listening: (): void => {
    process.send?.(LISTENING);
  },
};
