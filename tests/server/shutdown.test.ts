/**
 * Graceful shutdown of a real server process (`fw serve`, spawned as an operator runs it): on
 * SIGTERM the listener closes at once (new connections are refused), a request already in
 * flight — a large upload still streaming its body slowly — runs to completion and gets its
 * answer, open streams (GET /api/presentation/events, a GraphQL subscription over SSE and a
 * graphql-ws connection) are ended instead of holding the process open, and the process exits
 * with code 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tempDir, waitFor } from '../helpers/kernel.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    }).on('error', reject);
  });
}

/** Whether a TCP connection to the port is accepted. */
const accepts = (port: number): Promise<boolean> => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

/** `p`, or a failure naming `what` once `ms` have passed (a deadline, not a measured duration). */
const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => Promise.race([
  p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms).unref()),
]);

/** Every regular file under `dir` (temp files included). */
const filesUnder = (dir: string): string[] => (fs.existsSync(dir)
  ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile())
  : []);

describe('SIGTERM', () => {
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;
  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses new connections, lets an in-flight upload finish, ends open streams and exits 0', async () => {
    dataDir = tempDir('shutdown');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let output = '';
    // node with tsx's loader directly (not the tsx wrapper): the signal reaches the server process itself
    child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli.ts'), 'serve'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
        DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: '',
        ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'silent', SSE_HEARTBEAT_SECONDS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));

    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok, `the server to listen (${output})`, 60_000, 100);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'admin-pass-1' }),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { access_token: string }).access_token;

    // open streams: an event stream and a graphql-ws subscription
    const sse = await fetch(`${base}/api/presentation/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(sse.status).toBe(200);
    const sseEnded = (async () => {
      const reader = sse.body!.getReader();
      try {
        while (!(await reader.read()).done) { /* heartbeats */ }
      } catch { /* cut: ended too */ }
    })();
    const gqlSse = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { clientReload }' }),
    });
    expect(gqlSse.status).toBe(200);
    const gqlSseEnded = (async () => {
      const reader = gqlSse.body!.getReader();
      try {
        while (!(await reader.read()).done) { /* keep-alive pings */ }
      } catch { /* cut: ended too */ }
    })();
    const ws = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
    let wsConnected!: () => void;
    const connected = new Promise<void>((r) => { wsConnected = r; });
    ws.on('connected', () => wsConnected());
    const wsEnded = new Promise<void>((resolve) => {
      ws.subscribe({ query: 'subscription { clientReload }' }, { next: () => {}, error: () => resolve(), complete: () => resolve() });
    });
    await connected;

    // a large upload whose body is still streaming when the signal comes
    const chunk = crypto.randomBytes(256 * 1024);
    const chunks = 16;
    const upload = http.request(`${base}/api/storage/upload?filename=slow.bin`, {
      method: 'POST', agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    });
    const answered = new Promise<{ status: number; body: any }>((resolve, reject) => {
      upload.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => { text += c.toString(); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      upload.on('error', reject);
    });
    for (let i = 0; i < 4; i++) upload.write(chunk);
    // the server is streaming it to disk (the local backend's temp file exists)
    await waitFor(() => filesUnder(path.join(dataDir!, 'storage')).length > 0, 'the upload to reach the storage folder', 20_000);

    child.kill('SIGTERM');
    // the listener closes: new connections are refused while the upload is still in flight
    await waitFor(async () => !(await accepts(port)), 'new connections to be refused', 20_000, 50);
    expect(child.exitCode).toBeNull();

    // the rest of the body arrives slowly; the upload completes normally
    for (let i = 4; i < chunks; i++) {
      upload.write(chunk);
      await new Promise((r) => setTimeout(r, 50));
    }
    upload.end();
    const res = await answered;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ original_filename: 'slow.bin', file_size: chunk.length * chunks });

    // the streams were ended by the server, and the process exits cleanly
    await within(Promise.all([sseEnded, gqlSseEnded, wsEnded]), 20_000, 'the open streams to be ended by the server');
    expect(await within(exited, 20_000, 'the process to exit'), output).toEqual({ code: 0, signal: null });
    await ws.dispose();
  }, 120_000);
});
