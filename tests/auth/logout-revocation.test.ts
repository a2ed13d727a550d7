/**
 * Ending sessions: logout of the current login, revoke-all for a user, and who may revoke whose
 * sessions. After a revocation both the access token (at the middleware) and the refresh token
 * are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

async function newUser(role?: string) {
  const email = `u-${rand()}@example.com`;
  const user = await t.createUser(admin, { email, password: 'user-pass-1', ...(role ? { role } : {}) });
  return { id: user.id as string, email, password: 'user-pass-1' };
}

const refresh = (token: string) => t.request('POST', '/api/auth/refresh', { body: { refresh_token: token } });
const me = (token: string) => t.request('GET', '/api/auth/me', { token });

describe('logout', () => {
  it('after logout the access token is rejected at the middleware (401) and the refresh token is rejected (401)', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, u.password);
    expect((await me(pair.access_token)).status).toBe(200);

    const out = await t.request('POST', '/api/auth/logout', { token: pair.access_token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ revoked: true });

    expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
    // any authenticated route, not just /me: the middleware refuses before the handler
    expectError(await t.request('GET', '/api/data/res.country?limit=1', { token: pair.access_token }), 401, 'TOKEN_INVALID');
    expectError(await t.request('POST', '/api/auth/logout', { token: pair.access_token }), 401, 'TOKEN_INVALID');
    expectError(await refresh(pair.refresh_token), 401, 'TOKEN_INVALID');
  });

  it('logout sent with Content-Type: application/json and no body (as fetch wrappers send it) ends the session too', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, u.password);
    const out = await t.request('POST', '/api/auth/logout', { token: pair.access_token, body: '', headers: { 'content-type': 'application/json' } });
    expect([out.status, out.body]).toEqual([200, { revoked: true }]);
    expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
    expectError(await refresh(pair.refresh_token), 401, 'TOKEN_INVALID');
  });

  it('logout after a rotation also kills the rotated refresh token and every access token of that login', async () => {
    const u = await newUser();
    const first = await t.login(u.email, u.password);
    const second = (await refresh(first.refresh_token)).body;
    expect((await t.request('POST', '/api/auth/logout', { token: second.access_token })).status).toBe(200);
    expectError(await me(first.access_token), 401, 'TOKEN_INVALID');
    expectError(await me(second.access_token), 401, 'TOKEN_INVALID');
    expectError(await refresh(second.refresh_token), 401, 'TOKEN_INVALID');
  });

  it('logout of one session leaves another login of the same user working', async () => {
    const u = await newUser();
    const laptop = await t.login(u.email, u.password);
    const phone = await t.login(u.email, u.password);
    expect((await t.request('POST', '/api/auth/logout', { token: laptop.access_token })).status).toBe(200);
    expectError(await me(laptop.access_token), 401, 'TOKEN_INVALID');
    expect((await me(phone.access_token)).status).toBe(200);
    const rotated = await refresh(phone.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await me(rotated.body.access_token)).status).toBe(200);
  });

  it('logout is marked on the session row (revoked, reason logout)', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, u.password);
    await t.request('POST', '/api/auth/logout', { token: pair.access_token });
    const rows = (await t.sessionRows()).filter((r) => r.family_id === decodeJwt(pair.access_token).payload.sid);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ revoked: true, revoked_reason: 'logout' });
    expect(rows[0].revoked_at).toBeInstanceOf(Date);
  });

  it('logout without a bearer token is 401 UNAUTHENTICATED', async () => {
    expectError(await t.request('POST', '/api/auth/logout'), 401, 'UNAUTHENTICATED');
  });
});

describe('revoke-all', () => {
  it('POST /api/command/ir.session.revoke_all ends every session of the caller', async () => {
    const u = await newUser();
    const a = await t.login(u.email, u.password);
    const b = await t.login(u.email, u.password);
    const c = await t.login(u.email, u.password);
    const res = await t.request('POST', '/api/command/ir.session.revoke_all', { token: a.access_token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: 3 });
    for (const p of [a, b, c]) {
      expectError(await me(p.access_token), 401, 'TOKEN_INVALID');
      expectError(await refresh(p.refresh_token), 401, 'TOKEN_INVALID');
    }
    // the user can log in again afterwards
    expect((await me((await t.login(u.email, u.password)).access_token)).status).toBe(200);
  });

  it('revoke-all touches only the target user: other users keep their sessions', async () => {
    const u = await newUser();
    const bystander = await newUser();
    const mine = await t.login(u.email, u.password);
    const theirs = await t.login(bystander.email, bystander.password);
    expect((await t.request('POST', '/api/command/ir.session.revoke_all', { token: mine.access_token, body: {} })).status).toBe(200);
    expect((await me(theirs.access_token)).status).toBe(200);
  });

  it('a non-admin cannot revoke another user\'s sessions (403 ACCESS_DENIED), and those sessions survive', async () => {
    const attacker = await newUser();
    const victim = await newUser();
    const victimPair = await t.login(victim.email, victim.password);
    const attackerPair = await t.login(attacker.email, attacker.password);
    const res = await t.request('POST', '/api/command/ir.session.revoke_all', { token: attackerPair.access_token, body: { user_id: victim.id } });
    expectError(res, 403, 'ACCESS_DENIED');
    expect((await me(victimPair.access_token)).status).toBe(200);
  });

  it('an admin can revoke another user\'s sessions', async () => {
    const victim = await newUser();
    const pair = await t.login(victim.email, victim.password);
    const res = await t.request('POST', '/api/command/ir.session.revoke_all', { token: admin, body: { user_id: victim.id } });
    expect(res.status).toBe(200);
    expect(res.body.revoked).toBe(1);
    expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
    expectError(await refresh(pair.refresh_token), 401, 'TOKEN_INVALID');
  });

  it('revoke-all with a malformed user_id is refused with a 4xx error envelope', async () => {
    const res = await t.request('POST', '/api/command/ir.session.revoke_all', { token: admin, body: { user_id: 'not-a-uuid' } });
    expectError(res, 422, 'VALIDATION_FAILED');
  });
});

describe('ir.session visibility', () => {
  it('a user sees only their own sessions through the generic read API, without the refresh-token hash', async () => {
    const u = await newUser();
    const other = await newUser();
    const pair = await t.login(u.email, u.password);
    await t.login(other.email, other.password);
    const res = await t.request('GET', '/api/data/ir.session', { token: pair.access_token });
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThanOrEqual(1);
    for (const s of res.body.items) {
      expect(s.user_id).toBe(u.id);
      expect(s).not.toHaveProperty('refresh_token_hash');
    }
  });

  it('sessions cannot be written through the generic API by a user (403 ACCESS_DENIED)', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, u.password);
    const [row] = (await t.request('GET', '/api/data/ir.session', { token: pair.access_token })).body.items;
    expectError(await t.request('PATCH', `/api/data/ir.session/${row.id}`, { token: pair.access_token, body: { revoked: false } }), 403, 'ACCESS_DENIED');
  });
});
