/**
 * The `pre/post.ai.tool_call` hooks apply to MCP tool calls exactly as to the tool calls of a
 * turn: both run through `ai.call_tool`. A real server (a kernel with a fixture app holding the
 * hooks) on 127.0.0.1, the SDK's own Client over Streamable HTTP, and a scripted provider for
 * the turn. The stdio server (`fw mcp`) runs the same `callTool` of src/apps/ai/mcp/server.ts in
 * a child process, which cannot load a fixture app; mcp.test.ts covers its transport.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/server/index.ts';
import type { HookContext } from '../../src/kernel/app.ts';
import { AccessDenied } from '../../src/kernel/errors.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, adminPrincipal, bootTestKernel, fixtureApp, type TestKernel } from '../helpers/kernel.ts';
import { startScriptedLlm, textStep, toolCallsStep, type ScriptedLlm } from './helpers/scripted-llm.ts';

let k: TestKernel;
let llm: ScriptedLlm;
let server: FastifyInstance;
let base: string;
let token: string;
const clients: Client[] = [];
const seen = { pre: [] as Array<Record<string, unknown>>, post: [] as Array<{ tool: unknown; source: unknown; result: unknown }> };

beforeAll(async () => {
  llm = await startScriptedLlm();
  k = await bootTestKernel({
    settings: { ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true', AI_BYO_KEY_REQUIRED: 'false', AI_PROVIDER_A_BASE_URL: llm.url, AI_PROVIDER_MAX_RETRIES: '0' },
    apps: [fixtureApp('mcphooks', {
      hooks: [
        { point: 'pre.ai.tool_call', handler: (ctx: HookContext) => {
          seen.pre.push({ tool: ctx.payload.tool, source: ctx.payload.source, conversation_id: ctx.payload.conversation_id, arguments: ctx.payload.arguments });
          if (ctx.payload.tool === 'search_records') throw new AccessDenied('searching is off during the audit', { policy: 'audit' });
          // a hook may rewrite the arguments: counts are limited to active countries
          if (ctx.payload.tool === 'count_records') ctx.payload.arguments = { ...(ctx.payload.arguments as object), domain: [['code', '=', 'FR']] };
        } },
        { point: 'post.ai.tool_call', handler: (ctx: HookContext) => {
          seen.post.push({ tool: ctx.payload.tool, source: ctx.payload.source, result: ctx.after?.result });
        } },
      ],
    })],
  });
  server = await buildServer(k.kernel);
  await k.kernel.tenants.get(k.kernel.settings.DEFAULT_TENANT);
  await server.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  const login = await server.inject({ method: 'POST', url: '/api/auth/login', payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
  expect(login.statusCode, login.body).toBe(200);
  token = JSON.parse(login.body).access_token;
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.close();
  await k?.cleanup();
  await llm?.close();
});
beforeEach(() => {
  seen.pre.length = 0;
  seen.post.length = 0;
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'fw-test-hooks', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}
const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const data = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text);

describe('tool-call hooks over MCP (Streamable HTTP)', () => {
  it('a pre.ai.tool_call veto is an isError result with the hook\'s error code; nothing runs and no post hook fires', async () => {
    const c = await connect();
    const r = await call(c, 'search_records', { model: 'res.country' });
    expect(r.isError).toBe(true);
    expect(data(r).error).toEqual({ code: 'ACCESS_DENIED', message: 'searching is off during the audit', details: { policy: 'audit' } });
    expect(r.structuredContent).toEqual(data(r));
    expect(seen.pre).toEqual([{ tool: 'search_records', source: 'mcp', conversation_id: null, arguments: { model: 'res.country' } }]);
    expect(seen.post).toEqual([]);
  });

  it('post.ai.tool_call sees the result the client gets; a pre hook\'s rewritten arguments are the ones run', async () => {
    const c = await connect();
    const r = await call(c, 'count_records', { model: 'res.country' });
    expect(r.isError ?? false).toBe(false);
    // the hook narrowed the count to one country
    expect(data(r)).toEqual({ count: 1 });
    expect(seen.pre).toEqual([{ tool: 'count_records', source: 'mcp', conversation_id: null, arguments: { model: 'res.country' } }]);
    expect(seen.post).toEqual([{ tool: 'count_records', source: 'mcp', result: { count: 1 } }]);
    // a tool the hooks leave alone
    const d = await call(c, 'describe_model', { model: 'res.country' });
    expect(d.isError ?? false).toBe(false);
    expect(seen.post.map((p) => p.tool)).toEqual(['count_records', 'describe_model']);
    expect(seen.post[1].result).toEqual(data(d));
  });

  it('refusals before the call (a tool not offered, a model outside the enum) do not reach the hooks', async () => {
    const c = await connect();
    expect(data(await call(c, 'create_record', { model: 'res.country', values: {} })).error.code).toBe('AI_TOOL_UNKNOWN');
    expect(data(await call(c, 'count_records', { model: 'ai.usage.log' })).error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(seen.pre).toEqual([]);
  });

  it('the same hooks, with the same veto, run once per tool call in a turn', async () => {
    const admin = adminPrincipal(k.kernel.settings.DEFAULT_TENANT);
    const conv = await k.kernel.dispatch<{ id: string }>('ai.conversation.start', {}, admin);
    llm.push(
      toolCallsStep([{ name: 'search_records', arguments: JSON.stringify({ model: 'res.country' }) }, { name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) }]),
      textStep('ok'),
    );
    const turn = await k.kernel.dispatch<{ messages: Array<{ role: string; content: string }> }>('ai.conversation.send_message', { id: conv.id, content: 'countries' }, admin);
    const tools = turn.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content));
    expect(tools).toEqual([{ error: { code: 'ACCESS_DENIED', message: 'searching is off during the audit' } }, { count: 1 }]);
    expect(seen.pre.map((p) => [p.tool, p.source, p.conversation_id])).toEqual([['search_records', 'turn', conv.id], ['count_records', 'turn', conv.id]]);
    expect(seen.post).toEqual([{ tool: 'count_records', source: 'turn', result: { count: 1 } }]);
  });
});
