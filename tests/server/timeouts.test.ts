/**
 * Slow clients are cut off, streams are not (src/server/timeouts.ts): a client that sends its
 * headers a byte at a time is disconnected once HTTP_HEADERS_TIMEOUT_SECONDS have passed, a
 * request body that stalls once nothing moved for HTTP_IDLE_TIMEOUT_SECONDS, while an event
 * stream and a graphql-ws connection that stay quiet for longer than every one of these
 * timeouts go on working. A real listening server (the timeouts are Node's socket machinery).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, readSseBlocks, sleep, wsClient } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { serverTimeouts } from '../../src/server/timeouts.ts';

/** `p`, or a failure naming `what` once `ms` have passed (a deadline, not a measured duration). */
const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => Promise.race([
  p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms).unref()),
]);

/** A raw TCP client: what it received, and a promise of the moment the server closed it. */
function rawClient(port: number): { socket: net.Socket; received: () => string; closed: Promise<void> } {
  const socket = net.connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (c: Buffer) => { data += c.toString(); });
  socket.on('error', () => { /* a reset is a close too */ });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => data, closed };
}

let t: TestServer;
let base: string;
let port: number;
let token: string;
beforeAll(async () => {
  t = await startTestServer({
    ACTIVE_MODULES: 'base,auth,presentation',
    HTTP_HEADERS_TIMEOUT_SECONDS: '1',
    HTTP_REQUEST_TIMEOUT_SECONDS: '1',
    HTTP_IDLE_TIMEOUT_SECONDS: '1',
    // no heartbeat while the stream below is watched: only the exemption keeps it open
    SSE_HEARTBEAT_SECONDS: '30',
  });
  base = await listen(t);
  port = Number(new URL(base).port);
  token = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

describe('slow clients are cut off', () => {
  it('a client sending its headers a byte at a time (slowloris) is answered 408 and disconnected after HTTP_HEADERS_TIMEOUT_SECONDS', async () => {
    const c = rawClient(port);
    const header = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
    let sent = 0;
    // a byte every 50 ms: never idle, never done
    const drip = setInterval(() => { if (!c.socket.destroyed && sent < header.length) c.socket.write(header[sent++]!); }, 50);
    try {
      await within(c.closed, 5000, 'the slowloris connection');
    } finally {
      clearInterval(drip);
    }
    expect(sent).toBeLessThan(header.length);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('a request body that stops half way is disconnected (idle and request timeouts), and nothing is answered but 408', async () => {
    const c = rawClient(port);
    c.socket.write('POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":');
    await within(c.closed, 5000, 'the stalled body');
    expect(c.received()).not.toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('streams are not', () => {
  it('an event stream quiet for longer than the header, request and idle timeouts stays open and delivers the next event', async () => {
    const abort = new AbortController();
    const res = await fetch(`${base}/api/presentation/events?access_token=${token}`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const blocks: string[] = [];
    const reading = readSseBlocks(res.body!, (b) => blocks.push(b)).catch(() => undefined);
    try {
      await sleep(3000);
      await t.kernel.publish('default', 'client.reload', { event_id: 'after-quiet', name: 'web.client.reload', payload: { reason: 'quiet' } });
      await within((async () => { while (!blocks.some((b) => b.includes('after-quiet'))) await sleep(20); })(), 3000, 'the event after 3 s of silence');
      expect(blocks.filter((b) => b.includes('heartbeat'))).toEqual([]);
    } finally {
      abort.abort();
      await reading;
    }
  });

  it('a graphql-ws connection idle for longer than the idle timeout stays open and answers', async () => {
    const client = wsClient(base, token);
    try {
      const first = await within(new Promise((resolve, reject) => {
        client.subscribe({ query: '{ me { email } }' }, { next: resolve, error: reject, complete: () => undefined });
      }), 5000, 'the first query');
      expect(first).toMatchObject({ data: { me: { email: 'admin@example.com' } } });
      await sleep(3000);
      const second = await within(new Promise((resolve, reject) => {
        client.subscribe({ query: '{ me { email } }' }, { next: resolve, error: reject, complete: () => undefined });
      }), 5000, 'the query after 3 s idle');
      expect(second).toMatchObject({ data: { me: { email: 'admin@example.com' } } });
    } finally {
      await client.dispose();
    }
  });
});

describe('with no request timeout (HTTP_REQUEST_TIMEOUT_SECONDS=0), the idle timeout alone', () => {
  let slow: TestServer;
  let slowPort: number;
  beforeAll(async () => {
    slow = await startTestServer({ HTTP_REQUEST_TIMEOUT_SECONDS: '0', HTTP_IDLE_TIMEOUT_SECONDS: '1' });
    slowPort = Number(new URL(await listen(slow)).port);
  });
  afterAll(async () => {
    await slow?.close();
  });

  const head = (length: number) => `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

  it('lets a body that keeps moving take longer than the idle timeout (a long upload) and answers it', async () => {
    const body = JSON.stringify({ email: 'admin@example.com', password: 'not-the-password-' + 'x'.repeat(20) });
    const c = rawClient(slowPort);
    c.socket.write(head(Buffer.byteLength(body)));
    // one byte every 40 ms: about 2.5 s in all, never 1 s without a byte
    for (const ch of body) {
      c.socket.write(ch);
      await sleep(40);
    }
    await within(c.closed, 5000, 'the answer to the slow body');
    expect(c.received()).toMatch(/^HTTP\/1\.1 401/);
  });

  it('cuts a body that stalls once nothing moved for HTTP_IDLE_TIMEOUT_SECONDS', async () => {
    const c = rawClient(slowPort);
    c.socket.write(`${head(100)}{"email":`);
    await within(c.closed, 4000, 'the stalled body');
    expect(c.received()).toBe('');
  });
});

describe('settings', () => {
  it('a headers timeout above the request timeout stops the boot with HTTP_TIMEOUTS_INVALID; a request timeout of 0 takes any', () => {
    expect(() => serverTimeouts(loadSettings({ HTTP_HEADERS_TIMEOUT_SECONDS: '31', HTTP_REQUEST_TIMEOUT_SECONDS: '30' }))).toThrow(expect.objectContaining({ code: 'HTTP_TIMEOUTS_INVALID' }));
    expect(serverTimeouts(loadSettings({ HTTP_HEADERS_TIMEOUT_SECONDS: '31', HTTP_REQUEST_TIMEOUT_SECONDS: '0' })).http.headersTimeout).toBe(31_000);
  });

  it('the defaults: headers 30 s, request 300 s, idle 60 s, keep-alive 72 s', () => {
    const d = serverTimeouts(loadSettings({}));
    expect([d.http.headersTimeout, d.requestTimeout, d.connectionTimeout, d.keepAliveTimeout]).toEqual([30_000, 300_000, 60_000, 72_000]);
  });
});
