/**
 * Changing a password (res.user.set_password, with the auth app's post hook): your own needs your
 * current password, and a new password ends every other session of the user — their refresh
 * tokens are refused, their access tokens at the next request — while the session that changed it
 * stays valid. An admin resetting someone else's password ends all of that user's sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../helpers/api.ts';
import { expectError, rand, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

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
  const email = `pw-${rand()}@example.com`;
  const user = await t.createUser(admin, { email, password: 'first-pass-123' });
  return { id: user.id as string, email };
}
const me = (token: string) => t.request('GET', '/api/auth/me', { token });
const refresh = (pair: TokenPair) => t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } });
const setPassword = (token: string, id: string, body: Record<string, unknown>) =>
  t.request('POST', `/api/data/res.user/${id}/set_password`, { token, body });

describe('changing your own password', () => {
  it('needs the current password: missing → 422 CURRENT_PASSWORD_REQUIRED, wrong → 422 CURRENT_PASSWORD_INVALID; nothing changes and no session ends', async () => {
    const u = await newUser();
    const a = await t.login(u.email, 'first-pass-123');
    const b = await t.login(u.email, 'first-pass-123');
    expectError(await setPassword(a.access_token, u.id, { password: 'second-pass-123' }), 422, 'CURRENT_PASSWORD_REQUIRED');
    expectError(await setPassword(a.access_token, u.id, { password: 'second-pass-123', current_password: 'not-it-123' }), 422, 'CURRENT_PASSWORD_INVALID');
    expect((await me(b.access_token)).status).toBe(200);
    expect((await t.tryLogin(u.email, 'first-pass-123')).status).toBe(200);
  });

  it('ends every other session of the user: their access tokens at the next request and their refresh tokens; the session that changed it stays valid', async () => {
    const u = await newUser();
    const current = await t.login(u.email, 'first-pass-123');
    const other = await t.login(u.email, 'first-pass-123');
    // the other session is cached in this process: its revocation must reach the cache
    expect((await me(other.access_token)).status).toBe(200);
    const res = await setPassword(current.access_token, u.id, { password: 'second-pass-123', current_password: 'first-pass-123' });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);

    expectError(await me(other.access_token), 401, 'TOKEN_INVALID');
    expectError(await refresh(other), 401, 'TOKEN_INVALID');
    expect((await me(current.access_token)).status).toBe(200);
    const next = await refresh(current);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect((await me(next.body.access_token)).status).toBe(200);

    expectError(await t.tryLogin(u.email, 'first-pass-123'), 401, 'AUTHENTICATION_FAILED');
    expect((await t.tryLogin(u.email, 'second-pass-123')).status).toBe(200);
    const rows = (await t.sessionRows()).filter((r) => r.user_id === u.id);
    expect(rows.filter((r) => r.revoked_reason === 'password_changed')).toHaveLength(1);
  });

  it('guesses of the current password go through the login throttle: after 5 wrong ones from an address, 429 THROTTLED there, the right one included', async () => {
    const u = await newUser();
    const token = (await t.login(u.email, 'first-pass-123')).access_token;
    const from = { remoteAddress: '10.8.0.1' };
    const guess = (current: string) => t.request('POST', `/api/data/res.user/${u.id}/set_password`, { token, body: { password: 'second-pass-123', current_password: current }, ...from });
    for (let i = 0; i < 5; i++) expectError(await guess(`guess-${i}-pass`), 422, 'CURRENT_PASSWORD_INVALID');
    expectError(await guess('first-pass-123'), 429, 'THROTTLED');
    // the same (email, address) pair as the login: that is refused there too, not elsewhere
    expectError(await t.tryLogin(u.email, 'first-pass-123', undefined, from), 429, 'THROTTLED');
    expect((await t.tryLogin(u.email, 'first-pass-123', undefined, { remoteAddress: '10.8.0.2' })).status).toBe(200);
  });

  it('the new password must pass the policy (422 WEAK_PASSWORD) and then no session ends', async () => {
    const u = await newUser();
    const current = await t.login(u.email, 'first-pass-123');
    const other = await t.login(u.email, 'first-pass-123');
    const res = await setPassword(current.access_token, u.id, { password: 'password', current_password: 'first-pass-123' });
    expectError(res, 422, 'WEAK_PASSWORD');
    expect(res.body.error.message).toBe('password must have at least 10 characters');
    expect((await me(other.access_token)).status).toBe(200);
  });
});

describe('over GraphQL', () => {
  it('resUserSetPassword is typed Boolean: true once the password changed, null and the error when it did not', async () => {
    const u = await newUser();
    const mine = await t.login(u.email, 'first-pass-123');
    const mutation = 'mutation($id: ID!, $p: String!, $c: String) { resUserSetPassword(id: $id, password: $p, current_password: $c) }';
    const wrong = await gql(t, mutation, { id: u.id, p: 'third-pass-123', c: 'not-it-123' }, { token: mine.access_token });
    expect(wrong.body.data).toEqual({ resUserSetPassword: null });
    expect(wrong.body.errors?.[0]?.extensions?.code).toBe('CURRENT_PASSWORD_INVALID');
    const done = await gql(t, mutation, { id: u.id, p: 'third-pass-123', c: 'first-pass-123' }, { token: mine.access_token });
    expect(done.body, JSON.stringify(done.body)).toEqual({ data: { resUserSetPassword: true } });
    expect((await t.tryLogin(u.email, 'third-pass-123')).status).toBe(200);
  });

  it('irSessionRevokeAll answers SessionsRevoked with the number of sessions ended', async () => {
    const u = await newUser();
    const a = await t.login(u.email, 'first-pass-123');
    await t.login(u.email, 'first-pass-123');
    const res = await gql(t, 'mutation { irSessionRevokeAll { revoked } }', {}, { token: a.access_token });
    expect(res.body, JSON.stringify(res.body)).toEqual({ data: { irSessionRevokeAll: { revoked: 2 } } });
    expectError(await me(a.access_token), 401, 'TOKEN_INVALID');
  });
});

describe('an admin resetting another user\'s password', () => {
  it('needs no current password and ends all of that user\'s sessions; the admin\'s own session stays', async () => {
    const u = await newUser();
    const a = await t.login(u.email, 'first-pass-123');
    const b = await t.login(u.email, 'first-pass-123');
    const res = await setPassword(admin, u.id, { password: 'reset-pass-123' });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    for (const pair of [a, b]) {
      expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
      expectError(await refresh(pair), 401, 'TOKEN_INVALID');
    }
    expect((await me(admin)).status).toBe(200);
    expect((await t.tryLogin(u.email, 'reset-pass-123')).status).toBe(200);
  });
});
