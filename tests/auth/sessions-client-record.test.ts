/**
 * What a session row records about the client that logged in (SessionService.issue and
 * describeClient in src/apps/auth/services/sessions.ts): the address cut to its column's 64
 * characters, os and browser cut to 100, and nothing at all for a login that came without a
 * transport (a command dispatched in-process) or over one that has no address (a Unix socket).
 * One real kernel behind the real server (SQLite files), behind a trusted proxy (TRUST_PROXY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeClient, sha256 } from '../../src/apps/auth/services/sessions.ts';
import { anonymousPrincipal, type Principal } from '../../src/kernel/env.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

const CHROME_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ TRUST_PROXY: 'true' });
});
afterAll(async () => {
  await t?.close();
});

const rowOf = async (pair: TokenPair) => (await t.sessionRows()).find((r) => r.refresh_token_hash === sha256(pair.refresh_token))!;
const loginAs = (principal: Principal) =>
  t.kernel.dispatch<TokenPair>('auth.login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, principal);

describe('client description', () => {
  it('os and browser are cut to 100 characters (their columns\' size)', () => {
    const version = Array.from({ length: 80 }, (_, i) => i % 10).join('.');
    const d = describeClient(`Mozilla/5.0 (Linux; Android ${version}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36`);
    expect(d.os).toBe(`Android ${version}`.slice(0, 100));
    expect(d.os).toHaveLength(100);
    expect(d.browser).toBe('Mobile Chrome 120');
  });
});

describe('the client a session records', () => {
  it('the client address is cut to 64 characters (its column\'s size), here one a proxy forwarded', async () => {
    const forwarded = `2001:db8::1%${'x'.repeat(80)}`;
    const res = await t.request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers: { 'x-forwarded-for': forwarded } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = await rowOf(res.body);
    expect(row.ip).toBe(forwarded.slice(0, 64));
  });

  it('a login over a transport without a client address (a Unix socket) records no address, but the User-Agent', async () => {
    const pair = await loginAs({ ...anonymousPrincipal('default'), client: { ip: null, user_agent: CHROME_ON_WINDOWS } });
    expect(await rowOf(pair)).toMatchObject({ ip: null, os: 'Windows 10', browser: 'Chrome 120' });
  });

  it('a login dispatched in-process, without a transport, records no address and no client description', async () => {
    const pair = await loginAs(anonymousPrincipal('default'));
    expect(await rowOf(pair)).toMatchObject({ ip: null, os: null, browser: null });
  });
});
