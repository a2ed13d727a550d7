/**
 * Role-based access per model and operation, as declared beside the models:
 * res.country `admin: crud, *: r`; crm.lead `admin: crud, user: cru`; ir.module `admin: r`.
 * A denial is 403 ACCESS_DENIED and the handler writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let user: string;
let qa: string;
let orgId: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
  orgId = await t.createOrg(admin, `RBAC Org ${rand()}`);
  await t.createUser(admin, { email: 'rbac-user@example.com', password: 'user-pass-1', organization: orgId });
  await t.createUser(admin, { email: 'rbac-qa@example.com', password: 'user-pass-1', organization: orgId, role: 'qa' });
  user = (await t.login('rbac-user@example.com', 'user-pass-1')).access_token;
  qa = (await t.login('rbac-qa@example.com', 'user-pass-1')).access_token;
});
afterAll(async () => {
  await t?.close();
});

describe('res.country (admin: crud, *: r)', () => {
  it('a user cannot create a country: 403 ACCESS_DENIED, nothing written', async () => {
    const before = (await t.request('GET', '/api/data/res.country/count', { token: user })).body.count;
    const res = await t.request('POST', '/api/data/res.country', { token: user, body: { name: 'Utopia', code: 'UT' } });
    expectError(res, 403, 'ACCESS_DENIED');
    expect(res.body.error.details).toMatchObject({ model: 'res.country', op: 'create', role: 'user' });
    expect((await t.request('GET', '/api/data/res.country/count', { token: user })).body.count).toBe(before);
  });

  it('a user can read countries (list, read_one, count, /api/res/country)', async () => {
    const list = await t.request('GET', '/api/data/res.country?limit=5', { token: user });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(5);
    expect(list.body.total).toBeGreaterThan(200);
    const one = await t.request('GET', `/api/data/res.country/${list.body.items[0].id}`, { token: user });
    expect(one.status).toBe(200);
    expect((await t.request('GET', '/api/res/country?limit=1', { token: user })).status).toBe(200);
  });

  it('a user cannot update or delete a country (403 ACCESS_DENIED)', async () => {
    const [c] = (await t.request('GET', '/api/data/res.country?limit=1', { token: user })).body.items;
    expectError(await t.request('PATCH', `/api/data/res.country/${c.id}`, { token: user, body: { name: 'Renamed' } }), 403, 'ACCESS_DENIED');
    expectError(await t.request('DELETE', `/api/data/res.country/${c.id}`, { token: user }), 403, 'ACCESS_DENIED');
  });

  it('an admin can create, update and delete a country', async () => {
    const c = await t.request('POST', '/api/data/res.country', { token: admin, body: { name: `Utopia ${rand()}`, code: 'UX' } });
    expect(c.status).toBe(201);
    expect((await t.request('PATCH', `/api/data/res.country/${c.body.id}`, { token: admin, body: { numeric: '999' } })).status).toBe(200);
    expect((await t.request('DELETE', `/api/data/res.country/${c.body.id}`, { token: admin })).status).toBe(200);
  });
});

describe('crm.lead (admin: crud, user: cru)', () => {
  it('a user can create, read and update leads of their organization', async () => {
    const lead = await t.request('POST', '/api/data/crm.lead', { token: user, body: { name: 'Mine', organization: orgId } });
    expect(lead.status).toBe(201);
    expect((await t.request('GET', `/api/data/crm.lead/${lead.body.id}`, { token: user })).status).toBe(200);
    const upd = await t.request('PATCH', `/api/data/crm.lead/${lead.body.id}`, { token: user, body: { stage: 'qualified' } });
    expect(upd.status).toBe(200);
    expect(upd.body.stage).toBe('qualified');
  });

  it('a user cannot delete a lead, even their own: 403 ACCESS_DENIED and the lead is still there', async () => {
    const lead = await t.request('POST', '/api/data/crm.lead', { token: user, body: { name: 'Keep me', organization: orgId } });
    const res = await t.request('DELETE', `/api/data/crm.lead/${lead.body.id}`, { token: user });
    expectError(res, 403, 'ACCESS_DENIED');
    expect(res.body.error.details).toMatchObject({ model: 'crm.lead', op: 'delete', role: 'user' });
    expect((await t.request('GET', `/api/data/crm.lead/${lead.body.id}`, { token: user })).status).toBe(200);
  });

  it('an admin can delete a lead', async () => {
    const lead = await t.request('POST', '/api/data/crm.lead', { token: user, body: { name: 'Delete me', organization: orgId } });
    const res = await t.request('DELETE', `/api/data/crm.lead/${lead.body.id}`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: lead.body.id, deleted: true });
    expectError(await t.request('GET', `/api/data/crm.lead/${lead.body.id}`, { token: admin }), 404, 'RECORD_NOT_FOUND');
  });

  it('the qa role has no access to crm.lead at all (403 on read and create)', async () => {
    expectError(await t.request('GET', '/api/data/crm.lead', { token: qa }), 403, 'ACCESS_DENIED');
    expectError(await t.request('GET', '/api/data/crm.lead/count', { token: qa }), 403, 'ACCESS_DENIED');
    expectError(await t.request('POST', '/api/data/crm.lead', { token: qa, body: { name: 'x' } }), 403, 'ACCESS_DENIED');
  });

  it('model commands check the model access too: a qa user cannot run crm.lead.mark_won', async () => {
    const lead = await t.request('POST', '/api/data/crm.lead', { token: user, body: { name: 'Win', organization: orgId } });
    expectError(await t.request('POST', `/api/data/crm.lead/${lead.body.id}/mark_won`, { token: qa, body: {} }), 403, 'ACCESS_DENIED');
    const won = await t.request('POST', `/api/data/crm.lead/${lead.body.id}/mark_won`, { token: user, body: {} });
    expect(won.status).toBe(200);
    expect(won.body.stage).toBe('won');
  });
});

describe('admin-only models', () => {
  it('ir.module is readable by an admin only', async () => {
    expect((await t.request('GET', '/api/data/ir.module', { token: admin })).status).toBe(200);
    expectError(await t.request('GET', '/api/data/ir.module', { token: user }), 403, 'ACCESS_DENIED');
  });

  it('nobody writes ir.module through the API, not even an admin (403)', async () => {
    expectError(await t.request('POST', '/api/data/ir.module', { token: admin, body: { name: 'evil', version: '1' } }), 403, 'ACCESS_DENIED');
  });

  it('the same check applies to the generic command route: fw.create of res.country by a user is 403', async () => {
    const res = await t.request('POST', '/api/command/fw.create', { token: user, body: { model: 'res.country', values: { name: 'Utopia', code: 'UT' } } });
    expectError(res, 403, 'ACCESS_DENIED');
  });

  it('an unknown model answers a 4xx error envelope, not a 500', async () => {
    const res = await t.request('GET', '/api/data/no.such_model', { token: user });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectError(res, res.status);
  });
});
