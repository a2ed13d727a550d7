/**
 * The `list_views` tool (the presentation command `presentation.list_views`) lists only the views
 * of models the caller's role may read, the catalogue's rule: in a turn and over MCP as in REST.
 * The `qa` role may not read `crm.lead` (schema/crm.sales/crm.lead.ts), a plain user may.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiServer, type AiServer } from './helpers/ai-server.ts';
import { textStep, toolCallsStep } from './helpers/scripted-llm.ts';

const CRM_VIEWS = ['crm.lead.form', 'crm.lead.kanban', 'crm.lead.list', 'crm.lead.search'];

let t: AiServer;
let base: string;

beforeAll(async () => {
  t = await startAiServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors', ACTIVE_DOMAINS: 'crm' });
  await t.server.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.server.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.stop();
});

const ids = (views: Array<{ view_id: string }>) => views.map((v) => v.view_id);

/** The views the `list_views` tool answers in a turn of `token`'s user. */
async function viewsInTurn(token: string): Promise<Array<{ view_id: string; model: string }>> {
  const conv = await t.conversation(token);
  t.llm.push(toolCallsStep([{ name: 'list_views', arguments: '{}' }]), textStep('done'));
  const res = await t.say(token, conv, 'which screens are there?');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const tool = res.body.messages.find((m: any) => m.role === 'tool');
  expect(tool.tool_name).toBe('list_views');
  return JSON.parse(tool.content).views;
}

describe('list_views lists the views of models the caller may read', () => {
  it('in a turn: a qa user gets no crm.lead view, a plain user and an admin do; each equals the REST list', async () => {
    const qa = await t.user('quinn', 'qa');
    const pat = await t.user('pat', 'user');
    const forQa = await viewsInTurn(qa.token);
    expect(forQa.some((v) => v.model === 'crm.lead')).toBe(false);
    expect(ids(forQa)).toEqual(expect.arrayContaining(['res.organization.list', 'ir.connector.list']));
    expect(forQa).toEqual((await t.request('GET', '/api/presentation/views', { token: qa.token })).body);

    const forPat = await viewsInTurn(pat.token);
    expect(ids(forPat)).toEqual(expect.arrayContaining(CRM_VIEWS));
    expect(forPat).toEqual((await t.request('GET', '/api/presentation/views', { token: pat.token })).body);
    expect(ids(await viewsInTurn(t.admin))).toEqual(expect.arrayContaining(CRM_VIEWS));
  });

  it('over MCP (the read-only catalogue), the same narrowing', async () => {
    const qa = await t.user('quincy', 'qa');
    const client = new Client({ name: 'fw-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${qa.token}` } } }));
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toContain('list_views');
      const r = await client.callTool({ name: 'list_views', arguments: {} }) as CallToolResult;
      expect(r.isError ?? false).toBe(false);
      const views = (r.structuredContent as { views: Array<{ view_id: string; model: string }> }).views;
      expect(views.some((v) => v.model === 'crm.lead')).toBe(false);
      expect(views).toEqual((await t.request('GET', '/api/presentation/views', { token: qa.token })).body);
    } finally {
      await client.close();
    }
  });
});
