/**
 * `npm run mutation [-- <area>…] [--score] [--survivors] [stryker options]`
 *
 * Mutation testing of the kernel's access, data and bus code and of the auth app with StrykerJS
 * (stryker.config.mjs, vitest.stryker.config.ts). One Stryker run per area, in turn — all four
 * when none is named (access, auth, bus, data; bench/mutation-areas.json) —, each with its own
 * incremental file under reports/mutation/<area>/ (git-ignored), so a re-run only tests mutants
 * whose code or covering tests changed. Then prints the score per area and overall:
 *
 *   mutation score: 91.3% (killed 840, survived 80, timeout 4, no coverage 2)
 *
 *   npm run mutation -- access auth          two areas
 *   npm run mutation -- --score              print the scores of the last runs, run nothing
 *   npm run mutation -- --score auth-before  …of any report folder under reports/mutation/
 *   npm run mutation -- auth --survivors     …and list the surviving mutants
 *   npm run mutation -- data --mutate 'src/kernel/data/sql/**' one area narrowed; written to
 *                                            reports/mutation/custom/, seeded from the areas' incremental files
 *   npm run mutation -- --concurrency 1      any other option goes to `stryker run`
 *   FW_MUTATION_CONCURRENCY=1 npm run mutation
 *
 * Slow (minutes to hours per area on a shared two-core machine), so not part of .ci/run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORTS = path.join(ROOT, 'reports/mutation');
const AREAS = Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/mutation-areas.json'), 'utf8')) as Record<string, unknown>);

interface Counts { killed: number; survived: number; timeout: number; noCoverage: number; ignored: number; errors: number }
interface ReportMutant { id: string; mutatorName: string; replacement?: string; status: string; location: { start: { line: number; column: number } } }
interface Report { files: Record<string, { source: string; mutants: ReportMutant[] }> }

const emptyCounts = (): Counts => ({ killed: 0, survived: 0, timeout: 0, noCoverage: 0, ignored: 0, errors: 0 });

function count(report: Report): Counts {
  const c = emptyCounts();
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      if (m.status === 'Killed') c.killed++;
      else if (m.status === 'Survived') c.survived++;
      else if (m.status === 'Timeout') c.timeout++;
      else if (m.status === 'NoCoverage') c.noCoverage++;
      else if (m.status === 'Ignored') c.ignored++;
      else c.errors++; // CompileError, RuntimeError, Pending
    }
  }
  return c;
}

/** Stryker's mutation score: detected (killed or timed out) over every valid mutant that was not ignored. */
const score = (c: Counts): string => {
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  return valid ? `${((100 * (c.killed + c.timeout)) / valid).toFixed(1)}%` : 'n/a';
};
const line = (c: Counts) => `${score(c)} (killed ${c.killed}, survived ${c.survived}, timeout ${c.timeout}, no coverage ${c.noCoverage})`;

function readReport(name: string): { report: Report; at: Date } | null {
  const file = path.join(REPORTS, name, 'mutation.json');
  if (!fs.existsSync(file)) return null;
  return { report: JSON.parse(fs.readFileSync(file, 'utf8')) as Report, at: fs.statSync(file).mtime };
}

function printSurvivors(report: Report): void {
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    const lines = source.split('\n');
    for (const m of mutants) {
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const { line: l, column } = m.location.start;
      const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100);
      console.log(`  ${m.status === 'NoCoverage' ? 'no coverage' : 'survived'} ${file}:${l}:${column} ${m.mutatorName}: ${lines[l - 1]?.trim().slice(0, 100)}  →  ${replacement}`);
    }
  }
}

function printScores(names: string[], survivors: boolean): void {
  const total = emptyCounts();
  let any = false;
  for (const name of names) {
    const r = readReport(name);
    if (!r) {
      console.log(`mutation score ${name}: no report yet (npm run mutation -- ${name})`);
      continue;
    }
    const c = count(r.report);
    const extra = [c.ignored ? `${c.ignored} ignored (static)` : '', c.errors ? `${c.errors} errors` : ''].filter(Boolean).join(', ');
    console.log(`mutation score ${name}: ${line(c)}${extra ? `; ${extra}` : ''}; ${r.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    if (survivors) printSurvivors(r.report);
    if (AREAS.includes(name)) {
      any = true;
      for (const k of Object.keys(total) as Array<keyof Counts>) total[k] += c[k];
    }
  }
  if (any) console.log(`mutation score: ${line(total)}`);
}

/** A narrowed run starts from what the areas already know: their incremental files, merged. */
function seedCustomIncremental(areas: string[]): void {
  const merged: { files: Record<string, unknown>; testFiles: Record<string, unknown> } & Record<string, unknown> = { files: {}, testFiles: {} };
  for (const a of areas) {
    const file = path.join(REPORTS, a, 'incremental.json');
    if (!fs.existsSync(file)) continue;
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof merged;
    Object.assign(merged, { ...r, files: { ...merged.files, ...r.files }, testFiles: { ...merged.testFiles, ...r.testFiles } });
  }
  if (!Object.keys(merged.files).length) return;
  fs.mkdirSync(path.join(REPORTS, 'custom'), { recursive: true });
  fs.writeFileSync(path.join(REPORTS, 'custom', 'incremental.json'), JSON.stringify(merged));
}

const args = process.argv.slice(2);
const flags = new Set<string>(args.filter((a) => a === '--score' || a === '--survivors'));

if (flags.has('--score')) {
  // any report folder may be named here (e.g. a copy kept as reports/mutation/auth-before)
  const names = args.filter((a) => !a.startsWith('-'));
  printScores(names.length ? names : [...AREAS, 'custom'], flags.has('--survivors'));
  process.exit(0);
}

const areas = args.filter((a) => AREAS.includes(a));
const forwarded = args.filter((a) => !AREAS.includes(a) && !flags.has(a));
const unknown = forwarded.filter((a, i) => !a.startsWith('-') && !(forwarded[i - 1] ?? '').startsWith('-'));
if (unknown.length) {
  console.error(`unknown area ${unknown.join(', ')}: one of ${AREAS.join(', ')}`);
  process.exit(2);
}

const narrowed = forwarded.some((a) => a === '--mutate' || a === '-m' || a.startsWith('--mutate='));
const stryker = path.join(ROOT, 'node_modules/.bin/stryker');
/** One run per area; a run narrowed with --mutate is one run over the named areas (all when none). */
const runs = narrowed ? [{ area: (areas.length ? areas : AREAS).join(','), report: 'custom' }] : (areas.length ? areas : AREAS).map((a) => ({ area: a, report: a }));
let status = 0;
const durations: string[] = [];
for (const run of runs) {
  if (run.report === 'custom') seedCustomIncremental(run.area.split(','));
  console.log(`\n[mutation] ${run.area}: stryker run ${forwarded.join(' ')}`.trimEnd());
  const started = Date.now();
  const r = spawnSync(stryker, ['run', 'stryker.config.mjs', ...forwarded], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, FW_MUTATION_AREA: run.area, FW_MUTATION_REPORT: run.report },
  });
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  durations.push(`${run.report} ${minutes} min`);
  if (r.status !== 0) {
    console.error(`[mutation] ${run.area}: stryker exited with ${r.status ?? r.signal}`);
    status = 1;
  }
}
console.log(`\n[mutation] run time: ${durations.join(', ')}`);
printScores(narrowed ? ['custom'] : AREAS, flags.has('--survivors'));
process.exit(status);
