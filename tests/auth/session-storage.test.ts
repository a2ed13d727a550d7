/**
 * What an ir.session row stores: the SHA-256 of the refresh token (never the token), the
 * tenant, the user's record_uuid, the expiry, and os/browser parsed from the User-Agent.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, startTestServer, type TestServer } from '../helpers/server.ts';

const CHROME_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

describe('ir.session storage', () => {
  it('stores only the SHA-256 of the refresh token, never the token itself', async () => {
    const pair = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { headers: { 'user-agent': CHROME_ON_WINDOWS } });
    const sid = decodeJwt(pair.access_token).payload.sid;
    const rows = (await t.sessionRows()).filter((r) => r.family_id === sid);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.refresh_token_hash).toBe(sha256(pair.refresh_token));
    expect(row.refresh_token_hash).toMatch(/^[0-9a-f]{64}$/);
    const secret = pair.refresh_token.split('.')[1];
    for (const v of Object.values(row)) {
      if (typeof v === 'string') expect(v.includes(secret)).toBe(false);
    }
  });

  it('the row carries user_id (record_uuid), tenant_id, expires_at ≈ now + 7 days and revoked false', async () => {
    const pair = await t.loginAdmin();
    const claims = decodeJwt(pair.access_token).payload;
    const [row] = (await t.sessionRows()).filter((r) => r.family_id === claims.sid);
    expect(row.user_id).toBe(claims.sub);
    expect(row.tenant_id).toBe('default');
    expect(row.revoked).toBe(false);
    const days = ((row.expires_at as Date).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
  });

  it('a rotation stores the new token\'s hash and retires the old row (the old hash is never reused)', async () => {
    const pair = await t.loginAdmin();
    const next = (await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } })).body;
    const rows = (await t.sessionRows()).filter((r) => r.family_id === decodeJwt(pair.access_token).payload.sid);
    expect(rows.map((r) => r.refresh_token_hash)).toEqual([sha256(pair.refresh_token), sha256(next.refresh_token)]);
    expect(rows.map((r) => r.revoked)).toEqual([true, false]);
  });

  it('os and browser are parsed from a real User-Agent header', async () => {
    const chrome = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { headers: { 'user-agent': CHROME_ON_WINDOWS } });
    const firefox = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { headers: { 'user-agent': FIREFOX_ON_LINUX } });
    const rows = await t.sessionRows();
    const of = (p: { access_token: string }) => rows.find((r) => r.family_id === decodeJwt(p.access_token).payload.sid)!;
    expect(of(chrome)).toMatchObject({ os: 'Windows 10', browser: 'Chrome 120' });
    expect(of(firefox).os).toMatch(/^(Ubuntu|Linux)/);
    expect(of(firefox).browser).toBe('Firefox 121');
  });

  it('a refresh records the User-Agent of the refreshing client', async () => {
    const pair = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { headers: { 'user-agent': CHROME_ON_WINDOWS } });
    const next = await t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token }, headers: { 'user-agent': FIREFOX_ON_LINUX } });
    expect(next.status).toBe(200);
    const row = (await t.sessionRows()).find((r) => r.refresh_token_hash === sha256(next.body.refresh_token))!;
    expect(row.browser).toBe('Firefox 121');
  });

  it('without a User-Agent, os and browser stay empty', async () => {
    const pair = await t.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const row = (await t.sessionRows()).find((r) => r.refresh_token_hash === sha256(pair.refresh_token))!;
    expect(row.os).toBeNull();
    expect(row.browser).toBeNull();
  });

  it('the system principal reads sessions through fw.search without the private hash', async () => {
    const pair = await t.loginAdmin();
    const res = await t.kernel.dispatch<{ items: Record<string, unknown>[] }>('fw.search', { model: 'ir.session' }, systemPrincipal('default'));
    const row = res.items.find((r) => r.family_id === decodeJwt(pair.access_token).payload.sid)!;
    expect(row).toBeDefined();
    expect(row).not.toHaveProperty('refresh_token_hash');
    expect(row.user_id).toBe(decodeJwt(pair.access_token).payload.sub);
  });
});
