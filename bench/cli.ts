/**
 * `npx tsx bench/cli.ts [--runs N] [--provider sqlite|postgresql]` — time of the `fw` CLI as an
 * operator runs it (`node bin/fw.js …`, what `npx fw` and `npm run fw` start), median of N runs
 * per command on a temp DATA_DIR (or a unique PostgreSQL prefix, dropped at the end): wall time,
 * and CPU time (user + sys of the process and its children, from /usr/bin/time), which moves far
 * less than wall time when other work shares the machine. The floor row is node plus the tsx
 * loader running an empty module: what every command pays before its first line. Targets (issue 24 §5): `fw --help` ≤ 1 s, `fw tenant list` ≤ 2 s,
 * `fw tenant create` ≤ 5 s (SQLite), `fw migrate upgrade` with nothing to apply ≤ 3 s.
 *
 * `FW_CLI_TIMINGS=1` makes the CLI print where its time went (stderr); the bench passes it on one
 * extra run of each command and prints those phases under the figures.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const FW = path.join(ROOT, 'bin', 'fw.js');
const EMPTY = path.join(os.tmpdir(), `fw-bench-cli-empty-${process.pid}.ts`);
fs.writeFileSync(EMPTY, 'export {};\n');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, provider: { type: 'string', default: 'sqlite' } } });
const RUNS = Number(values.runs);
const PG = values.provider === 'postgresql';
const PG_URL = process.env.PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-cli-'));
const pgPrefix = `fwbc_${crypto.randomBytes(3).toString('hex')}_`;
const env = {
  PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
  DATA_DIR: dataDir, DATABASE_URL: PG ? PG_URL : '', PG_DATABASE_PREFIX: pgPrefix,
  ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'silent',
};

interface Run { ms: number; cpuMs: number; stderr: string }
const CPU_FILE = path.join(os.tmpdir(), `fw-bench-cli-cpu-${process.pid}`);
/** `node <argv>` under /usr/bin/time: wall time measured here, CPU time (user + sys) from time(1). */
function node(argv: string[], timings = false): Run {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', CPU_FILE, process.execPath, ...argv], { cwd: ROOT, env: timings ? { ...env, FW_CLI_TIMINGS: '1' } : env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${argv.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const [user, sys] = fs.readFileSync(CPU_FILE, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms, cpuMs: (user + sys) * 1000, stderr: r.stderr };
}
const fw = (args: string[], timings = false): Run => node([FW, ...args], timings);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const rows: Array<[string, Run[], string]> = [];
const phases: Array<[string, string]> = [];
function measure(label: string, target: string, argsOf: (i: number) => string[]): void {
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(fw(argsOf(i)));
  rows.push([label, runs, target]);
  const lines = fw(argsOf(RUNS), true).stderr.split('\n').filter((l) => l.startsWith('[fw timing]'));
  phases.push([label, lines.join('\n')]);
}

try {
  rows.push(['floor: node + tsx, empty module', Array.from({ length: RUNS }, () => node(['--import', 'tsx', EMPTY])), '—']);
  measure('fw --help', '≤ 1 s', () => ['--help']);
  // the first create also writes the data folder's generated keys: done before the measured runs
  fw(['tenant', 'create', 'warm']);
  measure('fw tenant create <key>', '≤ 5 s (SQLite)', (i) => ['tenant', 'create', `one-${i}`]);
  measure('fw tenant list', '≤ 2 s', () => ['tenant', 'list']);
  measure('fw migrate upgrade -t <key> (nothing to apply)', '≤ 3 s', () => ['migrate', 'upgrade', '-t', 'warm']);
  const batch = Array.from({ length: 10 }, (_, i) => `batch-${i}`);
  const t = fw(['tenant', 'create', ...batch]);
  rows.push(['fw tenant create <10 keys> (one run)', [t], '—']);

  const head = `fw CLI, ${PG ? 'PostgreSQL' : 'SQLite'}, median of ${RUNS} runs (${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`;
  console.log(head);
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`  ${'command'.padEnd(w)}  ${'wall'.padStart(7)}  ${'CPU'.padStart(7)}  wall min–max      target`);
  for (const [label, runs, target] of rows) {
    const wall = runs.map((r) => r.ms);
    console.log(`  ${label.padEnd(w)}  ${sec(median(wall)).padStart(7)}  ${sec(median(runs.map((r) => r.cpuMs))).padStart(7)}  ${sec(Math.min(...wall))}–${sec(Math.max(...wall))}  ${target}`);
  }
  console.log('\nwhere the time goes (one extra run each, FW_CLI_TIMINGS=1):');
  for (const [label, lines] of phases) console.log(`  ${label}\n${lines.split('\n').map((l) => `    ${l}`).join('\n')}`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(EMPTY, { force: true });
  fs.rmSync(CPU_FILE, { force: true });
  if (PG) {
    const { listPostgresDatabases, dropPostgresDatabase } = await import('../src/kernel/migrate/runner.ts');
    for (const db of await listPostgresDatabases(PG_URL, pgPrefix)) await dropPostgresDatabase(PG_URL, db);
  }
}
