/**
 * Upload limits. STORAGE_MAX_UPLOAD_BYTES bounds one upload at the HTTP layer and
 * STORAGE_MAX_FILE_SIZE_BYTES a document version; every REST upload route (binary streamed,
 * with or without Content-Length, base64 JSON, new versions of both kinds) refuses a body over
 * the smaller of the two with 413 PAYLOAD_TOO_LARGE (`details: { limit, setting }`), while the
 * body streams, and leaves no row, no version, no file and no folder behind. Run with either
 * limit the smaller one, on both engines.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { listen } from '../helpers/api.ts';
import { PROVIDERS } from '../helpers/kernel.ts';
import { expectError, type Res, type TestServer } from '../helpers/server.ts';
import { created, download, emptyDirsUnder, rawRequest, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

const SMALL = 256 * 1024;
const LARGE = 1024 * 1024;

const CONFIGS = [
  { label: 'STORAGE_MAX_UPLOAD_BYTES is the smaller', setting: 'STORAGE_MAX_UPLOAD_BYTES', settings: { STORAGE_MAX_UPLOAD_BYTES: String(SMALL), STORAGE_MAX_FILE_SIZE_BYTES: String(LARGE) } },
  { label: 'STORAGE_MAX_FILE_SIZE_BYTES is the smaller', setting: 'STORAGE_MAX_FILE_SIZE_BYTES', settings: { STORAGE_MAX_UPLOAD_BYTES: String(LARGE), STORAGE_MAX_FILE_SIZE_BYTES: String(SMALL) } },
];
const CASES = PROVIDERS.flatMap((provider) => CONFIGS.map((c) => ({ provider, ...c })));

/** A lazily produced body of `total` bytes; `produced()` tells how much the server pulled. */
function lazyBody(total: number, chunk = 64 * 1024): { stream: Readable; produced: () => number } {
  let produced = 0;
  const stream = new Readable({
    read() {
      if (produced >= total) return void this.push(null);
      const n = Math.min(chunk, total - produced);
      produced += n;
      this.push(crypto.randomBytes(n));
    },
  });
  return { stream, produced: () => produced };
}

/** Every file and folder under `dir`, relative: a refused upload must not add any. */
function entriesUnder(dir: string): string[] {
  return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

describe.each(CASES)('upload limits on $provider when $label', ({ provider, setting, settings }) => {
  let ts: TestServer;
  let admin: string;
  let base: string;
  let doc: Record<string, any>;

  beforeAll(async () => {
    ts = await startStorageServer(settings, { provider });
    admin = (await ts.loginAdmin()).access_token;
    base = await listen(ts);
    doc = created(await uploadBinary(ts, admin, Buffer.from('v1'), { filename: 'grow.bin' }));
  });
  afterAll(async () => {
    await ts?.close();
  });

  /** Rows of both storage models, counted as the system (no record rules), and the disk. */
  async function state() {
    const sys = systemPrincipal('default');
    const count = async (model: string) => (await ts.kernel.dispatch<{ count: number }>('fw.count', { model }, sys)).count;
    const current = (await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: admin })).body;
    return {
      documents: await count('storage.document'),
      versions: await count('storage.document_version'),
      current: { version: current.current_version, count: current.version_count, size: current.file_size },
      disk: entriesUnder(storageRoot(ts)),
    };
  }

  const auth = () => ({ authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream' });
  /** A real request whose body is a stream: chunked transfer, no Content-Length. */
  const chunked = (url: string, total: number) => rawRequest(base, 'POST', url, { ...auth(), 'transfer-encoding': 'chunked' }, lazyBody(total).stream);
  const refusedWithLimit = (res: Res | { status: number; text: string }) => {
    const body = 'text' in res ? JSON.parse(res.text) : res.body;
    expect(res.status, JSON.stringify(body)).toBe(413);
    expect(body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: SMALL, setting } });
    // a size people read, the setting's name left to details (a person cannot change it)
    expect(body.error.message).toBe('the file is larger than 256 KB, the most this server accepts');
  };

  it('every upload route accepts a body of exactly the smaller limit', async () => {
    const exact = crypto.randomBytes(SMALL);
    expect(created(await uploadBinary(ts, admin, exact, { filename: 'exact.bin' })).file_size).toBe(SMALL);
    expect(created(await uploadBase64(ts, admin, exact, { filename: 'exact64.bin' }, '/api/storage/upload')).file_size).toBe(SMALL);
    const streamed = await chunked('/api/storage/upload?filename=exact-stream.bin', SMALL);
    expect(streamed.status, streamed.text).toBe(201);
    expect(JSON.parse(streamed.text).file_size).toBe(SMALL);
    const v = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: 'grow.bin', content_b64: exact.toString('base64') } });
    expect(v.status, JSON.stringify(v.body)).toBe(201);
    const vs = await chunked(`/api/storage/documents/${doc.id}/versions?filename=grow.bin`, SMALL);
    expect(vs.status, vs.text).toBe(201);
    expect(JSON.parse(vs.text)).toMatchObject({ file_size: SMALL, current_version: 3 });
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/versions/2/download`)).bytes.equals(exact)).toBe(true);
  });

  it('new documents over the smaller limit are refused with 413 on every route and mode, leaving no row, file or folder', async () => {
    const before = await state();
    const over = crypto.randomBytes(SMALL + 1);
    // binary with Content-Length: refused before the body is read
    refusedWithLimit(await uploadBinary(ts, admin, over, { filename: 'big.bin' }));
    refusedWithLimit(await uploadBinary(ts, admin, over, { filename: 'big.bin' }, { url: '/api/storage/upload' }));
    // binary streamed without Content-Length: cut off while streaming
    refusedWithLimit(await chunked('/api/storage/documents?filename=big-stream.bin', SMALL + 1));
    refusedWithLimit(await chunked('/api/storage/upload?filename=big-stream.bin', SMALL + 1));
    // base64 JSON, both routes, both field names
    refusedWithLimit(await uploadBase64(ts, admin, over, { filename: 'big64.bin' }));
    refusedWithLimit(await ts.request('POST', '/api/storage/upload', { token: admin, body: { file_name: 'big64.bin', file_content: over.toString('base64') } }));
    // base64 through the generic create route (the model's create command) is bound the same way
    refusedWithLimit(await ts.request('POST', '/api/data/storage.document', { token: admin, body: { filename: 'big64.bin', content_b64: over.toString('base64') } }));
    expect(await state()).toEqual(before);
    expect(emptyDirsUnder(storageRoot(ts))).toEqual([]);
  });

  it('new versions over the smaller limit are refused with 413 in every mode; the document keeps its versions', async () => {
    const before = await state();
    const over = crypto.randomBytes(SMALL + 1);
    const url = `/api/storage/documents/${doc.id}/versions?filename=grow.bin`;
    refusedWithLimit(await uploadBinary(ts, admin, over, { filename: 'grow.bin' }, { url: `/api/storage/documents/${doc.id}/versions` }));
    refusedWithLimit(await chunked(url, SMALL + 1));
    refusedWithLimit(await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: 'grow.bin', content_b64: over.toString('base64') } }));
    refusedWithLimit(await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { file_name: 'grow.bin', file_content: over.toString('base64') } }));
    expect(await state()).toEqual(before);
    expect(emptyDirsUnder(storageRoot(ts))).toEqual([]);
  });

  it('a chunked body far over the limit is cut off while it streams: the server stops reading, stores nothing and keeps serving', async () => {
    const before = await state();
    for (const url of ['/api/storage/documents?filename=huge.bin', `/api/storage/documents/${doc.id}/versions?filename=huge.bin`]) {
      const body = lazyBody(64 * LARGE);
      const res = await rawRequest(base, 'POST', url, { ...auth(), 'transfer-encoding': 'chunked' }, body.stream);
      refusedWithLimit(res);
      // never buffered whole: the client was stopped long before it was done
      expect(body.produced()).toBeLessThan(16 * LARGE);
    }
    // a declared Content-Length over the limit is refused without reading the body
    const declared = lazyBody(64 * LARGE);
    const res = await rawRequest(base, 'POST', '/api/storage/upload?filename=declared.bin', { ...auth(), 'content-length': String(64 * LARGE) }, declared.stream);
    refusedWithLimit(res);
    expect(await state()).toEqual(before);
    expect(entriesUnder(storageRoot(ts)).some((f) => f.endsWith('.fwtmp'))).toBe(false);
    expect((await ts.request('GET', '/api/storage/documents', { token: admin })).status).toBe(200);
  });

  it('a base64 JSON body far over the limit is refused with 413 before it is parsed', async () => {
    const before = await state();
    const huge = await uploadBase64(ts, admin, crypto.randomBytes(SMALL * 2), { filename: 'b64-huge.bin' });
    expectError(huge, 413, 'PAYLOAD_TOO_LARGE');
    expect(await state()).toEqual(before);
  });

  it('the refused uploads left no file and no folder anywhere under the storage root', () => {
    for (const f of entriesUnder(storageRoot(ts))) {
      const full = path.join(storageRoot(ts), f);
      if (fs.statSync(full).isDirectory()) expect(fs.readdirSync(full).length, f).toBeGreaterThan(0);
      else expect(f).not.toMatch(/big|huge|declared/);
    }
  });
});
