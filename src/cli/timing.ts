/**
 * Where a CLI command's time goes, printed on stderr when FW_CLI_TIMINGS=1 (bench/cli.ts reads
 * these lines): each mark is the time since the previous one and since the process started
 * (node and tsx startup included), so the figures add up to the wall time.
 */
const enabled = process.env.FW_CLI_TIMINGS === '1';
let last = 0;

export function mark(phase: string): void {
  if (!enabled) return;
  const now = performance.now();
  process.stderr.write(`[fw timing] ${phase}: +${Math.round(now - last)} ms (at ${Math.round(now)} ms)\n`);
  last = now;
}
