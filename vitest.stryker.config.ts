/**
 * The vitest configuration Stryker runs (stryker.config.mjs, `npm run mutation`): the in-process
 * tests of the kernel's access, data and bus code and of the auth app. The Stryker option
 * `testFiles` narrows it further to the tests of the area being mutated (bench/mutation-areas.json).
 *
 * Left out: browser tests (tests/web, and so its global setup that builds web/dist), tests that
 * spawn processes or crash them (tests/durability, tests/kernel/cli*), fuzz and bench runs, and
 * the migration runner's suites. A mutant is only active in the test worker Stryker drives, so a
 * child process could never kill one anyway.
 *
 * The Stryker vitest runner replaces pool and workers with one thread per Stryker worker.
 */
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import type { RunnerTask } from 'vitest';
import { BaseSequencer, type Reporter, type TestSpecification, type Vitest } from 'vitest/node';
import base from './vitest.config.ts';

/**
 * A mutant's run stops at its first failing test, so the files that fail or finish soonest go
 * first: the file that killed the previous mutant (neighbouring mutants tend to die in the same
 * test), then the quickest by their last duration (unit tests before suites that boot kernels).
 */
class QuickestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const info = (s: TestSpecification) => {
      const key = `${s.project.name}:${path.relative(this.ctx.config.root, s.moduleId)}`;
      const r = this.ctx.cache.getFileTestResults(key);
      return { failed: r?.failed ?? false, duration: r?.duration ?? Number.POSITIVE_INFINITY, size: this.ctx.cache.getFileStats(key)?.size ?? 0 };
    };
    return [...files].map((s) => ({ s, i: info(s) })).sort((a, b) =>
      Number(b.i.failed) - Number(a.i.failed) || a.i.duration - b.i.duration || a.i.size - b.i.size,
    ).map(({ s }) => s);
  }
}

/**
 * Stryker's vitest runner counts a mutant as killed only when a test failed. A mutant that breaks
 * a file's top-level `beforeAll` (a kernel that no longer boots) fails the file while vitest
 * marks its tests skipped; the runner then looks for a failed suite above each test, but vitest 4
 * gives top-level tests no suite, so such a mutant was counted as survived. This reporter marks
 * the skipped tests of a file that failed on its own (an error outside any test) as failed with
 * that error. In a mutant run nothing else can fail a file: the dry run passed without mutants.
 */
export class FileErrorsFailTheirTests implements Reporter {
  private vitest?: Vitest;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  /** Runs before the Stryker runner reads the results (it reads them once the run has ended). */
  onTestRunEnd(): void {
    for (const file of this.vitest?.state.getFiles() ?? []) {
      const error = file.result?.state === 'fail' ? file.result.errors?.[0] : undefined;
      if (error) failSkipped(file.tasks, error);
    }
  }
}

type TaskError = NonNullable<NonNullable<RunnerTask['result']>['errors']>[number];

function failSkipped(tasks: readonly RunnerTask[], error: TaskError): void {
  for (const t of tasks) {
    if (t.type === 'suite') failSkipped(t.tasks, error);
    else if (t.result?.state === 'skip') t.result = { ...t.result, state: 'fail', errors: [error] };
  }
}

export default defineConfig({
  resolve: base.resolve,
  // vitest's results cache (used by the sequencer) stays out of the shared node_modules/.vite
  cacheDir: path.join(os.tmpdir(), 'fw-stryker-vite'),
  test: {
    include: [
      'tests/kernel/access*.test.ts',
      'tests/kernel/hooks.test.ts',
      'tests/kernel/commands.test.ts',
      'tests/kernel/locking.test.ts',
      'tests/kernel/declarations.test.ts',
      'tests/kernel/bus/**/*.test.ts',
      'tests/kernel/data/**/*.test.ts',
      'tests/access/**/*.test.ts',
      'tests/auth/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 10_000 } },
    sequence: { sequencer: QuickestFirst },
    reporters: ['default', new FileErrorsFailTheirTests()],
    // one module graph for all the files of a run: importing the kernel again for every file
    // doubled the time of a run (the tests do not depend on fresh modules; mutants are switched
    // at run time, and the mutants that only run while modules load are ignored, see
    // stryker.config.mjs)
    isolate: false,
  },
});
