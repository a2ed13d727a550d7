/** Shared by the throttle tests: a LoginThrottle with test limits, a failed attempt, and a refusal. */
import { expect, vi } from 'vitest';
import { LoginThrottle } from '../../src/apps/auth/services/throttle.ts';
import { Throttled } from '../../src/kernel/errors.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

/** A throttle with a 15-minute window, a 10-minute block and no slow-down unless `env` asks for them. */
export const makeThrottle = (env: Record<string, string>) => new LoginThrottle(loadSettings({
  LOG_LEVEL: 'silent',
  LOGIN_FAILURE_WINDOW_SECONDS: '900',
  LOGIN_BLOCK_SECONDS: '600',
  LOGIN_SLOWDOWN_AFTER: '1000',
  LOGIN_IP_SLOWDOWN_AFTER: '1000',
  ...env,
}));

/** A failed attempt as auth.login runs it: reserve, then report the failure. */
export const fail = async (t: LoginThrottle, email: string, ip: string | null) => {
  await t.before(email, ip);
  await t.failed(email, ip);
};

/** Awaits an attempt that must be refused with 429 THROTTLED; returns the error for more checks. */
export async function refused(p: Promise<unknown>): Promise<Throttled> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err, 'the attempt should be refused').toBeInstanceOf(Throttled);
  expect(err).toMatchObject({ status: 429, code: 'THROTTLED', message: 'too many failed logins for this account from this address; try again later' });
  return err as Throttled;
}

/** The slow-down delays `before` asked for, without waiting them out (other timers run as usual). Restore with vi.restoreAllMocks(). */
export function recordDelays(): number[] {
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
