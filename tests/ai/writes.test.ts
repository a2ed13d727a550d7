/**
 * AI writes: a proposer tool never mutates; the write runs once, when the person confirms with
 * the token, with provenance; undo applies the inverse if nothing changed since. Both engines
 * for the single-use race.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { expectError, type Provider } from '../helpers/server.ts';
import { startAiServer, unfenced, type AiServer } from './helpers/ai-server.ts';
import { textStep, toolCallsStep } from './helpers/scripted-llm.ts';

const ALLOW = { AI_WRITE_TOOLS_ALLOWLIST: 'create_record,update_record' };

async function propose(t: AiServer, token: string, conv: string, tool: string, args: Record<string, unknown>) {
  t.llm.push(toolCallsStep([{ name: tool, arguments: JSON.stringify(args) }]), textStep('Proposed; please confirm.'));
  const res = await t.say(token, conv, 'please do it');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const countCountries = async (t: AiServer, code: string) => {
  const db = await t.kernel.tenants.get('default');
  return delegateOf(db, t.kernel.registry.model('res.country')).count({ where: { code } });
};

for (const provider of ['sqlite', 'postgresql'] as Provider[]) {
  describe(`confirmations (${provider})`, () => {
    let t: AiServer;
    beforeAll(async () => {
      t = await startAiServer({ ...ALLOW, AI_WRITE_DAILY_CAP_PER_TOOL: '0' }, { provider });
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('a proposer stores a proposal and writes nothing; the model never sees the token', async () => {
      const conv = await t.conversation(t.admin);
      const body = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Atlantis', code: 'XA' } });
      expect(body.pending_confirmations).toHaveLength(1);
      const p = body.pending_confirmations[0];
      expect(p.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // expires_at = now + AI_WRITE_CONFIRM_TOKEN_TTL_SECONDS (300 by default)
      const ttl = (Date.parse(p.expires_at) - Date.now()) / 1000;
      expect(ttl).toBeGreaterThan(280);
      expect(ttl).toBeLessThanOrEqual(300);
      expect(await countCountries(t, 'XA')).toBe(0);
      const toModel = t.llm.requests.at(-1)!.body.messages.at(-1);
      expect(toModel.role).toBe('tool');
      expect(toModel.content).not.toContain(p.token);
      expect(JSON.parse(unfenced(toModel.content)).status).toBe('confirmation_required');
      // only the hash is stored
      const db = await t.kernel.tenants.get('default');
      const row = await delegateOf(db, t.kernel.registry.model('ai.write.proposal')).findUnique({ where: { record_uuid: p.proposal_id } });
      expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(p.token);
    });

    it('20 concurrent confirms of one token: exactly one mutation, the rest AI_CONFIRMATION_USED', async () => {
      const conv = await t.conversation(t.admin);
      const { pending_confirmations: [p] } = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Lemuria', code: 'XL' } });
      const results = await Promise.all(Array.from({ length: 20 }, () =>
        t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: p.token, approval_case_id: 'CASE-7' } })));
      const ok = results.filter((r) => r.status === 200);
      expect(ok, JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'AI_CONFIRMATION_USED');
      expect(await countCountries(t, 'XL')).toBe(1);
      const prov = await t.request('GET', `/api/data/ai.write.provenance?filter=${encodeURIComponent(JSON.stringify([['proposal_id', '=', p.proposal_id]]))}`, { token: t.admin });
      expect(prov.body.items).toHaveLength(1);
      const conversation = await t.request('GET', `/api/ai/conversations/${conv}`, { token: t.admin });
      expect(prov.body.items[0]).toMatchObject({
        conversation_id: conv, tool: 'create_record', command: 'ai.create_record', approval_case_id: 'CASE-7',
        operation: 'create', target_model: 'res.country', prompt_version_id: conversation.body.prompt_version_id, before: null,
      });
      expect(prov.body.items[0].after.code).toBe('XL');
    });

    it('10 concurrent undos of one write: exactly one applies, the rest AI_UNDO_CONFLICT', async () => {
      const conv = await t.conversation(t.admin);
      const { pending_confirmations: [p] } = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Thule', code: 'XY' } });
      const done = await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: p.token } });
      expect(done.status).toBe(200);
      const results = await Promise.all(Array.from({ length: 10 }, () =>
        t.request('POST', `/api/ai/conversations/${conv}/undo`, { token: t.admin, body: { provenance_id: done.body.provenance_id } })));
      expect(results.filter((r) => r.status === 200), JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'AI_UNDO_CONFLICT');
      expect(await countCountries(t, 'XY')).toBe(0);
    });
  });
}

describe('confirm and undo rules', () => {
  let t: AiServer;
  beforeAll(async () => {
    t = await startAiServer({ ...ALLOW, AI_WRITE_DAILY_CAP_RECORDS_PER_USER: '3' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a reused, unknown or foreign token is refused and writes nothing', async () => {
    const conv = await t.conversation(t.admin);
    const { pending_confirmations: [p] } = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Mu', code: 'XM' } });
    const other = await t.user('other', 'admin');
    const otherConv = await t.conversation(other.token);
    expectError(await t.request('POST', `/api/ai/conversations/${otherConv}/confirm`, { token: other.token, body: { token: p.token } }), 404, 'AI_CONFIRMATION_INVALID');
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: 'x'.repeat(43) } }), 404, 'AI_CONFIRMATION_INVALID');
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: {} }), 422, 'VALIDATION_FAILED');
    expect(await countCountries(t, 'XM')).toBe(0);
    expect((await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: p.token } })).status).toBe(200);
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: p.token } }), 409, 'AI_CONFIRMATION_USED');
    expect(await countCountries(t, 'XM')).toBe(1);
  });

  it('a write the caller may not make is refused before any proposal is stored (the confirm-time re-check: confirm-rechecks.test.ts)', async () => {
    const u = await t.user('plain');
    const conv = await t.conversation(u.token);
    // res.organization is admin-only for writes, so it is not in this user's narrowed enum of
    // update_record: the call is refused before anything runs
    t.llm.push(toolCallsStep([{ name: 'update_record', arguments: JSON.stringify({ model: 'res.organization', id: u.org, values: { name: 'Renamed' } }) }]), textStep('x'));
    const res = await t.say(u.token, conv, 'rename my org');
    const tool = JSON.parse(res.body.messages.find((m: any) => m.role === 'tool').content);
    expect(tool.error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(res.body.pending_confirmations).toEqual([]);
    const db = await t.kernel.tenants.get('default');
    expect(await delegateOf(db, t.kernel.registry.model('ai.write.proposal')).count({ where: { user_id: u.id } })).toBe(0);
  });

  it('a proposal about a record the caller cannot read, or linking to one, is refused at once as for a missing record, and nothing is stored', async () => {
    const u = await t.user('prober');
    const other = await t.user('victim');
    const foreign = await t.request('POST', '/api/data/crm.lead', { token: t.admin, body: { name: 'Not yours', organization: other.org } });
    expect(foreign.status).toBe(201);
    const conv = await t.conversation(u.token);
    const toolError = async (tool: string, args: Record<string, unknown>) => {
      t.llm.push(toolCallsStep([{ name: tool, arguments: JSON.stringify(args) }]), textStep('x'));
      const res = await t.say(u.token, conv, 'do it');
      expect(res.body.pending_confirmations).toEqual([]);
      return JSON.parse(unfenced(res.body.messages.filter((m: any) => m.role === 'tool').at(-1).content)).error;
    };
    expect((await toolError('update_record', { model: 'crm.lead', id: foreign.body.id, values: { name: 'Mine' } })).code).toBe('RECORD_NOT_FOUND');
    const linked = await toolError('create_record', { model: 'crm.lead', values: { name: 'Linked', organization: u.org, salesperson: other.id } });
    const missing = await toolError('create_record', { model: 'crm.lead', values: { name: 'Linked', organization: u.org, salesperson: '00000000-0000-4000-8000-000000000000' } });
    expect(linked.code).toBe('INVALID_REFERENCE');
    expect(missing.code).toBe('INVALID_REFERENCE');
    expect(linked.message.replace(other.id, 'ID')).toBe(missing.message.replace('00000000-0000-4000-8000-000000000000', 'ID'));
    const db = await t.kernel.tenants.get('default');
    expect(await delegateOf(db, t.kernel.registry.model('ai.write.proposal')).count({ where: { user_id: u.id } })).toBe(0);
  });

  it('undo of a create deletes the record; undo after the record changed is a conflict', async () => {
    const conv = await t.conversation(t.admin);
    const { pending_confirmations: [p] } = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Hyperborea', code: 'XH' } });
    const done = await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: p.token } });
    expect(done.status).toBe(200);
    const undo = await t.request('POST', `/api/ai/conversations/${conv}/undo`, { token: t.admin, body: { provenance_id: done.body.provenance_id } });
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    expect(await countCountries(t, 'XH')).toBe(0);
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/undo`, { token: t.admin, body: { provenance_id: done.body.provenance_id } }), 409, 'AI_UNDO_CONFLICT');

    const { pending_confirmations: [q] } = await propose(t, t.admin, conv, 'update_record', { model: 'res.organization', id: (await t.user('target')).org, values: { name: 'AI name' } });
    const upd = await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: q.token } });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    expect(upd.body.record.name).toBe('AI name');
    // a person edits the record afterwards: the undo must not overwrite their change
    const id = upd.body.record.id;
    expect((await t.request('PATCH', `/api/data/res.organization/${id}`, { token: t.admin, body: { name: 'Human name' } })).status).toBe(200);
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/undo`, { token: t.admin, body: { provenance_id: upd.body.provenance_id } }), 409, 'AI_UNDO_CONFLICT');
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/undo`, { token: t.admin, body: { provenance_id: '00000000-0000-4000-8000-000000000000' } }), 404, 'AI_WRITE_NOT_FOUND');
  });

  it('undo of an update restores the previous values', async () => {
    // another admin: the admin above used its 3 writes of the day (AI_WRITE_DAILY_CAP_RECORDS_PER_USER)
    const me = (await t.user('restorer', 'admin')).token;
    const conv = await t.conversation(me);
    const org = (await t.user('restore')).org;
    const before = (await t.request('GET', `/api/data/res.organization/${org}`, { token: t.admin })).body;
    const { pending_confirmations: [p] } = await propose(t, me, conv, 'update_record', { model: 'res.organization', id: org, values: { name: 'Changed by AI' } });
    const done = await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: me, body: { token: p.token } });
    expect(done.body.provenance_id).toBeTruthy();
    const undo = await t.request('POST', `/api/ai/conversations/${conv}/undo`, { token: me, body: { provenance_id: done.body.provenance_id } });
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    const after = (await t.request('GET', `/api/data/res.organization/${org}`, { token: t.admin })).body;
    expect(after.name).toBe(before.name);
    // the undo is recorded on the provenance row: when and by whom
    const prov = (await t.request('GET', `/api/data/ai.write.provenance/${done.body.provenance_id}`, { token: me })).body;
    expect(prov).toMatchObject({ undone: true, operation: 'update', target_model: 'res.organization', target_id: org });
    expect(prov.undone_by).toBeTruthy();
    expect(prov.undone_at).toBeTruthy();
    expect(prov.before.name).toBe(before.name);
    expect(prov.after.name).toBe('Changed by AI');
    // the change and its undo are on the record's chatter: who confirmed, old → new, the provenance link
    const messages = (await t.request('GET', `/api/data/ir.message?limit=10&order=dbid%20asc&filter=${encodeURIComponent(JSON.stringify([['res_model', '=', 'res.organization'], ['res_id', '=', org]]))}`, { token: me })).body.items as Array<Record<string, string>>;
    const ai = messages.filter((m) => m.link === `/-/action-ai.action_provenance/${done.body.provenance_id}`);
    expect(ai.map((m) => m.subject)).toEqual(['Changed by the AI assistant', 'AI change undone']);
    expect(ai[0].body).toContain(`name: ${before.name} → Changed by AI`);
    expect(ai[0].body).toMatch(new RegExp(`^restorer-\\d+ confirmed update_record \\([a-z_.]+\\) proposed in conversation ${conv}\\.`));
    expect(ai[1].body).toMatch(/undid the change of update_record/);
    expect(ai.every((m) => m.message_type === 'notification')).toBe(true);
  });

  it('the per-user daily cap refuses the next confirm and writes nothing', async () => {
    const capped = await t.user('capped', 'admin');
    const conv = await t.conversation(capped.token);
    for (let i = 0; i < 3; i++) {
      const { pending_confirmations: [p] } = await propose(t, capped.token, conv, 'create_record', { model: 'res.country', values: { name: `Cap ${i}`, code: `Q${i}` } });
      expect((await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: capped.token, body: { token: p.token } })).status).toBe(200);
    }
    const { pending_confirmations: [p] } = await propose(t, capped.token, conv, 'create_record', { model: 'res.country', values: { name: 'Cap 3', code: 'Q3' } });
    expectError(await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: capped.token, body: { token: p.token } }), 429, 'AI_WRITE_CAP_REACHED');
    expect(await countCountries(t, 'Q3')).toBe(0);
  });
});

describe('allow-list, TTL and the per-tool cap', () => {
  it('a proposer not on AI_WRITE_TOOLS_ALLOWLIST is not permitted (empty list = none)', async () => {
    const t = await startAiServer({});
    try {
      const conv = await t.conversation(t.admin);
      const res = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Nope', code: 'XN' } });
      // not offered to the model, and refused if called anyway
      expect(JSON.parse(res.messages.find((m: any) => m.role === 'tool').content).error.code).toBe('AI_TOOL_UNKNOWN');
      const admin = (await t.kernel.dispatch('fw.search', { model: 'res.user', domain: [['email', '=', 'admin@example.com']] }, { kind: 'system', user_id: null, tenant_id: 'default', role: 'system' }) as any).items[0];
      const principal = { kind: 'user' as const, user_id: admin.id, tenant_id: 'default', role: 'admin', organization_id: null };
      await expect(t.kernel.dispatch('ai.tool.create_record', { model: 'res.country', values: { name: 'Nope', code: 'XN' } }, principal)).rejects.toMatchObject({ code: 'AI_WRITE_NOT_ALLOWED', status: 403 });
    } finally {
      await t.stop();
    }
  });

  it('an expired token is refused with AI_CONFIRMATION_EXPIRED and nothing is written', async () => {
    const t = await startAiServer({ ...ALLOW, AI_WRITE_CONFIRM_TOKEN_TTL_SECONDS: '0' });
    try {
      const conv = await t.conversation(t.admin);
      const { pending_confirmations: [p] } = await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Late', code: 'XT' } });
      expectError(await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: p.token } }), 410, 'AI_CONFIRMATION_EXPIRED');
      expect(await countCountries(t, 'XT')).toBe(0);
    } finally {
      await t.stop();
    }
  });

  it('the per-tool daily cap refuses writes of that tool past the cap', async () => {
    const t = await startAiServer({ ...ALLOW, AI_WRITE_DAILY_CAP_PER_TOOL: '1' });
    try {
      const conv = await t.conversation(t.admin);
      const a = (await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'One', code: 'X1' } })).pending_confirmations[0];
      const b = (await propose(t, t.admin, conv, 'create_record', { model: 'res.country', values: { name: 'Two', code: 'X2' } })).pending_confirmations[0];
      expect((await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: a.token } })).status).toBe(200);
      expectError(await t.request('POST', `/api/ai/conversations/${conv}/confirm`, { token: t.admin, body: { token: b.token } }), 429, 'AI_WRITE_CAP_REACHED');
      expect(await countCountries(t, 'X2')).toBe(0);
    } finally {
      await t.stop();
    }
  });
});
