/** One table for the whole run, and the rows behind it. */

export interface Row {
  /** Workload number and variant, e.g. "1", "3b", "floor". */
  id: string;
  workload: string;
  rps?: number;
  p50?: number;
  p99?: number;
  peakRssMb?: number;
  /** Ratio of rps to the yoga floor's rps. */
  xYoga?: number;
  /** Ratio to the workload's own floor (node:http, bcrypt, cat), with that floor's name. */
  vsFloor?: { name: string; ratio: number };
  /** What the issue asks, in words ("≥ 0.8× yoga"). */
  target?: string;
  /** true met, false MISSED, null not measured (NOT RUN). */
  met?: boolean | null;
  note?: string;
}

const fmt = (n: number | undefined, digits = 0): string => (n === undefined || !Number.isFinite(n) ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
const ratio = (n: number | undefined): string => (n === undefined || !Number.isFinite(n) ? "" : `${n >= 0.1 || n === 0 ? n.toFixed(2) : n.toPrecision(2)}×`);

export function renderTable(rows: Row[]): string {
  const head = ['#', 'workload', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', '× yoga', 'vs own floor', 'target', 'result', 'note'];
  const body = rows.map((r) => [
    r.id,
    r.workload,
    fmt(r.rps, r.rps !== undefined && r.rps < 100 ? 1 : 0),
    fmt(r.p50, r.p50 !== undefined && r.p50 < 10 ? 2 : 1),
    fmt(r.p99, r.p99 !== undefined && r.p99 < 10 ? 2 : 1),
    fmt(r.peakRssMb),
    ratio(r.xYoga),
    r.vsFloor ? `${ratio(r.vsFloor.ratio)} ${r.vsFloor.name}` : '',
    r.target ?? '',
    r.met === undefined ? '' : r.met === null ? 'NOT RUN' : r.met ? 'met' : 'MISSED',
    r.note ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6]);
  const line = (cells: string[]) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}
