import type { Writable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Kernel } from '../kernel/kernel.js';
import { answerClientError } from './client-errors.js';
import { installJsonBody } from './json-body.js';
import { installAuth } from './authenticate.js';
import { installErrorHandling } from './errors.js';
import { installInputChecks } from './input.js';
import { loggerOptions } from './log.js';
import { serverTimeouts } from './timeouts.js';
import { graphqlRoutes } from './graphql/index.js';
import { openApiRoute, type RouteEntry } from './openapi.js';
import { checkDescription } from './openapi-routes.js';
import { dataRoutes } from './routes/data.js';
import { transferRoutes } from './routes/transfer.js';
import { installSecurityHeaders, setBaselineHeaders } from './security.js';
import { resolveWebClientDir, webClientRoutes } from './web-client.js';
import './types.js';

/**
 * The HTTP face of a booted kernel: Fastify with the auth hook, the one error mapper, the
 * generic record routes and every active app's routes. Handlers only translate HTTP to
 * command-bus dispatches.
 */
export interface BuildServerOptions {
  /** Where the JSON log lines go instead of stdout (tests read them). */
  logStream?: Writable;
}

export async function buildServer(kernel: Kernel, opts: BuildServerOptions = {}): Promise<FastifyInstance> {
  const server = Fastify({
    logger: loggerOptions(kernel.settings, opts.logStream),
    ...serverTimeouts(kernel.settings),
    bodyLimit: kernel.settings.HTTP_BODY_LIMIT_BYTES,
    trustProxy: kernel.settings.TRUST_PROXY,
    // a malformed URL (`%` not followed by hex) is refused before routing (and before the error
    // handler exists for it): answered with the error envelope like any other refusal
    // what Node's HTTP parser refuses (431, 408, not HTTP), in the error envelope (./client-errors.ts)
    clientErrorHandler: answerClientError,
    frameworkErrors: (err, _req, reply) => {
      void setBaselineHeaders(reply as FastifyReply).status(err.statusCode ?? 400).send({ error: { code: 'BAD_REQUEST', message: err.message } });
    },
  });
  // first: every later route (and the 404 and error answers) gets the headers
  await installSecurityHeaders(server);
  let webClient: (() => Buffer) | null = null;
  installErrorHandling(server, { appShell: () => webClient });
  installAuth(server, kernel);
  installInputChecks(server);
  installJsonBody(server);
  // every route, app routes included, so the OpenAPI document describes them all
  const routes: RouteEntry[] = [];
  server.addHook('onRoute', (r) => {
    const describes = r.config?.describes;
    for (const method of [r.method].flat()) {
      if (describes) checkDescription(kernel.registry, method, r.url, describes);
      routes.push({ method, url: r.url, auth: r.config?.auth ?? 'user', ...(describes ? { describes } : {}) });
    }
  });

  server.get('/health', { config: { auth: 'public' } }, async () => ({ status: 'ok' }));
  server.get('/api/base/ping', async (req) => ({ pong: true, tenant_id: req.principal.tenant_id, time: new Date().toISOString() }));
  graphqlRoutes(server, kernel);
  const limits = { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE };
  openApiRoute(server, kernel, limits, routes);
  dataRoutes(server, kernel, limits);
  await transferRoutes(server, kernel);

  for (const app of kernel.registry.apps) {
    if (app.module.routes) await app.module.routes(server, { kernel });
  }
  webClient = await webClientRoutes(server, resolveWebClientDir(kernel.settings.WEB_CLIENT_DIR, kernel.layout));
  server.addHook('onClose', async () => kernel.close());
  return server;
}
