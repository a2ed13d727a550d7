/**
 * A row measured in turns with its floor: floor, fw, fw, floor, floor, fw, … (`--pairs K` turns
 * of each), and judged by the median of the K ratios of neighbouring turns.
 *
 * One 10 s run of the floor at the start of the bench and one of fw a minute later are only
 * comparable when the machine stays the same in between. On a shared machine it does not: the
 * yoga floor measured 2,627 and 1,434 req/s in two runs ten minutes apart (2026-11-30), and the
 * uncached list's ratio moved from 0.69× to 0.92× with it. Short turns side by side see the same
 * machine, and the ABBA order cancels a load that rises or falls steadily over the row.
 */
import type { FloorKind, FloorServer } from '../floors/index.ts';
import type { Bench } from './bench.ts';
import type { LoadJob } from './load.ts';

export type Durations = Pick<LoadJob, 'warmupS' | 'durationS'>;

export interface Paired<R> {
  /** The median of the K ratios fw / floor. */
  ratio: number;
  ratios: number[];
  /** The fw turn of the median ratio (its req/s, latencies and RSS are the row's). */
  fw: R;
  floorRps: number[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Turn durations: a short warm-up, then half the bench's duration (at least 2 s). */
export const turnDurations = (b: Bench): Durations => ({ warmupS: 1, durationS: Math.max(2, Math.round(b.durationS / 2)) });

/**
 * K turns of the floor and of `fw` (which measures fw for the given durations and answers its
 * result), or null when the run measures rows once (`--pairs 1`) or the floor is not running.
 */
export async function paired<R>(b: Bench, kind: FloorKind, fw: (d: Durations) => Promise<R>, rpsOf: (r: R) => number): Promise<Paired<R> | null> {
  const floor: FloorServer | undefined = b.floorServers[kind];
  if (b.pairs < 2 || !floor) return null;
  const d = turnDurations(b);
  const turns: Array<{ ratio: number; fw: R; floor: number }> = [];
  for (let k = 0; k < b.pairs; k++) {
    // ABBA: floor first in even turns, fw first in odd ones
    let f: number;
    let r: R;
    if (k % 2 === 0) {
      f = (await floor.measure(d)).rps;
      r = await fw(d);
    } else {
      r = await fw(d);
      f = (await floor.measure(d)).rps;
    }
    turns.push({ ratio: rpsOf(r) / f, fw: r, floor: f });
  }
  const ratios = turns.map((t) => t.ratio);
  const ratio = median(ratios);
  const mid = turns.reduce((best, t) => (Math.abs(t.ratio - ratio) < Math.abs(best.ratio - ratio) ? t : best));
  return { ratio, ratios, fw: mid.fw, floorRps: turns.map((t) => t.floor) };
}

/** "3 turns: 0.91–1.02×", for a row's note. */
export function turnsNote(p: Paired<unknown>, floor: string): string {
  const lo = Math.min(...p.ratios);
  const hi = Math.max(...p.ratios);
  return `median of ${p.ratios.length} turns with the ${floor} floor: ${lo.toFixed(2)}–${hi.toFixed(2)}×`;
}
