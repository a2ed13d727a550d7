/**
 * Login, /me and refresh-token rotation: the token pair, the access-token claims, rotation, reuse
 * detection revoking the whole login (session family), and atomic rotation under concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('login', () => {
  it('returns access_token, refresh_token, token_type "bearer" and expires_in 1800 by default', async () => {
    const res = await t.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expect(res.body.token_type).toBe('bearer');
    expect(res.body.expires_in).toBe(1800);
    expect(res.body.access_token.split('.')).toHaveLength(3);
    // opaque and high entropy: not a JWT, at least 32 random bytes after the tenant prefix
    expect(res.body.refresh_token.split('.')).toHaveLength(2);
    expect(res.body.refresh_token.split('.')[1].length).toBeGreaterThanOrEqual(43);
  });

  it('the access token is an HS256 JWT with sub, tenant_id, role, sid, iat, exp and jti', async () => {
    const pair = await t.loginAdmin();
    const { header, payload } = decodeJwt(pair.access_token);
    expect(header.alg).toBe('HS256');
    expect(Object.keys(payload).sort()).toEqual(['exp', 'iat', 'jti', 'role', 'sid', 'sub', 'tenant_id']);
    const me = await t.request('GET', '/api/auth/me', { token: pair.access_token });
    expect(payload.sub).toBe(me.body.id);
    expect(payload.tenant_id).toBe('default');
    expect(payload.role).toBe('admin');
    expect(payload.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.exp - payload.iat).toBe(1800);
    expect(Math.abs(payload.iat - Date.now() / 1000)).toBeLessThan(60);
  });

  it('every login gets its own session (sid) and token id (jti)', async () => {
    const a = decodeJwt((await t.loginAdmin()).access_token).payload;
    const b = decodeJwt((await t.loginAdmin()).access_token).payload;
    expect(a.sid).not.toBe(b.sid);
    expect(a.jti).not.toBe(b.jti);
  });

  it('a wrong password or an unknown email answers 401 AUTHENTICATION_FAILED with the same message', async () => {
    const wrong = await t.tryLogin(ADMIN_EMAIL, 'not-the-password');
    const unknown = await t.tryLogin('nobody@example.com', 'not-the-password');
    expectError(wrong, 401, 'AUTHENTICATION_FAILED');
    expectError(unknown, 401, 'AUTHENTICATION_FAILED');
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it('the email is matched case-insensitively', async () => {
    const res = await t.tryLogin(`  ${ADMIN_EMAIL.toUpperCase()} `, ADMIN_PASSWORD);
    expect(res.status).toBe(200);
  });

  it('a login without email or password is refused with a 4xx error envelope', async () => {
    const res = await t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL } });
    expectError(res, 422);
  });
});

describe('expires_in follows JWT_ACCESS_TOKEN_EXPIRE_MINUTES', () => {
  it('expires_in is 60 × JWT_ACCESS_TOKEN_EXPIRE_MINUTES and matches exp − iat', async () => {
    const s = await startTestServer({ JWT_ACCESS_TOKEN_EXPIRE_MINUTES: '5' });
    try {
      const pair = await s.loginAdmin();
      expect(pair.expires_in).toBe(300);
      const { payload } = decodeJwt(pair.access_token);
      expect(payload.exp - payload.iat).toBe(300);
      const refreshed = await s.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } });
      expect(refreshed.body.expires_in).toBe(300);
    } finally {
      await s.close();
    }
  });
});

describe('me', () => {
  it('returns id, name, email, tenant_id, role and organization of the caller', async () => {
    const pair = await t.loginAdmin();
    const res = await t.request('GET', '/api/auth/me', { token: pair.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: ADMIN_EMAIL, name: 'Administrator', tenant_id: 'default', role: 'admin' });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.organization).toMatchObject({ name: 'Default Organization', code: 'default' });
    expect(res.body).not.toHaveProperty('password_hash');
  });
});

describe('refresh rotation and reuse detection', () => {
  it('login → me → refresh → reuse of the old refresh token is refused (401 TOKEN_INVALID) and revokes the whole login', async () => {
    const first = await t.loginAdmin();
    expect((await t.request('GET', '/api/auth/me', { token: first.access_token })).status).toBe(200);

    const r1 = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(r1.status).toBe(200);
    expect(r1.body.token_type).toBe('bearer');
    expect(r1.body.refresh_token).not.toBe(first.refresh_token);
    expect(r1.body.access_token).not.toBe(first.access_token);
    // the rotated pair belongs to the same login (same sid)
    expect(decodeJwt(r1.body.access_token).payload.sid).toBe(decodeJwt(first.access_token).payload.sid);
    expect((await t.request('GET', '/api/auth/me', { token: r1.body.access_token })).status).toBe(200);
    // before the reuse, the first access token is still good (rotation alone does not end the login)
    expect((await t.request('GET', '/api/auth/me', { token: first.access_token })).status).toBe(200);

    // replay of the rotated token: a stolen copy
    const reuse = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expectError(reuse, 401, 'TOKEN_INVALID');

    // the whole family is dead: the new refresh token and both access tokens of this login
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: r1.body.refresh_token } }), 401, 'TOKEN_INVALID');
    expectError(await t.request('GET', '/api/auth/me', { token: r1.body.access_token }), 401, 'TOKEN_INVALID');
    expectError(await t.request('GET', '/api/auth/me', { token: first.access_token }), 401, 'TOKEN_INVALID');
  });

  it('reuse detection revokes only that login: another login of the same user keeps working', async () => {
    const victim = await t.loginAdmin();
    const other = await t.loginAdmin();
    const rotated = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: victim.refresh_token } });
    expect(rotated.status).toBe(200);
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: victim.refresh_token } }), 401, 'TOKEN_INVALID');
    expect((await t.request('GET', '/api/auth/me', { token: other.access_token })).status).toBe(200);
    expect((await t.request('POST', '/api/auth/refresh', { body: { refresh_token: other.refresh_token } })).status).toBe(200);
  });

  it('the reuse revocation is recorded on the session rows (reason reuse_detected)', async () => {
    const pair = await t.loginAdmin();
    const sid = decodeJwt(pair.access_token).payload.sid;
    const r1 = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } });
    expect(r1.status).toBe(200);
    await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } });
    const family = (await t.sessionRows()).filter((r) => r.family_id === sid);
    expect(family).toHaveLength(2);
    expect(family.every((r) => r.revoked === true)).toBe(true);
    expect(family.map((r) => r.revoked_reason)).toEqual(['rotated', 'reuse_detected']);
  });

  it('N parallel refreshes with the same token: exactly one succeeds, the others get 401 TOKEN_INVALID', async () => {
    const pair = await t.loginAdmin();
    const N = 10;
    const results = await Promise.all(Array.from({ length: N }, () =>
      t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 401, 'TOKEN_INVALID');
  });

  it('an unknown or malformed refresh token is refused with 401 TOKEN_INVALID', async () => {
    const pair = await t.loginAdmin();
    const [tenant, secret] = pair.refresh_token.split('.');
    const flipped = `${tenant}.${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`;
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: flipped } }), 401, 'TOKEN_INVALID');
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: 'garbage' } }), 401, 'TOKEN_INVALID');
    expectError(await t.request('POST', '/api/auth/refresh', { body: {} }), 401, 'TOKEN_INVALID');
    // an access token is not a refresh token
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.access_token } }), 401, 'TOKEN_INVALID');
  });

  it('an expired refresh token (expires_at in the past) is refused with 401', async () => {
    const pair = await t.loginAdmin();
    const sid = decodeJwt(pair.access_token).payload.sid;
    const db = await t.kernel.tenants.get('default');
    const { delegateOf } = await import('../../src/kernel/data/delegate.ts');
    await delegateOf(db, t.kernel.registry.model('ir.session')).updateMany({
      where: { family_id: sid }, data: { expires_at: new Date(Date.now() - 1000) },
    });
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } }), 401, 'TOKEN_INVALID');
  });
});

describe('refresh rotation on PostgreSQL (real concurrent transactions)', () => {
  let pg: TestServer;
  beforeAll(async () => {
    pg = await startTestServer({ PG_POOL_MAX: '10' }, { provider: 'postgresql' });
  });
  afterAll(async () => {
    await pg?.close();
  });

  it('N parallel refreshes with the same token: exactly one succeeds', async () => {
    const pair = await pg.loginAdmin();
    const results = await Promise.all(Array.from({ length: 10 }, () =>
      pg.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 401, 'TOKEN_INVALID');
  });

  it('reuse of a rotated token revokes the family: the new refresh token and the access tokens are rejected', async () => {
    const first = await pg.loginAdmin();
    const second = (await pg.request('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } })).body;
    expectError(await pg.request('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } }), 401, 'TOKEN_INVALID');
    expectError(await pg.request('POST', '/api/auth/refresh', { body: { refresh_token: second.refresh_token } }), 401, 'TOKEN_INVALID');
    expectError(await pg.request('GET', '/api/auth/me', { token: second.access_token }), 401, 'TOKEN_INVALID');
    expectError(await pg.request('GET', '/api/auth/me', { token: first.access_token }), 401, 'TOKEN_INVALID');
  });
});
