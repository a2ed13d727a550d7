/**
 * Login throttling through POST /api/auth/login (src/apps/auth/services/throttle.ts): failures
 * are counted per (tenant, email, address), and over LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP that
 * pair — and only that pair — is refused with 429 THROTTLED and a Retry-After header, even with
 * the right password, for LOGIN_BLOCK_SECONDS. The email's and the address's own failures only
 * slow attempts down: nobody is locked out by someone else's failures, and a server error is
 * not a failure.
 *
 * Every test uses its own client addresses (inject's remoteAddress) so the per-address counter
 * of one test does not leak into another.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';
import { registerSortKey } from '../../src/kernel/data/collation.ts';

const BLOCK_SECONDS = 2;

let t: TestServer;
let admin: string;
let ipCounter = 10;
const freshIp = () => `10.0.0.${ipCounter++}`;

beforeAll(async () => {
  t = await startTestServer({
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '3',
    LOGIN_BLOCK_SECONDS: String(BLOCK_SECONDS),
    // no slow-down in these tests: they are about counting and refusing
    LOGIN_SLOWDOWN_AFTER: '100',
    LOGIN_IP_SLOWDOWN_AFTER: '100',
  });
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

async function newUser() {
  const email = `throttle-${rand()}@example.com`;
  await t.createUser(admin, { email, password: 'right-pass-1' });
  return { email, password: 'right-pass-1' };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per (email, address) throttling', () => {
  it('after 3 failures from one address the 4th attempt from it answers 429 THROTTLED with Retry-After, even with the right password', async () => {
    const u = await newUser();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expectError(await t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    const res = await t.tryLogin(u.email, u.password, undefined, { remoteAddress: ip });
    expectError(res, 429, 'THROTTLED');
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(BLOCK_SECONDS);
    expect(res.body.error.details).toEqual({ retry_after_seconds: retryAfter });
  });

  it('while an address is refused for an email, the owner logs in from another address', async () => {
    const u = await newUser();
    const attacker = freshIp();
    for (let i = 0; i < 5; i++) await t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: attacker });
    expectError(await t.tryLogin(u.email, u.password, undefined, { remoteAddress: attacker }), 429, 'THROTTLED');
    expect((await t.tryLogin(u.email, u.password, undefined, { remoteAddress: freshIp() })).status).toBe(200);
  });

  it('failures for one email spread over many addresses never refuse it', async () => {
    const u = await newUser();
    for (let i = 0; i < 10; i++) expectError(await t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: freshIp() }), 401, 'AUTHENTICATION_FAILED');
    expect((await t.tryLogin(u.email, u.password, undefined, { remoteAddress: freshIp() })).status).toBe(200);
  });

  it('the block ends after LOGIN_BLOCK_SECONDS and the right password works again from that address', async () => {
    const u = await newUser();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: ip });
    expectError(await t.tryLogin(u.email, u.password, undefined, { remoteAddress: ip }), 429, 'THROTTLED');
    await sleep(BLOCK_SECONDS * 1000 + 300);
    expect((await t.tryLogin(u.email, u.password, undefined, { remoteAddress: ip })).status).toBe(200);
  });

  it('the counter is per email: another user at the same address is not refused', async () => {
    const blocked = await newUser();
    const other = await newUser();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await t.tryLogin(blocked.email, 'wrong-pass', undefined, { remoteAddress: ip });
    expectError(await t.tryLogin(blocked.email, blocked.password, undefined, { remoteAddress: ip }), 429, 'THROTTLED');
    expect((await t.tryLogin(other.email, other.password, undefined, { remoteAddress: ip })).status).toBe(200);
  });

  it('a successful login resets the counter', async () => {
    const u = await newUser();
    const ip = freshIp();
    for (let i = 0; i < 2; i++) expectError(await t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    expect((await t.tryLogin(u.email, u.password, undefined, { remoteAddress: ip })).status).toBe(200);
    // two more failures would make four without the reset
    for (let i = 0; i < 2; i++) expectError(await t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    expect((await t.tryLogin(u.email, u.password, undefined, { remoteAddress: ip })).status).toBe(200);
  });

  it('parallel attempts cannot get past the limit: of 10 concurrent wrong passwords from one address at most 3 are checked, the rest are 429', async () => {
    const u = await newUser();
    const ip = freshIp();
    const results = await Promise.all(Array.from({ length: 10 }, () =>
      t.tryLogin(u.email, 'wrong-pass', undefined, { remoteAddress: ip })));
    const checked = results.filter((r) => r.status === 401);
    const refused = results.filter((r) => r.status === 429);
    expect(checked.length).toBeLessThanOrEqual(3);
    expect(checked.length + refused.length).toBe(10);
    for (const r of refused) expectError(r, 429, 'THROTTLED');
    expectError(await t.tryLogin(u.email, u.password, undefined, { remoteAddress: ip }), 429, 'THROTTLED');
  });

  it('failures for an unknown email are counted too (no difference that reveals which emails exist)', async () => {
    const email = `ghost-${rand()}@example.com`;
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expectError(await t.tryLogin(email, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    expectError(await t.tryLogin(email, 'wrong-pass', undefined, { remoteAddress: ip }), 429, 'THROTTLED');
  });
});

describe('one address, many accounts', () => {
  it('30 failures from one address on other emails (LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP = 3): the right password for another account from it still logs in', async () => {
    const ip = freshIp();
    for (let i = 0; i < 30; i++) {
      expectError(await t.tryLogin(`spray-${rand()}@example.com`, 'wrong-pass', undefined, { remoteAddress: ip }), 401, 'AUTHENTICATION_FAILED');
    }
    expect((await t.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { remoteAddress: ip })).status).toBe(200);
  });

  it('successful logins do not count against the address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await t.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { remoteAddress: ip })).status).toBe(200);
  });
});

describe('server errors are not failed logins', () => {
  it('logins that fail because the tenant database cannot be read (500) are not counted: afterwards the right password from that address logs in', async () => {
    const s = await startTestServer({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '2', LOGIN_SLOWDOWN_AFTER: '100', LOGIN_IP_SLOWDOWN_AFTER: '100' });
    try {
      await s.loginAdmin();
      // a real failure of the database the login reads: its user table is gone for a while
      const file = s.kernel.tenants.sqliteFile(s.kernel.settings.DEFAULT_TENANT);
      const rename = (from: string, to: string) => {
        const db = registerSortKey(new Database(file));
        try {
          db.prepare(`ALTER TABLE "${from}" RENAME TO "${to}"`).run();
        } finally {
          db.close();
        }
      };
      rename('res_user', 'res_user_away');
      try {
        for (let i = 0; i < 5; i++) expectError(await s.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { remoteAddress: '10.9.0.1' }), 500, 'INTERNAL_ERROR');
      } finally {
        rename('res_user_away', 'res_user');
      }
      expect((await s.tryLogin(ADMIN_EMAIL, ADMIN_PASSWORD, undefined, { remoteAddress: '10.9.0.1' })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('slow-down', () => {
  it('past LOGIN_SLOWDOWN_AFTER failures each further attempt on the email is delayed, 250 ms more per failure', async () => {
    const s = await startTestServer({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '10', LOGIN_SLOWDOWN_AFTER: '1', LOGIN_IP_SLOWDOWN_AFTER: '100' });
    // the delay the throttle asks for (a setTimeout in LoginThrottle.before), not a measured
    // duration: timing figures belong to bench/
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const slowDowns = () => timers.mock.calls.map((c) => c[1]).filter((ms): ms is number => typeof ms === 'number' && ms > 0 && ms <= 3000 && ms % 250 === 0);
    try {
      const email = `slow-${rand()}@example.com`;
      const asked: number[][] = [];
      for (let i = 0; i < 4; i++) {
        timers.mockClear();
        expectError(await s.tryLogin(email, 'wrong-pass', undefined, { remoteAddress: freshIp() }), 401, 'AUTHENTICATION_FAILED');
        asked.push(slowDowns());
      }
      // failures before the attempt: 0, 1 (not past 1), 2 → 250 ms, 3 → 500 ms
      expect(asked).toEqual([[], [], [250], [500]]);
      // another email from another address is not slowed down by these failures
      timers.mockClear();
      expectError(await s.tryLogin(`other-${rand()}@example.com`, 'wrong-pass', undefined, { remoteAddress: freshIp() }), 401, 'AUTHENTICATION_FAILED');
      expect(slowDowns()).toEqual([]);
    } finally {
      timers.mockRestore();
      await s.close();
    }
  });
});
