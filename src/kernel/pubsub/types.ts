import type { Redis } from 'ioredis';
import type { RedisName } from './names.js';

/** Fan-out of live notifications (record changes, client reloads) to subscribers, per tenant. */
export interface PubSub {
  publish(channel: RedisName, message: unknown): Promise<void>;
  /** Resolves, once messages flow, to the unsubscribe function. */
  subscribe(channel: RedisName, handler: (message: unknown) => void): Promise<() => void>;
  close(): Promise<void>;
  /**
   * With Redis: its command connection (the one that publishes), for state every process must
   * share (the login throttle's counters, export links used). Every key sent through it is put
   * under REDIS_PREFIX by the connection itself (ioredis `keyPrefix`): name keys with
   * `RedisName.app(…).name`. Closed with the pub/sub. Absent in a single process.
   */
  readonly store?: Redis;
}
