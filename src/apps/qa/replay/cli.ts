import type { Kernel } from '../../../kernel/kernel.js';
import { replay, type ReplayOutcome } from './run.js';

/** The one summary line `fw e2e replay` ends with. */
export function summaryLine(o: ReplayOutcome): string {
  if (!o.usecases) return 'replay: no use case to replay (none is active in this tenant)';
  const results = o.runs.flatMap((r) => r.results);
  const passed = results.filter((r) => r.status === 'passed').length;
  const failed = results.filter((r) => r.status === 'failed').length;
  const errors = results.filter((r) => r.status === 'error').length;
  const runErrors = o.runs.filter((r) => r.status === 'error' && r.error);
  const parts = [`${o.usecases} use case${o.usecases === 1 ? '' : 's'}`, `${passed} passed`, `${failed} failed`];
  if (errors) parts.push(`${errors} could not run`);
  const browsers = o.runs.length > 1 ? ` × ${o.runs.length} browsers` : '';
  const ids = o.runs.map((r) => (o.runs.length > 1 ? `${r.browser} ${r.id}` : r.id)).join(', ');
  const why = runErrors.length ? ` — ${runErrors.map((r) => `${r.browser}: ${r.error}`).join('; ')}` : '';
  return `replay: ${parts.join(', ')}${browsers} (run${o.runs.length > 1 ? 's' : ''} ${ids}, ${(o.duration_ms / 1000).toFixed(1)} s)${why}`;
}

/**
 * `fw e2e replay --tenant <key> [--usecase <key> [--from <n>]]`: progress per step, then one
 * summary line. `--from <n>` replays from step n: the steps before it run as the way there,
 * without screenshots.
 * Exit code 0 only when every use case passed in every browser; 1 otherwise (a failed step, a
 * use case or browser that could not run, or nothing to replay).
 */
export async function replayFromCli(kernel: Kernel, o: { tenant: string; usecase: string | null; fromStep?: number | null; log: (line: string) => void }): Promise<number> {
  const outcome = await replay(kernel, { tenant: o.tenant, usecase: o.usecase, fromStep: o.fromStep, log: o.log });
  o.log(summaryLine(outcome));
  if (!outcome.usecases) return 1;
  const ok = outcome.runs.length > 0 && outcome.runs.every((r) => r.status === 'passed' && r.results.every((x) => x.status === 'passed'));
  return ok ? 0 : 1;
}
