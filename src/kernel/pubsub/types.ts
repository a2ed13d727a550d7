/** Fan-out of live notifications (record changes, client reloads) to subscribers, per tenant. */
export interface PubSub {
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves, once messages flow, to the unsubscribe function. */
  subscribe(channel: string, handler: (message: unknown) => void): Promise<() => void>;
  close(): Promise<void>;
}

export const channelOf = (tenant: string, topic: string): string => `fw:${tenant}:${topic}`;
