import type { Redis } from 'ioredis';

/** Fan-out of live notifications (record changes, client reloads) to subscribers, per tenant. */
export interface PubSub {
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves, once messages flow, to the unsubscribe function. */
  subscribe(channel: string, handler: (message: unknown) => void): Promise<() => void>;
  close(): Promise<void>;
  /**
   * With Redis: its command connection (the one that publishes), for state every process must
   * share (the login throttle's counters). Closed with the pub/sub. Absent in a single process.
   */
  readonly store?: Redis;
}

export const channelOf = (tenant: string, topic: string): string => `fw:${tenant}:${topic}`;
