/** What every workload gets: the run's settings, durations, and where to put its rows. */
import type { FloorKind, FloorServer } from '../floors/index.ts';
import type { Row } from './report.ts';
import { runLoad, type LoadJob, type LoadResult } from './load.ts';
import { RssWatch } from './proc.ts';
import type { RunContext } from './server.ts';

export interface Bench {
  ctx: RunContext;
  connections: number;
  warmupS: number;
  durationS: number;
  rows: Row[];
  /** Raw figures for bench/results/<date>.json, by workload. */
  raw: Record<string, unknown>;
  /** Floors measured so far in this run (req/s, compares/s). */
  floors: { http?: number; yoga?: number; bcrypt?: number };
  /** The floor servers while they run (the main server's workloads), for rows measured in turns. */
  floorServers: Partial<Record<FloorKind, FloorServer>>;
  /** Turns of fw and its floor per row with a ratio target (`--pairs`; 1: measured once, against the floor's one figure). */
  pairs: number;
  log(msg: string): void;
}

export type Measured = LoadResult & { peakRssMb: number };

/** Runs load jobs side by side against `pid`, with the peak RSS of `pid` over the measured part. */
export async function measure(pid: number, jobs: LoadJob[]): Promise<Measured[]> {
  const rss: { watch?: RssWatch } = {};
  try {
    const results = await runLoad(jobs, () => { rss.watch = new RssWatch(pid).start(); });
    const peak = rss.watch?.stop() ?? 0;
    return results.map((r) => ({ ...r, peakRssMb: peak }));
  } finally {
    rss.watch?.stop();
  }
}

/** A load job with the bench's connections and durations (a job's own durations win). */
export function job(b: Bench, j: Omit<LoadJob, 'connections' | 'warmupS' | 'durationS'> & Partial<LoadJob>): LoadJob {
  return { connections: b.connections, warmupS: b.warmupS, durationS: b.durationS, ...j };
}

/** A note for results that had failures (they are not a fair figure). */
export function failures(r: LoadResult): string {
  const bad = r.non2xx + r.errors + r.timeouts;
  return bad ? `${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts of ${r.ok + bad}` : '';
}
