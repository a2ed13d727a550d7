/**
 * Record rules: crm.lead carries `organization = $principal.organization_id` for every role but
 * admin, ANDed into every search, read_one, count, read_group, update and delete, and binding
 * what a create or update writes (no planting or moving a lead into another organization). Two
 * organizations with one user each: each user only ever reaches their own organization's leads;
 * a lead of the other organization answers 404 (its existence is not revealed); admins see all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
const org = { a: '', b: '' };
const token = { a: '', b: '' };
const lead = { a1: '', a2: '', b1: '' };

beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
  org.a = await t.createOrg(admin, 'Org A');
  org.b = await t.createOrg(admin, 'Org B');
  await t.createUser(admin, { email: 'alice@a.example.com', password: 'alice-pass-1', organization: org.a });
  await t.createUser(admin, { email: 'bob@b.example.com', password: 'bobby-pass-1', organization: org.b });
  token.a = (await t.login('alice@a.example.com', 'alice-pass-1')).access_token;
  token.b = (await t.login('bob@b.example.com', 'bobby-pass-1')).access_token;
  const mk = async (name: string, organization: string, stage: string, expected_revenue: number) => {
    const res = await t.request('POST', '/api/data/crm.lead', { token: admin, body: { name, organization, stage, expected_revenue } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  lead.a1 = await mk('A one', org.a, 'new', 100);
  lead.a2 = await mk('A two', org.a, 'won', 200);
  lead.b1 = await mk('B one', org.b, 'new', 5000);
});
afterAll(async () => {
  await t?.close();
});

const get = (tok: string, url: string) => t.request('GET', url, { token: tok });
const names = (items: Array<{ name: string }>) => items.map((i) => i.name).sort();
const q = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;

/**
 * No shipped non-admin role may delete leads, so to reach the record rule behind RBAC on delete
 * the `user` role is granted `d` on crm.lead in this process for the duration of `fn`.
 */
async function withUserDelete<T>(fn: () => Promise<T>): Promise<T> {
  const access = t.kernel.registry.model('crm.lead').access as { roles: Record<string, string> };
  const saved = access.roles;
  access.roles = { ...saved, user: 'crud' };
  try {
    return await fn();
  } finally {
    access.roles = saved;
  }
}

describe('search', () => {
  it('each user sees only their organization\'s leads on GET /api/data/crm.lead', async () => {
    const a = await get(token.a, '/api/data/crm.lead');
    expect(names(a.body.items)).toEqual(['A one', 'A two']);
    expect(a.body.total).toBe(2);
    const b = await get(token.b, '/api/data/crm.lead');
    expect(names(b.body.items)).toEqual(['B one']);
    expect(b.body.total).toBe(1);
  });

  it('asking for the other organization explicitly finds nothing, also through an OR', async () => {
    expect((await get(token.a, `/api/data/crm.lead?${q([['organization', '=', org.b]])}`)).body.items).toEqual([]);
    const or = await get(token.a, `/api/data/crm.lead?${q(['|', ['organization', '=', org.b], ['name', '=', 'B one']])}`);
    expect(or.status).toBe(200);
    expect(or.body.items).toEqual([]);
    expect((await get(token.a, `/api/data/crm.lead?${q([['record_uuid', '=', lead.b1]])}`)).body.items).toEqual([]);
  });

  it('an admin sees the leads of every organization', async () => {
    const all = await get(admin, '/api/data/crm.lead');
    expect(names(all.body.items)).toEqual(['A one', 'A two', 'B one']);
  });
});

describe('read_one', () => {
  it('a lead of the user\'s organization is readable', async () => {
    const res = await get(token.a, `/api/data/crm.lead/${lead.a1}`);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('A one');
  });

  it('a lead of the other organization answers 404 RECORD_NOT_FOUND (as if it did not exist)', async () => {
    const other = await get(token.a, `/api/data/crm.lead/${lead.b1}`);
    expectError(other, 404, 'RECORD_NOT_FOUND');
    const missing = await get(token.a, '/api/data/crm.lead/00000000-0000-4000-8000-000000000000');
    expectError(missing, 404, 'RECORD_NOT_FOUND');
    expectError(await get(token.b, `/api/data/crm.lead/${lead.a2}`), 404, 'RECORD_NOT_FOUND');
  });

  it('an admin reads a lead of any organization', async () => {
    expect((await get(admin, `/api/data/crm.lead/${lead.b1}`)).status).toBe(200);
  });
});

describe('count', () => {
  it('/api/data/crm.lead/count counts only the user\'s organization', async () => {
    expect((await get(token.a, '/api/data/crm.lead/count')).body).toEqual({ count: 2 });
    expect((await get(token.b, '/api/data/crm.lead/count')).body).toEqual({ count: 1 });
    expect((await get(token.a, `/api/data/crm.lead/count?${q([['organization', '=', org.b]])}`)).body).toEqual({ count: 0 });
    expect((await get(admin, '/api/data/crm.lead/count')).body).toEqual({ count: 3 });
  });
});

describe('read_group', () => {
  const group = (tok: string, body: object) => t.request('POST', '/api/data/crm.lead/read_group', { token: tok, body });

  it('groups and aggregates only the user\'s organization', async () => {
    const a = await group(token.a, { groupby: ['stage'], aggregates: { expected_revenue: 'sum' } });
    expect(a.status).toBe(200);
    expect(a.body.groups).toEqual([
      { stage: 'new', count: 1, expected_revenue_sum: 100 },
      { stage: 'won', count: 1, expected_revenue_sum: 200 },
    ]);
    const b = await group(token.b, { groupby: ['stage'], aggregates: { expected_revenue: 'sum' } });
    expect(b.body.groups).toEqual([{ stage: 'new', count: 1, expected_revenue_sum: 5000 }]);
  });

  it('grouping by organization shows only the user\'s own group; an admin sees both', async () => {
    const a = await group(token.a, { groupby: ['organization'] });
    expect(a.body.groups).toEqual([{ organization: org.a, count: 2 }]);
    const all = await group(admin, { groupby: ['organization'] });
    expect(all.body.groups).toHaveLength(2);
    expect(all.body.groups.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(3);
  });

  it('a filter on the other organization yields no groups', async () => {
    const a = await group(token.a, { groupby: ['stage'], filter: [['organization', '=', org.b]] });
    expect(a.body.groups).toEqual([]);
  });
});

describe('update', () => {
  it('a user updates a lead of their organization', async () => {
    const res = await t.request('PATCH', `/api/data/crm.lead/${lead.a1}`, { token: token.a, body: { notes: 'called' } });
    expect(res.status).toBe(200);
    expect(res.body.notes).toBe('called');
  });

  it('updating a lead of the other organization answers 404 and changes nothing', async () => {
    const res = await t.request('PATCH', `/api/data/crm.lead/${lead.b1}`, { token: token.a, body: { name: 'hijacked' } });
    expectError(res, 404, 'RECORD_NOT_FOUND');
    const put = await t.request('PUT', `/api/data/crm.lead/${lead.b1}`, { token: token.a, body: { name: 'hijacked' } });
    expectError(put, 404, 'RECORD_NOT_FOUND');
    expect((await get(admin, `/api/data/crm.lead/${lead.b1}`)).body.name).toBe('B one');
  });

  it('record commands follow the rule too: marking the other organization\'s lead won answers 404', async () => {
    expectError(await t.request('POST', `/api/data/crm.lead/${lead.b1}/mark_won`, { token: token.a, body: {} }), 404, 'RECORD_NOT_FOUND');
    expect((await get(admin, `/api/data/crm.lead/${lead.b1}`)).body.stage).toBe('new');
  });

  it('a user replaces (PUT) a lead of their organization without naming it: the lead stays in its organization', async () => {
    const res = await t.request('PUT', `/api/data/crm.lead/${lead.a1}`, { token: token.a, body: { name: 'A one', notes: 'replaced' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'A one', notes: 'replaced', organization: org.a });
    expect((await get(token.a, `/api/data/crm.lead/${lead.a1}`)).body.organization).toBe(org.a);
  });

  it('an admin updates a lead of any organization', async () => {
    const res = await t.request('PATCH', `/api/data/crm.lead/${lead.b1}`, { token: admin, body: { notes: 'admin was here' } });
    expect(res.status).toBe(200);
  });
});

describe('writes stay inside the rule', () => {
  it('a user cannot create a lead in the other organization (422 INVALID_REFERENCE: she cannot read it) nor outside every organization (403 ACCESS_DENIED; left out, it is hers), and nothing is written', async () => {
    const res = await t.request('POST', '/api/data/crm.lead', { token: token.a, body: { name: 'planted', organization: org.b } });
    expectError(res, 422, 'INVALID_REFERENCE');
    expectError(await t.request('POST', '/api/data/crm.lead', { token: token.a, body: { name: 'planted', organization: null } }), 403, 'ACCESS_DENIED');
    expect((await get(admin, `/api/data/crm.lead/count?${q([['name', '=', 'planted']])}`)).body.count).toBe(0);
  });

  it('a user cannot move a lead of their organization into the other one (422 INVALID_REFERENCE) nor out of it (403 ACCESS_DENIED), and the lead stays', async () => {
    const res = await t.request('PATCH', `/api/data/crm.lead/${lead.a1}`, { token: token.a, body: { organization: org.b } });
    expectError(res, 422, 'INVALID_REFERENCE');
    expectError(await t.request('PATCH', `/api/data/crm.lead/${lead.a1}`, { token: token.a, body: { organization: null } }), 403, 'ACCESS_DENIED');
    expect((await get(token.a, `/api/data/crm.lead/${lead.a1}`)).body.organization).toBe(org.a);
  });
});

describe('filters through relations', () => {
  it('a relation path only looks at related records the caller may read (no probing users of the other organization)', async () => {
    const bob = (await get(admin, `/api/data/res.user?${q([['email', '=', 'bob@b.example.com']])}`)).body.items[0];
    const res = await t.request('POST', '/api/data/crm.lead', { token: admin, body: { name: 'A shared', organization: org.a, salesperson: bob.id } });
    expect(res.status).toBe(201);
    try {
      const probe = q([['salesperson.email', '=', 'bob@b.example.com']]);
      expect((await get(admin, `/api/data/crm.lead?${probe}`)).body.items.map((l: { name: string }) => l.name)).toEqual(['A shared']);
      // alice sees the lead itself, but not through a condition on a user she may not read
      expect((await get(token.a, `/api/data/crm.lead/${res.body.id}`)).status).toBe(200);
      expect((await get(token.a, `/api/data/crm.lead?${probe}`)).body.items).toEqual([]);
      expect((await get(token.a, `/api/data/crm.lead/count?${probe}`)).body.count).toBe(0);
    } finally {
      await t.request('DELETE', `/api/data/crm.lead/${res.body.id}`, { token: admin });
    }
  });

  it('private fields cannot be reached through a relation path either (400 INVALID_DOMAIN)', async () => {
    const res = await get(admin, `/api/data/crm.lead?${q([['salesperson.password_hash', 'like', '$2%']])}`);
    expectError(res, 400, 'INVALID_DOMAIN');
  });
});

describe('delete', () => {
  it('with delete access, deleting a lead of the other organization answers 404 and the lead survives', async () => {
    await withUserDelete(async () => {
      expectError(await t.request('DELETE', `/api/data/crm.lead/${lead.b1}`, { token: token.a }), 404, 'RECORD_NOT_FOUND');
    });
    expect((await get(admin, `/api/data/crm.lead/${lead.b1}`)).status).toBe(200);
  });

  it('with delete access, a user deletes a lead of their own organization', async () => {
    const res = await t.request('POST', '/api/data/crm.lead', { token: token.a, body: { name: 'A temp', organization: org.a } });
    await withUserDelete(async () => {
      expect((await t.request('DELETE', `/api/data/crm.lead/${res.body.id}`, { token: token.a })).status).toBe(200);
    });
  });

  it('an admin deletes a lead of any organization', async () => {
    const res = await t.request('POST', '/api/data/crm.lead', { token: token.b, body: { name: 'B temp', organization: org.b } });
    expect(res.status).toBe(201);
    expect((await t.request('DELETE', `/api/data/crm.lead/${res.body.id}`, { token: admin })).status).toBe(200);
    expectError(await get(token.b, `/api/data/crm.lead/${res.body.id}`), 404, 'RECORD_NOT_FOUND');
  });
});

describe('rules on the base models', () => {
  it('a user lists only the users of their organization (res.user read rule)', async () => {
    const a = await get(token.a, '/api/data/res.user');
    expect(a.body.items.map((u: { email: string }) => u.email)).toEqual(['alice@a.example.com']);
    const all = await get(admin, '/api/data/res.user');
    expect(all.body.items.length).toBeGreaterThanOrEqual(3);
  });

  it('a user reads only their own organization (res.organization read rule)', async () => {
    const a = await get(token.a, '/api/data/res.organization');
    expect(a.body.items.map((o: { id: string }) => o.id)).toEqual([org.a]);
    expectError(await get(token.a, `/api/data/res.organization/${org.b}`), 404, 'RECORD_NOT_FOUND');
  });
});
