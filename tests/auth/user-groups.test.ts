/**
 * Groups through the whole path (issue 25 §1): an app declares crm.agent and crm.manager
 * (implying agent) and names them in its model's access (crm.lead as the CRM example declares
 * it, with these groups instead of the user role), a field's access and a command's roles; an administrator gives users groups on res.user (a list of declared names,
 * 422 otherwise, admins only) and the change applies at the user's next request. A user given
 * base.admin acts as an administrator; an administrator given qa.tester holds the qa role.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crmLead from '../../schema/crm.sales/crm.lead.ts';
import { startServerWithApps, type ApiServer } from '../helpers/api.ts';
import type { RecordRule } from '../../src/kernel/declare.ts';
import { fixtureApp, withChain } from '../helpers/kernel.ts';

const lead = {
  ...crmLead,
  access: {
    ...crmLead.access,
    roles: { admin: 'crud', 'crm.agent': 'cru', 'crm.manager': 'crud' },
    fields: {
      ...crmLead.access?.fields,
      notes: { read: ['crm.manager', 'admin'] },
      probability: { read: ['crm.manager', 'admin'], write: ['crm.manager', 'admin'] },
    },
    rules: [
      ...(crmLead.access?.rules ?? []),
      // agents read and edit the leads they sell; managers, who imply agents, every lead their
      // organization rule lets them reach: the group rules add up, the organization rule binds all
      { roles: ['crm.agent'], ops: ['read', 'update'], domain: [['salesperson', '=', '$principal.user_id']] },
      { roles: ['crm.manager'], ops: ['read', 'update'], domain: [] },
    ] satisfies RecordRule[],
  },
};

let ts: ApiServer;
let admin: string;
let root = '';

async function userWith(email: string, groups?: string[]): Promise<{ id: string; token: string; org: string }> {
  const made = await ts.request('POST', '/api/data/res.user', { token: admin, body: { email, name: email, password: 'groups-pass-1', ...(groups ? { groups } : {}) } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const login = await ts.request('POST', '/api/auth/login', { body: { email, password: 'groups-pass-1' } });
  expect(login.status).toBe(200);
  return { id: made.body.id, token: login.body.access_token, org: made.body.organization };
}

beforeAll(async () => {
  const app = await withChain(fixtureApp('crm.grouped', {
    depends: ['base'],
    models: [lead],
    commands: [
      { name: 'crm.lead.escalate', model: 'crm.lead', op: 'read', record: true, roles: ['crm.manager'], returns: 'json', handler: async (_env, p) => ({ escalated: p.id }) },
      // a command for the qa role, as QA's promote is
      { name: 'crm.lead.audit', model: 'crm.lead', op: 'read', roles: ['qa'], returns: 'json', handler: async () => ({ audited: true }) },
    ],
  }));
  root = app.root;
  const withGroups = { ...app, manifest: { ...app.manifest, groups: [
    { name: 'crm.agent', label: 'Agent', implies: ['base.user'] },
    { name: 'crm.manager', label: 'Manager', implies: ['crm.agent'] },
  ] } };
  ts = await startServerWithApps([withGroups], { ACTIVE_MODULES: 'base,auth,presentation,qa', CRM_ACTIVE_MODULES: '' });
  admin = await ts.adminToken();
}, 120_000);

afterAll(async () => {
  await ts?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('groups in access', () => {
  it('a user without a crm group may not read leads (403); an agent creates and reads but may not delete, escalate or see the manager\'s field', async () => {
    const plain = await userWith('plain@example.com');
    expect((await ts.request('GET', '/api/data/crm.lead', { token: plain.token })).status).toBe(403);

    const agent = await userWith('agent@example.com', ['crm.agent']);
    const made = await ts.request('POST', '/api/data/crm.lead', { token: agent.token, body: { name: 'Printer', notes: 'vip', organization: agent.org, salesperson: agent.id } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const read = await ts.request('GET', `/api/data/crm.lead/${made.body.id}`, { token: agent.token });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('notes');
    expect((await ts.request('DELETE', `/api/data/crm.lead/${made.body.id}`, { token: agent.token })).status).toBe(403);
    expect((await ts.request('POST', `/api/data/crm.lead/${made.body.id}/escalate`, { token: agent.token, body: {} })).status).toBe(403);
  });

  it('a manager (implying agent) reads the manager field, escalates and deletes', async () => {
    const manager = await userWith('manager@example.com', ['crm.manager']);
    const made = await ts.request('POST', '/api/data/crm.lead', { token: manager.token, body: { name: 'Fax', notes: 'urgent', organization: manager.org } });
    expect(made.status).toBe(201);
    expect((await ts.request('GET', `/api/data/crm.lead/${made.body.id}`, { token: manager.token })).body).toMatchObject({ notes: 'urgent' });
    const esc = await ts.request('POST', `/api/data/crm.lead/${made.body.id}/escalate`, { token: manager.token, body: {} });
    expect(esc.status, JSON.stringify(esc.body)).toBe(200);
    expect((await ts.request('DELETE', `/api/data/crm.lead/${made.body.id}`, { token: manager.token })).status).toBe(200);
  });

  it('record rules of the groups a user holds add up (ORed), rules without roles still bind everyone: an agent reaches the leads they sell, a manager every lead of the organization, nobody another organization\'s', async () => {
    const agent = await userWith('seller@example.com', ['crm.agent']);
    const manager = await userWith('boss@example.com', ['crm.manager']);
    const other = await ts.request('POST', '/api/data/res.organization', { token: admin, body: { name: 'Elsewhere' } });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const lead = async (name: string, body: Record<string, unknown>) => {
      const made = await ts.request('POST', '/api/data/crm.lead', { token: admin, body: { name, ...body } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.id as string;
    };
    const mine = await lead('Sold by the agent', { organization: agent.org, salesperson: agent.id });
    const theirs = await lead('Sold by nobody', { organization: agent.org });
    const away = await lead('Elsewhere', { organization: other.body.id });
    const names = async (token: string) => {
      const res = await ts.request('GET', `/api/data/crm.lead?limit=100&filter=${encodeURIComponent(JSON.stringify([['name', 'in', ['Sold by the agent', 'Sold by nobody', 'Elsewhere']]]))}`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.items as Array<{ name: string }>).map((i) => i.name).sort();
    };
    expect(await names(agent.token)).toEqual(['Sold by the agent']);
    expect(await names(manager.token)).toEqual(['Sold by nobody', 'Sold by the agent']);
    // the same rules on the write path (the record loaded for an update, and the one written)
    expect((await ts.request('PATCH', `/api/data/crm.lead/${theirs}`, { token: agent.token, body: { notes: 'x' } })).status).toBe(404);
    expect((await ts.request('PATCH', `/api/data/crm.lead/${theirs}`, { token: manager.token, body: { expected_revenue: 7 } })).status).toBe(200);
    expect((await ts.request('PATCH', `/api/data/crm.lead/${mine}`, { token: agent.token, body: { expected_revenue: 8 } })).status).toBe(200);
    // an agent handing their lead to nobody would leave what they may update: refused, kept
    const away_from_me = await ts.request('PATCH', `/api/data/crm.lead/${mine}`, { token: agent.token, body: { salesperson: null } });
    expect(away_from_me.status).toBe(403);
    expect((await ts.request('GET', `/api/data/crm.lead/${mine}`, { token: agent.token })).body.salesperson).toBe(agent.id);
    expect((await ts.request('GET', `/api/data/crm.lead/${away}`, { token: manager.token })).status).toBe(404);
    // GraphQL reads through the same rules
    const gql = await ts.request('POST', '/graphql', { token: manager.token, body: { query: '{ crmLeads(limit: 100) { name } }' } });
    expect(gql.body.errors).toBeUndefined();
    expect((gql.body.data.crmLeads as Array<{ name: string }>).map((l) => l.name)).not.toContain('Elsewhere');
  });

  it('a field the caller may neither read nor write is refused whatever value is sent: sending its stored value back is no oracle for it', async () => {
    const agent = await userWith('oracle@example.com', ['crm.agent']);
    const made = await ts.request('POST', '/api/data/crm.lead', { token: admin, body: { name: 'Guarded', organization: agent.org, salesperson: agent.id, probability: 0.7 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const seen = await ts.request('GET', `/api/data/crm.lead/${made.body.id}`, { token: agent.token });
    expect(seen.body).not.toHaveProperty('probability');
    const answers = [];
    for (const probability of [0.7, 0.1]) {
      const res = await ts.request('PATCH', `/api/data/crm.lead/${made.body.id}`, { token: agent.token, body: { name: 'Guarded 2', probability } });
      answers.push([res.status, res.body.error?.details?.errors?.map((e: { field: string; code: string }) => `${e.field}:${e.code}`)]);
    }
    expect(answers).toEqual([[422, ['probability:FIELD_ACCESS_DENIED']], [422, ['probability:FIELD_ACCESS_DENIED']]]);
    // the fields the agent reads, sent back unchanged, are no change
    const back = await ts.request('PUT', `/api/data/crm.lead/${made.body.id}`, { token: agent.token, body: { ...seen.body, name: 'Guarded 3' } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
  });

  it("groups given by an administrator apply at the user's next request, without a new login", async () => {
    const later = await userWith('later@example.com');
    expect((await ts.request('GET', '/api/data/crm.lead', { token: later.token })).status).toBe(403);
    const give = await ts.request('PATCH', `/api/data/res.user/${later.id}`, { token: admin, body: { groups: ['crm.agent'] } });
    expect(give.status, JSON.stringify(give.body)).toBe(200);
    expect(give.body.groups).toEqual(['crm.agent']);
    expect((await ts.request('GET', '/api/data/crm.lead', { token: later.token })).status).toBe(200);
    const take = await ts.request('PATCH', `/api/data/res.user/${later.id}`, { token: admin, body: { groups: [] } });
    expect(take.status, JSON.stringify(take.body)).toBe(200);
    expect((await ts.request('GET', '/api/data/crm.lead', { token: later.token })).status).toBe(403);
  });
});

describe('res.user.groups', () => {
  it('holds declared group names only: an unknown one is 422 UNKNOWN_GROUP with the closest name, a non-list or a repeat 422 INVALID_GROUPS; nothing is stored', async () => {
    const u = await userWith('typo@example.com');
    const typo = await ts.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { groups: ['crm.agnet'] } });
    expect(typo.status).toBe(422);
    expect(typo.body.error.code).toBe('UNKNOWN_GROUP');
    expect(typo.body.error.message).toMatch(/crm\.agent/);
    for (const groups of ['crm.agent', [1], ['crm.agent', 'crm.agent']]) {
      const bad = await ts.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { groups } });
      expect(bad.status, JSON.stringify(groups)).toBe(422);
      expect(bad.body.error.code).toBe('INVALID_GROUPS');
    }
    const created = await ts.request('POST', '/api/data/res.user', { token: admin, body: { email: 'nope@example.com', name: 'Nope', password: 'groups-pass-1', groups: ['nope.group'] } });
    expect(created.status).toBe(422);
    expect((await ts.request('GET', `/api/data/res.user/${u.id}`, { token: admin })).body.groups ?? null).toBeNull();
  });

  it('only an administrator gives groups: a user giving themself a group is refused (403) and keeps none', async () => {
    const u = await userWith('climber@example.com');
    const self = await ts.request('PATCH', `/api/data/res.user/${u.id}`, { token: u.token, body: { groups: ['crm.manager'] } });
    expect(self.status).toBe(403);
    expect((await ts.request('GET', '/api/data/crm.lead', { token: u.token })).status).toBe(403);
  });

  it('a user given base.admin acts as an administrator (reads every user); an administrator given qa.tester may run qa-only commands', async () => {
    const deputy = await userWith('deputy@example.com', ['base.admin']);
    const users = await ts.request('GET', '/api/data/res.user?limit=100', { token: deputy.token });
    expect(users.status).toBe(200);
    expect(users.body.items.map((x: { email: string }) => x.email)).toEqual(expect.arrayContaining(['plain@example.com', 'admin@example.com']));

    // a qa-role command: the plain admin may not run it, with qa.tester it may
    const start = (token: string) => ts.request('POST', '/api/command/crm.lead.audit', { token, body: {} });
    const before = await start(admin);
    expect(before.status, JSON.stringify(before.body)).toBe(403);
    const adminId = (await ts.request('GET', '/api/auth/me', { token: admin })).body.id;
    expect((await ts.request('PATCH', `/api/data/res.user/${adminId}`, { token: admin, body: { groups: ['qa.tester'] } })).status).toBe(200);
    const after = await start(admin);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body).toEqual({ audited: true });
    // the client decides what to show from the same names (the recorder's Promote button needs qa)
    const boot = await ts.request('GET', '/api/presentation/bootstrap', { token: admin });
    expect(boot.body.user.holds).toEqual(expect.arrayContaining(['admin', 'base.admin', 'qa', 'qa.tester']));
  });
});
