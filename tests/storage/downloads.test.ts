/**
 * Downloads: byte-identical content, Content-Disposition (RFC 6266 for non-ASCII names), the
 * stored content type, ETag from the checksum with If-None-Match → 304, and Range requests.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDisposition, parseRange } from '../../src/apps/storage/routes.ts';
import { listen } from '../helpers/api.ts';
import type { TestServer } from '../helpers/server.ts';
import { created, download, openFiles, sha256, startStorageServer, storageRoot, uploadBase64, uploadBinary, waitFor } from './helpers.ts';

let ts: TestServer;
let admin: string;
let bytes: Buffer;
let doc: Record<string, any>;
let listening: string | undefined;
/** The server on a real port (for raw sockets), started once. */
const baseUrl = async () => (listening ??= await listen(ts));

beforeAll(async () => {
  ts = await startStorageServer();
  admin = (await ts.loginAdmin()).access_token;
  bytes = crypto.randomBytes(300 * 1024 + 17);
  doc = created(await uploadBinary(ts, admin, bytes, { filename: 'archive.tar.gz', name: 'Archive' }, { contentType: 'application/gzip' }));
});
afterAll(async () => {
  await ts?.close();
});

const urls = () => [`/api/storage/documents/${doc.id}/download`, `/api/storage/documents/${doc.id}/versions/1/download`, `/api/storage/download/${doc.id}`];

describe('downloads', () => {
  it('every download route returns the exact bytes with the stored content type, length and an attachment disposition', async () => {
    for (const url of urls()) {
      const d = await download(ts, admin, url);
      expect(d.status, url).toBe(200);
      expect(d.bytes.length).toBe(bytes.length);
      expect(d.bytes.equals(bytes), url).toBe(true);
      expect(sha256(d.bytes)).toBe(doc.checksum);
      expect(d.headers['content-type']).toBe('application/gzip');
      expect(d.headers['content-length']).toBe(String(bytes.length));
      expect(d.headers['content-disposition']).toMatch(/^attachment; filename="archive\.tar\.gz"/);
      expect(d.headers['accept-ranges']).toBe('bytes');
    }
  });

  it('a non-ASCII filename gets an ASCII fallback plus filename*=UTF-8\'\'… (RFC 6266 / RFC 5987)', async () => {
    const name = 'Übersicht – 東京 (final).pdf';
    const d0 = created(await uploadBase64(ts, admin, Buffer.from('%PDF-1.4'), { filename: name, content_type: 'application/pdf' }));
    expect(d0.original_filename).toBe(name);
    const d = await download(ts, admin, `/api/storage/documents/${d0.id}/download`);
    const cd = String(d.headers['content-disposition']);
    expect(cd.startsWith('attachment;')).toBe(true);
    expect(cd).toMatch(/filename="[\x20-\x7e]*"/); // the fallback is plain ASCII
    const star = /filename\*=UTF-8''([^;\s]+)/.exec(cd);
    expect(star).not.toBeNull();
    expect(star![1]).toMatch(/^[A-Za-z0-9!#$&+.^_`|~%-]+$/); // attr-chars and %-escapes only
    expect(decodeURIComponent(star![1])).toBe(name);
    expect(d.headers['content-type']).toBe('application/pdf');
    // the header is a valid HTTP header value (latin-1 safe)
    expect(/^[\x20-\x7e]*$/.test(cd)).toBe(true);
  });

  it('quotes and backslashes in a filename cannot break out of the quoted fallback', () => {
    const cd = contentDisposition('a"b\\c.txt');
    expect(cd).toMatch(/^attachment; filename="a_b_c\.txt"; filename\*=UTF-8''a%22b%5Cc\.txt$/);
    expect(contentDisposition("it's (1).txt")).toContain("filename*=UTF-8''it%27s%20%281%29.txt");
  });

  it('ETag is the checksum; If-None-Match with it answers 304 without a body, another tag gets the content', async () => {
    const d = await download(ts, admin, urls()[0]);
    expect(d.headers.etag).toBe(`"${doc.checksum}"`);
    const again = await download(ts, admin, urls()[0], { 'if-none-match': `"${doc.checksum}"` });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.etag).toBe(`"${doc.checksum}"`);
    const other = await download(ts, admin, urls()[0], { 'if-none-match': '"something-else"' });
    expect(other.status).toBe(200);
    expect(other.bytes.equals(bytes)).toBe(true);
  });

  it('Range: bytes=a-b answers 206 with exactly those bytes and a Content-Range', async () => {
    const d = await download(ts, admin, urls()[0], { range: 'bytes=1000-1999' });
    expect(d.status).toBe(206);
    expect(d.headers['content-range']).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(d.headers['content-length']).toBe('1000');
    expect(d.bytes.equals(bytes.subarray(1000, 2000))).toBe(true);

    const open = await download(ts, admin, urls()[1], { range: `bytes=${bytes.length - 10}-` });
    expect(open.status).toBe(206);
    expect(open.headers['content-range']).toBe(`bytes ${bytes.length - 10}-${bytes.length - 1}/${bytes.length}`);
    expect(open.bytes.equals(bytes.subarray(bytes.length - 10))).toBe(true);

    // an end past the size is clipped
    const clipped = await download(ts, admin, urls()[2], { range: `bytes=${bytes.length - 5}-${bytes.length + 100}` });
    expect(clipped.status).toBe(206);
    expect(clipped.bytes.equals(bytes.subarray(bytes.length - 5))).toBe(true);
  });

  it('a suffix range bytes=-n returns the last n bytes', async () => {
    const d = await download(ts, admin, urls()[0], { range: 'bytes=-500' });
    expect(d.status).toBe(206);
    expect(d.headers['content-range']).toBe(`bytes ${bytes.length - 500}-${bytes.length - 1}/${bytes.length}`);
    expect(d.bytes.equals(bytes.subarray(bytes.length - 500))).toBe(true);
  });

  it('an unsatisfiable range answers 416 with Content-Range: bytes */size', async () => {
    for (const range of [`bytes=${bytes.length}-`, `bytes=${bytes.length + 10}-${bytes.length + 20}`, 'bytes=500-100', 'bytes=-', 'items=0-1']) {
      const d = await download(ts, admin, urls()[0], { range });
      expect(d.status, range).toBe(416);
      expect(d.headers['content-range']).toBe(`bytes */${bytes.length}`);
      expect(d.body.error.code).toBe('RANGE_NOT_SATISFIABLE');
    }
  });

  it('parseRange follows the rules used above', () => {
    expect(parseRange(undefined, 10)).toBeNull();
    expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('bytes=-30', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=5-', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=0-', 0)).toBe('invalid');
    expect(parseRange('bytes=1-2,4-5', 10)).toBe('invalid');
  });

  it('HEAD answers the headers of the download and no body', async () => {
    const res = await ts.server.inject({ method: 'HEAD', url: urls()[0], headers: { authorization: `Bearer ${admin}`, range: 'bytes=0-99' } });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-length']).toBe('100');
    expect(res.headers['content-range']).toBe(`bytes 0-99/${bytes.length}`);
    expect(res.headers.etag).toBe(`"${doc.checksum}"`);
    expect(res.rawPayload.length).toBe(0);
  });

  it('a client that goes away mid-download ends the transfer: the file is closed and the next download is whole', async () => {
    const base = await baseUrl();
    const big = crypto.randomBytes(6 * 1024 * 1024);
    const bigDoc = created(await uploadBinary(ts, admin, big, { filename: 'big.bin' }));
    const before = openFiles();
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/api/storage/documents/${bigDoc.id}/download`, { headers: { authorization: `Bearer ${admin}` }, agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (err.message.includes('socket hang up') || err.message.includes('aborted') ? undefined : reject(err)));
    });
    await waitFor(() => openFiles() <= before, 'the download file and socket to be closed');
    const again = await download(ts, admin, `/api/storage/documents/${bigDoc.id}/download`);
    expect(again.bytes.equals(big)).toBe(true);
  });

  it('two pipelined downloads on one connection, then the client goes: both transfers end and release their files', async () => {
    const base = await baseUrl();
    const big = crypto.randomBytes(8 * 1024 * 1024);
    const bigDoc = created(await uploadBinary(ts, admin, big, { filename: 'pipelined.bin' }));
    const openStored = () => openFiles(storageRoot(ts));
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const get = `GET /api/storage/documents/${bigDoc.id}/download HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${admin}\r\n\r\n`;
    socket.write(get + get);
    let received = 0;
    await new Promise<void>((resolve) => socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > 100_000) {
        socket.pause(); // the first response stalls; the second waits behind it
        resolve();
      }
    }));
    await waitFor(() => openStored() >= 2, 'both downloads to have opened their file');
    socket.destroy();
    await waitFor(() => openStored() === 0, 'both files to be closed after the client went');
  });

  it('downloads need a bearer token (401)', async () => {
    const res = await ts.server.inject({ method: 'GET', url: urls()[0] });
    expect(res.statusCode).toBe(401);
  });
});
