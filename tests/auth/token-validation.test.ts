/**
 * The bearer middleware and the JWT checks: every route needs a valid access token unless it
 * opts out; expired, tampered, wrongly signed, unsigned (`alg: none`) and other-algorithm
 * tokens are all refused with 401 before any handler runs. Production refuses the public key.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { decodeJwt, expectError, PLACEHOLDER_KEY, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

let t: TestServer;
let pair: TokenPair;
let claims: Record<string, any>;
beforeAll(async () => {
  t = await startTestServer();
  pair = await t.loginAdmin();
  claims = decodeJwt(pair.access_token).payload;
});
afterAll(async () => {
  await t?.close();
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const key = (s: string) => new TextEncoder().encode(s);
const me = (token: string) => t.request('GET', '/api/auth/me', { token });

/** A token with the claims of the live admin session, signed as asked. */
function sign(opts: { alg?: string; secret?: string; exp?: number; iat?: number; extra?: object } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new jose.SignJWT({ tenant_id: claims.tenant_id, role: claims.role, sid: claims.sid, ...(opts.extra ?? {}) })
    .setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setJti(crypto.randomUUID())
    .setIssuedAt(opts.iat ?? now)
    .setExpirationTime(opts.exp ?? now + 600)
    .sign(key(opts.secret ?? t.jwtKey));
}

describe('bearer middleware', () => {
  it('a request without a bearer token is 401 UNAUTHENTICATED', async () => {
    expectError(await t.request('GET', '/api/auth/me'), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', '/api/data/res.country'), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', '/api/base/ping'), 401, 'UNAUTHENTICATED');
  });

  it('a malformed Authorization header (not "Bearer <token>") is 401 UNAUTHENTICATED', async () => {
    expectError(await t.request('GET', '/api/auth/me', { headers: { authorization: `Basic ${pair.access_token}` } }), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', '/api/auth/me', { headers: { authorization: 'Bearer' } }), 401, 'UNAUTHENTICATED');
  });

  it('a garbage bearer token is 401 TOKEN_INVALID', async () => {
    expectError(await me('not-a-jwt'), 401, 'TOKEN_INVALID');
  });

  it('a refresh token used as a bearer token is 401 TOKEN_INVALID', async () => {
    expectError(await me(pair.refresh_token), 401, 'TOKEN_INVALID');
  });

  it('the handler does not run on a 401: a create with a bad token writes nothing', async () => {
    const before = (await t.request('GET', '/api/data/crm.lead/count', { token: pair.access_token })).body.count;
    expectError(await t.request('POST', '/api/data/crm.lead', { token: 'nope', body: { name: 'ghost' } }), 401, 'TOKEN_INVALID');
    expectError(await t.request('POST', '/api/data/crm.lead', { body: { name: 'ghost' } }), 401, 'UNAUTHENTICATED');
    expect((await t.request('GET', '/api/data/crm.lead/count', { token: pair.access_token })).body.count).toBe(before);
  });

  it('public routes /health, /api/auth/login and /api/auth/refresh need no token', async () => {
    const health = await t.request('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect((await t.tryLogin('admin@example.com', 'admin-pass-1')).status).toBe(200);
    const fresh = await t.loginAdmin();
    expect((await t.request('POST', '/api/auth/refresh', { body: { refresh_token: fresh.refresh_token } })).status).toBe(200);
  });

  it('a valid access token opens authenticated routes', async () => {
    const ping = await t.request('GET', '/api/base/ping', { token: pair.access_token });
    expect(ping.status).toBe(200);
    expect(ping.body.tenant_id).toBe('default');
  });

  it('unknown routes answer 404 ROUTE_NOT_FOUND in the error envelope', async () => {
    expectError(await t.request('GET', '/api/nowhere'), 404, 'ROUTE_NOT_FOUND');
  });
});

describe('access-token verification', () => {
  it('a correctly signed token for the live session is accepted (control for the cases below)', async () => {
    expect((await me(await sign())).status).toBe(200);
  });

  it('an expired access token is 401 TOKEN_EXPIRED', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await sign({ iat: now - 3600, exp: now - 60 });
    const res = await me(expired);
    expectError(res, 401, 'TOKEN_EXPIRED');
  });

  it('a tampered payload (role changed, signature kept) is 401 TOKEN_INVALID', async () => {
    const u = await t.createUser(pair.access_token, { email: 'tamper@example.com', password: 'tamper-pass-1' });
    const userPair = await t.login('tamper@example.com', 'tamper-pass-1');
    const [h, p, s] = userPair.access_token.split('.');
    const payload = decodeJwt(userPair.access_token).payload;
    expect(payload.sub).toBe(u.id);
    const forged = `${h}.${b64({ ...payload, role: 'admin' })}.${s}`;
    expectError(await me(forged), 401, 'TOKEN_INVALID');
    // even a change that keeps the claims' meaning (an extra claim) breaks the signature
    expectError(await me(`${h}.${b64({ ...payload, x: 1 })}.${s}`), 401, 'TOKEN_INVALID');
    // the untouched token still works
    expect(p).toBe(b64(payload));
    expect((await me(userPair.access_token)).status).toBe(200);
  });

  it('a token signed with another key is 401 TOKEN_INVALID', async () => {
    expectError(await me(await sign({ secret: 'another-secret-key-that-is-long-enough-32' })), 401, 'TOKEN_INVALID');
  });

  it('an unsigned token (alg: none) is 401 TOKEN_INVALID', async () => {
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, iat: now, exp: now + 600, jti: crypto.randomUUID() })}.`;
    expectError(await me(unsigned), 401, 'TOKEN_INVALID');
    // also with a junk signature segment
    expectError(await me(`${unsigned}c2ln`), 401, 'TOKEN_INVALID');
  });

  it('an HS512 token (right key, other algorithm) is 401 TOKEN_INVALID when HS256 is configured', async () => {
    expectError(await me(await sign({ alg: 'HS512' })), 401, 'TOKEN_INVALID');
  });

  it('a token signed with the public placeholder key (the old default) is 401 TOKEN_INVALID: the server signs with a key of its own', async () => {
    expectError(await me(await sign({ secret: PLACEHOLDER_KEY })), 401, 'TOKEN_INVALID');
    // the same claims signed with the server's key are a valid token: only the key made the difference
    expect((await me(await sign())).status).toBe(200);
  });

  it('a correctly signed token whose session does not exist is 401 TOKEN_INVALID', async () => {
    expectError(await me(await sign({ extra: { sid: crypto.randomUUID() } })), 401, 'TOKEN_INVALID');
  });

  it('a correctly signed token lacking a required claim (sid) is 401 TOKEN_INVALID', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await new jose.SignJWT({ tenant_id: 'default', role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(claims.sub).setJti(crypto.randomUUID())
      .setIssuedAt(now).setExpirationTime(now + 600).sign(key(t.jwtKey));
    expectError(await me(token), 401, 'TOKEN_INVALID');
  });

  it('a correctly signed token of the live session without exp (it would never expire) or without iat is 401 TOKEN_INVALID', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = () => new jose.SignJWT({ tenant_id: claims.tenant_id, role: claims.role, sid: claims.sid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(claims.sub).setJti(crypto.randomUUID());
    expectError(await me(await base().setIssuedAt(now).sign(key(PLACEHOLDER_KEY))), 401, 'TOKEN_INVALID');
    expectError(await me(await base().setExpirationTime(now + 600).sign(key(PLACEHOLDER_KEY))), 401, 'TOKEN_INVALID');
  });
});

describe('configured algorithm', () => {
  it('with JWT_ALGORITHM=HS512, issued tokens are HS512 and HS256 tokens are refused', async () => {
    const s = await startTestServer({ JWT_ALGORITHM: 'HS512' });
    try {
      const p = await s.loginAdmin();
      expect(decodeJwt(p.access_token).header.alg).toBe('HS512');
      expect((await s.request('GET', '/api/auth/me', { token: p.access_token })).status).toBe(200);
      const c = decodeJwt(p.access_token).payload;
      const hs256 = await new jose.SignJWT({ tenant_id: c.tenant_id, role: c.role, sid: c.sid })
        .setProtectedHeader({ alg: 'HS256' }).setSubject(c.sub).setJti(crypto.randomUUID())
        .setIssuedAt().setExpirationTime('10m').sign(key(s.jwtKey));
      expectError(await s.request('GET', '/api/auth/me', { token: hs256 }), 401, 'TOKEN_INVALID');
    } finally {
      await s.close();
    }
  });
});

describe('production key check', () => {
  const boot = (extra: Record<string, string>) => Kernel.boot({
    settings: loadSettings({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'fw-keys-')), ACTIVE_MODULES: 'base,auth', LOG_LEVEL: 'silent', NODE_ENV: 'production', ...extra }),
    worker: false,
    log: () => {},
  });

  it('NODE_ENV=production with the placeholder JWT key: Kernel.boot rejects with INSECURE_JWT_KEY, even with ALLOW_PUBLIC_DEV_KEYS', async () => {
    await expect(boot({ JWT_SECRET_KEY: PLACEHOLDER_KEY })).rejects.toMatchObject({ code: 'INSECURE_JWT_KEY' });
    await expect(boot({ JWT_SECRET_KEY: PLACEHOLDER_KEY, ALLOW_PUBLIC_DEV_KEYS: 'true' })).rejects.toMatchObject({ code: 'INSECURE_JWT_KEY' });
  });

  it('a short JWT key is refused too (INSECURE_JWT_KEY)', async () => {
    await expect(boot({ JWT_SECRET_KEY: 'short' })).rejects.toMatchObject({ code: 'INSECURE_JWT_KEY' });
  });

  it('NODE_ENV=production with a real key boots', async () => {
    const kernel = await boot({ JWT_SECRET_KEY: crypto.randomBytes(32).toString('hex') });
    await kernel.close();
  });
});
