/**
 * `npx tsx bench/cli.ts [--runs N] [--provider sqlite|postgresql]` — wall time of the `fw` CLI
 * as an operator runs it (`node_modules/.bin/tsx src/cli.ts …`, what `npm run fw` and bin/fw.js
 * start), median of N runs per command on a temp DATA_DIR (or a unique PostgreSQL prefix, dropped
 * at the end). Targets (issue 24 §5): `fw --help` ≤ 1 s, `fw tenant list` ≤ 2 s,
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
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
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

interface Run { ms: number; stderr: string }
function fw(args: string[], timings = false): Run {
  const t0 = performance.now();
  const r = spawnSync(TSX, [path.join(ROOT, 'src', 'cli.ts'), ...args], { cwd: ROOT, env: timings ? { ...env, FW_CLI_TIMINGS: '1' } : env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`fw ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return { ms, stderr: r.stderr };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const rows: Array<[string, number[], string]> = [];
const phases: Array<[string, string]> = [];
function measure(label: string, target: string, argsOf: (i: number) => string[]): void {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(fw(argsOf(i)).ms);
  rows.push([label, times, target]);
  const lines = fw(argsOf(RUNS), true).stderr.split('\n').filter((l) => l.startsWith('[fw timing]'));
  phases.push([label, lines.join('\n')]);
}

try {
  measure('fw --help', '≤ 1 s', () => ['--help']);
  // the first create also writes the data folder's generated keys: done before the measured runs
  fw(['tenant', 'create', 'warm']);
  measure('fw tenant create <key>', '≤ 5 s (SQLite)', (i) => ['tenant', 'create', `one-${i}`]);
  measure('fw tenant list', '≤ 2 s', () => ['tenant', 'list']);
  measure('fw migrate upgrade -t <key> (nothing to apply)', '≤ 3 s', () => ['migrate', 'upgrade', '-t', 'warm']);
  const batch = Array.from({ length: 10 }, (_, i) => `batch-${i}`);
  const t = fw(['tenant', 'create', ...batch]);
  rows.push(['fw tenant create <10 keys> (one run)', [t.ms], '—']);

  const head = `fw CLI, ${PG ? 'PostgreSQL' : 'SQLite'}, median of ${RUNS} runs (${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`;
  console.log(head);
  const w = Math.max(...rows.map((r) => r[0].length));
  for (const [label, times, target] of rows) {
    console.log(`  ${label.padEnd(w)}  ${sec(median(times)).padStart(7)}  (min ${sec(Math.min(...times))}, max ${sec(Math.max(...times))})  target ${target}`);
  }
  console.log('\nwhere the time goes (one extra run each, FW_CLI_TIMINGS=1):');
  for (const [label, lines] of phases) console.log(`  ${label}\n${lines.split('\n').map((l) => `    ${l}`).join('\n')}`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (PG) {
    const { listPostgresDatabases, dropPostgresDatabase } = await import('../src/kernel/migrate/runner.ts');
    for (const db of await listPostgresDatabases(PG_URL, pgPrefix)) await dropPostgresDatabase(PG_URL, db);
  }
}
