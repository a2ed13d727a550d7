/**
 * The web client's cookie mode of /api/auth (src/apps/auth/cookie.ts): with `X-Auth-Cookie: 1`
 * the refresh token (and the retry key of its rotation) travels only in an HttpOnly,
 * SameSite=Strict cookie scoped to /api/auth, and the body carries the access token alone;
 * without the header the routes keep the contract's JSON exchange.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, startTestServer, type Res, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t?.close(); });

const COOKIE_MODE = { 'x-auth-cookie': '1' };

/** Name, value and attributes of the one Set-Cookie header of a response. */
function setCookie(res: Res): { name: string; value: string; attrs: Map<string, string> } {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  expect(list, JSON.stringify(res.body)).toHaveLength(1);
  const [pair, ...attrs] = list[0].split(';').map((s) => s.trim());
  const eq = pair.indexOf('=');
  return {
    name: pair.slice(0, eq),
    value: pair.slice(eq + 1),
    attrs: new Map(attrs.map((a) => { const i = a.indexOf('='); return i < 0 ? [a.toLowerCase(), ''] : [a.slice(0, i).toLowerCase(), a.slice(i + 1)]; })),
  };
}

const cookieLogin = (headers: Record<string, string> = {}) =>
  t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers: { ...COOKIE_MODE, ...headers } });
const cookieRefresh = (cookie: string, headers: Record<string, string> = COOKIE_MODE, body: unknown = {}) =>
  t.request('POST', '/api/auth/refresh', { body, headers: { ...headers, cookie: `fw_refresh=${cookie}` } });

describe('cookie mode (X-Auth-Cookie: 1)', () => {
  it('login sets an HttpOnly, SameSite=Strict cookie on Path=/api/auth for the refresh lifetime, and the body has no refresh_token', async () => {
    const res = await cookieLogin();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    const c = setCookie(res);
    expect(c.name).toBe('fw_refresh');
    expect(c.attrs.get('path')).toBe('/api/auth');
    expect(c.attrs.has('httponly')).toBe(true);
    expect(c.attrs.get('samesite')).toBe('Strict');
    expect(c.attrs.get('max-age')).toBe(String(7 * 86_400));
    expect(c.attrs.has('secure')).toBe(false); // plain http, AUTH_COOKIE_SECURE=auto
    expect(c.attrs.has('domain')).toBe(false); // this host only
    const [token, key] = c.value.split('~');
    expect(token).toMatch(/^default\.[A-Za-z0-9_-]{43}$/);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // the cookie's token is the session's
    expect((await t.sessionRows()).some((r) => r.family_id === decodeJwt(res.body.access_token).payload.sid)).toBe(true);
  });

  it('refresh reads the cookie, rotates it (new token, new key) and answers without refresh_token; the old cookie is then reuse', async () => {
    const first = setCookie(await cookieLogin()).value;
    const res = await cookieRefresh(first);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.refresh_token).toBeUndefined();
    expect(typeof res.body.access_token).toBe('string');
    const second = setCookie(res);
    expect(second.attrs.get('path')).toBe('/api/auth');
    const [t1, k1] = first.split('~');
    const [t2, k2] = second.value.split('~');
    expect(t2).not.toBe(t1);
    expect(k2).not.toBe(k1);
    // the new cookie refreshes again
    expect((await cookieRefresh(second.value)).status).toBe(200);
    // the first cookie, presented again long after its rotation was used, is reuse: 401
    expect((await cookieRefresh(first)).status).toBe(401);
  });

  it('a refresh whose answer was lost is repeated with the same cookie: the retry key inside it makes it a retry, not reuse', async () => {
    const login = await cookieLogin();
    const sid = decodeJwt(login.body.access_token).payload.sid;
    const cookie = setCookie(login).value;
    const lost = await cookieRefresh(cookie);
    expect(lost.status).toBe(200); // …and the browser never saw this answer
    const again = await cookieRefresh(cookie);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const family = (await t.sessionRows()).filter((r) => r.family_id === sid).sort((a, b) => a.dbid - b.dbid);
    expect(family.map((r) => r.revoked_reason)).toEqual(['rotated', 'superseded', null]);
    // a copy of the token without the key is reuse, and ends the login
    const third = setCookie(again).value;
    expect((await cookieRefresh(third)).status).toBe(200);
    expect((await cookieRefresh(third.split('~')[0])).status).toBe(401);
    expect((await t.sessionRows()).filter((r) => r.family_id === sid).some((r) => r.revoked_reason === 'reuse_detected')).toBe(true);
  });

  it('refresh in cookie mode without a cookie is 401 TOKEN_INVALID; a token in the body is not read', async () => {
    const pair = await t.loginAdmin();
    const res = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token }, headers: COOKIE_MODE });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('TOKEN_INVALID');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('the cookie is not read without the header (a cross-site form cannot send one): the JSON contract applies', async () => {
    const cookie = setCookie(await cookieLogin()).value;
    const res = await cookieRefresh(cookie, {});
    expect(res.status).toBe(401); // no refresh_token in the body
    expect(res.headers['set-cookie']).toBeUndefined();
    // and the cookie still works in cookie mode (nothing was spent)
    expect((await cookieRefresh(cookie)).status).toBe(200);
  });

  it('logout in cookie mode revokes the login and clears the cookie', async () => {
    const login = await cookieLogin();
    const cookie = setCookie(login).value;
    const res = await t.request('POST', '/api/auth/logout', { token: login.body.access_token, headers: COOKIE_MODE });
    expect(res.status).toBe(200);
    const cleared = setCookie(res);
    expect(cleared.value).toBe('');
    expect(cleared.attrs.get('max-age')).toBe('0');
    expect(cleared.attrs.get('path')).toBe('/api/auth');
    expect((await cookieRefresh(cookie)).status).toBe(401);
  });
});

describe('the JSON contract (no header) is unchanged', () => {
  it('login and refresh return refresh_token in the body and set no cookie', async () => {
    const login = await t.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(login.status).toBe(200);
    expect(Object.keys(login.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expect(login.headers['set-cookie']).toBeUndefined();
    const refresh = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: login.body.refresh_token } });
    expect(refresh.status).toBe(200);
    expect(typeof refresh.body.refresh_token).toBe('string');
    expect(refresh.headers['set-cookie']).toBeUndefined();
    const logout = await t.request('POST', '/api/auth/logout', { token: refresh.body.access_token });
    expect(logout.status).toBe(200);
    expect(logout.headers['set-cookie']).toBeUndefined();
  });
});

describe('AUTH_COOKIE_SECURE', () => {
  it('auto marks the cookie Secure when the request came over https (X-Forwarded-Proto with TRUST_PROXY)', async () => {
    const proxied = await startTestServer({ TRUST_PROXY: 'true' });
    try {
      const res = await proxied.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers: { ...COOKIE_MODE, 'x-forwarded-proto': 'https' } });
      expect(setCookie(res).attrs.has('secure')).toBe(true);
    } finally {
      await proxied.close();
    }
  });

  it('always marks it Secure over plain http; never leaves it off', async () => {
    for (const [mode, secure] of [['always', true], ['never', false]] as const) {
      const s = await startTestServer({ AUTH_COOKIE_SECURE: mode });
      try {
        const res = await s.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers: { ...COOKIE_MODE, 'x-forwarded-proto': 'https' } });
        expect(setCookie(res).attrs.has('secure'), mode).toBe(secure);
      } finally {
        await s.close();
      }
    }
  });

  it('any other value stops the boot', async () => {
    const settings = loadSettings({ DATA_DIR: '/tmp/fw-never-used', ACTIVE_MODULES: 'base,auth', LOG_LEVEL: 'silent', AUTH_COOKIE_SECURE: 'sometimes' });
    await expect(Kernel.boot({ settings, worker: false, log: () => {} })).rejects.toThrow(/AUTH_COOKIE_SECURE must be auto, always or never/);
  });
});
