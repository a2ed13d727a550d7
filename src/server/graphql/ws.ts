import type { FastifyInstance } from 'fastify';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { Principal } from '../../kernel/env.js';
import { FwError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import { authenticatorOf } from '../authenticate.js';
import type { GqlContext } from './schema.js';

type Enveloped = ReturnType<YogaServerInstance<Record<string, unknown>, GqlContext>['getEnveloped']>;
/** The part of a yoga instance the socket server needs. */
interface EnvelopSource { getEnveloped(initial: Record<string, unknown>): Enveloped }

/**
 * graphql-ws on the HTTP server's /graphql upgrade: the token travels in `connectionParams`
 * (`{ authorization: 'Bearer …' }`), since browsers cannot set headers on a WebSocket.
 */
export function graphqlWebSocket(server: FastifyInstance, kernel: Kernel, yoga: EnvelopSource): void {
  const wss = new WebSocketServer({ noServer: true });
  server.server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/graphql') return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const principals = new WeakMap<object, Principal>();
  useServer<Record<string, unknown>, { socket: unknown }>({
    onConnect: async (ctx) => {
      const raw = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
      const token = typeof raw === 'string' ? raw.replace(/^Bearer\s+/i, '') : null;
      const auth = authenticatorOf(kernel);
      if (!token || !auth) return false;
      try {
        principals.set(ctx.extra, await auth.authenticate(token));
        return true;
      } catch (err) {
        if (err instanceof FwError) return false;
        throw err;
      }
    },
    execute: (args) => (args.rootValue as Enveloped).execute(args),
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    onSubscribe: async (ctx, _id, params) => {
      const principal = principals.get(ctx.extra)!;
      const enveloped = yoga.getEnveloped({ req: { principal }, params });
      const document = enveloped.parse(params.query);
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
  server.addHook('onClose', async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  });
}
