/**
 * The auth app's commands, hook and routes (src/apps/auth/index.ts) at their edges: how a login
 * names its user (email trimmed and lowercased) and its throttle key (per tenant), where the
 * tenant of a login or refresh comes from, the retry key's bounds, what logout, me and
 * ir.session.revoke_all answer for principals without a session or a user, and which user changes
 * end sessions. A real kernel behind the real server (SQLite files).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymousPrincipal, systemPrincipal } from '../../src/kernel/env.ts';
import { adminPrincipal, expectFwError } from '../helpers/kernel.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
const OTHER = `other-${rand()}`;
let ipCounter = 1;
const freshIp = () => `10.9.0.${ipCounter++}`;

beforeAll(async () => {
  t = await startTestServer({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '2', LOGIN_SLOWDOWN_AFTER: '100', LOGIN_IP_SLOWDOWN_AFTER: '100' });
  await t.provisionTenant(OTHER);
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

const refresh = (body: Record<string, unknown>) => t.request('POST', '/api/auth/refresh', { body });

describe('login', () => {
  it('the email is trimmed and lowercased before it is looked up', async () => {
    const res = await t.tryLogin(`  ${ADMIN_EMAIL.toUpperCase()}  `, ADMIN_PASSWORD, undefined, { remoteAddress: freshIp() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 1800 });
  });

  it('failures are counted per tenant: the same email in another tenant is not throttled', async () => {
    const email = `count-${rand()}@example.com`;
    const ip = freshIp();
    await t.createUser(admin, { email, password: 'right-pass-1' });
    for (let i = 0; i < 2; i++) expectError(await t.tryLogin(email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    expectError(await t.tryLogin(email, 'right-pass-1', undefined, { remoteAddress: ip }), 429, 'THROTTLED');
    // differently written, the same email: the same counter
    expectError(await t.tryLogin(` ${email.toUpperCase()}`, 'right-pass-1', undefined, { remoteAddress: ip }), 429, 'THROTTLED');
    expectError(await t.tryLogin(email, 'right-pass-1', OTHER, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
  });

  it('a success clears the email\'s failures', async () => {
    const email = `clear-${rand()}@example.com`;
    const ip = freshIp();
    await t.createUser(admin, { email, password: 'right-pass-1' });
    expectError(await t.tryLogin(email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    expect((await t.tryLogin(email, 'right-pass-1', undefined, { remoteAddress: ip })).status).toBe(200);
    for (let i = 0; i < 2; i++) expectError(await t.tryLogin(email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    expectError(await t.tryLogin(email, 'right-pass-1', undefined, { remoteAddress: ip }), 429, 'THROTTLED');
  });

  it('the tenant comes from X-Tenant, else from the body\'s "tenant"; the header wins', async () => {
    const fromBody = await t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, tenant: OTHER }, remoteAddress: freshIp() });
    expect(fromBody.status).toBe(200);
    expect(decodeJwt(fromBody.body.access_token).payload.tenant_id).toBe(OTHER);
    const both = await t.request('POST', '/api/auth/login', {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, tenant: OTHER }, headers: { 'x-tenant': 'default' }, remoteAddress: freshIp(),
    });
    expect(decodeJwt(both.body.access_token).payload.tenant_id).toBe('default');
    const neither = await t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, remoteAddress: freshIp() });
    expect(decodeJwt(neither.body.access_token).payload.tenant_id).toBe('default');
  });

  it('the session records the address and User-Agent the login came from', async () => {
    const ip = freshIp();
    const res = await t.request('POST', '/api/auth/login', {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, remoteAddress: ip, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0' },
    });
    const sid = decodeJwt(res.body.access_token).payload.sid;
    const [row] = (await t.sessionRows()).filter((r) => r.family_id === sid);
    expect(row).toMatchObject({ ip, os: 'Linux', browser: 'Firefox 121' });
  });
});

describe('refresh', () => {
  it('a refresh token of another tenant is 400 TENANT_MISMATCH where the caller names the tenant (GraphQL, in-process)', async () => {
    const pair = await t.loginAdmin();
    await expectFwError(t.kernel.dispatch('auth.refresh', { refresh_token: pair.refresh_token }, anonymousPrincipal(OTHER)), 400, 'TENANT_MISMATCH');
    // nothing was rotated: the token still works in its own tenant
    expect((await refresh({ refresh_token: pair.refresh_token })).status).toBe(200);
  });

  it('a refresh token naming a tenant that does not exist is 401 "unknown refresh token", creating nothing', async () => {
    const res = await refresh({ refresh_token: `ghost-${rand()}.${'A'.repeat(43)}` });
    expectError(res, 401, 'TOKEN_INVALID');
    expect(res.body.error.message).toBe('unknown refresh token');
    expect(await t.kernel.tenants.list()).not.toContain(expect.stringMatching(/^ghost-/));
  });

  it('a retry key is 16 to 64 characters: 16 is taken, 15 refused with 422 TOO_SHORT; an empty one is no key', async () => {
    const a = await t.loginAdmin();
    expect((await refresh({ refresh_token: a.refresh_token, retry_key: 'k'.repeat(16) })).status).toBe(200);
    const b = await t.loginAdmin();
    const short = await refresh({ refresh_token: b.refresh_token, retry_key: 'k'.repeat(15) });
    expectError(short, 422, 'VALIDATION_FAILED');
    expect(short.body.error.details.errors).toEqual([{ field: 'retry_key', code: 'TOO_SHORT', message: '"retry_key" must be at least 16 characters' }]);
    // nothing was rotated by the refused request
    expect((await refresh({ refresh_token: b.refresh_token, retry_key: '' })).status).toBe(200);
    // an empty key is no key: presenting the rotated token again is reuse
    expectError(await refresh({ refresh_token: b.refresh_token, retry_key: '' }), 401, 'TOKEN_INVALID');
  });
});

describe('logout, me and revoke_all for principals without a session or a user', () => {
  it('logout needs a session: a principal without one (in-process) is 400 NO_SESSION', async () => {
    const err = await expectFwError(t.kernel.dispatch('auth.logout', {}, adminPrincipal('default')), 400, 'NO_SESSION');
    expect(err.message).toBe('this principal has no session');
  });

  it('me needs a user: the system is 400 NO_USER', async () => {
    const err = await expectFwError(t.kernel.dispatch('auth.me', {}, systemPrincipal('default')), 400, 'NO_USER');
    expect(err.message).toBe('this principal is not a user');
  });

  it('me answers the caller with its organization (id, name, code), or null without one', async () => {
    const org = await t.createOrg(admin, `Org ${rand()}`);
    const email = `me-${rand()}@example.com`;
    await t.createUser(admin, { email, password: 'right-pass-1', organization: org });
    const withOrg = (await t.request('GET', '/api/auth/me', { token: (await t.login(email, 'right-pass-1', undefined, { remoteAddress: freshIp() })).access_token })).body;
    expect(withOrg).toMatchObject({ email, tenant_id: 'default', role: 'user', is_active: true, organization: { id: org, name: expect.stringMatching(/^Org /), code: expect.stringMatching(/^org-/) } });
    expect(Object.keys(withOrg.organization).sort()).toEqual(['code', 'id', 'name']);
    const lone = `lone-${rand()}@example.com`;
    const loneUser = await t.createUser(admin, { email: lone, password: 'right-pass-1' });
    // new users join the default organization; this one is taken out of it
    expect((await t.request('PATCH', `/api/data/res.user/${loneUser.id}`, { token: admin, body: { organization: null } })).status).toBe(200);
    const without = (await t.request('GET', '/api/auth/me', { token: (await t.login(lone, 'right-pass-1', undefined, { remoteAddress: freshIp() })).access_token })).body;
    expect(without.organization).toBeNull();
  });

  it('revoke_all without a user to act on is 400; the system may revoke anyone\'s sessions', async () => {
    const err = await expectFwError(t.kernel.dispatch('ir.session.revoke_all', {}, systemPrincipal('default')), 400, 'INVALID_PAYLOAD');
    expect(err.message).toBe('user_id is required');
    const email = `sys-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'right-pass-1' });
    const pair = await t.login(email, 'right-pass-1', undefined, { remoteAddress: freshIp() });
    expect(await t.kernel.dispatch('ir.session.revoke_all', { user_id: user.id }, systemPrincipal('default'))).toEqual({ revoked: 1 });
    expectError(await t.request('GET', '/api/auth/me', { token: pair.access_token }), 401, 'TOKEN_INVALID');
  });
});

describe('user changes and sessions', () => {
  const newUser = async () => {
    const email = `chg-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'right-pass-1' });
    return { id: user.id as string, pair: await t.login(email, 'right-pass-1', undefined, { remoteAddress: freshIp() }) };
  };
  const sessionsOf = async (id: string) => (await t.sessionRows()).filter((r) => r.user_id === id).map((r) => r.revoked_reason ?? 'live');

  it('changing anything but activity leaves the sessions alone', async () => {
    const u = await newUser();
    expect((await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { name: 'Renamed' } })).status).toBe(200);
    expect(await sessionsOf(u.id)).toEqual(['live']);
    expect((await t.request('GET', '/api/auth/me', { token: u.pair.access_token })).body.name).toBe('Renamed');
  });

  it('a role change keeps the session but applies at once', async () => {
    const u = await newUser();
    expect((await t.request('GET', '/api/auth/me', { token: u.pair.access_token })).body.role).toBe('user');
    expect((await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { role: 'qa' } })).status).toBe(200);
    expect(await sessionsOf(u.id)).toEqual(['live']);
    expect((await t.request('GET', '/api/auth/me', { token: u.pair.access_token })).body.role).toBe('qa');
  });

  it('deactivation revokes with reason user_inactive; reactivating revokes nothing more', async () => {
    const u = await newUser();
    expect((await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { is_active: false } })).status).toBe(200);
    expect(await sessionsOf(u.id)).toEqual(['user_inactive']);
    expect((await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { is_active: true } })).status).toBe(200);
    expect(await sessionsOf(u.id)).toEqual(['user_inactive']);
  });
});
