/**
 * The MCP server end to end with the SDK's own Client: over Streamable HTTP against a real
 * listening server (AI_ENABLED), and over stdio against `fw mcp` in a child process sharing the
 * server's SQLite files.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/server.ts';
import { startAiServer, type AiServer } from './helpers/ai-server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const READ_TOOLS = ['count_records', 'describe_model', 'group_records', 'read_record', 'search_records'];
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

let t: AiServer;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  // the proposers are allow-listed, so they are in the regular catalogue: MCP must still leave them out
  t = await startAiServer({ AI_WRITE_TOOLS_ALLOWLIST: 'create_record,update_record' }, { configure: false });
  await t.server.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.server.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await t?.stop();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'fw-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const data = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text);
const modelEnum = (tool: Tool) => (tool.inputSchema.properties as Record<string, { enum?: string[] }>).model.enum!;

describe('MCP over Streamable HTTP', () => {
  it('lists exactly the caller\'s read-only tools with read-only annotations and the narrowed schema', async () => {
    const c = await connect(t.admin);
    expect(c.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await c.listTools();
    expect(tools.map((x) => x.name)).toEqual(READ_TOOLS);
    for (const tool of tools) {
      expect(tool.annotations).toEqual(ANNOTATIONS);
      expect(tool.description).toEqual(expect.any(String));
      expect(tool.inputSchema.type).toBe('object');
    }
    // the regular catalogue of the same admin does offer the allow-listed proposers
    const all = await t.request('GET', '/api/ai/tools', { token: t.admin });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.map((x: any) => x.name)).toEqual(expect.arrayContaining(['create_record', 'update_record']));
    const search = tools.find((x) => x.name === 'search_records')!;
    expect(modelEnum(search)).toEqual(expect.arrayContaining(['res.organization', 'res.user', 'ir.module', 'ir.connector.param']));
    expect(modelEnum(search).some((m) => m.startsWith('ai.'))).toBe(false);
  });

  it('runs search_records and count_records as the caller', async () => {
    const c = await connect(t.admin);
    const orgA = await t.createOrg(t.admin, 'MCP Org A');
    await t.createOrg(t.admin, 'MCP Org B');
    const found = await call(c, 'search_records', { model: 'res.organization', domain: [['name', 'like', 'MCP Org%']], fields: ['name'], order: 'name asc' });
    expect(found.isError ?? false).toBe(false);
    expect(found.structuredContent).toEqual(data(found));
    expect(data(found).items.map((r: any) => r.name)).toEqual(['MCP Org A', 'MCP Org B']);
    expect(data(found).items[0].id).toBe(orgA);
    const counted = await call(c, 'count_records', { model: 'res.organization', domain: [['name', 'like', 'MCP Org%']] });
    expect(counted.isError ?? false).toBe(false);
    expect(data(counted)).toEqual({ count: 2 });
    const one = await call(c, 'read_record', { model: 'res.organization', id: orgA });
    expect(data(one)).toMatchObject({ id: orgA, name: 'MCP Org A' });
  });

  it('narrows a user\'s tools to what they may read and applies the record rules to their reads', async () => {
    const alice = await t.user('alice');
    const other = await t.createOrg(t.admin, 'Not Alice\'s');
    const c = await connect(alice.token);
    const { tools } = await c.listTools();
    expect(tools.map((x) => x.name)).toEqual(READ_TOOLS);
    const models = modelEnum(tools.find((x) => x.name === 'search_records')!);
    expect(models).toEqual(expect.arrayContaining(['res.organization', 'res.user']));
    // admin-only models are not offered to a user
    expect(models).not.toContain('ir.module');
    expect(models).not.toContain('ir.connector.param');
    expect(models).not.toContain('ir.event');

    // res.organization's rule: a user reads only their own organization
    const found = await call(c, 'search_records', { model: 'res.organization' });
    expect(found.isError ?? false).toBe(false);
    expect(data(found).items.map((r: any) => r.id)).toEqual([alice.org]);
    expect(data(await call(c, 'count_records', { model: 'res.organization' }))).toEqual({ count: 1 });
    const outside = await call(c, 'read_record', { model: 'res.organization', id: other });
    expect(outside.isError).toBe(true);
    expect(JSON.stringify(outside)).not.toContain('Not Alice');
    expect(data(outside).error.code).toEqual(expect.any(String));

    // a model outside the narrowed enum is refused before anything runs
    const forbidden = await call(c, 'search_records', { model: 'ir.module' });
    expect(forbidden.isError).toBe(true);
    expect(data(forbidden).error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(forbidden.structuredContent).toEqual(data(forbidden));
  });

  it('answers a tool that is not offered, and a failing tool, with isError instead of a protocol error', async () => {
    const c = await connect(t.admin);
    for (const name of ['create_record', 'update_record', 'no_such_tool']) {
      const r = await call(c, name, { model: 'res.organization', values: { name: 'x' } });
      expect(r.isError, name).toBe(true);
      expect(data(r).error.code).toBe('AI_TOOL_UNKNOWN');
    }
    const missing = await call(c, 'read_record', { model: 'res.organization', id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.isError).toBe(true);
    expect(data(missing).error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    // nothing was written by the refused proposers
    const orgs = await t.request('GET', '/api/data/res.organization?filter=' + encodeURIComponent(JSON.stringify([['name', '=', 'x']])), { token: t.admin });
    expect(orgs.status, JSON.stringify(orgs.body)).toBe(200);
    expect(orgs.body.items).toHaveLength(0);
  });

  it('leaves out a tool an admin switched off in the tenant', async () => {
    const c = await connect(t.admin);
    const rows = await t.request('GET', '/api/data/ai.tool?filter=' + encodeURIComponent(JSON.stringify([['name', '=', 'group_records']])), { token: t.admin });
    expect(rows.body.items).toHaveLength(1);
    const row = rows.body.items[0];
    const off = await t.request('PATCH', `/api/data/ai.tool/${row.id}`, { token: t.admin, body: { is_enabled: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    try {
      expect((await c.listTools()).tools.map((x) => x.name)).not.toContain('group_records');
      const r = await call(c, 'group_records', { model: 'res.organization', groupby: ['is_active'] });
      expect(data(r).error.code).toBe('AI_TOOL_UNKNOWN');
    } finally {
      await t.request('PATCH', `/api/data/ai.tool/${row.id}`, { token: t.admin, body: { is_enabled: true } });
    }
  });

  it('refuses a missing or invalid token with 401 before MCP runs', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const auth of [undefined, 'Bearer not-a-token']) {
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(init) });
      const body = await res.json();
      expectError({ status: res.status, body, headers: {} }, 401);
    }
    await expect(connect('not-a-token')).rejects.toMatchObject({ code: 401, message: expect.stringContaining('TOKEN_INVALID') });
    // with a valid token the same request is an MCP answer
    const ok = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${t.admin}` }, body: JSON.stringify(init) });
    expect(ok.status).toBe(200);
    expect((await ok.json()).result.serverInfo.name).toBe('fw');
  });

  it('is stateless: GET and DELETE are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/mcp`, { method, headers: { authorization: `Bearer ${t.admin}`, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('the OpenAPI document describes /mcp as it answers: JSON-RPC in and out, its refusals JSON-RPC errors, GET and DELETE 405', async () => {
    const doc = (await t.request('GET', '/api/openapi.json', { token: t.admin })).body;
    const post = doc.paths['/mcp'].post;
    const schemas = doc.components.schemas;
    const refOf = (op: any, status: number) => op.responses[status]?.content?.['application/json']?.schema;
    expect(post.requestBody.content['application/json'].schema.oneOf[0]).toEqual({ $ref: '#/components/schemas/JsonRpcMessage' });
    expect(post.description).toContain('`Accept` must name application/json and text/event-stream');
    expect(schemas.JsonRpcMessage.required).toEqual(['jsonrpc', 'method']);
    const send = (body: string, headers: Record<string, string> = {}) => fetch(`${base}/mcp`, {
      method: 'POST', body,
      headers: { authorization: `Bearer ${t.admin}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    });
    // each answer is the status the document gives, in the shape it gives
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const answers: Array<[string, Response]> = [
      ['a request', await send(request)],
      ['a notification', await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))],
      ['JSON that is no JSON-RPC message', await send(JSON.stringify({ hello: 'world' }))],
      ['an Accept without text/event-stream', await send(request, { accept: 'application/json' })],
      ['another content type', await send(request, { 'content-type': 'text/plain' })],
      ['malformed JSON', await send('{"jsonrpc": "2.0", ')],
    ];
    const seen: Record<string, number> = {};
    for (const [what, res] of answers) {
      seen[what] = res.status;
      const described = post.responses[res.status];
      expect(described, `${what}: ${res.status} is not in the description`).toBeDefined();
      const text = await res.text();
      if (res.status === 202) {
        expect(text).toBe('');
        continue;
      }
      const body = JSON.parse(text);
      if (res.status === 200) {
        expect(refOf(post, 200).oneOf[0]).toEqual({ $ref: '#/components/schemas/JsonRpcResponse' });
        expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, result: expect.any(Object) });
      } else if (what === 'malformed JSON') {
        // parsed before MCP sees it: the server's own error envelope, which the 400 also names
        expect(refOf(post, 400).oneOf).toContainEqual({ $ref: '#/components/schemas/Error' });
        expect(body.error.code).toBe('INVALID_JSON');
      } else {
        const described = refOf(post, res.status);
        expect(described.oneOf ?? [described], what).toContainEqual({ $ref: '#/components/schemas/JsonRpcError' });
        expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(schemas.JsonRpcError.required.slice().sort()));
        expect(body.error).toEqual(expect.objectContaining({ code: expect.any(Number), message: expect.any(String) }));
      }
    }
    expect(seen).toEqual({
      'a request': 200, 'a notification': 202, 'JSON that is no JSON-RPC message': 400, 'an Accept without text/event-stream': 406,
      'another content type': 415, 'malformed JSON': 400,
    });
    for (const method of ['get', 'delete']) {
      const op = doc.paths['/mcp'][method];
      expect(refOf(op, 405)).toEqual({ $ref: '#/components/schemas/JsonRpcError' });
      expect(op.responses[405].headers.Allow.schema).toEqual({ const: 'POST' });
      expect(op.responses[200]).toBeUndefined();
    }
  });
});

describe('MCP over stdio (fw mcp)', () => {
  const env = () => ({
    ...process.env as Record<string, string>,
    // the test server's own SQLite files, whatever the surrounding run exports (.ci/run sets a
    // PostgreSQL DATABASE_URL and a REDIS_URL)
    DATABASE_URL: '',
    REDIS_URL: '',
    DATA_DIR: t.kernel.settings.DATA_DIR,
    // a second process of the same deployment shares its keys through the environment
    JWT_SECRET_KEY: t.kernel.settings.extra.JWT_SECRET_KEY ?? '',
    CONNECTOR_SECRET_KEY: t.kernel.settings.extra.CONNECTOR_SECRET_KEY ?? '',
    ACTIVE_MODULES: 'base,auth,connectors',
    ACTIVE_DOMAINS: 'crm',
    AI_ENABLED: 'true',
    LOG_LEVEL: 'silent',
    FW_MCP_TOKEN: '',
  });
  const tenant = () => t.kernel.settings.DEFAULT_TENANT;

  /** Runs `fw mcp …` to its end; for the refusals. */
  const run = (args: string[], extraEnv: Record<string, string> = {}) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('npx', ['tsx', 'src/cli.ts', 'mcp', ...args], { cwd: ROOT, env: { ...env(), ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

  it('lists and calls the caller\'s read-only tools', async () => {
    const bob = await t.user('bob');
    const client = new Client({ name: 'fw-test-stdio', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: 'npx', args: ['tsx', 'src/cli.ts', 'mcp', '--tenant', tenant(), '--token', bob.token], cwd: ROOT, env: env(), stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => { stderr += d; });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(READ_TOOLS);
      expect(tools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true);
      expect(modelEnum(tools[0])).not.toContain('ir.module');
      const found = await client.callTool({ name: 'search_records', arguments: { model: 'res.organization' } }) as CallToolResult;
      expect(found.isError ?? false, stderr).toBe(false);
      expect(data(found).items.map((r: any) => r.id)).toEqual([bob.org]);
      const unknown = await client.callTool({ name: 'create_record', arguments: {} }) as CallToolResult;
      expect(data(unknown).error.code).toBe('AI_TOOL_UNKNOWN');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('takes the token from FW_MCP_TOKEN', async () => {
    const client = new Client({ name: 'fw-test-stdio', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: 'npx', args: ['tsx', 'src/cli.ts', 'mcp', '-t', tenant()], cwd: ROOT, env: { ...env(), FW_MCP_TOKEN: t.admin }, stderr: 'pipe' });
    try {
      await client.connect(transport);
      expect(data(await client.callTool({ name: 'count_records', arguments: { model: 'ir.module' } }) as CallToolResult).count).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('refuses a bad token, a token of another tenant, a missing token and AI off, with a non-zero exit and nothing on stdout', async () => {
    await t.provisionTenant('mcp-other');
    const otherAdmin = (await t.loginAdmin('mcp-other')).access_token;
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--tenant', tenant(), '--token', 'not-a-token'], {}, /token was refused/],
      [['--tenant', tenant(), '--token', otherAdmin], {}, /another tenant/],
      [['--tenant', tenant()], {}, /access token is required/],
      [['--tenant', 'no-such-tenant', '--token', t.admin], {}, /does not exist/],
      [['--tenant', tenant(), '--token', t.admin], { AI_ENABLED: 'false' }, /AI_ENABLED=true/],
    ];
    const results = await Promise.all(cases.map(([args, extra]) => run(args, extra)));
    results.forEach((r, i) => {
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(cases[i][2]);
      expect(r.stdout).toBe('');
    });
  }, 90_000);
});
