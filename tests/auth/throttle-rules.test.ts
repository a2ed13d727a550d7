/**
 * The login throttle (src/apps/auth/services/throttle.ts) refuses only an (email, address) pair
 * over its limit. An attempt refused that way is refused before anything is counted: it must not
 * add to the email's or the address's slow-down. Otherwise an attacker hammering a blocked pair
 * from a shared address (an office NAT) would slow down everyone else at that address, and the
 * owner of the account logging in from elsewhere.
 *
 * The throttle on its own, as tests/auth/throttle.test.ts checks it; no server needed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, makeThrottle, recordDelays, refused } from './throttle-helpers.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a refused attempt counts against no key', () => {
  it('attempts refused for a blocked pair add nothing to the address\'s slow-down', async () => {
    const delays = recordDelays();
    const t = makeThrottle({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '2', LOGIN_IP_SLOWDOWN_AFTER: '2' });
    for (let i = 0; i < 2; i++) await fail(t, 'acme:ann@x.test', '10.4.1.1');
    for (let i = 0; i < 5; i++) await refused(t.before('acme:ann@x.test', '10.4.1.1'));
    // the address has 2 failures, not 7: another email from it is not slowed down
    await t.before('acme:other@x.test', '10.4.1.1');
    expect(delays).toEqual([]);
  });

  it('attempts refused for a blocked pair add nothing to the email\'s slow-down elsewhere', async () => {
    const delays = recordDelays();
    const t = makeThrottle({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '2', LOGIN_SLOWDOWN_AFTER: '2' });
    for (let i = 0; i < 2; i++) await fail(t, 'acme:bob@x.test', '10.5.0.1');
    for (let i = 0; i < 5; i++) await refused(t.before('acme:bob@x.test', '10.5.0.1'));
    // the owner, from another address, after 2 failures (not 7): no wait
    await t.before('acme:bob@x.test', '10.5.1.1');
    expect(delays).toEqual([]);
  });

  it('without a block (LOGIN_BLOCK_SECONDS=0) a pair at its limit is refused until the window ends', async () => {
    const t = makeThrottle({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '2', LOGIN_BLOCK_SECONDS: '0' });
    for (let i = 0; i < 2; i++) await fail(t, 'acme:cat@x.test', '10.6.0.1');
    const err = await refused(t.before('acme:cat@x.test', '10.6.0.1'));
    expect(err.retryAfterSeconds).toBeGreaterThan(890);
  });
});
