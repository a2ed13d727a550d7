/** Workload 8: SQL statements per request of workload 1 at page sizes 5, 50, 500 (target ≤ 2 each). */
import fs from 'node:fs';
import path from 'node:path';
import type { Bench } from '../lib/bench.ts';
import { spawnScript } from '../lib/load.ts';
import { waitExit } from '../lib/proc.ts';
import { fwEnv } from '../lib/server.ts';

export async function sqlWorkload(b: Bench): Promise<void> {
  b.log('workload 8: SQL statements per request (in-process, onQuery)');
  const dataDir = path.join(b.ctx.tmp, 'data-sql');
  fs.mkdirSync(dataDir, { recursive: true });
  const child = spawnScript('sql count', 'workloads/sql-count.ts', [], null, fwEnv(b.ctx, 'sql', dataDir, { EVENT_WORKER: 'false' }));
  const code = await waitExit(child, 600_000);
  if (code !== 0) throw new Error(`SQL count failed: ${child.err().slice(-1500)}`);
  const res = JSON.parse(child.out().trim().split('\n').pop()!) as Array<{ operation: string; limit: number; records: number; count: number; queries: string[] }>;
  b.raw.w8 = res;
  for (const r of res) {
    const gql = r.operation === 'graphql';
    b.rows.push({
      id: '8', workload: gql ? `SQL per GraphQL list, limit ${r.limit}` : `SQL per REST list, limit ${r.limit}`,
      target: gql ? '≤ 2 queries' : undefined, met: gql ? r.count <= 2 && r.records === r.limit : undefined,
      note: `${r.count} queries, ${r.records} records`,
    });
  }
}
