/**
 * A user's preferences (issue 29 §4): language, time zone, theme and default organization are
 * stored on res.user and changed by the user themselves through res.user.set_preferences — a
 * normal user cannot write res.user otherwise. The time zone is an IANA name (422
 * INVALID_TIME_ZONE), the default organization one the user belongs to (422
 * NOT_YOUR_ORGANIZATION), and `me` answers them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
const org = { a: '', b: '', c: '' };
let user = { id: '', token: '' };
let other = { id: '', token: '' };

const setPrefs = (token: string, id: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  t.request('POST', `/api/data/res.user/${id}/set_preferences`, { token, body, ...(headers ? { headers } : {}) });
const me = async (token: string) => {
  const res = await t.request('POST', '/graphql', { token, body: { query: '{ me { lang tz theme default_organization organizations { id } } }' } });
  expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
  return res.body.data.me;
};

beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
  org.a = await t.createOrg(admin, 'Prefs Alpha');
  org.b = await t.createOrg(admin, 'Prefs Beta');
  org.c = await t.createOrg(admin, 'Prefs Gamma');
  const u = await t.createUser(admin, { email: 'prefs@prefs.example.com', password: 'prefs-pass-1', organization: org.a });
  const m = await t.request('POST', '/api/data/res.user.membership', { token: admin, body: { user: u.id, organization: org.b } });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  user = { id: u.id, token: (await t.login('prefs@prefs.example.com', 'prefs-pass-1')).access_token };
  const o = await t.createUser(admin, { email: 'other@prefs.example.com', password: 'other-pass-1', organization: org.a });
  other = { id: o.id, token: (await t.login('other@prefs.example.com', 'other-pass-1')).access_token };
});
afterAll(async () => {
  await t?.close();
});

describe('preferences stored on the user', () => {
  it('a new user has the defaults: English, the browser\'s time zone (null), the system theme', async () => {
    expect(await me(user.token)).toMatchObject({ lang: 'en', tz: null, theme: 'system', default_organization: org.a });
  });

  it('a user sets their own language, time zone and theme; me answers them; fields left out are kept', async () => {
    const res = await setPrefs(user.token, user.id, { lang: 'fr', tz: 'Europe/Paris', theme: 'dark' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ lang: 'fr', tz: 'Europe/Paris', theme: 'dark' });
    expect(await me(user.token)).toMatchObject({ lang: 'fr', tz: 'Europe/Paris', theme: 'dark' });
    expect((await setPrefs(user.token, user.id, { theme: 'light' })).status).toBe(200);
    expect(await me(user.token)).toMatchObject({ lang: 'fr', tz: 'Europe/Paris', theme: 'light' });
  });

  it('a time zone alias is stored under its canonical IANA name, and an empty one clears it', async () => {
    expect((await setPrefs(user.token, user.id, { tz: 'US/Eastern' })).body.tz).toBe('America/New_York');
    expect((await setPrefs(user.token, user.id, { tz: '' })).body.tz).toBeNull();
    expect((await setPrefs(user.token, user.id, { tz: 'UTC' })).body.tz).toBe('UTC');
  });

  it('a time zone that is not an IANA name is 422 INVALID_TIME_ZONE on field tz, and nothing is stored', async () => {
    for (const tz of ['Mars/Olympus_Mons', 'GMT+25', 'not a zone']) {
      const bad = await setPrefs(user.token, user.id, { tz, lang: 'en' });
      expectError(bad, 422, 'INVALID_TIME_ZONE');
      expect(bad.body.error.details.field).toBe('tz');
    }
    expect(await me(user.token)).toMatchObject({ tz: 'UTC', lang: 'fr' });
    // an admin writing the user record goes through the same check
    expectError(await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: admin, body: { tz: 'Nowhere/Special' } }), 422, 'INVALID_TIME_ZONE');
  });

  it('a language or theme outside the list is 422 and nothing is stored', async () => {
    expect((await setPrefs(user.token, user.id, { lang: 'de' })).status).toBe(422);
    expect((await setPrefs(user.token, user.id, { theme: 'pink' })).status).toBe(422);
    expect(await me(user.token)).toMatchObject({ lang: 'fr', theme: 'light' });
  });

  it('only your own: another user, and an admin, get 403 ACCESS_DENIED setting someone else\'s preferences', async () => {
    expectError(await setPrefs(other.token, user.id, { lang: 'en' }), 403, 'ACCESS_DENIED');
    expectError(await setPrefs(admin, user.id, { lang: 'en' }), 403, 'ACCESS_DENIED');
    expect(await me(user.token)).toMatchObject({ lang: 'fr' });
  });

  it('a normal user still cannot write their user record directly (role, name, lang alike)', async () => {
    expectError(await t.request('PATCH', `/api/data/res.user/${user.id}`, { token: user.token, body: { lang: 'en' } }), 403);
  });
});

describe('the default organization', () => {
  it('is one the user belongs to: any other, existing or not, is the same 422 NOT_YOUR_ORGANIZATION on field organization, and nothing changes', async () => {
    const foreign = await setPrefs(user.token, user.id, { organization: org.c });
    expectError(foreign, 422, 'NOT_YOUR_ORGANIZATION');
    expect(foreign.body.error.details.field).toBe('organization');
    const missing = await setPrefs(user.token, user.id, { organization: '00000000-0000-4000-8000-000000000000' });
    expectError(missing, 422, 'NOT_YOUR_ORGANIZATION');
    expect(missing.body.error).toEqual(foreign.body.error);
    expect(await me(user.token)).toMatchObject({ default_organization: org.a });
  });

  it('moving it to a membership keeps every organization: the old default becomes a membership', async () => {
    const res = await setPrefs(user.token, user.id, { organization: org.b });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const now = await me(user.token);
    expect(now.default_organization).toBe(org.b);
    expect(now.organizations.map((o: { id: string }) => o.id)).toEqual([org.b, org.a]);
    // and back again
    expect((await setPrefs(user.token, user.id, { organization: org.a })).status).toBe(200);
    const back = await me(user.token);
    expect(back.default_organization).toBe(org.a);
    expect(back.organizations.map((o: { id: string }) => o.id)).toEqual([org.a, org.b]);
  });
});
