import { FwError } from '../../../kernel/errors.js';
import type { Kernel } from '../../../kernel/kernel.js';
import { polishRun, type PolishDeps, type PolishOutcome } from './polish.js';

/** The one summary line `fw e2e polish` ends with. */
export function summaryLine(o: PolishOutcome): string {
  const made = o.videos.filter((v) => v.file);
  const missed = o.videos.filter((v) => !v.file);
  const secs = (o.duration_ms / 1000).toFixed(1);
  const files = made.map((v) => `${v.file} (${v.status})`).join(', ');
  return `polish: ${made.length} video${made.length === 1 ? '' : 's'} of run ${String(o.run.id)} in ${secs} s${made.length ? `: ${files}` : ''}`
    + (missed.length ? ` — no video for ${missed.map((v) => `${v.usecase_key} (${v.error ?? 'error'})`).join(', ')}` : '');
}

/**
 * `fw e2e polish --run <run_uuid> [-t <tenant>]`: progress lines while it films and encodes, then
 * one summary line with the video paths. Exit code 0 when every use case of the run was filmed
 * (whether its replay passed or failed: the video shows it), 1 otherwise: a use case that could
 * not run (its video is only the title and a red "Could not run" card) or has no video, or a
 * refusal, printed with its code (QA_RUN_NOT_FOUND, QA_FFMPEG_MISSING naming QA_VIDEO_FFMPEG_PATH, …).
 */
export async function polishFromCli(kernel: Kernel, o: { tenant: string; run: string; log: (line: string) => void }, deps?: PolishDeps): Promise<number> {
  let outcome: PolishOutcome;
  try {
    outcome = await polishRun(kernel, { tenant: o.tenant, run: o.run, log: o.log }, deps);
  } catch (err) {
    if (!(err instanceof FwError)) throw err;
    o.log(`polish failed: ${err.code}: ${err.message}`);
    return 1;
  }
  o.log(summaryLine(outcome));
  return outcome.videos.every((v) => v.file && v.status !== 'error') ? 0 : 1;
}
