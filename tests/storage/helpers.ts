/**
 * Shared pieces of the storage tests: a test server with the storage app active, binary and
 * base64 uploads, byte-exact downloads, raw HTTP against a listening server, polling.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import { startTestServer, type Provider, type Res, type TestServer } from '../helpers/server.ts';

export const STORAGE_MODULES = 'base,auth,presentation,connectors,storage';

export async function startStorageServer(overrides: Record<string, string> = {}, opts: { provider?: Provider } = {}): Promise<TestServer> {
  return startTestServer({ ACTIVE_MODULES: STORAGE_MODULES, ...overrides }, opts);
}

/** The local backend's root (the default: `<DATA_DIR>/storage`). */
export const storageRoot = (ts: TestServer): string => path.join(ts.kernel.settings.DATA_DIR, 'storage');

export const sha256 = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

export const qs = (q: Record<string, string | number | undefined>): string =>
  Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');

function parse(body: string): any {
  try {
    return body ? JSON.parse(body) : undefined;
  } catch {
    return body;
  }
}

/** Binary mode: raw bytes as the body, `filename`/`name`/… in the query string. */
export async function uploadBinary(ts: TestServer, token: string, content: Buffer, query: Record<string, string | number | undefined>,
  o: { contentType?: string; url?: string } = {}): Promise<Res> {
  const res = await ts.server.inject({
    method: 'POST',
    url: `${o.url ?? '/api/storage/documents'}?${qs(query)}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': o.contentType ?? 'application/octet-stream' },
    payload: content,
  });
  return { status: res.statusCode, body: parse(res.body), headers: res.headers };
}

/** Base64 JSON mode. */
export async function uploadBase64(ts: TestServer, token: string, content: Buffer, fields: Record<string, unknown>, url = '/api/storage/documents'): Promise<Res> {
  return ts.request('POST', url, { token, body: { ...fields, content_b64: content.toString('base64') } });
}

export interface Download { status: number; headers: Record<string, string | string[] | number | undefined>; bytes: Buffer; body: any }

export async function download(ts: TestServer, token: string, url: string, headers: Record<string, string> = {}): Promise<Download> {
  const res = await ts.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, body: parse(res.body) };
}

/** Expects a 201 from an upload and returns the document. */
export function created(res: Res): Record<string, any> {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Every regular file under `dir` (relative paths), temp files included. */
/** File descriptors this process holds open; with `under`, only those of files below that folder. */
export function openFiles(under?: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    if (under === undefined) return true;
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(under);
    } catch {
      return false; // closed since the listing
    }
  }).length;
}

/**
 * The entries under `dir` (relative paths), walked one folder at a time: the server removes
 * objects and prunes their empty folders after a commit while a test polls, so an entry that
 * vanishes during the walk is skipped (a recursive readdir + stat failed with ENOENT then).
 */
function entriesUnder(dir: string, rel = ''): Array<{ rel: string; dir: boolean; empty: boolean }> {
  let list: fs.Dirent[];
  try {
    list = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: Array<{ rel: string; dir: boolean; empty: boolean }> = [];
  for (const e of list) {
    const r = rel ? path.join(rel, e.name) : e.name;
    if (e.isDirectory()) {
      const inner = entriesUnder(dir, r);
      out.push({ rel: r, dir: true, empty: inner.length === 0 }, ...inner);
    } else {
      out.push({ rel: r, dir: false, empty: false });
    }
  }
  return out;
}

export function filesUnder(dir: string): string[] {
  return entriesUnder(dir).filter((e) => !e.dir).map((e) => e.rel).sort();
}

/** Every folder under `dir` (relative paths) that holds nothing at all. */
export function emptyDirsUnder(dir: string): string[] {
  return entriesUnder(dir).filter((e) => e.dir && e.empty).map((e) => e.rel).sort();
}

/** Polls `check` until it returns true, or fails after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A raw request against a listening server: the body is a Readable piped as it is (chunked
 * transfer encoding unless a content-length header is given). Errors on the request side
 * (the server closing early) are tolerated as long as a response arrives.
 */
export function rawRequest(base: string, method: string, pathAndQuery: string, headers: Record<string, string>, body?: Readable): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(pathAndQuery, base);
    let settled = false;
    // no keep-alive: the connection ends with the request, even if the server stopped reading early
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        settled = true;
        body?.unpipe(req);
        body?.destroy();
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (e) => !settled && reject(e));
    });
    req.on('error', (e) => {
      // a server that answered early may reset the socket while we still write: only a missing
      // response is a failure
      setTimeout(() => !settled && reject(e), 500);
    });
    if (body) {
      body.on('error', () => req.destroy());
      body.pipe(req);
    } else req.end();
  });
}
