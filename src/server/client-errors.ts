/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over the size limit, bytes
 * that are not HTTP, a request that took too long to arrive) are answered in fw's error envelope
 * with a stable code, like every other refusal. Fastify's own answer to them was a body of another
 * shape, `{"error":"Request Header Fields Too Large","message":…,"statusCode":431}`, which a client
 * reading `error.code` could not use. The connection is closed after it, as Node and Fastify do:
 * the parser cannot tell where the next request would start.
 */
import http from 'node:http';
import type { Socket } from 'node:net';

interface ClientRefusal { status: number; code: string; message: string }

/** The refusal for a parser error, or null for a connection that is already gone. */
export function clientRefusal(err: NodeJS.ErrnoException): ClientRefusal | null {
  if (err.code === 'ECONNRESET') return null;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time' };
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431, code: 'HEADERS_TOO_LARGE',
      message: 'the request line and headers are over the server\'s size limit (16 KiB): send long filters in a body, e.g. POST /api/data/{model}/search',
    };
  }
  return { status: 400, code: 'BAD_REQUEST', message: 'the request is not valid HTTP' };
}

/** Fastify's `clientErrorHandler`: the envelope, then the socket closed. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const refusal = clientRefusal(err);
  if (!refusal || socket.destroyed) return;
  if (socket.writable) {
    const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
    socket.write(
      `HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
