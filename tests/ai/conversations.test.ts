/**
 * A conversation turn end to end: a real server with AI_ENABLED, the scripted OpenAI-compatible
 * provider on 127.0.0.1, tools dispatched as the caller through the command bus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { gql } from '../helpers/api.ts';
import { expectError } from '../helpers/server.ts';
import { startAiServer, TENANT_KEY, type AiServer } from './helpers/ai-server.ts';
import { textStep, toolCallsStep } from './helpers/scripted-llm.ts';

let t: AiServer;
beforeAll(async () => {
  t = await startAiServer({ AI_MAX_TOOL_ITERATIONS: '3' });
});
afterAll(async () => {
  await t?.stop();
});

const lastRequest = () => t.llm.requests.at(-1)!;

describe('a turn', () => {
  it('sends the prompt, the history and the caller\'s tools, dispatches the tool call and stores every message', async () => {
    const alice = await t.user('alice');
    const conv = await t.conversation(alice.token, { title: 'orgs' });
    t.llm.push(
      toolCallsStep([{ name: 'count_records', arguments: JSON.stringify({ model: 'res.organization' }) }], { usage: { prompt_tokens: 120, completion_tokens: 10 } }),
      textStep('You can see 1 organization.', { usage: { prompt_tokens: 150, completion_tokens: 8 } }),
    );
    const res = await t.say(alice.token, conv, 'How many organizations can I see?');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.answer).toBe('You can see 1 organization.');
    expect(res.body.stopped).toBe('answer');
    expect(res.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const tool = res.body.messages[2];
    expect(tool.tool_name).toBe('count_records');
    // the record rule of res.organization lets a user read only their own organization
    expect(JSON.parse(tool.content)).toEqual({ count: 1 });
    expect(res.body.usage).toMatchObject({ input_tokens: 270, output_tokens: 18, calls: 2 });
    const first = t.llm.requests.at(-2)!;
    expect(first.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    expect(first.body.messages[0].role).toBe('system');
    expect(first.body.messages.at(-1)).toEqual({ role: 'user', content: 'How many organizations can I see?' });
    const names = first.body.tools.map((x: any) => x.function.name);
    expect(names).toEqual(expect.arrayContaining(['count_records', 'search_records', 'describe_model']));
    // the tool result went back with the call's id
    expect(lastRequest().body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_0' });
    const stored = await t.request('GET', `/api/ai/conversations/${conv}`, { token: alice.token });
    expect(stored.body.messages).toHaveLength(4);
    expect(stored.body.input_tokens).toBe(270);
  });

  it('an AI read cannot see a record the caller cannot: search_records returns only what REST returns', async () => {
    const bob = await t.user('bob');
    const conv = await t.conversation(bob.token);
    t.llm.push(toolCallsStep([{ name: 'search_records', arguments: JSON.stringify({ model: 'res.organization', fields: ['name'] }) }]), textStep('done'));
    const res = await t.say(bob.token, conv, 'list organizations');
    const result = JSON.parse(res.body.messages[2].content);
    const rest = await t.request('GET', '/api/data/res.organization', { token: bob.token });
    expect(result.items.map((o: any) => o.id)).toEqual(rest.body.items.map((o: any) => o.id));
    expect(result.total).toBe(1);
    expect(result.items[0].id).toBe(bob.org);
    // the admin sees every organization through the same tool
    const adminConv = await t.conversation(t.admin);
    t.llm.push(toolCallsStep([{ name: 'count_records', arguments: JSON.stringify({ model: 'res.organization' }) }]), textStep('done'));
    const all = await t.say(t.admin, adminConv, 'count');
    expect(JSON.parse(all.body.messages[2].content).count).toBeGreaterThan(2);
  });

  it('a tool on a model the caller cannot read is not offered: the model enum is narrowed per caller', async () => {
    const carol = await t.user('carol');
    const mine = await t.request('GET', '/api/ai/tools', { token: carol.token });
    const admins = await t.request('GET', '/api/ai/tools', { token: t.admin });
    const enumOf = (list: any[], name: string) => list.find((x) => x.name === name).input_schema.properties.model.enum as string[];
    expect(enumOf(admins.body, 'search_records')).toContain('ir.event');
    expect(enumOf(mine.body, 'search_records')).not.toContain('ir.event');
    expect(enumOf(mine.body, 'search_records')).not.toContain('ir.connector.param');
    expect(enumOf(mine.body, 'search_records')).toContain('res.organization');
    // the AI layer's own bookkeeping is not offered to generic tools
    expect(enumOf(admins.body, 'search_records').some((m) => m.startsWith('ai.'))).toBe(false);
    // proposers are offered only when allow-listed (AI_WRITE_TOOLS_ALLOWLIST is empty here)
    expect(mine.body.map((x: any) => x.name)).not.toContain('create_record');
    expect(mine.body.every((x: any) => x.read_only && !x.confirmation_required)).toBe(true);
  });

  it('invalid tool-argument JSON is answered back to the model, which can correct itself', async () => {
    const dave = await t.user('dave');
    const conv = await t.conversation(dave.token);
    t.llm.push(
      toolCallsStep([{ name: 'count_records', arguments: '{"model": "res.organization"' }]),
      toolCallsStep([{ name: 'count_records', arguments: '{"model": "res.organization"}' }]),
      textStep('1'),
    );
    const res = await t.say(dave.token, conv, 'count');
    expect(res.status).toBe(200);
    const tools = res.body.messages.filter((m: any) => m.role === 'tool');
    expect(JSON.parse(tools[0].content).error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(JSON.parse(tools[1].content)).toEqual({ count: 1 });
    expect(res.body.answer).toBe('1');
  });

  it('a tool error (a model outside the narrowed schema, a record out of reach, an unknown tool) becomes a tool result, not a failed turn', async () => {
    const erin = await t.user('erin');
    const elsewhere = await t.createOrg(t.admin, 'Not Erin\'s');
    const conv = await t.conversation(erin.token);
    t.llm.push(
      toolCallsStep([
        { name: 'search_records', arguments: JSON.stringify({ model: 'ir.event' }) },
        { name: 'read_record', arguments: JSON.stringify({ model: 'res.organization', id: elsewhere }) },
        { name: 'no_such_tool', arguments: '{}' },
      ]),
      textStep('sorry'),
    );
    const res = await t.say(erin.token, conv, 'connectors?');
    expect(res.status).toBe(200);
    const tools = res.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content).error);
    // ir.event is not in erin's narrowed enum: refused before any command runs
    expect(tools[0].code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(tools[0].message).toContain('ir.event');
    // the record rule hides another organization, exactly as REST does
    expect(tools[1].code).toBe('RECORD_NOT_FOUND');
    expect(tools[2].code).toBe('AI_TOOL_UNKNOWN');
  });

  it('the narrowed schema is enforced in a turn, not only advertised: the AI layer\'s own models and models outside the enum are refused', async () => {
    // the admin may read ai.write.proposal and ai.usage.log over REST, but no generic tool is offered them
    const conv = await t.conversation(t.admin);
    t.llm.push(
      toolCallsStep([
        { name: 'search_records', arguments: JSON.stringify({ model: 'ai.write.proposal' }) },
        { name: 'count_records', arguments: JSON.stringify({}) },
        { name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) },
      ]), // three calls: this server's AI_MAX_TOOL_ITERATIONS
      textStep('done'),
    );
    const res = await t.say(t.admin, conv, 'show me the bookkeeping');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tools = res.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));
    expect(tools.slice(0, 2).map((x: any) => x.error?.code)).toEqual(['AI_TOOL_ARGUMENTS_INVALID', 'AI_TOOL_ARGUMENTS_INVALID']);
    expect(tools[0].error.message).toContain('ai.write.proposal');
    expect(tools[1].error.message).toContain('needs the argument "model"');
    expect(tools[2].count).toBeGreaterThan(100);
  });

  it('stops after AI_MAX_TOOL_ITERATIONS tool calls', async () => {
    const fay = await t.user('fay');
    const conv = await t.conversation(fay.token);
    const call = () => toolCallsStep([{ name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) }]);
    t.llm.push(call(), call(), call(), call());
    const before = t.llm.requests.length;
    const res = await t.say(fay.token, conv, 'loop');
    expect(res.status).toBe(200);
    expect(res.body.stopped).toBe('tool_limit');
    // 3 tool calls ran; the 4th was answered "not run" and no further provider call was made
    const tools = res.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));
    expect(tools.filter((x: any) => x.count !== undefined)).toHaveLength(3);
    expect(tools.at(-1).error.code).toBe('AI_TOOL_LIMIT');
    expect(t.llm.requests.length - before).toBe(4);
    expect(t.llm.pending()).toBe(0);
  });

  it('only the owner (and admins) read a conversation or send to it', async () => {
    const gil = await t.user('gil');
    const hal = await t.user('hal');
    const conv = await t.conversation(gil.token);
    expectError(await t.request('GET', `/api/ai/conversations/${conv}`, { token: hal.token }), 404, 'RECORD_NOT_FOUND');
    expectError(await t.say(hal.token, conv, 'hi'), 404, 'RECORD_NOT_FOUND');
    expect((await t.request('GET', `/api/ai/conversations/${conv}`, { token: t.admin })).status).toBe(200);
    const list = await t.request('GET', '/api/ai/conversations', { token: hal.token });
    expect(list.body.items.map((c: any) => c.id)).not.toContain(conv);
  });

  it('a conversation is renamed and deleted by its owner only; deleting it removes its messages', async () => {
    const pat = await t.user('pat');
    const quin = await t.user('quin');
    const conv = await t.conversation(pat.token, { title: 'first' });
    t.llm.push(textStep('hello'));
    expect((await t.say(pat.token, conv, 'hi')).status).toBe(200);
    expect((await t.request('GET', `/api/ai/conversations/${conv}/messages`, { token: pat.token })).body.items).toHaveLength(2);
    expectError(await t.request('PATCH', `/api/ai/conversations/${conv}`, { token: quin.token, body: { title: 'mine now' } }), 404, 'RECORD_NOT_FOUND');
    const renamed = await t.request('PATCH', `/api/ai/conversations/${conv}`, { token: pat.token, body: { title: 'renamed' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.title).toBe('renamed');
    expectError(await t.request('DELETE', `/api/ai/conversations/${conv}`, { token: quin.token }), 404, 'RECORD_NOT_FOUND');
    const del = await t.request('DELETE', `/api/ai/conversations/${conv}`, { token: pat.token });
    expect(del.status, JSON.stringify(del.body)).toBeLessThan(300);
    expectError(await t.request('GET', `/api/ai/conversations/${conv}`, { token: pat.token }), 404, 'RECORD_NOT_FOUND');
    const db = await t.kernel.tenants.get('default');
    expect(await delegateOf(db, t.kernel.registry.model('ai.message')).count({ where: { conversation_id: conv } })).toBe(0);
  });

  it('refuses a closed conversation, an empty message and a role other than user', async () => {
    const ian = await t.user('ian');
    const conv = await t.conversation(ian.token);
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/messages`, { token: ian.token, body: { role: 'system', content: 'x' } }), 422, 'VALIDATION_FAILED');
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/messages`, { token: ian.token, body: { content: '  ' } }), 400, 'VALIDATION_FAILED');
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/messages`, { token: ian.token, body: {} }), 422, 'VALIDATION_FAILED');
    // the empty message was refused on a conversation without messages: it is gone (cancel.test.ts)
    expectError(await t.request('GET', `/api/ai/conversations/${conv}`, { token: ian.token }), 404);
    const other = await t.conversation(ian.token);
    expect((await t.request('POST', `/api/ai/conversations/${other}/close`, { token: ian.token })).status).toBe(200);
    expectError(await t.say(ian.token, other, 'hi'), 409, 'AI_CONVERSATION_CLOSED');
  });

  it('an unknown skill pack is a 404, and a pack narrows the tools to its subset', async () => {
    const jo = await t.user('jo');
    expectError(await t.request('POST', '/api/ai/conversations', { token: jo.token, body: { skill_pack: 'nope' } }), 404, 'AI_SKILL_PACK_NOT_FOUND');
    const tpl = await t.request('GET', '/api/data/ai.prompt.template?filter=' + encodeURIComponent(JSON.stringify([['key', '=', 'assistant']])), { token: t.admin });
    const pack = await t.request('POST', '/api/data/ai.skill.pack', { token: t.admin, body: { key: 'counter', name: 'Counter', template_id: tpl.body.items[0].id, tools: ['count_records'] } });
    expect(pack.status, JSON.stringify(pack.body)).toBe(201);
    const conv = await t.conversation(jo.token, { skill_pack: 'counter' });
    t.llm.push(textStep('ok'));
    await t.say(jo.token, conv, 'hello');
    expect(lastRequest().body.tools.map((x: any) => x.function.name)).toEqual(['count_records']);
    // a pack naming an unknown tool, or carrying an answer_schema that is no JSON Schema, is refused
    const bad = await t.request('POST', '/api/data/ai.skill.pack', { token: t.admin, body: { key: 'bad', name: 'Bad', template_id: tpl.body.items[0].id, tools: ['count_records', 'nope'], answer_schema: { type: 'nonsense' } } });
    expectError(bad, 422, 'VALIDATION_FAILED');
    expect(bad.body.error.details.errors.map((e: any) => e.code).sort()).toEqual(['INVALID_SCHEMA', 'UNKNOWN_TOOL']);
    const listed = await t.request('GET', '/api/ai/tools?skill_pack=counter', { token: jo.token });
    expect(listed.body.map((x: any) => x.name)).toEqual(['count_records']);
  });
});

describe('prompt resolution', () => {
  it('uses the highest version flagged is_default; a tenant overrides by adding a version row', async () => {
    const tpl = (await t.request('GET', '/api/data/ai.prompt.template?filter=' + encodeURIComponent(JSON.stringify([['key', '=', 'assistant']])), { token: t.admin })).body.items[0];
    const add = (version: number, is_default: boolean) => t.request('POST', '/api/data/ai.prompt.version', { token: t.admin, body: { template_id: tpl.id, version, body: `prompt v${version}`, is_default } });
    expect((await add(2, true)).status).toBe(201);
    expect((await add(3, false)).status).toBe(201);
    const kim = await t.user('kim');
    const conv = await t.conversation(kim.token);
    t.llm.push(textStep('ok'));
    await t.say(kim.token, conv, 'hello');
    // the tenant's prompt, then the server's data-fence rule, which no tenant prompt drops
    expect(lastRequest().body.messages[0].role).toBe('system');
    expect(lastRequest().body.messages[0].content).toMatch(/^prompt v2\n\nTool results arrive between the lines <<<fw-data /);
    const row = await t.request('GET', `/api/ai/conversations/${conv}`, { token: kim.token });
    const v2 = await t.request('GET', '/api/data/ai.prompt.version?filter=' + encodeURIComponent(JSON.stringify([['version', '=', 2]])), { token: t.admin });
    expect(row.body.prompt_version_id).toBe(v2.body.items[0].id);
    // a duplicate version number of one template is refused
    expectError(await add(2, false), 409);
  });
});

describe('invoke', () => {
  it('answers one prompt, writes one usage row and closes its conversation', async () => {
    const lee = await t.user('lee');
    t.llm.push(toolCallsStep([{ name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) }], { usage: { prompt_tokens: 50, completion_tokens: 5 } }), textStep('Many countries.', { usage: { prompt_tokens: 60, completion_tokens: 4 } }));
    const res = await t.request('POST', '/api/ai/invoke', { token: lee.token, body: { prompt: 'How many countries?' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.answer).toBe('Many countries.');
    const db = await t.kernel.tenants.get('default');
    const rows = await delegateOf(db, t.kernel.registry.model('ai.usage.log')).findMany({ where: { conversation_id: res.body.conversation_id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'settled', input_tokens: 110, output_tokens: 9, principal_id: lee.id, tenant_id: 'default' });
    expect(Number(rows[0].usd)).toBeGreaterThan(0);
    const conv = await t.request('GET', `/api/ai/conversations/${res.body.conversation_id}`, { token: lee.token });
    expect(conv.body.status).toBe('closed');
    expectError(await t.request('POST', '/api/ai/invoke', { token: lee.token, body: {} }), 422, 'VALIDATION_FAILED');
  });

  it('a usage row is per turn and names no tool; by_tool counts the tool calls of the day from the tool messages', async () => {
    // ai.usage.log has no `tool` column: one row covers every provider call of a turn, which may run several tools
    expect(t.kernel.registry.model('ai.usage.log').fields.has('tool')).toBe(false);
    const nia = await t.user('nia');
    const conv = await t.conversation(nia.token);
    t.llm.push(
      toolCallsStep([
        { name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) },
        { name: 'describe_model', arguments: JSON.stringify({ model: 'res.country' }) },
      ]),
      toolCallsStep([{ name: 'count_records', arguments: JSON.stringify({ model: 'res.organization' }) }]),
      textStep('done'),
    );
    expect((await t.say(nia.token, conv, 'count things')).status).toBe(200);
    const rows = await t.request('GET', '/api/data/ai.usage.log', { token: nia.token });
    expect(rows.status, JSON.stringify(rows.body)).toBe(200);
    expect(rows.body.items).toHaveLength(1);
    expect(rows.body.items[0]).not.toHaveProperty('tool');
    const day = new Date().toISOString().slice(0, 10);
    const usage = await t.request('GET', `/api/ai/usage?day=${day}`, { token: nia.token });
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    // one turn (one usage row, three provider calls), three tool calls
    expect(usage.body.totals.calls).toBe(1);
    expect(usage.body.by_principal).toMatchObject([{ principal_id: nia.id, turns: 1 }]);
    expect(usage.body.by_tool).toEqual(expect.arrayContaining([{ tool: 'count_records', calls: 2 }, { tool: 'describe_model', calls: 1 }]));
    expect(usage.body.by_tool).toHaveLength(2);
  });

  it('GET /api/ai/usage aggregates a day by principal and by tool; another tenant is refused', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const res = await t.request('GET', `/api/ai/usage?tenant=default&day=${day}`, { token: t.admin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.totals.calls).toBeGreaterThan(0);
    expect(res.body.by_tool.find((x: any) => x.tool === 'count_records').calls).toBeGreaterThan(0);
    expect(res.body.by_principal.length).toBeGreaterThan(1);
    const mine = await t.user('mo');
    const own = await t.request('GET', `/api/ai/usage?day=${day}`, { token: mine.token });
    expect(own.body.by_principal).toEqual([]);
    expectError(await t.request('GET', `/api/ai/usage?tenant=other&day=${day}`, { token: t.admin }), 403, 'ACCESS_DENIED');
    expectError(await t.request('GET', '/api/ai/usage?day=yesterday', { token: t.admin }), 400, 'VALIDATION_FAILED');
    expectError(await t.request('GET', '/api/ai/usage', { token: t.admin }), 400, 'VALIDATION_FAILED');
  });
});

describe('provider keys', () => {
  it('a key is never returned by any API: reads show the mask, the private field is never listed', async () => {
    const list = await t.request('GET', '/api/data/ai.provider.config', { token: t.admin });
    expect(list.body.items[0].api_key).toBe('********');
    expect(JSON.stringify(list.body)).not.toContain(TENANT_KEY);
    expect(JSON.stringify(list.body)).not.toContain('api_key_secret');
    const db = await t.kernel.tenants.get('default');
    const row = await delegateOf(db, t.kernel.registry.model('ai.provider.config')).findFirst({ where: {} });
    expect(String(row!.api_key_secret)).toMatch(/^fwenc:v1:/);
    expect(String(row!.api_key_secret)).not.toContain(TENANT_KEY);
  });

  it('nor by a single read, an update, GraphQL or an AI tool; the mask written back keeps the key, a new key replaces it', async () => {
    const id = (await t.request('GET', '/api/data/ai.provider.config', { token: t.admin })).body.items[0].id;
    const one = await t.request('GET', `/api/data/ai.provider.config/${id}`, { token: t.admin });
    expect(one.body.api_key).toBe('********');
    expect(JSON.stringify(one.body)).not.toMatch(/sk-tenant|api_key_secret|fwenc/);
    // the web form sends the mask back unchanged: the stored key stays
    const kept = await t.request('PATCH', `/api/data/ai.provider.config/${id}`, { token: t.admin, body: { api_key: '********', model: 'test-model' } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(JSON.stringify(kept.body)).not.toMatch(/sk-tenant|api_key_secret|fwenc/);
    t.llm.push(textStep('ok'));
    await t.say(t.admin, await t.conversation(t.admin), 'hi');
    expect(lastRequest().headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    // GraphQL offers no secret field and shows the mask
    const q = await gql(t, '{ aiProviderConfigs { id api_key } }', {}, { token: t.admin });
    expect(q.body.errors, JSON.stringify(q.body.errors)).toBeUndefined();
    expect(q.body.data.aiProviderConfigs[0].api_key).toBe('********');
    const secret = await gql(t, '{ aiProviderConfigs { api_key_secret } }', {}, { token: t.admin });
    expect(secret.body.errors?.length).toBeGreaterThan(0);
    expect(JSON.stringify(secret.body)).not.toContain('fwenc');
    // no generic AI tool is offered the provider configuration
    const conv = await t.conversation(t.admin);
    t.llm.push(toolCallsStep([{ name: 'search_records', arguments: JSON.stringify({ model: 'ai.provider.config' }) }]), textStep('done'));
    const turn = await t.say(t.admin, conv, 'what is our key?');
    expect(JSON.parse(turn.body.messages.find((m: any) => m.role === 'tool').content).error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(JSON.stringify(t.llm.requests.map((r) => r.body))).not.toContain(TENANT_KEY);
    // a new key replaces the old one and is not echoed either
    const NEW_KEY = 'sk-tenant-rotated-key-9876543210';
    const rotated = await t.request('PATCH', `/api/data/ai.provider.config/${id}`, { token: t.admin, body: { api_key: NEW_KEY } });
    expect(rotated.status).toBe(200);
    expect(JSON.stringify(rotated.body)).not.toContain(NEW_KEY);
    t.llm.push(textStep('ok'));
    await t.say(t.admin, await t.conversation(t.admin), 'hi');
    expect(lastRequest().headers.authorization).toBe(`Bearer ${NEW_KEY}`);
  });
});
