import type { FastifyRequest } from 'fastify';
import type { ServerOptions } from 'node:http';
import { BootError } from '../kernel/errors.js';
import type { Settings } from '../kernel/settings.js';

/**
 * How long a client may take, as Fastify/Node server options. Node's defaults leave a slow
 * client connected for ever once Fastify turns the request timeout off: a slowloris sending its
 * headers a byte at a time, or a body that stalls, holds a socket and its memory.
 *
 * - headers must arrive within HTTP_HEADERS_TIMEOUT_SECONDS and the whole request (headers and
 *   body) within HTTP_REQUEST_TIMEOUT_SECONDS (Node's `headersTimeout`/`requestTimeout`, 408):
 *   both count only what the client sends, so a response may stream for as long as it needs;
 * - a connection on which nothing moves for HTTP_IDLE_TIMEOUT_SECONDS is closed (the socket
 *   timeout, Fastify's `connectionTimeout`): a body that stops half way, a download nobody
 *   reads. Node removes it from upgraded (WebSocket) connections; event streams drop it once
 *   they start (`exemptFromIdleTimeout`);
 * - an idle keep-alive connection waits HTTP_KEEP_ALIVE_TIMEOUT_SECONDS for its next request.
 *
 * Node checks the header and request deadlines every `connectionsCheckingInterval` (30 s by
 * default, so a 1 s deadline could take 31 s): the interval is a quarter of the shorter deadline.
 */
export interface ServerTimeouts {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
}

export function serverTimeouts(settings: Settings): ServerTimeouts {
  const headers = settings.HTTP_HEADERS_TIMEOUT_SECONDS * 1000;
  const request = settings.HTTP_REQUEST_TIMEOUT_SECONDS * 1000;
  if (request > 0 && headers > request) {
    throw new BootError(
      `HTTP_HEADERS_TIMEOUT_SECONDS (${settings.HTTP_HEADERS_TIMEOUT_SECONDS}) must not be above HTTP_REQUEST_TIMEOUT_SECONDS (${settings.HTTP_REQUEST_TIMEOUT_SECONDS}): the headers are part of the request`,
      undefined, 'HTTP_TIMEOUTS_INVALID',
    );
  }
  const shortest = request > 0 ? Math.min(headers, request) : headers;
  return {
    connectionTimeout: settings.HTTP_IDLE_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: settings.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    requestTimeout: request,
    http: {
      headersTimeout: headers,
      requestTimeout: request,
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(shortest / 4))),
    },
  };
}

/**
 * A live event stream (server-sent events, a GraphQL subscription) may stay quiet longer than
 * the idle timeout between two events: once it has started it is exempt. Its heartbeats still
 * find a peer that is gone (the write fails), and its session watch ends it when the login does.
 * Called only after the request was authenticated and answered as a stream, so a client cannot
 * exempt a slow request body by asking for a stream.
 */
export function exemptFromIdleTimeout(req: FastifyRequest): void {
  const socket = req.raw.socket;
  // a request injected in process (light-my-request) has a stand-in socket without timers
  if (typeof socket?.setTimeout === 'function') socket.setTimeout(0);
}
