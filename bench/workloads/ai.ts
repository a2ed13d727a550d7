/**
 * Workload 10 (ai): the AI bridge's own cost with an instant scripted provider, and the budget
 * under 50 concurrent calls (docs/ai.md). Targets: ≤ 2 ms p50 bridge overhead per tool call on
 * SQLite; budget overshoot 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Bench } from '../lib/bench.ts';
import { spawnScript } from '../lib/load.ts';
import { waitExit } from '../lib/proc.ts';
import { fwEnv } from '../lib/server.ts';

interface Result {
  direct_p50_ms: number; carrier_p50_ms: number; carrier_overhead_ms: number;
  turn_one_p50_ms: number; turn_eleven_p50_ms: number; per_tool_call_ms: number; bridge_overhead_per_tool_call_ms: number;
  budget: { cap_usd: number; calls: number; ok: number; refused: number; failed: number; spent_usd: number; overshoot_usd: number };
}

export async function aiWorkload(b: Bench): Promise<void> {
  b.log('workload 10: AI bridge overhead and budget (in-process, scripted provider)');
  const dataDir = path.join(b.ctx.tmp, 'data-ai');
  fs.mkdirSync(dataDir, { recursive: true });
  const child = spawnScript('ai bridge', 'workloads/ai-bridge.ts', b.ctx.quick ? ['--quick'] : [], null, fwEnv(b.ctx, 'ai', dataDir, { EVENT_WORKER: 'false' }));
  const code = await waitExit(child, 900_000);
  if (code !== 0) throw new Error(`AI bridge bench failed: ${child.err().slice(-1500)}`);
  const r = JSON.parse(child.out().trim().split('\n').pop()!) as Result;
  b.raw.w10 = r;
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  b.rows.push({
    id: '10a', workload: 'ai: bridge overhead per tool call in a turn', target: '≤ 2 ms p50', met: r.bridge_overhead_per_tool_call_ms <= 2,
    note: `${ms(r.per_tool_call_ms)} per call − ${ms(r.direct_p50_ms)} fw.count (turns: 1 call ${ms(r.turn_one_p50_ms)}, 11 calls ${ms(r.turn_eleven_p50_ms)})`,
  });
  b.rows.push({ id: '10b', workload: 'ai: carrier ai.tool.<name> over its command', note: `${ms(r.carrier_overhead_ms)} (${ms(r.carrier_p50_ms)} vs ${ms(r.direct_p50_ms)})` });
  b.rows.push({
    id: '10c', workload: 'ai: budget under 50 concurrent calls', target: 'overshoot 0', met: r.budget.overshoot_usd === 0 && r.budget.failed === 0,
    note: `spent ${r.budget.spent_usd.toFixed(6)} of ${r.budget.cap_usd} USD; ${r.budget.ok} ok, ${r.budget.refused} BUDGET_EXCEEDED, ${r.budget.failed} other errors`,
  });
}
