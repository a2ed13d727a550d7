import { BootError } from '../errors.js';

/**
 * Every name fw gives in Redis, channel or key, is made here. Under the deployment's REDIS_PREFIX
 * (default `fw`, the names of earlier releases):
 *
 *   <prefix>:<tenant>:<topic>     a tenant's live notifications (`changed:<model>`, `client.reload`, …)
 *   <prefix>:_<app>:<name>        what an app shares across the deployment's processes
 *                                 (`_auth:forget`, `_auth:link:<tenant>:<jti>`, `_auth:login:<counter>:<key>`)
 *
 * Tenant keys never contain `:` nor start with `_`, and a prefix never contains `:`, so two
 * deployments with different prefixes never share a name, whatever their tenants are called.
 *
 * A `RedisName` is the name below the prefix; only the Redis connections put the prefix in front
 * (`createRedisPubSub`: `prefixed` on every channel, ioredis' `keyPrefix` on every key of the store
 * connection), so no caller can leave it out. Its constructor is private: the pub/sub takes no
 * plain string, only a name made by the factories below.
 */
export class RedisName {
  private constructor(readonly name: string) {}

  /** `<tenant>:<topic>`: what a tenant's subscribers listen to. */
  static tenantChannel(tenant: string, topic: string): RedisName {
    return new RedisName(`${tenant}:${topic}`);
  }

  /** `_<app>:<part>:…`: a channel or key an app shares across the deployment's processes. */
  static app(app: string, ...parts: string[]): RedisName {
    return new RedisName([`_${app}`, ...parts].join(':'));
  }
}

/** The full name Redis sees: `<prefix>:<name>`; `prefixed(prefix, '')` is ioredis' `keyPrefix`. */
export const prefixed = (prefix: string, name: string): string => `${prefix}:${name}`;

export const DEFAULT_REDIS_PREFIX = 'fw';
const PREFIX_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** REDIS_PREFIX as read at boot: 1 to 64 of `A-Z a-z 0-9 _ - .` (no `:`), else REDIS_PREFIX_INVALID. */
export function checkRedisPrefix(value: string): string {
  if (!PREFIX_RE.test(value)) {
    throw new BootError(
      `setting REDIS_PREFIX="${value}" must be 1 to 64 letters, digits, "_", "-" or "." (no ":"), e.g. "fw-staging"`,
      { setting: 'REDIS_PREFIX', value },
      'REDIS_PREFIX_INVALID',
    );
  }
  return value;
}
