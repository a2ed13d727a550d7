/**
 * Child process of workload 10 (in-process, AI_ENABLED, an instant scripted OpenAI-compatible
 * provider on 127.0.0.1). Prints one JSON line:
 * - the carrier's overhead: p50 of `ai.tool.count_records` minus p50 of the `fw.count` it runs;
 * - the bridge's overhead per tool call inside a turn: (p50 of a turn with 11 tool calls − p50
 *   of a turn with 1) / 10, minus the tool's own command (fw.count);
 * - the budget under 50 concurrent calls: spend against the cap (overshoot must be 0).
 */
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { startScriptedLlm, textStep, toolCallsStep } from '../../tests/ai/helpers/scripted-llm.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const quick = process.argv.includes('--quick');

const toolsPerReply = new Map<string, number>();
const llm = await startScriptedLlm({
  record: false,
  respond: (body) => {
    const last = body.messages.at(-1);
    if (last.role === 'tool') return textStep('done', { usage: { prompt_tokens: 100, completion_tokens: 5 } });
    const n = toolsPerReply.get(String(last.content)) ?? 1;
    return toolCallsStep(Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'count_records', arguments: '{"model":"res.country"}' })), { usage: { prompt_tokens: 100, completion_tokens: 5 } });
  },
});
toolsPerReply.set('one', 1);
toolsPerReply.set('eleven', 11);

const kernel = await Kernel.boot({
  settings: loadSettings({
    ...process.env, ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true', AI_BYO_KEY_REQUIRED: 'false',
    AI_PROVIDER_A_BASE_URL: llm.url, AI_MAX_TOOL_ITERATIONS: '20', EVENT_WORKER: 'false',
    // thousands of turns measure the bridge, not budgets: the default daily caps would stop them
    AI_DAILY_BUDGET_USD: '0', AI_USER_DAILY_BUDGET_USD: '0',
  }),
  worker: false,
  log: () => {},
});
const tenant = kernel.settings.DEFAULT_TENANT;
const admin = (await kernel.dispatch<{ items: Array<{ id: string }> }>('fw.search', { model: 'res.user', domain: [['role', '=', 'admin']], limit: 1 }, { kind: 'system', user_id: null, tenant_id: tenant, role: 'system' })).items[0]!;
const principal = { kind: 'user' as const, user_id: admin.id, tenant_id: tenant, role: 'admin', organization_id: null };

const time = async (fn: () => Promise<unknown>) => { const t = performance.now(); await fn(); return performance.now() - t; };
const rounds = quick ? 300 : 2000;
const direct: number[] = [];
const carrier: number[] = [];
for (let i = 0; i < 200; i++) { await kernel.dispatch('fw.count', { model: 'res.country' }, principal); await kernel.dispatch('ai.tool.count_records', { model: 'res.country' }, principal); }
for (let i = 0; i < rounds; i++) {
  direct.push(await time(() => kernel.dispatch('fw.count', { model: 'res.country' }, principal)));
  carrier.push(await time(() => kernel.dispatch('ai.tool.count_records', { model: 'res.country' }, principal)));
}

const conv = await kernel.dispatch<{ id: string }>('ai.conversation.start', {}, principal);
const turns = { one: [] as number[], eleven: [] as number[] };
const turnRounds = quick ? 15 : 60;
for (let i = 0; i < 5; i++) await kernel.dispatch('ai.conversation.send_message', { id: conv.id, content: 'one' }, principal);
for (let i = 0; i < turnRounds; i++) {
  // a fresh conversation per turn keeps the history (and the request) the same size
  const c1 = await kernel.dispatch<{ id: string }>('ai.conversation.start', {}, principal);
  turns.one.push(await time(() => kernel.dispatch('ai.conversation.send_message', { id: c1.id, content: 'one' }, principal)));
  const c2 = await kernel.dispatch<{ id: string }>('ai.conversation.start', {}, principal);
  turns.eleven.push(await time(() => kernel.dispatch('ai.conversation.send_message', { id: c2.id, content: 'eleven' }, principal)));
}
const perToolCall = (p50(turns.eleven) - p50(turns.one)) / 10;

// budget: the cap fits a few reservations; 50 calls at once must never spend past it
const db = await kernel.tenants.get(tenant);
await delegateOf(db, kernel.registry.model('ai.usage.log')).deleteMany({});
await kernel.close();
const capped = await Kernel.boot({
  settings: loadSettings({
    ...process.env, ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true', AI_BYO_KEY_REQUIRED: 'false',
    AI_PROVIDER_A_BASE_URL: llm.url, AI_DAILY_BUDGET_USD: '0.02', AI_MAX_OUTPUT_TOKENS: '200', EVENT_WORKER: 'false',
    AI_PROVIDER_A_MODEL: 'gpt-4o',
  }),
  worker: false,
  log: () => {},
});
toolsPerReply.set('budget', 0);
const results = await Promise.allSettled(Array.from({ length: 50 }, () => capped.dispatch('ai.invoke', { prompt: 'budget' }, principal)));
const rows = await delegateOf(await capped.tenants.get(tenant), capped.registry.model('ai.usage.log')).findMany({});
const spent = rows.reduce((n, r) => n + Number(r.usd), 0);
const refused = results.filter((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'BUDGET_EXCEEDED').length;
const failed = results.filter((r) => r.status === 'rejected' && (r.reason as { code?: string }).code !== 'BUDGET_EXCEEDED').length;
await capped.close();
await llm.close();

console.log(JSON.stringify({
  direct_p50_ms: p50(direct), carrier_p50_ms: p50(carrier), carrier_overhead_ms: p50(carrier) - p50(direct),
  turn_one_p50_ms: p50(turns.one), turn_eleven_p50_ms: p50(turns.eleven), per_tool_call_ms: perToolCall,
  bridge_overhead_per_tool_call_ms: perToolCall - p50(direct),
  budget: { cap_usd: 0.02, calls: 50, ok: results.filter((r) => r.status === 'fulfilled').length, refused, failed, spent_usd: spent, overshoot_usd: Math.max(0, spent - 0.02) },
}));
process.exit(0);
