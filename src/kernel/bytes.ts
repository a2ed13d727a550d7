/**
 * A size as people read it: "812 bytes", "19.1 KB", "25 MB" (binary multiples, as file managers
 * show them). Error messages and the client use it instead of a raw byte count.
 */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  // one decimal below 100, none above; a trailing .0 is dropped
  const shown = v < 100 ? (Math.round(v * 10) / 10).toString() : Math.round(v).toString();
  return `${shown} ${units[i]}`;
}
