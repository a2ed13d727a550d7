/**
 * The AI hook points any app may use: `pre.ir.tool.registry.bind` once per tool binding (record,
 * veto, switch off, reword), `pre/post.ai.tool_call` around each tool call (a veto becomes the
 * tool's error, the model carries on), and `pre/post.ai.invocation` around each provider call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookContext } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { AccessDenied } from '../../src/kernel/errors.ts';
import { adminPrincipal, bootTestKernel, fixtureApp, type TestKernel } from '../helpers/kernel.ts';
import { startScriptedLlm, textStep, toolCallsStep, type ScriptedLlm } from './helpers/scripted-llm.ts';

let k: TestKernel;
let llm: ScriptedLlm;
const seen = { binds: [] as string[], toolResults: [] as unknown[], invocations: [] as Array<{ model: string; usage: unknown }> };
const admin = adminPrincipal('default');

beforeAll(async () => {
  llm = await startScriptedLlm();
  k = await bootTestKernel({
    settings: { ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true', AI_BYO_KEY_REQUIRED: 'false', AI_PROVIDER_A_BASE_URL: llm.url, AI_PROVIDER_MAX_RETRIES: '0' },
    apps: [fixtureApp('aihooks', {
      hooks: [
        { point: 'pre.ir.tool.registry.bind', handler: (ctx: HookContext) => {
          seen.binds.push(String(ctx.payload.name));
          if (ctx.payload.name === 'describe_model') ctx.payload.is_enabled = false;
          if (ctx.payload.name === 'count_records') ctx.payload.description = 'Count records (reworded by a hook)';
          if (ctx.payload.name === 'group_records') throw new AccessDenied('no grouping in this tenant');
        } },
        { point: 'pre.ai.tool_call', handler: (ctx: HookContext) => {
          if (ctx.payload.tool === 'search_records') throw new AccessDenied('searching is off during the audit');
        } },
        { point: 'post.ai.tool_call', handler: (ctx: HookContext) => { seen.toolResults.push(ctx.after?.result); } },
        { point: 'post.ai.invocation', handler: (ctx: HookContext) => { seen.invocations.push({ model: String(ctx.payload.model), usage: ctx.payload.usage }); } },
      ],
    })],
  });
});
afterAll(async () => {
  await k?.cleanup();
  await llm?.close();
});

describe('AI hook points', () => {
  it('pre.ir.tool.registry.bind runs per binding and is recorded as ai.tool rows; a hook may veto, switch off or reword a tool', async () => {
    const cat = await k.kernel.dispatch<{ tools: Array<{ name: string; description: string }> }>('ai.catalogue', {}, admin);
    expect(seen.binds).toEqual(expect.arrayContaining(['search_records', 'count_records', 'describe_model', 'create_record']));
    expect(cat.tools.map((x) => x.name)).not.toContain('describe_model');
    // a veto (the hook throws) leaves the tool unbound, not the whole catalogue broken
    expect(cat.tools.map((x) => x.name)).not.toContain('group_records');
    expect(cat.tools.map((x) => x.name)).toContain('search_records');
    const db = await k.kernel.tenants.get('default');
    const rows = await delegateOf(db, k.kernel.registry.model('ai.tool')).findMany({ orderBy: { name: 'asc' } });
    expect(rows.find((r) => r.name === 'describe_model')).toMatchObject({ is_enabled: false, command: 'ai.describe_model', kind: 'informer', read_only: true });
    expect(rows.find((r) => r.name === 'count_records')).toMatchObject({ description: 'Count records (reworded by a hook)', is_enabled: true });
    expect(rows.find((r) => r.name === 'create_record')).toMatchObject({ kind: 'proposer', read_only: false });
    // an admin switches a tool off for the tenant; the catalogue follows
    await k.kernel.dispatch('fw.update_many', { model: 'ai.tool', domain: [['name', '=', 'count_records']], values: { is_enabled: false } }, admin);
    const after = await k.kernel.dispatch<{ tools: Array<{ name: string }> }>('ai.catalogue', {}, admin);
    expect(after.tools.map((x) => x.name)).not.toContain('count_records');
    await k.kernel.dispatch('fw.update_many', { model: 'ai.tool', domain: [['name', '=', 'count_records']], values: { is_enabled: true } }, systemPrincipal('default'));
  });

  it('a pre.ai.tool_call veto becomes the tool\'s error and the turn goes on; post.ai.tool_call sees each result; post.ai.invocation sees each call', async () => {
    const conv = await k.kernel.dispatch<{ id: string }>('ai.conversation.start', {}, admin);
    llm.push(
      toolCallsStep([{ name: 'search_records', arguments: JSON.stringify({ model: 'res.country' }) }, { name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) }], { usage: { prompt_tokens: 9, completion_tokens: 1 } }),
      textStep('ok', { usage: { prompt_tokens: 11, completion_tokens: 1 } }),
    );
    const turn = await k.kernel.dispatch<{ messages: Array<{ role: string; content: string }> }>('ai.conversation.send_message', { id: conv.id, content: 'countries' }, admin);
    const tools = turn.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content));
    expect(tools[0].error).toEqual({ code: 'ACCESS_DENIED', message: 'searching is off during the audit' });
    expect(tools[1].count).toBeGreaterThan(100);
    expect(seen.toolResults).toEqual([{ count: tools[1].count }]);
    expect(seen.invocations).toEqual([
      { model: 'gpt-4o-mini', usage: { input_tokens: 9, output_tokens: 1 } },
      { model: 'gpt-4o-mini', usage: { input_tokens: 11, output_tokens: 1 } },
    ]);
  });
});
