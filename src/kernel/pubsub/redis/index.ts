import { Redis } from 'ioredis';
import { prefixed } from '../names.js';
import type { PubSub } from '../types.js';

/**
 * Redis pub/sub for several server processes: every process publishes to Redis and each
 * delivers what it receives to its own subscribers. One connection publishes, one listens
 * (a subscribed Redis connection cannot publish).
 *
 * `prefix` (REDIS_PREFIX) is put in front of every channel here and of every key by the publishing
 * connection (`keyPrefix`, which ioredis applies to keys, never to channels), so the deployment's
 * names stay apart from another deployment's on the same server whoever names them.
 */
export function createRedisPubSub(url: string, prefix: string): PubSub {
  const pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3, keyPrefix: prefixed(prefix, '') });
  const sub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const handlers = new Map<string, Set<(m: unknown) => void>>();
  let closed = false;
  sub.on('message', (channel: string, raw: string) => {
    const set = handlers.get(channel);
    if (!set) return;
    const message = JSON.parse(raw) as unknown;
    for (const h of set) h(message);
  });
  return {
    store: pub,
    async publish(to, message) {
      await pub.publish(prefixed(prefix, to.name), JSON.stringify(message));
    },
    async subscribe(to, handler) {
      const channel = prefixed(prefix, to.name);
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await sub.subscribe(channel);
      }
      set.add(handler);
      return () => {
        set!.delete(handler);
        if (set!.size === 0 && handlers.get(channel) === set) {
          handlers.delete(channel);
          // a subscriber may leave after close(); the connection is gone then, nothing to undo
          if (!closed) sub.unsubscribe(channel).catch(() => undefined);
        }
      };
    },
    async close() {
      closed = true;
      handlers.clear();
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}
