/**
 * Inactive users: they cannot log in, their existing access and refresh tokens stop working the
 * moment an admin deactivates them, and only an admin may deactivate or reactivate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

async function newUser() {
  const email = `inactive-${rand()}@example.com`;
  const user = await t.createUser(admin, { email, password: 'user-pass-1' });
  return { id: user.id as string, email, password: 'user-pass-1' };
}

const me = (token: string) => t.request('GET', '/api/auth/me', { token });

describe('inactive users', () => {
  it('an existing access token is rejected right after POST /api/data/res.user/<id>/deactivate by an admin', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, u.password);
    // warm the session cache: the deactivation must beat it
    expect((await me(pair.access_token)).status).toBe(200);

    const res = await t.request('POST', `/api/data/res.user/${u.id}/deactivate`, { token: admin, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.is_active).toBe(false);

    expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } }), 401, 'TOKEN_INVALID');
  });

  it('an inactive user cannot log in: 401 AUTHENTICATION_FAILED, same answer as a wrong password', async () => {
    const u = await newUser();
    await t.request('POST', `/api/data/res.user/${u.id}/deactivate`, { token: admin, body: {} });
    const res = await t.tryLogin(u.email, u.password);
    expectError(res, 401, 'AUTHENTICATION_FAILED');
    expect(res.body.error.message).toBe((await t.tryLogin(u.email, 'wrong-password')).body.error.message);
  });

  it('deactivation through PATCH is_active=false by an admin also ends the sessions', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, u.password);
    expect((await me(pair.access_token)).status).toBe(200);
    const res = await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { is_active: false } });
    expect(res.status).toBe(200);
    expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
  });

  it('a reactivated user can log in again, but the tokens from before stay dead', async () => {
    const u = await newUser();
    const old = await t.login(u.email, u.password);
    await t.request('POST', `/api/data/res.user/${u.id}/deactivate`, { token: admin, body: {} });
    const back = await t.request('POST', `/api/data/res.user/${u.id}/activate`, { token: admin, body: {} });
    expect(back.status).toBe(200);
    expect(back.body.is_active).toBe(true);
    expectError(await me(old.access_token), 401, 'TOKEN_INVALID');
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: old.refresh_token } }), 401, 'TOKEN_INVALID');
    const fresh = await t.login(u.email, u.password);
    expect((await me(fresh.access_token)).status).toBe(200);
  });

  it('a non-admin cannot deactivate a user (403 ACCESS_DENIED), not even themselves', async () => {
    const u = await newUser();
    const victim = await newUser();
    const pair = await t.login(u.email, u.password);
    expectError(await t.request('POST', `/api/data/res.user/${victim.id}/deactivate`, { token: pair.access_token, body: {} }), 403, 'ACCESS_DENIED');
    expectError(await t.request('POST', `/api/data/res.user/${u.id}/deactivate`, { token: pair.access_token, body: {} }), 403, 'ACCESS_DENIED');
    expect((await t.login(victim.email, victim.password)).access_token).toBeTruthy();
  });
});
