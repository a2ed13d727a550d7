/**
 * Real services for the connector tests, all on 127.0.0.1: an S3-compatible server (s3rver)
 * over a temp folder, an SMTP sink (smtp-server) and a webhook receiver (node:http).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { SMTPServer } from 'smtp-server';

export interface S3Sink {
  endpoint: string;
  bucket: string;
  /** Every request the server received, as `METHOD url`. */
  requests: string[];
  /** Files under the server's folder (objects and any leftovers). */
  files(): string[];
  /** Waits until every request made so far is in `requests`. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

let syncs = 0;

/** s3rver's fixed account. */
export const S3_KEY = 'S3RVER';
export const S3_SECRET = 'S3RVER';

/**
 * s3rver runs in a child Node process started with `--openssl-legacy-provider`: it encrypts
 * ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only offers through the legacy
 * provider, so any truncated listing fails in-process with a 500. The child reports its port and
 * every request it receives as JSON lines on stdout.
 */
const S3_CHILD = `
const S3rver = require(require.resolve('s3rver', { paths: [process.env.FW_ROOT] }));
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3_DIR, configureBuckets: [{ name: process.env.S3_BUCKET }] });
server.run().then((addr) => {
  server.httpServer.on('request', (req) => process.stdout.write(JSON.stringify({ req: req.method + ' ' + req.url }) + '\\n'));
  process.stdout.write(JSON.stringify({ port: addr.port }) + '\\n');
});
process.on('SIGTERM', () => server.close().finally(() => process.exit(0)));
`;

export async function startS3(bucket = 'fw-test'): Promise<S3Sink> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-s3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', S3_CHILD], {
    env: { ...process.env, FW_ROOT: process.cwd(), S3_DIR: dir, S3_BUCKET: bucket, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const requests: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line) as { port?: number; req?: string };
        if (msg.port) resolve(msg.port);
        if (msg.req) requests.push(msg.req);
      }
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    requests,
    files: () => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()),
    async settle() {
      // the request log travels over a pipe: a marker request shows everything before it arrived
      const marker = `/fw-sync-${++syncs}`;
      await fetch(`http://127.0.0.1:${port}${marker}`).then((r) => r.arrayBuffer()).catch(() => undefined);
      const deadline = Date.now() + 5000;
      while (!requests.some((r) => r.endsWith(marker)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface MailSink {
  port: number;
  messages: Array<{ from: string; to: string[]; raw: string }>;
  close(): Promise<void>;
}

/** An SMTP sink; with `credentials`, AUTH is required and checked (plain text, no TLS: test only). */
export async function startSmtp(credentials?: { user: string; password: string }): Promise<MailSink> {
  const messages: MailSink['messages'] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: !credentials,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (credentials && auth.username === credentials.user && auth.password === credentials.password) return cb(null, { user: auth.username });
      cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = ((server as unknown as { server: http.Server }).server.address() as AddressInfo).port;
  return { port, messages, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export interface Receiver {
  url: string;
  received: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** Status the receiver answers with (default 200). */
  status: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const rec: Receiver = { url: '', received: [], status: 200, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      rec.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(rec.status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: rec.status < 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  rec.close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  return rec;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
  return Buffer.concat(chunks);
}
