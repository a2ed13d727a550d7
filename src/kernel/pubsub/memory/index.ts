import { EventEmitter } from 'node:events';
import type { PubSub } from '../types.js';

/** In-process pub/sub: enough for one server process (no prefix: nothing else shares it). */
export function createMemoryPubSub(): PubSub {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  return {
    async publish(channel, message) {
      bus.emit(channel.name, message);
    },
    async subscribe(channel, handler) {
      bus.on(channel.name, handler);
      return () => bus.off(channel.name, handler);
    },
    async close() {
      bus.removeAllListeners();
    },
  };
}
