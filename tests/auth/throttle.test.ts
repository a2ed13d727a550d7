/**
 * The login throttle of src/apps/auth/services/throttle.ts on its own (no server): how attempts
 * are counted per email and per address, when a key is refused and for how long, what a success
 * gives back, and how long each attempt is slowed down. tests/auth/throttling.test.ts checks the
 * same rules through POST /api/auth/login.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Throttled } from '../../src/kernel/errors.ts';
import { fail, makeThrottle, refused } from './throttle-helpers.ts';

const throttle = (env: Record<string, string> = {}) =>
  makeThrottle({ LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_IP: '5', ...env });

/** The slow-down delays `before` asked for, without waiting them out (other timers run as usual). */
function recordDelays(): number[] {
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
    if (ms !== undefined && ms <= 3000) {
      delays.push(ms);
      return real(fn, 0);
    }
    return real(fn, ms);
  }) as typeof setTimeout);
  return delays;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('counting per email', () => {
  it('LOGIN_MAX_FAILURES_PER_EMAIL failures are allowed; the next attempt is refused with 429 THROTTLED', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) await fail(t, 'acme:ann@x.test', `10.0.0.${i}`);
    const err = await refused(t.before('acme:ann@x.test', '10.0.0.9'));
    expect(err).toMatchObject({ status: 429, code: 'THROTTLED', message: 'too many failed logins; try again later' });
  });

  it('one failure less than the limit still lets the right password through', async () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) await fail(t, 'acme:bob@x.test', null);
    await expect(t.before('acme:bob@x.test', null)).resolves.toBeUndefined();
  });

  it('a key brought to its limit is blocked for LOGIN_BLOCK_SECONDS: Retry-After is the time left, in whole seconds', async () => {
    const t = throttle({ LOGIN_BLOCK_SECONDS: '600' });
    for (let i = 0; i < 3; i++) await fail(t, 'acme:cat@x.test', null);
    const err = await refused(t.before('acme:cat@x.test', null));
    expect(err.retryAfterSeconds).toBeGreaterThan(590);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(600);
    expect(Number.isInteger(err.retryAfterSeconds)).toBe(true);
    expect(err.details).toEqual({ retry_after_seconds: err.retryAfterSeconds });
  });

  it('without a block (LOGIN_BLOCK_SECONDS=0) a key at its limit is free again once the window ends', async () => {
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
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => t.before('acme:eve@x.test', null)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(Throttled);
  });

  it('the counter is per key: another email is not affected', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) await fail(t, 'acme:fay@x.test', null);
    await refused(t.before('acme:fay@x.test', null));
    await expect(t.before('acme:gus@x.test', null)).resolves.toBeUndefined();
    await expect(t.before('other:fay@x.test', null)).resolves.toBeUndefined();
  });

  it('a success clears the email\'s failures', async () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) await fail(t, 'acme:hal@x.test', null);
    await t.before('acme:hal@x.test', null);
    await t.succeeded('acme:hal@x.test', null);
    for (let i = 0; i < 3; i++) await fail(t, 'acme:hal@x.test', null);
    await refused(t.before('acme:hal@x.test', null));
  });
});

describe('counting per address', () => {
  it('LOGIN_MAX_FAILURES_PER_IP failures from one address, whatever the emails, refuse the next attempt from it', async () => {
    const t = throttle();
    for (let i = 0; i < 5; i++) await fail(t, `acme:user${i}@x.test`, '10.1.0.1');
    const err = await refused(t.before('acme:new@x.test', '10.1.0.1'));
    expect(err.retryAfterSeconds).toBeGreaterThan(590);
    await expect(t.before('acme:new@x.test', '10.1.0.2')).resolves.toBeUndefined();
  });

  it('without an address only the email is counted', async () => {
    const t = throttle({ LOGIN_MAX_FAILURES_PER_IP: '1' });
    for (let i = 0; i < 2; i++) await fail(t, `acme:noip${i}@x.test`, null);
    await expect(t.before('acme:noip9@x.test', null)).resolves.toBeUndefined();
  });

  it('a success gives the address its attempt back: successful logins never use up the address', async () => {
    const t = throttle({ LOGIN_MAX_FAILURES_PER_IP: '2' });
    for (let i = 0; i < 6; i++) {
      await t.before(`acme:ok${i}@x.test`, '10.2.0.1');
      await t.succeeded(`acme:ok${i}@x.test`, '10.2.0.1');
    }
    await fail(t, 'acme:wrong@x.test', '10.2.0.1');
    await expect(t.before('acme:ok0@x.test', '10.2.0.1')).resolves.toBeUndefined();
  });
});

describe('slow-down', () => {
  it('past LOGIN_SLOWDOWN_AFTER failures each attempt waits 250 ms per further failure', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '2', LOGIN_MAX_FAILURES_PER_EMAIL: '50' });
    for (let i = 0; i < 6; i++) await fail(t, 'acme:slow@x.test', null);
    // attempts 1–3 follow 0, 1 and 2 failures: no wait; then 3, 4, 5 failures
    expect(delays).toEqual([250, 500, 750]);
  });

  it('the wait is at most 3 s', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '0', LOGIN_MAX_FAILURES_PER_EMAIL: '50' });
    for (let i = 0; i < 16; i++) await fail(t, 'acme:capped@x.test', null);
    expect(delays).toEqual([250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000, 3000, 3000, 3000]);
  });

  it('the failures that count are the larger of the email\'s and the address\'s', async () => {
    const delays = recordDelays();
    const t = throttle({ LOGIN_SLOWDOWN_AFTER: '1', LOGIN_MAX_FAILURES_PER_IP: '50' });
    // a new email each time: only the address has failures
    for (let i = 0; i < 4; i++) await fail(t, `acme:spray${i}@x.test`, '10.3.0.1');
    expect(delays).toEqual([250, 500]);
  });
});
