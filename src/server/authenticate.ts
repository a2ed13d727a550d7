import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Authenticator } from '../kernel/app.js';
import { checkTenantKey } from '../kernel/db/tenants.js';
import { anonymousPrincipal } from '../kernel/env.js';
import { AuthenticationRequired } from '../kernel/errors.js';
import type { KernelHandle } from '../kernel/kernel-handle.js';
import type { Kernel } from '../kernel/kernel.js';
import './types.js';

export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

/** Tenant named by a public request (`X-Tenant`), else the default tenant. */
export function requestTenant(req: FastifyRequest, kernel: KernelHandle): string {
  const h = req.headers['x-tenant'];
  return checkTenantKey(typeof h === 'string' && h ? h : kernel.settings.DEFAULT_TENANT);
}

/**
 * The organization a request asks to work in (`X-Fw-Organization`: an id or a workspace slug),
 * or null for the user's default one. docs/security.md#organizations.
 */
export function requestOrganization(req: FastifyRequest): string | null {
  const h = req.headers['x-fw-organization'];
  return typeof h === 'string' && h.trim() ? h.trim() : null;
}

/** The authenticator of the active app that provides one; one instance per kernel. */
const authenticators = new WeakMap<KernelHandle, Authenticator | null>();
export function authenticatorOf(kernel: KernelHandle): Authenticator | null {
  if (!authenticators.has(kernel)) {
    const factory = kernel.registry.apps.map((a) => a.module.authenticator).find(Boolean);
    authenticators.set(kernel, factory ? factory(kernel) : null);
  }
  return authenticators.get(kernel)!;
}

/**
 * Every route is authenticated unless its config says `auth: 'public'`; a missing or invalid
 * bearer token ends the request with 401 before the handler runs.
 */
export function installAuth(server: FastifyInstance, kernel: Kernel): void {
  server.decorateRequest('principal', null as never);
  // open event streams would hold the HTTP server's close (and so a SIGTERM shutdown) forever:
  // they are cut before the server stops listening; clients reconnect to another instance
  const streams = new Set<ServerResponse>();
  server.addHook('preClose', async () => {
    for (const res of streams) res.destroy();
  });
  server.addHook('onRequest', async (req, reply) => {
    const level = req.routeOptions.config?.auth ?? 'user';
    const token = bearerToken(req);
    const client = { ip: req.ip ?? null, user_agent: req.headers['user-agent'] ?? null };
    if (level === 'public' || !req.routeOptions.url || (level === 'optional' && !token)) {
      req.principal = { ...anonymousPrincipal(requestTenant(req, kernel)), client };
      return;
    }
    if (!token) throw new AuthenticationRequired('a bearer access token is required');
    const auth = authenticatorOf(kernel);
    if (!auth) throw new AuthenticationRequired('no authentication app is active');
    req.principal = { ...(await auth.authenticate(token, { organization: requestOrganization(req) })), client };
    // an event stream (a GraphQL subscription over SSE) outlives the check above: it is cut when
    // its session ends, like graphql-ws connections (graphql/ws.ts) and the presentation app's
    // event stream; ordinary requests are short and need no watch
    if (String(req.headers.accept ?? '').includes('text/event-stream')) {
      const stop = auth.watch?.(token, req.principal, () => reply.raw.destroy());
      streams.add(reply.raw);
      reply.raw.once('close', () => {
        stop?.();
        streams.delete(reply.raw);
      });
    }
  });
}
