/**
 * Several organizations per user (issue 25 §2): a user has a default organization
 * (`res.user.organization`) and memberships of others (`res.user.membership`, admins only). A
 * request works in one of them — the one `X-Fw-Organization` names (an id or the workspace slug),
 * else the default — and the record rules' `$principal.organization_id` is that one, while
 * `$principal.organization_ids` lists them all. Naming an organization the user does not belong
 * to is 403 ORGANIZATION_NOT_ALLOWED, whether it exists or not. A new record's organization
 * defaults to the current one; a record may move to another of the user's organizations, never to
 * one they do not belong to. A membership given or taken applies at the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
const org = { a: '', b: '', c: '' };
const slug = { a: '', b: '', c: '' };
let both = { id: '', token: '' };
let onlyB = '';
let membership = '';

const as = (token: string, organization?: string) => ({ token, ...(organization ? { headers: { 'x-fw-organization': organization } } : {}) });
const leadNames = async (token: string, organization?: string) => {
  const res = await t.request('GET', '/api/data/crm.lead', as(token, organization));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items as Array<{ name: string }>).map((i) => i.name).sort();
};

beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
  org.a = await t.createOrg(admin, 'Orgs Alpha');
  org.b = await t.createOrg(admin, 'Orgs Beta');
  org.c = await t.createOrg(admin, 'Orgs Gamma');
  for (const k of ['a', 'b', 'c'] as const) slug[k] = (await t.request('GET', `/api/data/res.organization/${org[k]}`, { token: admin })).body.code;
  const user = await t.createUser(admin, { email: 'both@orgs.example.com', password: 'both-pass-1', organization: org.a });
  const m = await t.request('POST', '/api/data/res.user.membership', { token: admin, body: { user: user.id, organization: org.b } });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  membership = m.body.id;
  both = { id: user.id, token: (await t.login('both@orgs.example.com', 'both-pass-1')).access_token };
  await t.createUser(admin, { email: 'onlyb@orgs.example.com', password: 'onlyb-pass-1', organization: org.b });
  onlyB = (await t.login('onlyb@orgs.example.com', 'onlyb-pass-1')).access_token;
  for (const [name, organization] of [['Alpha lead', org.a], ['Beta lead', org.b], ['Gamma lead', org.c]]) {
    expect((await t.request('POST', '/api/data/crm.lead', { token: admin, body: { name, organization } })).status).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

describe('the organization a request works in', () => {
  it('is the default organization without X-Fw-Organization, and the named one (by slug or id) when the user belongs to it', async () => {
    expect(await leadNames(both.token)).toEqual(['Alpha lead']);
    expect(await leadNames(both.token, slug.b)).toEqual(['Beta lead']);
    expect(await leadNames(both.token, org.b)).toEqual(['Beta lead']);
    expect(await leadNames(both.token, slug.a)).toEqual(['Alpha lead']);
  });

  it('naming an organization the user does not belong to, or one that does not exist, is the same 403 ORGANIZATION_NOT_ALLOWED', async () => {
    const foreign = await t.request('GET', '/api/data/crm.lead', as(both.token, slug.c));
    expectError(foreign, 403, 'ORGANIZATION_NOT_ALLOWED');
    const missing = await t.request('GET', '/api/data/crm.lead', as(both.token, 'no-such-workspace'));
    expectError(missing, 403, 'ORGANIZATION_NOT_ALLOWED');
    expect(Object.keys(missing.body.error.details ?? {})).toEqual(Object.keys(foreign.body.error.details ?? {}));
    // GraphQL goes through the same check
    const g = await t.request('POST', '/graphql', { ...as(both.token, slug.c), body: { query: '{ me { id } }' } });
    expect(JSON.stringify(g.body)).toContain('ORGANIZATION_NOT_ALLOWED');
  });

  it('me lists every organization of the user, the default first, and names the current one', async () => {
    const query = '{ me { organization { id code } default_organization organizations { id name code } } }';
    const plain = await t.request('POST', '/graphql', { token: both.token, body: { query } });
    expect(plain.body.data.me.organization.id).toBe(org.a);
    expect(plain.body.data.me.default_organization).toBe(org.a);
    expect(plain.body.data.me.organizations.map((o: { id: string }) => o.id)).toEqual([org.a, org.b]);
    const inB = await t.request('POST', '/graphql', { ...as(both.token, slug.b), body: { query } });
    expect(inB.body.data.me.organization).toEqual({ id: org.b, code: slug.b });
  });

  it('organizations the user may read are theirs: res.organization lists A and B for the member, B alone for a user of B', async () => {
    const mine = await t.request('GET', '/api/data/res.organization', { token: both.token });
    expect((mine.body.items as Array<{ id: string }>).map((o) => o.id).sort()).toEqual([org.a, org.b].sort());
    const theirs = await t.request('GET', '/api/data/res.organization', { token: onlyB });
    expect((theirs.body.items as Array<{ id: string }>).map((o) => o.id)).toEqual([org.b]);
  });

  it('the users of an organization include its members: a user of B sees the member whose default is A', async () => {
    const res = await t.request('GET', '/api/data/res.user', { token: onlyB });
    const emails = (res.body.items as Array<{ email: string }>).map((u) => u.email);
    expect(emails).toContain('both@orgs.example.com');
    expect(emails).toContain('onlyb@orgs.example.com');
    // and not in A, where the user of B is nobody
    const inA = await t.request('GET', '/api/data/res.user', as(both.token, slug.a));
    expect((inA.body.items as Array<{ email: string }>).map((u) => u.email)).not.toContain('onlyb@orgs.example.com');
  });
});

describe('records and organizations', () => {
  it('a new record defaults its organization to the one the request works in', async () => {
    const inB = await t.request('POST', '/api/data/crm.lead', { ...as(both.token, slug.b), body: { name: 'Made in Beta' } });
    expect(inB.status, JSON.stringify(inB.body)).toBe(201);
    expect(inB.body.organization).toBe(org.b);
    const plain = await t.request('POST', '/api/data/crm.lead', { token: both.token, body: { name: 'Made in Alpha' } });
    expect(plain.body.organization).toBe(org.a);
  });

  it('a record moves to another organization of the user, and the move to one they do not belong to is 422 INVALID_REFERENCE', async () => {
    const made = await t.request('POST', '/api/data/crm.lead', { token: both.token, body: { name: 'Mover' } });
    const id = made.body.id as string;
    const denied = await t.request('PATCH', `/api/data/crm.lead/${id}`, { token: both.token, body: { organization: org.c } });
    expectError(denied, 422, 'INVALID_REFERENCE');
    const moved = await t.request('PATCH', `/api/data/crm.lead/${id}`, { token: both.token, body: { organization: org.b } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await leadNames(both.token, slug.b)).toContain('Mover');
    expect(await leadNames(both.token, slug.a)).not.toContain('Mover');
    // nobody outside the user's organizations could see it at any point
    const gamma = (await t.request('GET', `/api/data/crm.lead/${id}`, { token: admin })).body.organization;
    expect(gamma).toBe(org.b);
  });

  it('creating a record in an organization the user does not belong to is 422 INVALID_REFERENCE', async () => {
    const res = await t.request('POST', '/api/data/crm.lead', { token: both.token, body: { name: 'Planted', organization: org.c } });
    expectError(res, 422, 'INVALID_REFERENCE');
  });
});

describe('memberships', () => {
  it('only an admin gives memberships (403 for a user, even of their own organization)', async () => {
    const res = await t.request('POST', '/api/data/res.user.membership', { token: onlyB, body: { user: both.id, organization: org.b } });
    expectError(res, 403, 'ACCESS_DENIED');
  });

  it('a membership taken away applies at the user\'s next request', async () => {
    expect(await leadNames(both.token, slug.b)).toContain('Beta lead');
    expect((await t.request('DELETE', `/api/data/res.user.membership/${membership}`, { token: admin })).status).toBe(200);
    expectError(await t.request('GET', '/api/data/crm.lead', as(both.token, slug.b)), 403, 'ORGANIZATION_NOT_ALLOWED');
    expect(await leadNames(both.token)).toContain('Alpha lead');
    // given back, it works again at once
    const again = await t.request('POST', '/api/data/res.user.membership', { token: admin, body: { user: both.id, organization: org.b } });
    expect(again.status).toBe(201);
    membership = again.body.id;
    expect(await leadNames(both.token, slug.b)).toContain('Beta lead');
  });
});
