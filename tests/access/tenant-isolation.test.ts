/**
 * Cross-tenant isolation, on SQLite (one file per tenant) and PostgreSQL (one database per
 * tenant): the tenant of an authenticated request comes from the access token's `tenant_id`
 * claim only, so a token of tenant A only ever reads A's data, and a forged X-Tenant header on
 * an authenticated request changes nothing.
 */
import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, expectError, rand, startTestServer,
  type Provider, type TestServer,
} from '../helpers/server.ts';

function isolationSuite(provider: Provider) {
  describe(`tenant isolation on ${provider}`, () => {
    let t: TestServer;
    const tenantA = `a-${rand()}`;
    const tenantB = `b-${rand()}`;
    let tokenA = '';
    let tokenB = '';
    let leadA = '';
    let leadB = '';

    beforeAll(async () => {
      t = await startTestServer({}, { provider });
      await t.provisionTenant(tenantA);
      await t.provisionTenant(tenantB);
      tokenA = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, tenantA)).access_token;
      tokenB = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, tenantB)).access_token;
      const a = await t.request('POST', '/api/data/crm.lead', { token: tokenA, body: { name: `lead of ${tenantA}` } });
      const b = await t.request('POST', '/api/data/crm.lead', { token: tokenB, body: { name: `lead of ${tenantB}` } });
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      leadA = a.body.id;
      leadB = b.body.id;
    });
    afterAll(async () => {
      // close() drops this server's tenant databases (PostgreSQL) or its temp folder (SQLite)
      await t?.close();
    });

    it('logins to tenant A and tenant B (X-Tenant) carry their tenant in the token', async () => {
      expect(decodeJwt(tokenA).payload.tenant_id).toBe(tenantA);
      expect(decodeJwt(tokenB).payload.tenant_id).toBe(tenantB);
      expect((await t.request('GET', '/api/auth/me', { token: tokenA })).body.tenant_id).toBe(tenantA);
    });

    it('each token sees only its own tenant\'s lead', async () => {
      const a = await t.request('GET', '/api/data/crm.lead', { token: tokenA });
      const b = await t.request('GET', '/api/data/crm.lead', { token: tokenB });
      expect(a.body.items.map((l: { id: string }) => l.id)).toEqual([leadA]);
      expect(b.body.items.map((l: { id: string }) => l.id)).toEqual([leadB]);
      expect((await t.request('GET', '/api/data/crm.lead/count', { token: tokenA })).body.count).toBe(1);
    });

    it('a token of tenant A cannot read, update or delete a record of tenant B by id (404)', async () => {
      expectError(await t.request('GET', `/api/data/crm.lead/${leadB}`, { token: tokenA }), 404, 'RECORD_NOT_FOUND');
      expectError(await t.request('PATCH', `/api/data/crm.lead/${leadB}`, { token: tokenA, body: { name: 'x' } }), 404, 'RECORD_NOT_FOUND');
      expectError(await t.request('DELETE', `/api/data/crm.lead/${leadB}`, { token: tokenA }), 404, 'RECORD_NOT_FOUND');
      expect((await t.request('GET', `/api/data/crm.lead/${leadB}`, { token: tokenB })).body.name).toBe(`lead of ${tenantB}`);
    });

    it('a forged X-Tenant header on an authenticated request changes nothing', async () => {
      const headers = { 'x-tenant': tenantB };
      const list = await t.request('GET', '/api/data/crm.lead', { token: tokenA, headers });
      expect(list.body.items.map((l: { id: string }) => l.id)).toEqual([leadA]);
      expect((await t.request('GET', '/api/base/ping', { token: tokenA, headers })).body.tenant_id).toBe(tenantA);
      expect((await t.request('GET', '/api/auth/me', { token: tokenA, headers })).body.tenant_id).toBe(tenantA);
      expectError(await t.request('GET', `/api/data/crm.lead/${leadB}`, { token: tokenA, headers }), 404, 'RECORD_NOT_FOUND');
      // a write lands in the token's tenant, not the header's
      const created = await t.request('POST', '/api/data/crm.lead', { token: tokenA, headers, body: { name: 'written with a forged header' } });
      expect(created.status).toBe(201);
      expectError(await t.request('GET', `/api/data/crm.lead/${created.body.id}`, { token: tokenB }), 404, 'RECORD_NOT_FOUND');
      expect((await t.request('GET', `/api/data/crm.lead/${created.body.id}`, { token: tokenA })).status).toBe(200);
    });

    it('a refresh stays in the refresh token\'s tenant whatever X-Tenant says', async () => {
      const pair = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, tenantA);
      const res = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token }, headers: { 'x-tenant': tenantB } });
      expect(res.status).toBe(200);
      expect(decodeJwt(res.body.access_token).payload.tenant_id).toBe(tenantA);
    });

    it('a refresh token moved to the other tenant (prefix rewritten) is unknown there: 401 TOKEN_INVALID', async () => {
      const pair = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, tenantA);
      const moved = `${tenantB}.${pair.refresh_token.split('.')[1]}`;
      expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: moved } }), 401, 'TOKEN_INVALID');
    });

    it('a signed token whose tenant_id claim is switched to B finds no session there: 401', async () => {
      // only someone holding the signing key could do this; the session check still holds
      const c = decodeJwt(tokenA).payload;
      const switched = await new jose.SignJWT({ tenant_id: tenantB, role: c.role, sid: c.sid })
        .setProtectedHeader({ alg: 'HS256' }).setSubject(c.sub).setJti(crypto.randomUUID())
        .setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(t.jwtKey));
      expectError(await t.request('GET', '/api/data/crm.lead', { token: switched }), 401, 'TOKEN_INVALID');
    });

    it('a user of tenant A cannot log in to tenant B', async () => {
      const email = `only-a-${rand()}@example.com`;
      await t.createUser(tokenA, { email, password: 'only-a-pass-1' });
      expect((await t.tryLogin(email, 'only-a-pass-1', tenantA)).status).toBe(200);
      expectError(await t.tryLogin(email, 'only-a-pass-1', tenantB), 401, 'AUTHENTICATION_FAILED');
    });

    it('the tenant can also be named by the `tenant` field of the login body', async () => {
      const res = await t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, tenant: tenantB } });
      expect(res.status).toBe(200);
      expect(decodeJwt(res.body.access_token).payload.tenant_id).toBe(tenantB);
    });

    it('a login naming a tenant that was never provisioned fails exactly like wrong credentials (401 AUTHENTICATION_FAILED) and creates no database', async () => {
      const ghost = `ghost-${rand()}`;
      const wrong = await t.tryLogin(ADMIN_EMAIL, 'wrong-password-1', tenantA);
      expectError(wrong, 401, 'AUTHENTICATION_FAILED');
      for (const res of [
        await t.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD, ghost),
        await t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, tenant: ghost } }),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual(wrong.body);
      }
      // GraphQL: the login mutation, and a field that needs a user, answer as they do for a real tenant
      const gql = (tenant: string, query: string) => t.request('POST', '/graphql', { headers: { 'x-tenant': tenant }, body: { query } });
      const login = (password: string) => `mutation { login(email: "${ADMIN_EMAIL}", password: "${password}") { access_token } }`;
      const viaGql = await gql(ghost, login(ADMIN_PASSWORD));
      const wrongViaGql = await gql(tenantA, login('wrong-password-1'));
      expect(viaGql.body.errors?.[0]?.extensions?.code).toBe('AUTHENTICATION_FAILED');
      expect([viaGql.status, viaGql.body]).toEqual([wrongViaGql.status, wrongViaGql.body]);
      const me = await gql(ghost, '{ me { id } }');
      const meKnown = await gql(tenantA, '{ me { id } }');
      expect([me.status, me.body]).toEqual([meKnown.status, meKnown.body]);
      // a refresh token naming an unknown tenant is just an unknown token, over REST and GraphQL
      expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: `${ghost}.${'A'.repeat(43)}` } }), 401, 'TOKEN_INVALID');
      const refresh = await gql(ghost, `mutation { refresh(refresh_token: "${ghost}.${'A'.repeat(43)}") { access_token } }`);
      expect(refresh.body.errors?.[0]?.extensions?.code).toBe('TOKEN_INVALID');
      expect(await t.kernel.tenants.list()).not.toContain(ghost);
    });

    it('a correctly signed token naming a tenant that does not exist is 401 TOKEN_INVALID on REST and GraphQL, and creates no database', async () => {
      // only someone holding the signing key could make it; verifying it must still create nothing
      const ghost = `ghost-${rand()}`;
      const c = decodeJwt(tokenA).payload;
      const forged = await new jose.SignJWT({ tenant_id: ghost, role: 'admin', sid: c.sid })
        .setProtectedHeader({ alg: 'HS256' }).setSubject(c.sub).setJti(crypto.randomUUID())
        .setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(t.jwtKey));
      expectError(await t.request('GET', '/api/data/crm.lead', { token: forged }), 401, 'TOKEN_INVALID');
      expectError(await t.request('GET', '/api/auth/me', { token: forged }), 401, 'TOKEN_INVALID');
      const gql = await t.request('POST', '/graphql', { token: forged, body: { query: '{ me { id } }' } });
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('TOKEN_INVALID');
      expect(await t.kernel.tenants.list()).not.toContain(ghost);
    });

    it('a live session of a tenant that was dropped is 401 TOKEN_INVALID (its cached session included), and the tenant is not created again', async () => {
      const gone = `gone-${rand()}`;
      await t.provisionTenant(gone);
      const token = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, gone)).access_token;
      expect((await t.request('GET', '/api/auth/me', { token })).status).toBe(200);
      await t.kernel.tenants.drop(gone);
      expectError(await t.request('GET', '/api/auth/me', { token }), 401, 'TOKEN_INVALID');
      expect(await t.kernel.tenants.list()).not.toContain(gone);
    });

    it('an invalid tenant name on login is refused with 400 INVALID_TENANT', async () => {
      expectError(await t.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD, '../etc'), 400, 'INVALID_TENANT');
    });
  });
}

isolationSuite('sqlite');
isolationSuite('postgresql');
