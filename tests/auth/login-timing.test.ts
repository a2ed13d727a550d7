/**
 * No user enumeration by timing: a login for an unknown email runs a bcrypt check against a
 * dummy hash, so it costs about as much as a known email with a wrong password.
 *
 * This guards against the enumeration shortcut of skipping bcrypt when the email is unknown
 * (which would answer in well under a millisecond instead of the bcrypt time). It is not a
 * benchmark: the bound is loose (ratio of medians within 0.5–2) and BCRYPT_COST 8 keeps each
 * check around 10–20 ms so that the difference, if the shortcut came back, would dominate noise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    BCRYPT_COST: '8',
    // many failures on purpose: keep throttling and its slow-down out of the measurement
    LOGIN_MAX_FAILURES_PER_EMAIL: '1000',
    LOGIN_MAX_FAILURES_PER_IP: '1000',
    LOGIN_SLOWDOWN_AFTER: '1000',
  });
  // opens and seeds the tenant (the admin hash is made with cost 8) outside the measurement
  await t.loginAdmin();
});
afterAll(async () => {
  await t?.close();
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function timed(email: string): Promise<number> {
  const started = performance.now();
  const res = await t.tryLogin(email, 'definitely-wrong-password');
  const ms = performance.now() - started;
  expectError(res, 401, 'AUTHENTICATION_FAILED');
  return ms;
}

describe('login timing', () => {
  it('an unknown email takes comparable time to a known email with a wrong password (ratio of medians within 0.5–2)', async () => {
    // warm-up: first calls pay for JIT and the dummy hash
    await timed(ADMIN_EMAIL);
    await timed('warmup@example.com');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 9; i++) {
      // interleaved so drift in machine load hits both sides alike
      known.push(await timed(ADMIN_EMAIL));
      unknown.push(await timed(`nobody-${i}@example.com`));
    }
    const ratio = median(unknown) / median(known);
    expect(median(known)).toBeGreaterThan(2); // bcrypt really ran for the known email
    expect(ratio, `known ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
