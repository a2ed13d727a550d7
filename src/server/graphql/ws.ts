import type { FastifyInstance } from 'fastify';
import type { DocumentNode, ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { DEV_INSTANCE } from '../../kernel/dev/instance.js';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Principal } from '../../kernel/env.js';
import { FwError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import { authenticatorOf } from '../authenticate.js';
import { maskError } from './errors.js';
import type { GqlContext } from './schema.js';

type Enveloped = ReturnType<YogaServerInstance<Record<string, unknown>, GqlContext>['getEnveloped']>;
/** The part of a yoga instance the socket server needs. */
interface EnvelopSource { getEnveloped(initial: Record<string, unknown>): Enveloped }

/**
 * graphql-ws on the HTTP server's /graphql upgrade: the token travels in `connectionParams`
 * (`{ authorization: 'Bearer …' }`), since browsers cannot set headers on a WebSocket.
 */
export function graphqlWebSocket(server: FastifyInstance, kernel: Kernel, yoga: EnvelopSource): void {
  // a message is bounded like a JSON request body: graphql-ws parses each one whole (JSON.parse,
  // on the event loop) before anything looks at it, even before the connection is authenticated;
  // ws's own default is 100 MiB. A larger message closes the socket with 1009 (Message Too Big)
  const wss = new WebSocketServer({ noServer: true, maxPayload: kernel.settings.HTTP_BODY_LIMIT_BYTES });
  server.server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/graphql') return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const principals = new WeakMap<object, Principal>();
  const unwatch = new WeakMap<object, () => void>();
  useServer<Record<string, unknown>, { socket: WebSocket }>({
    onConnect: async (ctx) => {
      const raw = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
      const token = typeof raw === 'string' ? raw.replace(/^Bearer\s+/i, '') : null;
      const auth = authenticatorOf(kernel);
      if (!token || !auth) return false;
      try {
        // the organization the client works in, as the X-Fw-Organization header says over HTTP
        const org = ctx.connectionParams?.organization;
        const principal = await auth.authenticate(token, { organization: typeof org === 'string' ? org : null });
        principals.set(ctx.extra, principal);
        // the token is checked here once; the connection then lives as long as its session: a
        // logout, revocation, deactivation, expiry or a change of role or organization closes it
        // with 4403 (graphql-ws's Forbidden), ending every subscription on it
        const stop = auth.watch?.(token, principal, (reason) => ctx.extra.socket.close(4403, `Forbidden: ${reason}`.slice(0, 120)));
        if (stop) unwatch.set(ctx.extra, stop);
        // under fw dev the acknowledgement names this server: a client reconnecting to another
        // one (a restart after a change) reloads (web/src/live/hub.ts)
        return kernel.settings.FW_DEV ? { fw_dev_instance: DEV_INSTANCE } : true;
      } catch (err) {
        if (err instanceof FwError) return false;
        throw err;
      }
    },
    onClose: (ctx) => {
      unwatch.get(ctx.extra)?.();
    },
    execute: (args) => (args.rootValue as Enveloped).execute(args),
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    onSubscribe: async (ctx, _id, params) => {
      const principal = principals.get(ctx.extra)!;
      const enveloped = yoga.getEnveloped({ req: { principal }, params });
      // the same parse as HTTP: a document over the bounds (./bounds.ts) or malformed is answered
      // with its error on this operation, as over HTTP (thrown, graphql-ws would close the whole
      // socket with 4500)
      let document: DocumentNode;
      try {
        document = enveloped.parse(params.query);
      } catch (err) {
        return [maskError(err)];
      }
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length) return errors;
      const args: ExecutionArgs = {
        schema: enveloped.schema,
        operationName: params.operationName,
        document,
        variableValues: params.variables,
        contextValue: await enveloped.contextFactory(),
        rootValue: enveloped,
      };
      return args;
    },
  }, wss);
  // before the HTTP server closes: an open socket would hold its close (a SIGTERM shutdown) forever.
  // 1001 Going Away lets clients reconnect elsewhere; one that does not answer is cut after 1 s
  server.addHook('preClose', async () => {
    for (const c of wss.clients) {
      c.close(1001, 'server shutting down');
      setTimeout(() => c.terminate(), 1000).unref();
    }
    await new Promise<void>((r) => wss.close(() => r()));
  });
}
