/**
 * The session service of src/apps/auth/services/sessions.ts: refresh-token shape and tenant,
 * the client description stored on a session, and the access-token check the middleware runs on
 * every request (`authenticate`) with its caches — a verified token is re-checked for expiry on
 * every use, a verified session is trusted for AUTH_SESSION_CACHE_SECONDS (at least 1 s) unless
 * this process revokes it. One real kernel behind the real server (SQLite files).
 */
import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import { describeClient, sha256, tenantOfRefreshToken } from '../../src/apps/auth/services/sessions.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { BadRequest, FwError, InvalidTokenError } from '../../src/kernel/errors.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, rand, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

const SECRET = 'A'.repeat(42) + 'z';

async function refusal(p: Promise<unknown>): Promise<FwError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err, 'should be refused').toBeInstanceOf(FwError);
  return err as FwError;
}

describe('refresh-token shape (tenantOfRefreshToken)', () => {
  it('<tenant>.<43 base64url characters> names its tenant', () => {
    expect(tenantOfRefreshToken(`acme.${SECRET}`)).toBe('acme');
    expect(tenantOfRefreshToken(`east-2.${'-_09aZ'.repeat(7)}x`)).toBe('east-2');
  });

  it('anything else is TOKEN_INVALID "malformed refresh token" before any tenant is looked at', () => {
    for (const token of [
      undefined, null, 42, '', 'acme', `acme.${SECRET}x`, `acme.${SECRET.slice(1)}`, `Acme.${SECRET}`, `ac me.${SECRET}`,
      `.${SECRET}`, `acme.${SECRET.slice(1)}+`, `acme.${SECRET.slice(1)}=`, `x.acme.${SECRET}`, `acme.${SECRET}\n`, ` acme.${SECRET}`,
    ]) {
      let err: unknown;
      try {
        tenantOfRefreshToken(token);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(token)).toBeInstanceOf(InvalidTokenError);
      expect((err as FwError).message).toBe('malformed refresh token');
    }
  });

  it('a well-shaped token whose prefix is not a valid tenant key is 400 INVALID_TENANT', () => {
    for (const tenant of ['-acme', 'acme-', 'a--b', 'x'.repeat(41)]) {
      expect(() => tenantOfRefreshToken(`${tenant}.${SECRET}`)).toThrow(BadRequest);
    }
  });
});

describe('client description (describeClient)', () => {
  it('os and browser are "<name> <version>" (the browser\'s major version)', () => {
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Safari/537.36';
    expect(describeClient(chrome)).toEqual({ os: 'Windows 10', browser: 'Chrome 120' });
  });

  it('a part without a version is its name alone', () => {
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
    expect(describeClient(firefox)).toEqual({ os: 'Linux', browser: 'Firefox 121' });
  });

  it('no User-Agent, or one nothing can be read from, describes nothing', () => {
    for (const ua of [null, undefined, '', 'xyz']) expect(describeClient(ua)).toEqual({ os: null, browser: null });
  });
});

describe('access-token check (SessionService.authenticate)', () => {
  let t: TestServer;
  let userId: string;
  const email = `sessions-${rand()}@example.com`;
  const password = 'right-pass-1';

  beforeAll(async () => {
    t = await startTestServer({ AUTH_SESSION_CACHE_SECONDS: '0' });
    const admin = await t.loginAdmin();
    const org = await t.createOrg(admin.access_token, 'Sessions Org');
    userId = (await t.createUser(admin.access_token, { email, password, organization: org })).id as string;
  });
  afterAll(async () => {
    await t?.close();
  });

  const sessions = async () => (await authServices(t.kernel)).sessions;
  /** Revokes a family straight in the database, as another server process would. */
  const revokeInDb = async (sid: string) => {
    const db = await t.kernel.tenants.get('default');
    await delegateOf(db, t.kernel.registry.model('ir.session')).updateMany({ where: { family_id: sid }, data: { revoked: true, revoked_reason: 'logout' } });
  };
  const forge = (claims: Record<string, unknown>, expSeconds: number) => new jose.SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expSeconds)
    .sign(new TextEncoder().encode(t.jwtKey));

  it('a valid token gives the user principal: user, tenant, role, groups (and the names they hold), language and organization from the database, sid from the token', async () => {
    const pair: TokenPair = await t.login(email, password);
    const claims = decodeJwt(pair.access_token).payload;
    const p = await (await sessions()).authenticate(pair.access_token);
    expect(p).toEqual({ kind: 'user', user_id: userId, tenant_id: 'default', role: 'user', groups: [], names: ['base.user', 'user'], lang: 'en', organization_id: expect.any(String), organization_ids: [p.organization_id], sid: claims.sid });
    const admin = await (await sessions()).authenticate((await t.loginAdmin()).access_token);
    expect(admin).toMatchObject({ kind: 'user', user_id: expect.any(String), role: 'admin' });
  });

  it('a verified session is trusted for at least 1 s (AUTH_SESSION_CACHE_SECONDS=0 counts as 1): a revocation by another process shows after that', async () => {
    const pair = await t.login(email, password);
    const sid = decodeJwt(pair.access_token).payload.sid as string;
    const s = await sessions();
    await s.authenticate(pair.access_token);
    await revokeInDb(sid);
    // still cached: this process did not see the revocation
    await expect(s.authenticate(pair.access_token)).resolves.toMatchObject({ sid });
    await new Promise((r) => setTimeout(r, 1200));
    const err = await refusal(s.authenticate(pair.access_token));
    expect(err).toMatchObject({ code: 'TOKEN_INVALID', message: 'the session has ended' });
  });

  it('a revocation in this process ends the session at once (the cache entry is dropped)', async () => {
    const pair = await t.login(email, password);
    const sid = decodeJwt(pair.access_token).payload.sid as string;
    const s = await sessions();
    await s.authenticate(pair.access_token);
    const db = await t.kernel.tenants.get('default');
    expect(await s.revokeFamily(db, 'default', sid, 'logout')).toBe(1);
    expect((await refusal(s.authenticate(pair.access_token))).message).toBe('the session has ended');
  });

  it('revokeAllForUser revokes every live session of the user and drops them from the cache', async () => {
    const a = await t.login(email, password);
    const b = await t.login(email, password);
    const s = await sessions();
    await s.authenticate(a.access_token);
    await s.authenticate(b.access_token);
    const db = await t.kernel.tenants.get('default');
    expect(await s.revokeAllForUser(db, 'default', userId, 'revoke_all')).toBeGreaterThanOrEqual(2);
    for (const pair of [a, b]) expect((await refusal(s.authenticate(pair.access_token))).code).toBe('TOKEN_INVALID');
    expect(await s.revokeAllForUser(db, 'default', userId, 'revoke_all')).toBe(0);
  });

  it('a verified token is checked for expiry again on every use', async () => {
    const pair = await t.loginAdmin();
    const claims = decodeJwt(pair.access_token).payload;
    const token = await forge({ sub: claims.sub, tenant_id: 'default', role: 'admin', sid: claims.sid }, 1);
    const s = await sessions();
    await expect(s.authenticate(token)).resolves.toMatchObject({ sid: claims.sid });
    await new Promise((r) => setTimeout(r, 2100));
    expect((await refusal(s.authenticate(token))).code).toBe('TOKEN_EXPIRED');
  });

  it('a signed token naming a session of another user, or no session, is TOKEN_INVALID "the session has ended"', async () => {
    const admin = decodeJwt((await t.loginAdmin()).access_token).payload;
    const s = await sessions();
    const otherUser = await forge({ sub: userId, tenant_id: 'default', role: 'user', sid: admin.sid }, 60);
    expect((await refusal(s.authenticate(otherUser))).message).toBe('the session has ended');
    const noSession = await forge({ sub: admin.sub, tenant_id: 'default', role: 'admin', sid: crypto.randomUUID() }, 60);
    expect((await refusal(s.authenticate(noSession))).message).toBe('the session has ended');
  });

  it('a signed token naming an invalid tenant key is TOKEN_INVALID, not a bad request', async () => {
    const admin = decodeJwt((await t.loginAdmin()).access_token).payload;
    const token = await forge({ sub: admin.sub, tenant_id: 'Not A Tenant', role: 'admin', sid: admin.sid }, 60);
    const err = await refusal((await sessions()).authenticate(token));
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect(err.message).toBe('Invalid token');
  });

  it('the session of an inactive user is refused: "the user is inactive"', async () => {
    const other = `inactive-${rand()}@example.com`;
    const admin = await t.loginAdmin();
    const user = await t.createUser(admin.access_token, { email: other, password });
    const pair = await t.login(other, password);
    // deactivated in the database only, so no hook revokes the session first
    const db = await t.kernel.tenants.get('default');
    await delegateOf(db, t.kernel.registry.model('res.user')).updateMany({ where: { record_uuid: user.id }, data: { is_active: false } });
    expect((await refusal((await sessions()).authenticate(pair.access_token))).message).toBe('the user is inactive');
  });

  it('the refresh token is stored only as its SHA-256 (hex)', async () => {
    const pair = await t.login(email, password);
    const rows = await t.sessionRows();
    expect(rows.some((r) => r.refresh_token_hash === sha256(pair.refresh_token))).toBe(true);
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('a refresh of a session ended by logout is refused "the session has been revoked" and the family keeps its reason', async () => {
    const pair = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const sid = decodeJwt(pair.access_token).payload.sid;
    expect((await t.request('POST', '/api/auth/logout', { token: pair.access_token })).status).toBe(200);
    const res = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'TOKEN_INVALID', message: 'the session has been revoked' });
    const rows = (await t.sessionRows()).filter((r) => r.family_id === sid);
    expect(rows.map((r) => r.revoked_reason)).toEqual(['logout']);
  });
});
