/**
 * The login throttle of src/apps/auth/services/throttle.ts on its own (no server): failures are
 * counted per (email, address) — the only key that refuses —, per email and per address — keys
 * that only slow attempts down —, what a success and a server error give back, and how long each
 * attempt is slowed down. tests/auth/throttling.test.ts checks the same rules through
 * POST /api/auth/login.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Throttled } from '../../src/kernel/errors.ts';
import { fail, makeThrottle, recordDelays, refused } from './throttle-helpers.ts';

const throttle = (env: Record<string, string> = {}) =>
  makeThrottle({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '3', ...env });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('counting per (email, address): the strict key', () => {
  it('LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP failures from one address are allowed; the next attempt from it is refused with 429 THROTTLED', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) await fail(t, 'acme:ann@x.test', '10.0.0.1');
    const err = await refused(t.before('acme:ann@x.test', '10.0.0.1'));
    expect(err).toMatchObject({ status: 429, code: 'THROTTLED' });
  });

  it('the same email from another address is not refused: the owner is never locked out by a guesser elsewhere', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) await fail(t, 'acme:amy@x.test', '10.0.1.1');
    await refused(t.before('acme:amy@x.test', '10.0.1.1'));
    await expect(t.before('acme:amy@x.test', '10.0.1.2')).resolves.toBeUndefined();
  });

  it('failures from many addresses never refuse the email', async () => {
    const t = throttle();
    for (let i = 0; i < 20; i++) await fail(t, 'acme:abe@x.test', `10.0.2.${i}`);
    await expect(t.before('acme:abe@x.test', '10.0.2.200')).resolves.toBeUndefined();
  });

  it('one failure less than the limit still lets the right password through', async () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) await fail(t, 'acme:bob@x.test', null);
    await expect(t.before('acme:bob@x.test', null)).resolves.toBeUndefined();
  });

  it('a pair brought to its limit is blocked for LOGIN_BLOCK_SECONDS: Retry-After is the time left, in whole seconds', async () => {
    const t = throttle({ LOGIN_BLOCK_SECONDS: '600' });
    for (let i = 0; i < 3; i++) await fail(t, 'acme:cat@x.test', null);
    const err = await refused(t.before('acme:cat@x.test', null));
    expect(err.retryAfterSeconds).toBeGreaterThan(590);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(600);
    expect(Number.isInteger(err.retryAfterSeconds)).toBe(true);
    expect(err.details).toEqual({ retry_after_seconds: err.retryAfterSeconds });
  });

  it('without a block (LOGIN_BLOCK_SECONDS=0) a pair at its limit is free again once the window ends', async () => {
    const t = throttle({ LOGIN_BLOCK_SECONDS: '0', LOGIN_FAILURE_WINDOW_SECONDS: '1' });
    for (let i = 0; i < 3; i++) await fail(t, 'acme:dan@x.test', null);
    const err = await refused(t.before('acme:dan@x.test', null));
    // the refusal says when the window ends: within the second, rounded up to 1
    expect(err.retryAfterSeconds).toBe(1);
    await new Promise((r) => setTimeout(r, 1300));
    await expect(t.before('acme:dan@x.test', null)).resolves.toBeUndefined();
  });

  it('concurrent attempts cannot slip past the limit before their failures are recorded', async () => {
    const t = throttle();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => t.before('acme:eve@x.test', '10.0.3.1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(Throttled);
  });

  it('the counter is per email: another email or tenant from the same address is not refused', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) await fail(t, 'acme:fay@x.test', '10.0.4.1');
    await refused(t.before('acme:fay@x.test', '10.0.4.1'));
    await expect(t.before('acme:gus@x.test', '10.0.4.1')).resolves.toBeUndefined();
    await expect(t.before('other:fay@x.test', '10.0.4.1')).resolves.toBeUndefined();
  });

  it('a success clears the pair\'s failures', async () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) await fail(t, 'acme:hal@x.test', null);
    await t.before('acme:hal@x.test', null);
    await t.succeeded('acme:hal@x.test', null);
    for (let i = 0; i < 3; i++) await fail(t, 'acme:hal@x.test', null);
    await refused(t.before('acme:hal@x.test', null));
  });
});

describe('the address alone never refuses', () => {
  it('100 failures from one address on other emails: the right password for another email from it is still checked', async () => {
    const t = throttle();
    for (let i = 0; i < 100; i++) await fail(t, `acme:user${i}@x.test`, '10.1.0.1');
    await expect(t.before('acme:new@x.test', '10.1.0.1')).resolves.toBeUndefined();
  });

  it('a success gives the address its attempt back: successful logins never add to its delay', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_IP_SLOWDOWN_AFTER: '1' });
    for (let i = 0; i < 6; i++) {
      await t.before(`acme:ok${i}@x.test`, '10.2.0.1');
      await t.succeeded(`acme:ok${i}@x.test`, '10.2.0.1');
    }
    await fail(t, 'acme:wrong@x.test', '10.2.0.1');
    await t.before('acme:ok0@x.test', '10.2.0.1');
    // one failure, not past LOGIN_IP_SLOWDOWN_AFTER = 1: no wait at all
    expect(delays).toEqual([]);
  });
});

describe('server errors are not failures', () => {
  it('an attempt abandoned on a server error gives back what it reserved: ten of them leave every counter as it was', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '0', LOGIN_IP_SLOWDOWN_AFTER: '0' });
    for (let i = 0; i < 10; i++) {
      await t.before('acme:ida@x.test', '10.3.1.1');
      await t.abandoned('acme:ida@x.test', '10.3.1.1');
    }
    expect(delays).toEqual([]);
    // the pair still has all three failures before it is refused
    for (let i = 0; i < 3; i++) await fail(t, 'acme:ida@x.test', '10.3.1.1');
    await refused(t.before('acme:ida@x.test', '10.3.1.1'));
  });
});

describe('slow-down', () => {
  it('past LOGIN_SLOWDOWN_AFTER failures of an email, from any address, each attempt on it waits 250 ms per further failure', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '2' });
    for (let i = 0; i < 6; i++) await fail(t, 'acme:slow@x.test', `10.4.0.${i}`);
    // attempts 1–3 follow 0, 1 and 2 failures: no wait; then 3, 4, 5 failures
    expect(delays).toEqual([250, 500, 750]);
  });

  it('the wait is at most 3 s', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '0' });
    for (let i = 0; i < 16; i++) await fail(t, 'acme:capped@x.test', `10.5.0.${i}`);
    expect(delays).toEqual([250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000, 3000, 3000, 3000]);
  });

  it('past LOGIN_IP_SLOWDOWN_AFTER failures from an address, whatever the emails, each attempt from it waits 250 ms per further failure', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_IP_SLOWDOWN_AFTER: '1' });
    // a new email each time: only the address has failures
    for (let i = 0; i < 4; i++) await fail(t, `acme:spray${i}@x.test`, '10.6.0.1');
    expect(delays).toEqual([250, 500]);
  });

  it('the wait follows the larger of the email\'s and the address\'s excess', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '0', LOGIN_IP_SLOWDOWN_AFTER: '2', LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '50' });
    for (let i = 0; i < 3; i++) await fail(t, `acme:other${i}@x.test`, '10.7.0.1');
    delays.length = 0;
    // the email has no failure yet; the address has 3, one past its threshold of 2
    await fail(t, 'acme:jo@x.test', '10.7.0.1');
    // now the email has 1 (past 0 by 1) and the address 4 (past 2 by 2)
    await fail(t, 'acme:jo@x.test', '10.7.0.1');
    expect(delays).toEqual([250, 500]);
  });

  it('without an address only the email slows down', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_IP_SLOWDOWN_AFTER: '0' });
    for (let i = 0; i < 3; i++) await fail(t, `acme:noip${i}@x.test`, null);
    expect(delays).toEqual([]);
  });
});
