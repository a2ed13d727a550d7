import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import { Throttled } from '../../../kernel/errors.js';
import { RedisName } from '../../../kernel/pubsub/names.js';
import type { Settings } from '../../../kernel/settings.js';
import { authSettings } from '../settings.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each counted failure past a threshold adds this much to the wait before a password check. */
export const DELAY_STEP_MS = 250;
/** The longest any attempt waits: a right password is always checked, at worst this late. */
export const MAX_DELAY_MS = 3000;

/**
 * Failed-login counting with rate-limiter-flexible, on three keys (see docs/security.md,
 * "Login throttling"):
 *
 * - the account from one address (tenant, email, address): the strict one. After
 *   LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP failures that pair is refused (429) for
 *   LOGIN_BLOCK_SECONDS, the right password included. Only the guesser's address is shut out:
 *   the owner logging in from anywhere else is not.
 * - the account from every address (tenant, email): never refuses, it slows down. Past
 *   LOGIN_SLOWDOWN_AFTER failures each attempt on the account waits longer.
 * - the address, whatever the account: never refuses either. Past LOGIN_IP_SLOWDOWN_AFTER failures
 *   each attempt from it waits longer. Many people can share one address (an office NAT, or
 *   everyone when a proxy hides the clients and TRUST_PROXY is off), so someone else's failures
 *   there must cost them a bounded delay, never their login.
 *
 * Only wrong credentials count: an attempt that ends in a server error (a database that cannot be
 * read) gives back what it reserved.
 *
 * With Redis (REDIS_URL) the counters live there (keys `<REDIS_PREFIX>:_auth:login:<counter>:…`),
 * shared by every process of the deployment and by no other deployment on that Redis, so
 * N instances behind a load balancer do not give a guesser N times the attempts; each counter has
 * an in-process twin that takes over while Redis cannot be reached (rate-limiter-flexible's
 * insurance limiter), so an outage never lifts the limits. Without Redis they live in this process.
 */
export class LoginThrottle {
  private readonly pair: RateLimiterAbstract;
  private readonly account: RateLimiterAbstract;
  private readonly address: RateLimiterAbstract;
  private readonly accountSlowAfter: number;
  private readonly addressSlowAfter: number;

  constructor(settings: Settings, store?: Redis) {
    const s = authSettings(settings);
    const duration = s.LOGIN_FAILURE_WINDOW_SECONDS;
    const limiter = (name: string, opts: { points: number; duration: number; blockDuration?: number }): RateLimiterAbstract => {
      const memory = new RateLimiterMemory(opts);
      return store ? new RateLimiterRedis({ ...opts, storeClient: store, keyPrefix: RedisName.app('auth', 'login', name).name, insuranceLimiter: memory }) : memory;
    };
    this.pair = limiter('pair', { points: s.LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP, duration, blockDuration: s.LOGIN_BLOCK_SECONDS });
    // counted with penalty(), which never rejects: these two only slow attempts down
    this.account = limiter('account', { points: 1, duration });
    this.address = limiter('address', { points: 1, duration });
    this.accountSlowAfter = s.LOGIN_SLOWDOWN_AFTER;
    this.addressSlowAfter = s.LOGIN_IP_SLOWDOWN_AFTER;
  }

  /** Without an address (a caller that has none) the pair is the account alone. */
  private static pairKey(emailKey: string, ip: string | null): string {
    return `${emailKey}|${ip ?? ''}`;
  }

  /**
   * Before checking a password: refuse a blocked (account, address) pair, reserve this attempt on
   * all three counters, then wait as long as the account's or the address's failures ask for.
   * The attempt is counted here, not after the (slow) bcrypt check, so concurrent guesses cannot
   * all slip past the limit before any failure is recorded; `succeeded` and `abandoned` give the
   * reservation back.
   */
  async before(emailKey: string, ip: string | null): Promise<void> {
    const pairKey = LoginThrottle.pairKey(emailKey, ip);
    const held = await this.pair.get(pairKey);
    if (held && held.consumedPoints >= this.pair.points) throw this.refusal(held.msBeforeNext);
    // consume() rejects (and starts the block) once a key goes over its limit: a concurrent race
    await this.pair.consume(pairKey).catch((r: unknown) => {
      if (r instanceof Error) throw r;
      throw this.refusal((r as RateLimiterRes).msBeforeNext);
    });
    const [a, i] = await Promise.all([this.account.penalty(emailKey), ip ? this.address.penalty(ip) : null]);
    // failures before this attempt, past each key's threshold
    const over = Math.max(a.consumedPoints - 1 - this.accountSlowAfter, (i ? i.consumedPoints - 1 : 0) - this.addressSlowAfter);
    if (over > 0) await sleep(Math.min(MAX_DELAY_MS, DELAY_STEP_MS * over));
  }

  /** The attempt reserved by `before` had wrong credentials: a pair that has reached its limit is blocked for LOGIN_BLOCK_SECONDS. */
  async failed(emailKey: string, ip: string | null): Promise<void> {
    const pairKey = LoginThrottle.pairKey(emailKey, ip);
    const res = await this.pair.get(pairKey);
    if (res && res.consumedPoints === this.pair.points && this.pair.blockDuration > 0) await this.pair.block(pairKey, this.pair.blockDuration);
  }

  /** A successful login clears the account's failures and gives the address its reserved attempt back. */
  async succeeded(emailKey: string, ip: string | null = null): Promise<void> {
    await Promise.all([
      this.pair.delete(LoginThrottle.pairKey(emailKey, ip)),
      this.account.delete(emailKey),
      ip ? this.address.reward(ip, 1) : null,
    ]);
  }

  /**
   * The attempt reserved by `before` ended in a server error, not a verdict on the password: it
   * gives back everything it reserved, so a database outage never counts as failed logins.
   */
  async abandoned(emailKey: string, ip: string | null): Promise<void> {
    await Promise.all([
      this.pair.reward(LoginThrottle.pairKey(emailKey, ip), 1),
      this.account.reward(emailKey, 1),
      ip ? this.address.reward(ip, 1) : null,
    ]);
  }

  private refusal(msBeforeNext: number): Throttled {
    return new Throttled('too many failed logins for this account from this address; try again later', Math.max(1, Math.ceil(msBeforeNext / 1000)));
  }
}
