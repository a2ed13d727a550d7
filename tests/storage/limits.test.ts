/**
 * Size limits, with STORAGE_MAX_FILE_SIZE_BYTES = 1 MiB (every stored version, whatever the
 * entry point, checked while streaming) and STORAGE_MAX_UPLOAD_BYTES = 256 KiB (bodies the HTTP
 * layer holds in memory: base64 JSON). Oversize uploads are refused with 413 and leave no
 * object, no temp file and no rows.
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { listen } from '../helpers/api.ts';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, filesUnder, rawRequest, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

const FILE_MAX = 1024 * 1024;
const UPLOAD_MAX = 256 * 1024;

let ts: TestServer;
let admin: string;
let base: string;

beforeAll(async () => {
  ts = await startStorageServer({ STORAGE_MAX_FILE_SIZE_BYTES: String(FILE_MAX), STORAGE_MAX_UPLOAD_BYTES: String(UPLOAD_MAX) });
  admin = (await ts.loginAdmin()).access_token;
  base = await listen(ts);
});
afterAll(async () => {
  await ts?.close();
});

/** Rows of both storage models, counted as the system (no record rules). */
async function rowCounts(): Promise<{ documents: number; versions: number }> {
  const sys = systemPrincipal('default');
  const count = async (model: string) => (await ts.kernel.dispatch<{ count: number }>('fw.count', { model }, sys)).count;
  return { documents: await count('storage.document'), versions: await count('storage.document_version') };
}

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

describe('STORAGE_MAX_FILE_SIZE_BYTES', () => {
  it('a binary upload of exactly the limit is stored', async () => {
    const bytes = crypto.randomBytes(FILE_MAX);
    const doc = created(await uploadBinary(ts, admin, bytes, { filename: 'exact.bin' }));
    expect(doc.file_size).toBe(FILE_MAX);
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/download`)).bytes.equals(bytes)).toBe(true);
  });

  it('a binary upload over the limit (Content-Length known) is refused with 413 and leaves no object and no rows', async () => {
    const files = filesUnder(storageRoot(ts));
    const rows = await rowCounts();
    const res = await uploadBinary(ts, admin, crypto.randomBytes(FILE_MAX + 1), { filename: 'too-big.bin' });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    // over a real connection too: refused from the Content-Length before the body is read
    const body = lazyBody(FILE_MAX * 4);
    const real = await rawRequest(base, 'POST', '/api/storage/documents?filename=too-big-too.bin',
      { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'content-length': String(FILE_MAX * 4) }, body.stream);
    expect(real.status, real.text).toBe(413);
    expect(filesUnder(storageRoot(ts))).toEqual(files);
    expect(await rowCounts()).toEqual(rows);
  });

  it('a chunked binary upload (no Content-Length) over the limit is cut off while streaming: 413, nothing left behind', async () => {
    const files = filesUnder(storageRoot(ts));
    const rows = await rowCounts();
    const body = lazyBody(32 * 1024 * 1024);
    const res = await rawRequest(base, 'POST', '/api/storage/documents?filename=stream.bin&name=Streamed',
      { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }, body.stream);
    expect(res.status, res.text).toBe(413);
    expect(JSON.parse(res.text).error.code).toBe('PAYLOAD_TOO_LARGE');
    // the server stopped reading long before the client was done: the body was never buffered whole
    expect(body.produced()).toBeLessThan(32 * 1024 * 1024);
    expect(filesUnder(storageRoot(ts))).toEqual(files);
    expect(filesUnder(storageRoot(ts)).some((f) => f.endsWith('.fwtmp'))).toBe(false);
    expect(await rowCounts()).toEqual(rows);
    // the server is still fine afterwards
    expect((await ts.request('GET', '/api/storage/documents', { token: admin })).status).toBe(200);
  });

  it('a chunked upload under the limit is stored whole', async () => {
    const body = lazyBody(FILE_MAX - 100, 50_000);
    const res = await rawRequest(base, 'POST', '/api/storage/documents?filename=ok-stream.bin',
      { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }, body.stream);
    expect(res.status, res.text).toBe(201);
    expect(JSON.parse(res.text).file_size).toBe(FILE_MAX - 100);
  });

  it('a new version over the limit is refused with 413; the document keeps its versions', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('v1'), { filename: 'grow.bin' }));
    const files = filesUnder(storageRoot(ts));
    const res = await rawRequest(base, 'POST', `/api/storage/documents/${doc.id}/versions?filename=grow.bin&change_note=huge`,
      { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }, lazyBody(FILE_MAX * 3).stream);
    expect(res.status, res.text).toBe(413);
    const known = await ts.server.inject({
      method: 'POST', url: `/api/storage/documents/${doc.id}/versions?filename=grow.bin`,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream' }, payload: Buffer.alloc(FILE_MAX + 10),
    });
    expect(known.statusCode).toBe(413);
    expect(filesUnder(storageRoot(ts))).toEqual(files);
    const after = await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: admin });
    expect(after.body).toEqual(expect.objectContaining({ current_version: 1, version_count: 1 }));
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/download`)).bytes.toString()).toBe('v1');
  });
});

describe('STORAGE_MAX_UPLOAD_BYTES (base64 JSON bodies)', () => {
  it('base64 content up to the limit is accepted', async () => {
    const doc = created(await uploadBase64(ts, admin, crypto.randomBytes(UPLOAD_MAX), { filename: 'b64-ok.bin' }));
    expect(doc.file_size).toBe(UPLOAD_MAX);
  });

  it('base64 content over the limit is refused with 413 and nothing is stored', async () => {
    const files = filesUnder(storageRoot(ts));
    const rows = await rowCounts();
    // just over: the decoded content is checked
    expectError(await uploadBase64(ts, admin, crypto.randomBytes(UPLOAD_MAX + 1), { filename: 'b64-big.bin' }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await uploadBase64(ts, admin, crypto.randomBytes(UPLOAD_MAX + 1), { filename: 'b64-big.bin' }, '/api/storage/upload'), 413);
    // far over: the JSON body itself is refused before it is parsed
    const huge = await uploadBase64(ts, admin, crypto.randomBytes(UPLOAD_MAX * 2), { filename: 'b64-huge.bin' });
    expect(huge.status).toBe(413);
    // as a new version, too
    const doc = created(await uploadBase64(ts, admin, Buffer.from('small'), { filename: 'small.txt' }));
    const files2 = filesUnder(storageRoot(ts));
    const v = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: 'small.txt', content_b64: crypto.randomBytes(UPLOAD_MAX + 1).toString('base64') } });
    expectError(v, 413);
    expect(filesUnder(storageRoot(ts))).toEqual(files2);
    expect(files2.length).toBe(files.length + 1);
    expect((await rowCounts()).documents).toBe(rows.documents + 1);
  });
});
