import { EventEmitter } from 'node:events';
import type { PubSub } from '../types.js';

/** In-process pub/sub: enough for one server process. */
export function createMemoryPubSub(): PubSub {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  return {
    async publish(channel, message) {
      bus.emit(channel, message);
    },
    async subscribe(channel, handler) {
      bus.on(channel, handler);
      return () => bus.off(channel, handler);
    },
    async close() {
      bus.removeAllListeners();
    },
  };
}
