import { Redis } from 'ioredis';
import { BootError, urlShown } from '../../errors.js';
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
/** What the pub/sub says about Redis coming and going (the kernel's log). */
export type RedisLog = (level: 'info' | 'warn', msg: string, extra?: Record<string, unknown>) => void;

/**
 * Connects both connections before the server goes on (`waitMs`): a Redis that cannot be reached
 * stops the boot with `REDIS_UNREACHABLE` naming REDIS_URL, instead of ioredis' retry limit
 * with no word of the setting.
 *
 * The command connection keeps no offline queue: while Redis is down a command fails at once, so
 * the login throttle falls back to its in-process counters (rate-limiter-flexible's insurance)
 * without waiting; with the queue, each of a login's throttle calls waited through ioredis'
 * reconnect attempts, and a login took about 30 s. The listening connection keeps its queue, and
 * ioredis subscribes again after each reconnect. An outage and its end are said once each.
 */
export async function createRedisPubSub(url: string, prefix: string, log: RedisLog, opts: { waitMs?: number } = {}): Promise<PubSub> {
  const pub = new Redis(url, { lazyConnect: false, enableOfflineQueue: false, maxRetriesPerRequest: 1, keyPrefix: prefixed(prefix, '') });
  const sub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const shown = urlShown(url);
  let down = false;
  let booted = false;
  for (const client of [pub, sub]) {
    client.on('error', (err: Error) => {
      if (!booted || down) return;
      down = true;
      log('warn', `Redis at ${shown} (REDIS_URL) cannot be reached: live updates and revocations wait for it, the login throttle counts in each process meanwhile`, { err: err.message });
    });
    client.on('ready', () => {
      if (!down || pub.status !== 'ready' || sub.status !== 'ready') return;
      down = false;
      log('info', `Redis at ${shown} (REDIS_URL) reachable again`);
    });
  }
  try {
    await Promise.all([pub, sub].map((c) => ready(c, opts.waitMs ?? 10_000)));
  } catch (err) {
    pub.disconnect();
    sub.disconnect();
    throw new BootError(
      `cannot reach Redis at ${shown} (REDIS_URL): ${err instanceof Error ? err.message : String(err)}; start it, correct REDIS_URL, or leave REDIS_URL unset to run one instance without Redis`,
      { url: shown }, 'REDIS_UNREACHABLE',
    );
  }
  booted = true;
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
      // while Redis is away the message is lost (docs/operations.md), said once with the outage
      if (pub.status !== 'ready') return;
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

/** Resolves once the connection is ready; rejects with its last error after `ms`. */
function ready(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let last = 'no answer';
    const onError = (err: Error) => { last = err.message; };
    const done = () => {
      clearTimeout(timer);
      client.off('error', onError);
      client.off('ready', onReady);
    };
    const onReady = () => {
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${last} (for ${ms / 1000} s)`));
    }, ms);
    client.on('error', onError);
    client.once('ready', onReady);
  });
}
