/**
 * The AI layer over GraphQL: typed queries and mutations dispatch the same commands as REST,
 * and `aiConversationEvents` streams a turn (tokens, tool calls, messages, done) over graphql-ws
 * to the conversation's owner only.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, gqlOk, listen, trackSubscribes, wsClient, wsSubscribe } from '../helpers/api.ts';
import { startAiServer, type AiServer } from './helpers/ai-server.ts';
import { textStep, toolCallsStep } from './helpers/scripted-llm.ts';

let t: AiServer;
let base: string;
let subs: ReturnType<typeof trackSubscribes>;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startAiServer({ AI_WRITE_TOOLS_ALLOWLIST: 'create_record' });
  subs = trackSubscribes(t.kernel);
  base = await listen(t);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await t?.stop();
});

const SEND = `mutation($id: ID!, $content: String!) {
  aiConversationSendMessage(id: $id, content: $content) {
    answer stopped usage { input_tokens output_tokens calls }
    messages { role content tool_name }
    pending_confirmations { proposal_id token summary }
  }
}`;

describe('GraphQL', () => {
  it('starts a conversation, runs a typed turn, lists the catalogue and confirms a proposed write', async () => {
    const start = await gqlOk(t, 'mutation { aiConversationStart(title: "gql") { id status user_id } }', {}, { token: t.admin });
    const id = start.aiConversationStart.id;
    expect(start.aiConversationStart.status).toBe('open');
    t.llm.push(toolCallsStep([{ name: 'create_record', arguments: JSON.stringify({ model: 'res.country', values: { name: 'Gqlland', code: 'XG' } }) }], { usage: { prompt_tokens: 10, completion_tokens: 2 } }), textStep('Proposed.', { usage: { prompt_tokens: 12, completion_tokens: 1 } }));
    const turn = (await gqlOk(t, SEND, { id, content: 'add Gqlland' }, { token: t.admin })).aiConversationSendMessage;
    expect(turn).toMatchObject({ answer: 'Proposed.', stopped: 'answer', usage: { input_tokens: 22, output_tokens: 3, calls: 2 } });
    expect(turn.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const [p] = turn.pending_confirmations;
    const done = await gqlOk(t, 'mutation($id: ID!, $token: String!) { aiConversationConfirm(id: $id, token: $token) { status operation provenance_id record } }', { id, token: p.token }, { token: t.admin });
    expect(done.aiConversationConfirm).toMatchObject({ status: 'executed', operation: 'create', record: { code: 'XG' } });
    const again = await gql(t, 'mutation($id: ID!, $token: String!) { aiConversationConfirm(id: $id, token: $token) { status } }', { id, token: p.token }, { token: t.admin });
    expect(again.body.errors?.[0]?.extensions?.code).toBe('AI_CONFIRMATION_USED');
    const cat = await gqlOk(t, '{ aiCatalogue { tools { name kind read_only confirmation_required } } }', {}, { token: t.admin });
    expect(cat.aiCatalogue.tools.find((x: any) => x.name === 'create_record')).toEqual({ name: 'create_record', kind: 'proposer', read_only: false, confirmation_required: true });
    const msgs = await gqlOk(t, `{ aiMessages(where: { conversation_id: { eq: "${id}" } }, orderBy: [{ sequence: asc }]) { role } }`, {}, { token: t.admin });
    expect(msgs.aiMessages).toHaveLength(4);
  });

  it('undo, invoke, usage, close and delete are GraphQL fields too, with the REST errors', async () => {
    const start = await gqlOk(t, 'mutation { aiConversationStart(title: "undo") { id } }', {}, { token: t.admin });
    const id = start.aiConversationStart.id;
    t.llm.push(toolCallsStep([{ name: 'create_record', arguments: JSON.stringify({ model: 'res.country', values: { name: 'Undoland', code: 'XU' } }) }]), textStep('Proposed.'));
    const [p] = (await gqlOk(t, SEND, { id, content: 'add Undoland' }, { token: t.admin })).aiConversationSendMessage.pending_confirmations;
    const done = await gqlOk(t, 'mutation($id: ID!, $token: String!, $c: String) { aiConversationConfirm(id: $id, token: $token, approval_case_id: $c) { provenance_id } }', { id, token: p.token, c: 'CASE-GQL' }, { token: t.admin });
    const UNDO = 'mutation($id: ID!, $p: ID!) { aiConversationUndo(id: $id, provenance_id: $p) { status operation provenance_id } }';
    const undone = await gqlOk(t, UNDO, { id, p: done.aiConversationConfirm.provenance_id }, { token: t.admin });
    expect(undone.aiConversationUndo).toMatchObject({ status: 'undone', operation: 'create' });
    expect((await t.request('GET', `/api/data/res.country?filter=${encodeURIComponent(JSON.stringify([['code', '=', 'XU']]))}`, { token: t.admin })).body.items).toHaveLength(0);
    const again = await gql(t, UNDO, { id, p: done.aiConversationConfirm.provenance_id }, { token: t.admin });
    expect(again.body.errors?.[0]?.extensions?.code).toBe('AI_UNDO_CONFLICT');

    t.llm.push(textStep('Forty-two.', { usage: { prompt_tokens: 7, completion_tokens: 2 } }));
    const inv = await gqlOk(t, 'mutation($p: String!) { aiInvoke(prompt: $p) { conversation_id answer usage { input_tokens output_tokens calls } } }', { p: 'the answer?' }, { token: t.admin });
    expect(inv.aiInvoke).toMatchObject({ answer: 'Forty-two.', usage: { input_tokens: 7, output_tokens: 2, calls: 1 } });
    const day = new Date().toISOString().slice(0, 10);
    const usage = await gqlOk(t, 'query($d: String!) { aiUsage(day: $d) { tenant day totals { calls input_tokens } by_tool { tool calls } } }', { d: day }, { token: t.admin });
    expect(usage.aiUsage).toMatchObject({ tenant: 'default', day });
    expect(usage.aiUsage.totals.calls).toBeGreaterThan(0);
    expect(usage.aiUsage.by_tool.find((x: any) => x.tool === 'create_record').calls).toBeGreaterThan(0);
    const bad = await gql(t, 'query { aiUsage(day: "yesterday") { day } }', {}, { token: t.admin });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');

    const closed = await gqlOk(t, 'mutation($id: ID!) { aiConversationClose(id: $id) { id status } }', { id }, { token: t.admin });
    expect(closed.aiConversationClose.status).toBe('closed');
    const refused = await gql(t, SEND, { id, content: 'more' }, { token: t.admin });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('AI_CONVERSATION_CLOSED');
    await gqlOk(t, 'mutation($id: ID!) { aiConversationDelete(id: $id) { id } }', { id }, { token: t.admin });
    expect((await t.request('GET', `/api/ai/conversations/${id}`, { token: t.admin })).status).toBe(404);
  });

  it('aiConversationEvents streams the turn to its owner over graphql-ws: tokens, tool calls, messages, done', async () => {
    const u = await t.user('streamer');
    const id = await t.conversation(u.token);
    const c = wsClient(base, u.token);
    clients.push(c);
    const ready = subs.next(`ai.conversation:${id}`);
    const s = wsSubscribe(c, `subscription($id: ID!) { aiConversationEvents(id: $id) {
      __typename type conversation_id
      ... on AiTokenEvent { delta }
      ... on AiToolCallEvent { tool call_id arguments }
      ... on AiToolResultEvent { tool call_id ok code }
      ... on AiMessageEvent { message { id role content } }
      ... on AiDoneEvent { stopped usage { calls input_tokens output_tokens usd } pending_confirmations { proposal_id } }
    } }`, { id });
    await ready;
    t.llm.push(toolCallsStep([{ name: 'count_records', arguments: JSON.stringify({ model: 'res.country' }) }]), textStep('There are many countries.', { pieces: 4 }));
    expect((await t.say(u.token, id, 'how many countries?')).status).toBe(200);
    const done = await s.inbox.waitFor((m) => m.data?.aiConversationEvents.type === 'done', 'the done event');
    const events = s.inbox.items.map((m) => m.data!.aiConversationEvents);
    const types = events.map((e: any) => e.type);
    expect(types.indexOf('tool_call')).toBeLessThan(types.indexOf('tool_result'));
    expect(events.filter((e: any) => e.type === 'token').map((e: any) => e.delta).join('')).toBe('There are many countries.');
    expect(events.filter((e: any) => e.type === 'message').map((e: any) => e.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(done.data!.aiConversationEvents.usage.calls).toBe(2);
    // typed: each event is its member type, and every one names the conversation
    expect(new Set(events.map((e: any) => `${e.type}:${e.__typename}`))).toEqual(new Set(['token:AiTokenEvent', 'tool_call:AiToolCallEvent', 'tool_result:AiToolResultEvent', 'message:AiMessageEvent', 'done:AiDoneEvent']));
    expect(events.every((e: any) => e.conversation_id === id)).toBe(true);
    expect(events.find((e: any) => e.type === 'tool_call')).toMatchObject({ tool: 'count_records', call_id: expect.any(String), arguments: JSON.stringify({ model: 'res.country' }) });
    expect(events.find((e: any) => e.type === 'tool_result')).toMatchObject({ tool: 'count_records', ok: true, code: null });
    expect(done.data!.aiConversationEvents).toMatchObject({ stopped: 'answer', pending_confirmations: [] });
    s.stop();
  });

  it('another user cannot subscribe to a conversation that is not theirs', async () => {
    const owner = await t.user('owner');
    const other = await t.user('snoop');
    const id = await t.conversation(owner.token);
    const c = wsClient(base, other.token);
    clients.push(c);
    const s = wsSubscribe(c, `subscription($id: ID!) { aiConversationEvents(id: $id) { type } }`, { id });
    const err = await s.inbox.ended();
    expect(JSON.stringify(err ?? s.inbox.items)).toContain('RECORD_NOT_FOUND');
  });
});
