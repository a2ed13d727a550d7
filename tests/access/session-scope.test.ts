/**
 * The principal's role and organization come from `res.user`, cached with the session
 * (AUTH_SESSION_CACHE_SECONDS, 30 s by default here). When an admin changes a user's
 * organization or role, the auth app's `post.res.user.update` hook drops that user's cached
 * sessions after the commit, so the user's very next request — same access token, well inside
 * the cache window — runs with the new scope: record rules (`$principal.organization_id`) and
 * role permissions see the change at once.
 *
 * Each step first makes a request that caches the session, so a missing cache drop would show as
 * the old scope on the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../helpers/kernel.ts';
import { expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

describe.each(PROVIDERS)('a user\'s scope follows organization and role changes at once (%s)', (provider) => {
  let t: TestServer;
  let admin: string;
  const org = { a: '', b: '' };
  const lead = { a: '', b: '' };

  beforeAll(async () => {
    // a long cache window: only the hook's cache drop can make the change visible in time
    t = await startTestServer({ AUTH_SESSION_CACHE_SECONDS: '600' }, { provider });
    admin = (await t.loginAdmin()).access_token;
    org.a = await t.createOrg(admin, `Scope A ${rand()}`);
    org.b = await t.createOrg(admin, `Scope B ${rand()}`);
    for (const [k, o] of [['a', org.a], ['b', org.b]] as const) {
      const res = await t.request('POST', '/api/data/crm.lead', { token: admin, body: { name: `Lead ${k}`, organization: o } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      lead[k] = res.body.id;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const ids = async (token: string, model: string) => {
    const res = await t.request('GET', `/api/data/${model}?fields=id`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.items as Array<{ id: string }>).map((r) => r.id).sort();
  };

  it('moving a user to another organization: the next request with the same token reads the new organization\'s records only', async () => {
    const email = `mover-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'mover-pass-1', organization: org.a });
    const token = (await t.login(email, 'mover-pass-1')).access_token;

    // cached: organization A
    expect(await ids(token, 'res.organization')).toEqual([org.a]);
    expect(await ids(token, 'crm.lead')).toEqual([lead.a]);
    expect((await t.request('GET', `/api/data/crm.lead/${lead.b}`, { token })).status).toBe(404);

    const moved = await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: admin, body: { organization: org.b } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);

    // same token, next request: organization B
    expect(await ids(token, 'res.organization')).toEqual([org.b]);
    expect(await ids(token, 'crm.lead')).toEqual([lead.b]);
    expect((await t.request('GET', `/api/data/crm.lead/${lead.a}`, { token })).status).toBe(404);
    // writes are bound by the new scope too: a lead in the old organization (no longer readable) is refused
    expectError(await t.request('POST', '/api/data/crm.lead', { token, body: { name: 'Back to A', organization: org.a } }), 422, 'INVALID_REFERENCE');
    const mine = await t.request('POST', '/api/data/crm.lead', { token, body: { name: 'In B', organization: org.b } });
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);

    // and through GraphQL (the principal is the same for every entry point)
    const gql = await t.request('POST', '/graphql', { token, body: { query: '{ resOrganizations { id } }' } });
    expect(gql.body).toEqual({ data: { resOrganizations: [{ id: org.b }] } });

    // removing the organization (set to null): the user then matches records without one
    expect((await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: admin, body: { organization: null } })).status).toBe(200);
    expect(await ids(token, 'res.organization')).toEqual([]);
    expect(await ids(token, 'crm.lead')).toEqual([]);
  });

  it('a role change: the next request with the same token has the new role, in both directions', async () => {
    const email = `promoted-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'promo-pass-1', organization: org.a });
    const token = (await t.login(email, 'promo-pass-1')).access_token;

    // cached as `user`: record rules apply (own organization only), res.country is read-only
    expect(await ids(token, 'crm.lead')).toEqual([lead.a]);
    expectError(await t.request('POST', '/api/data/res.organization', { token, body: { name: `Nope ${rand()}` } }), 403, 'ACCESS_DENIED');

    expect((await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: admin, body: { role: 'admin' } })).status).toBe(200);
    // admins are exempt from rules that name no roles: every organization's leads
    expect(await ids(token, 'crm.lead')).toEqual(expect.arrayContaining([lead.a, lead.b]));
    const created = await t.request('POST', '/api/data/res.organization', { token, body: { name: `Yes ${rand()}` } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    expect((await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: admin, body: { role: 'user' } })).status).toBe(200);
    expect(await ids(token, 'crm.lead')).not.toContain(lead.b);
    expectError(await t.request('POST', '/api/data/res.organization', { token, body: { name: `Nope ${rand()}` } }), 403, 'ACCESS_DENIED');
  });

  it('a change that touches neither role, organization nor activity keeps the session (and its cache) as it is', async () => {
    const email = `renamed-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'rename-pass-1', organization: org.a });
    const token = (await t.login(email, 'rename-pass-1')).access_token;
    expect(await ids(token, 'crm.lead')).toEqual([lead.a]);
    expect((await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: admin, body: { name: 'Renamed' } })).status).toBe(200);
    expect(await ids(token, 'crm.lead')).toEqual([lead.a]);
    expect((await t.request('GET', '/api/auth/me', { token })).body).toMatchObject({ name: 'Renamed', role: 'user' });
  });
});
