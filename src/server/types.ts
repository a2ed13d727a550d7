import type { RouteDescription } from '../kernel/app.js';
import type { Principal } from '../kernel/env.js';

/** `optional`: anonymous unless a bearer token is sent, which must then be valid. */
export type AuthLevel = 'public' | 'optional' | 'user';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook before any handler of a `user` route runs. */
    principal: Principal;
  }
  interface FastifyContextConfig {
    auth?: AuthLevel;
    /** What the route serves, for the OpenAPI document (src/server/openapi-routes.ts). */
    describes?: RouteDescription;
  }
}
