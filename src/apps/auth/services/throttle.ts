import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { Throttled } from '../../../kernel/errors.js';
import type { Settings } from '../../../kernel/settings.js';
import { authSettings } from '../settings.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Failed-login counting per (tenant, email) and per client address with rate-limiter-flexible:
 * past LOGIN_SLOWDOWN_AFTER failures each attempt waits longer, past the maximum the key is
 * blocked for LOGIN_BLOCK_SECONDS. Counters live in this process (see docs/security.md).
 */
export class LoginThrottle {
  private readonly byEmail: RateLimiterMemory;
  private readonly byIp: RateLimiterMemory;
  private readonly slowAfter: number;

  constructor(settings: Settings) {
    const s = authSettings(settings);
    const duration = s.LOGIN_FAILURE_WINDOW_SECONDS;
    this.byEmail = new RateLimiterMemory({ points: s.LOGIN_MAX_FAILURES_PER_EMAIL, duration, blockDuration: s.LOGIN_BLOCK_SECONDS });
    this.byIp = new RateLimiterMemory({ points: s.LOGIN_MAX_FAILURES_PER_IP, duration, blockDuration: s.LOGIN_BLOCK_SECONDS });
    this.slowAfter = s.LOGIN_SLOWDOWN_AFTER;
  }

  /**
   * Before checking a password: refuse blocked keys, reserve this attempt on both counters, slow
   * down keys with recent failures. The attempt is counted here, not after the (slow) bcrypt
   * check, so concurrent guesses cannot all slip past the limit before any failure is recorded.
   */
  async before(emailKey: string, ip: string | null): Promise<void> {
    const [e, i] = await Promise.all([this.byEmail.get(emailKey), ip ? this.byIp.get(ip) : null]);
    for (const [res, limiter] of [[e, this.byEmail], [i, this.byIp]] as const) {
      if (res && res.consumedPoints >= limiter.points) throw this.refusal(res.msBeforeNext);
    }
    // consume() rejects (and starts the block) once a key goes over its limit: a concurrent race
    const settle = (p: Promise<RateLimiterRes>) => p.then(
      (r) => ({ ok: true, r }),
      (r: unknown) => {
        if (r instanceof Error) throw r;
        return { ok: false, r: r as RateLimiterRes };
      },
    );
    const [ce, ci] = await Promise.all([settle(this.byEmail.consume(emailKey)), ip ? settle(this.byIp.consume(ip)) : null]);
    for (const c of [ce, ci]) if (c && !c.ok) throw this.refusal(c.r.msBeforeNext);
    const failures = Math.max(ce.r.consumedPoints, ci?.r.consumedPoints ?? 1) - 1;
    if (failures > this.slowAfter) await sleep(Math.min(3000, 250 * (failures - this.slowAfter)));
  }

  /** The attempt reserved by `before` failed: a key that has reached its limit is blocked for LOGIN_BLOCK_SECONDS. */
  async failed(emailKey: string, ip: string | null): Promise<void> {
    const block = async (limiter: RateLimiterMemory, key: string) => {
      const res = await limiter.get(key);
      if (res && res.consumedPoints === limiter.points && limiter.blockDuration > 0) await limiter.block(key, limiter.blockDuration);
    };
    await Promise.all([block(this.byEmail, emailKey), ip ? block(this.byIp, ip) : null]);
  }

  /** A successful login clears the email's failures and gives the address its reserved attempt back. */
  async succeeded(emailKey: string, ip: string | null = null): Promise<void> {
    await Promise.all([this.byEmail.delete(emailKey), ip ? this.byIp.reward(ip, 1) : null]);
  }

  private refusal(msBeforeNext: number): Throttled {
    return new Throttled('too many failed logins; try again later', Math.max(1, Math.ceil(msBeforeNext / 1000)));
  }
}
