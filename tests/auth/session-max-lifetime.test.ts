/**
 * A login has an absolute lifetime, AUTH_SESSION_MAX_DAYS (30), counted from the login that
 * started its refresh family: refreshing cannot carry it further. Before, each refresh issued a
 * fresh 7-day refresh token, so a session refreshed once a week never ended.
 *
 * The passing of time is the family's first row made older in the tenant database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { decodeJwt, expectError, rand, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

const DAY = 86_400_000;
let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer({ AUTH_SESSION_MAX_DAYS: '30', JWT_REFRESH_TOKEN_EXPIRE_DAYS: '7' });
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

const refresh = (pair: TokenPair) => t.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } });
const me = (token: string) => t.request('GET', '/api/auth/me', { token });

/** A login of a new user; its family's first row made `ageMs` old. */
async function loginStartedAgo(ageMs: number): Promise<TokenPair> {
  const email = `life-${rand()}@example.com`;
  await t.createUser(admin, { email, password: 'life-pass-123' });
  const pair = await t.login(email, 'life-pass-123');
  const sid = decodeJwt(pair.access_token).payload.sid as string;
  const db = await t.kernel.tenants.get(t.kernel.settings.DEFAULT_TENANT);
  await delegateOf(db, t.kernel.registry.model('ir.session')).updateMany({ where: { family_id: sid }, data: { created_at_utc: new Date(Date.now() - ageMs) } });
  return pair;
}

describe('AUTH_SESSION_MAX_DAYS', () => {
  it('a login started more than 30 days ago cannot be refreshed, however recently it was: 401 TOKEN_INVALID, and the login is revoked', async () => {
    const pair = await loginStartedAgo(30 * DAY + 60_000);
    const res = await refresh(pair);
    expectError(res, 401, 'TOKEN_INVALID');
    expect(res.body.error.message).toBe('the session has reached its maximum lifetime; log in again');
    expectError(await me(pair.access_token), 401, 'TOKEN_INVALID');
    const sid = decodeJwt(pair.access_token).payload.sid;
    expect((await t.sessionRows()).filter((r) => r.family_id === sid).map((r) => r.revoked_reason)).toEqual(['max_lifetime']);
  });

  it('a refresh within the lifetime works, but its refresh token expires at the login\'s end, not 7 days on', async () => {
    const pair = await loginStartedAgo(29 * DAY);
    const res = await refresh(pair);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sid = decodeJwt(pair.access_token).payload.sid;
    const rows = (await t.sessionRows()).filter((r) => r.family_id === sid);
    const newest = rows[rows.length - 1];
    const expires = (newest.expires_at as Date).getTime();
    // one day left of the 30, not seven
    expect(expires).toBeGreaterThan(Date.now() + DAY - 60_000);
    expect(expires).toBeLessThan(Date.now() + DAY + 60_000);
  });

  it('a fresh login keeps the full refresh-token lifetime (7 days) while the 30 days are far', async () => {
    const pair = await loginStartedAgo(0);
    const res = await refresh(pair);
    expect(res.status).toBe(200);
    const sid = decodeJwt(pair.access_token).payload.sid;
    const rows = (await t.sessionRows()).filter((r) => r.family_id === sid);
    const expires = (rows[rows.length - 1].expires_at as Date).getTime();
    expect(Math.abs(expires - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
  });
});
