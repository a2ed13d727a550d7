// @ts-check
/**
 * Mutation testing with StrykerJS and its vitest runner. Run it with `npm run mutation`
 * (bench/mutation.ts: one Stryker run per area, then the score); docs/security.md, "Mutation
 * testing", has the figures and what the surviving mutants are.
 *
 * One area per run, chosen by FW_MUTATION_AREA (access, auth, bus, data; bench/mutation-areas.json
 * lists what each mutates and which tests run for it). Each area keeps its own incremental file
 * and reports under reports/mutation/<area>/ (git-ignored), so a re-run only tests the mutants
 * whose code or tests changed. FW_MUTATION_REPORT names another report folder (the wrapper uses
 * `custom` for runs narrowed with --mutate, so they do not overwrite an area's results).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const areas = JSON.parse(fs.readFileSync(new URL('./bench/mutation-areas.json', import.meta.url), 'utf8'));
/** `access`, or several areas at once: `access,auth` (their files and tests together). */
const names = (process.env.FW_MUTATION_AREA || 'access').split(',');
for (const n of names) if (!areas[n]) throw new Error(`FW_MUTATION_AREA: "${n}" is not one of ${Object.keys(areas).join(', ')}`);
const area = { mutate: names.flatMap((n) => areas[n].mutate), tests: [...new Set(names.flatMap((n) => areas[n].tests))] };
const report = process.env.FW_MUTATION_REPORT || names.join('+');
const dir = `reports/mutation/${report}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  mutate: area.mutate,
  testFiles: area.tests,
  coverageAnalysis: 'perTest',
  // a mutant only run while modules load or a suite boots its kernel (beforeAll), never inside a
  // test, would need every test of the area: it is reported as Ignored, not run
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `${dir}/incremental.json`,
  reporters: ['progress-append-only', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: `${dir}/index.html` },
  jsonReporter: { fileName: `${dir}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: false },
  // the machine is shared and has two cores: two test workers at most
  concurrency: Number(process.env.FW_MUTATION_CONCURRENCY || 2),
  // A mutant's run is timed against the initial run, but on this shared machine a run of the
  // same tests can take twice as long when others are busy: at 15 s over, survivors ended up as
  // false "Timeout"s (counted as detected). Infinite loops are stopped by Stryker's hit limit
  // (a counter in the instrumented code) instead of the clock, so the clock can be generous.
  timeoutMS: 180_000,
  timeoutFactor: 3,
  dryRunTimeoutMinutes: 30,
  // the sandbox (a copy of the project, node_modules linked) lives outside the repository
  tempDirName: path.join(os.tmpdir(), 'fw-stryker'),
  cleanTempDir: true,
  // vitest does not type-check, and the tsconfig needs no rewriting (no extends or references;
  // Stryker's rewrite calls the TypeScript 5 API, which TypeScript 7 does not have)
  disableTypeChecks: false,
  tsconfigFile: 'tsconfig.stryker-none.json',
  ignorePatterns: ['/data', '/reports', '/qa-report', '/bench/results', '/web/dist', '/web/node_modules', '/.ci/vitest-results.json'],
  logLevel: 'info',
  fileLogLevel: 'off',
};
