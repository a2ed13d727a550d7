import type { Principal } from '../kernel/env.js';

export type AuthLevel = 'public' | 'user';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook before any handler of a `user` route runs. */
    principal: Principal;
  }
  interface FastifyContextConfig {
    auth?: AuthLevel;
  }
}
