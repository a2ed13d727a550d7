import { RateLimiterMemory } from 'rate-limiter-flexible';
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

  /** Before checking a password: refuse blocked keys, slow down keys with recent failures. */
  async before(emailKey: string, ip: string | null): Promise<void> {
    const [e, i] = await Promise.all([this.byEmail.get(emailKey), ip ? this.byIp.get(ip) : null]);
    for (const [res, limiter] of [[e, this.byEmail], [i, this.byIp]] as const) {
      if (res && res.consumedPoints >= limiter.points) {
        throw new Throttled('too many failed logins; try again later', Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
      }
    }
    const failures = Math.max(e?.consumedPoints ?? 0, i?.consumedPoints ?? 0);
    if (failures > this.slowAfter) await sleep(Math.min(3000, 250 * (failures - this.slowAfter)));
  }

  async failed(emailKey: string, ip: string | null): Promise<void> {
    // `before` refuses a key as soon as it reaches the limit, so consume() never goes over it and
    // its own blockDuration would never start: the refusal would last the rest of the failure
    // window instead of LOGIN_BLOCK_SECONDS. Start the block explicitly when the limit is reached.
    const count = async (limiter: RateLimiterMemory, key: string) => {
      const res = await limiter.consume(key).catch(() => null);
      if (res && res.consumedPoints >= limiter.points && limiter.blockDuration > 0) await limiter.block(key, limiter.blockDuration);
    };
    await Promise.all([count(this.byEmail, emailKey), ip ? count(this.byIp, ip) : null]);
  }

  async succeeded(emailKey: string): Promise<void> {
    await this.byEmail.delete(emailKey);
  }
}
