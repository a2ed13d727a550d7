/**
 * The auth app's REST routes and the answers its commands give API clients
 * (src/apps/auth/index.ts): where the four routes are served, how they read a body that is
 * missing or not a JSON object, the stable code, status and message of the refusals a client
 * has to act on, the reason a revoke-all records, and a login that comes through no transport
 * (in-process: no client address, no User-Agent).
 * A real kernel behind the real server, SQLite files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/apps/auth/services/sessions.ts';
import { anonymousPrincipal } from '../../src/kernel/env.ts';
import { gql, gqlError } from '../helpers/api.ts';
import { expectFwError } from '../helpers/kernel.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

describe('the routes', () => {
  it('login is POST /api/auth/login, me GET /api/auth/me, refresh POST /api/auth/refresh and logout POST /api/auth/logout', async () => {
    // a server of its own, built inside the test: the routes are registered while it is built
    const s = await startTestServer();
    try {
      const login = await s.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      expect(login.body.token_type).toBe('bearer');

      const me = await s.request('GET', '/api/auth/me', { token: login.body.access_token });
      expect(me.status, JSON.stringify(me.body)).toBe(200);
      expect(me.body).toMatchObject({ email: ADMIN_EMAIL, role: 'admin', tenant_id: 'default' });

      const refreshed = await s.request('POST', '/api/auth/refresh', { body: { refresh_token: login.body.refresh_token } });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect(refreshed.body.refresh_token).not.toBe(login.body.refresh_token);
      expect(decodeJwt(refreshed.body.access_token).payload.sid).toBe(decodeJwt(login.body.access_token).payload.sid);

      const out = await s.request('POST', '/api/auth/logout', { token: refreshed.body.access_token });
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      expect(out.body).toEqual({ revoked: true });
      expectError(await s.request('GET', '/api/auth/me', { token: refreshed.body.access_token }), 401, 'TOKEN_INVALID');
    } finally {
      await s.close();
    }
  });
});

// The route test above builds its own server and the ones below share one: a server that fails
// to build (a route registered at no path) must fail that test, not a beforeAll all tests depend on.
describe('on a shared server', () => {
  let t: TestServer;
  let admin: string;
  const OTHER = `other-${rand()}`;

  beforeAll(async () => {
    t = await startTestServer();
    await t.provisionTenant(OTHER);
    admin = (await t.loginAdmin()).access_token;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newUser() {
    const email = `routes-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'routes-pass-1' });
    return { id: user.id as string, email, pair: await t.login(email, 'routes-pass-1') };
  }

  const familyRows = async (sid: string) => (await t.sessionRows()).filter((r) => r.family_id === sid);

  describe('bodies that are missing or not a JSON object read as an empty body', () => {
    const json = { 'content-type': 'application/json' };
    const BODIES: Record<string, { body?: unknown; headers?: Record<string, string> }> = {
      'no body': {},
      'a JSON null': { body: 'null', headers: json },
      'a JSON array': { body: [{ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }] },
      'a JSON string': { body: '"admin@example.com"', headers: json },
    };

    for (const [what, o] of Object.entries(BODIES)) {
      it(`login with ${what}: 422 VALIDATION_FAILED, email and password required`, async () => {
        const res = await t.request('POST', '/api/auth/login', o);
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(res.body.error.message).toBe('"email" is required; "password" is required');
      });

      it(`refresh with ${what}: 401 TOKEN_INVALID, malformed refresh token`, async () => {
        const res = await t.request('POST', '/api/auth/refresh', o);
        expectError(res, 401, 'TOKEN_INVALID');
        expect(res.body.error.message).toBe('malformed refresh token');
      });
    }
  });

  describe('refusals a client acts on: code, status and message', () => {
    it('a refresh token of another tenant, sent to that tenant (GraphQL with X-Tenant), is 400 TENANT_MISMATCH "the refresh token belongs to another tenant"', async () => {
      const pair = await t.loginAdmin();
      const res = await gql(t, 'mutation ($token: String!) { refresh(refresh_token: $token) { access_token } }', { token: pair.refresh_token }, { headers: { 'x-tenant': OTHER } });
      const err = gqlError(res, 'TENANT_MISMATCH', 400);
      expect(err.message).toBe('the refresh token belongs to another tenant');
      // refused before anything was rotated: the token still works in its own tenant
      expect((await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
    });

    it('a retry key under 16 characters is 422 VALIDATION_FAILED "\\"retry_key\\" must be 16 to 64 characters"', async () => {
      const pair = await t.loginAdmin();
      const res = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token, retry_key: 'k'.repeat(15) } });
      expectError(res, 422, 'VALIDATION_FAILED');
      expect(res.body.error.message).toBe('"retry_key" must be 16 to 64 characters');
      expect(res.body.error.details.errors).toEqual([{ field: 'retry_key', code: 'TOO_SHORT', message: '"retry_key" must be at least 16 characters' }]);
    });

    it('a non-admin revoking another user\'s sessions is 403 ACCESS_DENIED "only an admin may revoke the sessions of another user"', async () => {
      const attacker = await newUser();
      const victim = await newUser();
      const res = await t.request('POST', '/api/command/ir.session.revoke_all', { token: attacker.pair.access_token, body: { user_id: victim.id } });
      expectError(res, 403, 'ACCESS_DENIED');
      expect(res.body.error.message).toBe('only an admin may revoke the sessions of another user');
      expect((await familyRows(decodeJwt(victim.pair.access_token).payload.sid)).map((r) => r.revoked)).toEqual([false]);
    });
  });

  describe('revoke-all', () => {
    it('the sessions a revoke-all ends are recorded with reason revoke_all, by the user or by an admin', async () => {
      const self = await newUser();
      const second = await t.login(self.email, 'routes-pass-1');
      expect((await t.request('POST', '/api/command/ir.session.revoke_all', { token: self.pair.access_token, body: {} })).body).toEqual({ revoked: 2 });
      for (const pair of [self.pair, second]) {
        expect((await familyRows(decodeJwt(pair.access_token).payload.sid)).map((r) => [r.revoked, r.revoked_reason])).toEqual([[true, 'revoke_all']]);
      }

      const other = await newUser();
      expect((await t.request('POST', '/api/command/ir.session.revoke_all', { token: admin, body: { user_id: other.id } })).body).toEqual({ revoked: 1 });
      expect((await familyRows(decodeJwt(other.pair.access_token).payload.sid)).map((r) => [r.revoked, r.revoked_reason])).toEqual([[true, 'revoke_all']]);
    });
  });

  describe('a login through no transport', () => {
    it('an in-process login (no client) issues a working pair; its session records no address and no User-Agent', async () => {
      const pair = await t.kernel.dispatch<TokenPair>('auth.login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, anonymousPrincipal('default'));
      expect(pair.token_type).toBe('bearer');
      expect((await t.request('GET', '/api/auth/me', { token: pair.access_token })).body.email).toBe(ADMIN_EMAIL);
      const [row] = await familyRows(decodeJwt(pair.access_token).payload.sid);
      expect(row).toMatchObject({ ip: null, os: null, browser: null, revoked: false });
    });

    it('an in-process login with a wrong password is 401 AUTHENTICATION_FAILED', async () => {
      const err = await expectFwError(t.kernel.dispatch('auth.login', { email: ADMIN_EMAIL, password: 'not-the-password' }, anonymousPrincipal('default')), 401, 'AUTHENTICATION_FAILED');
      expect(err.message).toBe((await t.tryLogin(ADMIN_EMAIL, 'not-the-password')).body.error.message);
    });
  });
});
