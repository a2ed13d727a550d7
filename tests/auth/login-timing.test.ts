/**
 * No user enumeration by timing: a login for an unknown email runs a bcrypt check against a
 * dummy hash, so it costs as much as a known email with a wrong password (or an inactive user).
 *
 * This guards against the enumeration shortcut of skipping bcrypt when the email is unknown.
 * It asserts the work done, not durations (timing figures belong to bench/): every failed
 * login runs exactly one bcrypt compare, against a hash of the same cost as the users' hashes.
 */
import bcrypt from 'bcrypt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { ADMIN_EMAIL, expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

const COST = 6;
let t: TestServer;
let inactiveEmail: string;
beforeAll(async () => {
  t = await startTestServer({
    BCRYPT_COST: String(COST),
    // many failures on purpose: keep throttling out of it
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '1000',
    LOGIN_SLOWDOWN_AFTER: '1000',
    LOGIN_IP_SLOWDOWN_AFTER: '1000',
  });
  const admin = (await t.loginAdmin()).access_token;
  inactiveEmail = `gone-${rand()}@example.com`;
  const u = await t.createUser(admin, { email: inactiveEmail, password: 'gone-pass-1' });
  expect((await t.request('POST', `/api/data/res.user/${u.id}/deactivate`, { token: admin })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

/** The bcrypt compares one failed login ran: [plain password, cost of the hash it was checked against]. */
async function comparesOf(email: string, tenant?: string): Promise<Array<[string, number]>> {
  const compare = vi.spyOn(bcrypt, 'compare');
  try {
    const res = await t.tryLogin(email, 'definitely-wrong-password', tenant);
    expectError(res, 401, 'AUTHENTICATION_FAILED');
    return compare.mock.calls.map((args: unknown[]) => [String(args[0]), bcrypt.getRounds(String(args[1]))] as [string, number]);
  } finally {
    compare.mockRestore();
  }
}

describe('login work does not depend on whether the email exists', () => {
  it('an unknown email, a known email with a wrong password, an inactive user and a tenant that does not exist each run one bcrypt compare at the configured cost', async () => {
    const adminHash = (await delegateOf(await t.kernel.tenants.get('default'), t.kernel.registry.model('res.user')).findUnique({ where: { email: ADMIN_EMAIL } }))!.password_hash as string;
    expect(bcrypt.getRounds(adminHash)).toBe(COST);
    const expected = [['definitely-wrong-password', COST]];
    expect(await comparesOf(ADMIN_EMAIL)).toEqual(expected);
    expect(await comparesOf(`nobody-${rand()}@example.com`)).toEqual(expected);
    expect(await comparesOf(inactiveEmail)).toEqual(expected);
    // a tenant that does not exist: no database to look in, the same bcrypt work all the same
    expect(await comparesOf(ADMIN_EMAIL, `ghost-${rand()}`)).toEqual(expected);
    // the same answer for all three (status, code and message)
    const bodies = await Promise.all([ADMIN_EMAIL, `nobody-${rand()}@example.com`, inactiveEmail].map((e) => t.tryLogin(e, 'nope-nope-1').then((r) => r.body)));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });
});
