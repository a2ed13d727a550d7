/**
 * The login throttle (src/apps/auth/services/throttle.ts) counts each attempt against two keys,
 * the (tenant, email) and the client address. An attempt refused because one of them is over its
 * limit is refused before anything is counted: it must not use up the allowance of the other key.
 * Otherwise an attacker hammering a blocked account from a shared address (an office NAT) would
 * lock everyone else at that address out, and one spraying emails from a blocked address would
 * use up the failures of the accounts it names.
 *
 * The throttle on its own, as tests/auth/throttle.test.ts checks it; no server needed.
 */
import { describe, expect, it } from 'vitest';
import type { LoginThrottle } from '../../src/apps/auth/services/throttle.ts';
import { fail, makeThrottle, refused } from './throttle-helpers.ts';

const throttle = (env: Record<string, string> = {}) =>
  makeThrottle({ LOGIN_MAX_FAILURES_PER_EMAIL: '2', LOGIN_MAX_FAILURES_PER_IP: '3', ...env });

/** The address still has all LOGIN_MAX_FAILURES_PER_IP (3) failures left: three are allowed, the fourth is refused. */
async function expectFullAddressAllowance(t: LoginThrottle, ip: string): Promise<void> {
  for (let i = 0; i < 3; i++) await fail(t, `acme:other${i}-${ip}@x.test`, ip);
  await refused(t.before('acme:one-more@x.test', ip));
}

describe('a refused attempt counts against neither key', () => {
  it('attempts refused for a blocked email do not use up the address they come from', async () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) await fail(t, 'acme:ann@x.test', `10.4.0.${i}`);
    for (let i = 0; i < 5; i++) await refused(t.before('acme:ann@x.test', '10.4.1.1'));
    await expectFullAddressAllowance(t, '10.4.1.1');
  });

  it('without a block (LOGIN_BLOCK_SECONDS=0), attempts refused for an email at its limit do not use up the address', async () => {
    const t = throttle({ LOGIN_BLOCK_SECONDS: '0' });
    for (let i = 0; i < 2; i++) await fail(t, 'acme:bob@x.test', `10.5.0.${i}`);
    const err = await refused(t.before('acme:bob@x.test', '10.5.1.1'));
    // not blocked: the refusal lasts until the failure window ends
    expect(err.retryAfterSeconds).toBeGreaterThan(890);
    for (let i = 0; i < 4; i++) await refused(t.before('acme:bob@x.test', '10.5.1.1'));
    await expectFullAddressAllowance(t, '10.5.1.1');
  });

  it('attempts refused for a blocked address do not use up the emails they name', async () => {
    const t = throttle({ LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_IP: '2' });
    for (let i = 0; i < 2; i++) await fail(t, `acme:spray${i}@x.test`, '10.6.0.1');
    for (let i = 0; i < 5; i++) await refused(t.before('acme:cat@x.test', '10.6.0.1'));
    // cat@ still has its three failures (from other addresses) before it is refused
    for (let i = 0; i < 3; i++) await fail(t, 'acme:cat@x.test', `10.6.1.${i}`);
    await refused(t.before('acme:cat@x.test', '10.6.2.1'));
  });
});
