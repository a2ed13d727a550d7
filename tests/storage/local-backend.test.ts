/**
 * The built-in local filesystem backend (createLocalBackend) against a temp folder: the storage
 * backend contract, key rules, atomic streamed writes that leave nothing behind when they fail,
 * and the key helpers (joinKey, documentKey, sanitizeFilename).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StorageKeyError, StorageNotFoundError, StoragePayloadTooLarge } from '../../src/apps/storage/backends/errors.ts';
import { checkKey, checkPrefix, documentKey, joinKey, sanitizeFilename } from '../../src/apps/storage/backends/keys.ts';
import { createLocalBackend, flushBehind } from '../../src/apps/storage/backends/local/index.ts';
import type { StorageBackend } from '../../src/apps/storage/backends/types.ts';
import { readAll } from '../connectors/helpers.ts';
import { filesUnder } from './helpers.ts';

let root: string;
let backend: StorageBackend;
const sha = (b: Buffer) => `sha256:${crypto.createHash('sha256').update(b).digest('hex')}`;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-local-backend-'));
  backend = createLocalBackend({ root: path.join(root, 'store'), backend_key: 'local-test' });
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A Readable that yields `good` bytes, then fails. */
function failingAfter(good: Buffer, chunk = 16 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset < good.length) {
        const part = good.subarray(offset, offset + chunk);
        offset += part.length;
        // asynchronously, so part of the file reaches the disk before the failure
        setTimeout(() => this.push(part), 1);
        return;
      }
      setTimeout(() => this.destroy(new Error('client went away')), 5);
    },
  });
}

describe('local backend: contract', () => {
  it('declares the local capabilities: directories, atomic_put and integrity_checksum', () => {
    expect(backend.backend_key).toBe('local-test');
    expect(backend.capabilities).toEqual({ directories: true, atomic_put: true, resumable_upload: false, integrity_checksum: true, native_sharing: false });
  });

  it('put streams the content to the key and returns a reference with sha256:<hex> checksum, size and mime type; get returns the bytes', async () => {
    const body = crypto.randomBytes(200_000);
    const ref = await backend.put('t/o/storage.document/d/v1/data.bin', Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]));
    expect(ref).toEqual({ backend_key: 'local-test', key: 't/o/storage.document/d/v1/data.bin', object_id: '', checksum: sha(body), size: body.length, mime_type: 'application/octet-stream' });
    expect(ref.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fs.readFileSync(path.join(root, 'store/t/o/storage.document/d/v1/data.bin'))).toEqual(body);
    const got = await backend.get(ref.key);
    expect(got.size).toBe(body.length);
    expect(await readAll(got.stream)).toEqual(body);
  });

  it('a put larger than the flush-behind interval (8 MiB) stores every byte, in order, with its checksum', async () => {
    const body = crypto.randomBytes(21 * 1024 * 1024 + 123);
    const parts = Array.from({ length: Math.ceil(body.length / 300_000) }, (_, i) => body.subarray(i * 300_000, (i + 1) * 300_000));
    const ref = await backend.put('t/large/big.bin', Readable.from(parts));
    expect(ref).toMatchObject({ size: body.length, checksum: sha(body) });
    expect(fs.readFileSync(path.join(root, 'store/t/large/big.bin')).equals(body)).toBe(true);
    expect(filesUnder(path.join(root, 'store/t/large'))).toEqual(['big.bin']);
  });

  it('accepts a Buffer; mime type comes from the metadata, else from the key\'s extension', async () => {
    const ref = await backend.put('t/mime/a.txt', Buffer.from('hello'));
    expect(ref.mime_type).toBe('text/plain');
    expect(ref.size).toBe(5);
    expect(ref.checksum).toBe(sha(Buffer.from('hello')));
    const given = await backend.put('t/mime/b.txt', Buffer.from('x'), { mime_type: 'application/x-custom' });
    expect(given.mime_type).toBe('application/x-custom');
  });

  it('an empty object has size 0 and the SHA-256 of nothing', async () => {
    const ref = await backend.put('t/empty/none', Readable.from([]));
    expect(ref.size).toBe(0);
    expect(ref.checksum).toBe(sha(Buffer.alloc(0)));
    expect((await readAll((await backend.get('t/empty/none')).stream)).length).toBe(0);
  });

  it('get with an inclusive range returns exactly those bytes', async () => {
    await backend.put('t/range/r.txt', Buffer.from('0123456789'));
    const part = await backend.get('t/range/r.txt', { start: 2, end: 5 });
    expect(part.size).toBe(4);
    expect((await readAll(part.stream)).toString()).toBe('2345');
    const last = await backend.get('t/range/r.txt', { start: 9, end: 9 });
    expect((await readAll(last.stream)).toString()).toBe('9');
  });

  it('put overwrites an existing key atomically (the new content replaces the old)', async () => {
    await backend.put('t/over/x', Buffer.from('first'));
    await backend.put('t/over/x', Buffer.from('second'));
    expect((await readAll((await backend.get('t/over/x')).stream)).toString()).toBe('second');
  });

  it('exists and delete; get and delete of a missing key are StorageNotFoundError with the context', async () => {
    await backend.put('t/gone/g.txt', Buffer.from('g'));
    expect(await backend.exists('t/gone/g.txt')).toBe(true);
    expect(await backend.exists('t/gone')).toBe(false); // a directory is not an object
    await backend.delete('t/gone/g.txt');
    expect(await backend.exists('t/gone/g.txt')).toBe(false);
    const err = await backend.get('t/gone/g.txt').catch((e) => e);
    expect(err).toBeInstanceOf(StorageNotFoundError);
    expect(err).toMatchObject({ code: 'STORAGE_NOT_FOUND', status: 404, context: { backend_key: 'local-test', key: 't/gone/g.txt', operation: 'get' } });
    const del = await backend.delete('t/gone/g.txt').catch((e) => e);
    expect(del).toBeInstanceOf(StorageNotFoundError);
    expect(del.context.operation).toBe('delete');
  });

  it('list(prefix) returns the objects under the prefix, sorted, with sizes; max_results bounds it; default 1000', async () => {
    for (const n of ['c', 'a', 'e', 'b', 'd']) await backend.put(`l/p/${n}.txt`, Buffer.from(n.repeat(4)));
    await backend.put('l/p/sub/z.txt', Buffer.from('zz'));
    await backend.put('l/other/x.txt', Buffer.from('x'));
    const all = await backend.list('l/p/');
    expect(all.map((r) => r.key)).toEqual(['l/p/a.txt', 'l/p/b.txt', 'l/p/c.txt', 'l/p/d.txt', 'l/p/e.txt', 'l/p/sub/z.txt']);
    expect(all.slice(0, 5).every((r) => r.size === 4 && r.backend_key === 'local-test')).toBe(true);
    expect((await backend.list('l/p/', 2)).map((r) => r.key)).toEqual(['l/p/a.txt', 'l/p/b.txt']);
    expect(await backend.list('nothing/here/')).toEqual([]);
    expect((await backend.list('')).some((r) => r.key === 'l/other/x.txt')).toBe(true);

    const many = createLocalBackend({ root: path.join(root, 'many') });
    fs.mkdirSync(path.join(root, 'many', 'm'), { recursive: true });
    for (let i = 0; i < 1005; i++) fs.writeFileSync(path.join(root, 'many', 'm', `f${String(i).padStart(4, '0')}`), '');
    expect((await many.list('m/')).length).toBe(1000);
    expect((await many.list('m/', 1005)).length).toBe(1005);
  });

  it('a listing prefix must end with /', async () => {
    const err = await backend.list('l/p').catch((e) => e);
    expect(err).toBeInstanceOf(StorageKeyError);
    expect(err).toMatchObject({ code: 'INVALID_STORAGE_KEY', status: 400, context: { backend_key: 'local-test', key: 'l/p', operation: 'list' } });
    await expect(backend.list('../')).rejects.toBeInstanceOf(StorageKeyError);
    await expect(backend.list('/abs/')).rejects.toBeInstanceOf(StorageKeyError);
  });
});

describe('local backend: key rules', () => {
  const bad = ['../escape.txt', 'a/../../escape.txt', 'a/..', '/etc/passwd', '/abs/key', 'a//b', 'a/./b', './a', 'a/', '', 'a\\..\\b', 'nul\0byte'];

  it.each(bad)('refuses the key %j on put, get, delete and exists (INVALID_STORAGE_KEY)', async (key) => {
    for (const op of [
      () => backend.put(key, Buffer.from('x')),
      () => backend.get(key),
      () => backend.delete(key),
      () => backend.exists(key),
    ]) {
      const err = await op().catch((e) => e);
      expect(err, `${key}`).toBeInstanceOf(StorageKeyError);
      expect(err.code).toBe('INVALID_STORAGE_KEY');
      expect(err.status).toBe(400);
      expect(err.details).toEqual(expect.objectContaining({ backend_key: 'local-test', key }));
    }
  });

  it('nothing is written outside the root by a refused key', async () => {
    await backend.put('../outside.txt', Buffer.from('x')).catch(() => undefined);
    await backend.put('/tmp/outside-abs.txt', Buffer.from('x')).catch(() => undefined);
    expect(fs.existsSync(path.join(root, 'outside.txt'))).toBe(false);
    expect(filesUnder(root).filter((f) => f.includes('outside'))).toEqual([]);
  });

  it('keys longer than 1024 characters are refused', async () => {
    await expect(backend.put(`k/${'x'.repeat(1030)}`, Buffer.from('x'))).rejects.toBeInstanceOf(StorageKeyError);
  });

  it('checkKey and checkPrefix apply the same rules to every backend', () => {
    expect(checkKey('a/b/c.txt', 'b', 'get')).toBe('a/b/c.txt');
    expect(() => checkKey('a/../b', 'b', 'get')).toThrow(StorageKeyError);
    expect(checkPrefix('', 'b')).toBe('');
    expect(checkPrefix('a/b/', 'b')).toBe('a/b/');
    expect(() => checkPrefix('a/b', 'b')).toThrow(/ends with \//);
    expect(() => checkPrefix('a//', 'b')).toThrow(StorageKeyError);
  });
});

describe('local backend: names fit the file system', () => {
  it('a key segment over 255 UTF-8 bytes is refused with INVALID_STORAGE_KEY (400), not ENAMETOOLONG', async () => {
    const err = await backend.put(`t/long/${'漢'.repeat(86)}`, Buffer.from('x')).catch((e) => e); // 258 bytes
    expect(err).toBeInstanceOf(StorageKeyError);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/255 bytes/);
    expect(filesUnder(path.join(root, 'store', 't/long'))).toEqual([]);
  });

  it('an object named with the full 255 bytes is stored: its temp name is cut to fit, between characters', async () => {
    const name = `${'漢'.repeat(84)}abc`; // 252 + 3 = 255 bytes
    const ref = await backend.put(`t/long/${name}`, Buffer.from('fits'));
    expect(ref.size).toBe(4);
    expect((await readAll((await backend.get(`t/long/${name}`)).stream)).toString()).toBe('fits');
    expect(filesUnder(path.join(root, 'store', 't/long'))).toEqual([name]);
  });

  it('a key naming a temp file (`.….fwtmp`) is refused: listings hide such files and sweeps remove them', async () => {
    const err = await backend.put(`t/tmpname/.report.0123456789ab.fwtmp`, Buffer.from('x')).catch((e) => e);
    expect(err).toBeInstanceOf(StorageKeyError);
    expect(err.message).toMatch(/temp file/);
    expect(filesUnder(path.join(root, 'store', 't/tmpname'))).toEqual([]);
  });
});

describe('local backend: failed writes leave nothing behind', () => {
  it('a write whose source fails mid-stream leaves no visible object and no temp file', async () => {
    const dir = 't/fail/storage.document/d/v1';
    const err = await backend.put(`${dir}/broken.bin`, failingAfter(crypto.randomBytes(100_000))).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err.message)).toMatch(/client went away/);
    expect(await backend.exists(`${dir}/broken.bin`)).toBe(false);
    expect(filesUnder(path.join(root, 'store', dir))).toEqual([]);
    expect(await backend.list('t/fail/')).toEqual([]);
  });

  it('a source that fails after several flush-behind intervals (8 MiB each) leaves no temp file', async () => {
    const dir = 't/fail-late/storage.document/d/v1';
    const err = await backend.put(`${dir}/late.bin`, failingAfter(crypto.randomBytes(20 * 1024 * 1024), 1024 * 1024)).catch((e) => e);
    expect(String(err?.message)).toMatch(/client went away/);
    expect(filesUnder(path.join(root, 'store', dir))).toEqual([]);
  });

  it('a failed overwrite keeps the previous object intact', async () => {
    const key = 't/fail2/keep.txt';
    await backend.put(key, Buffer.from('the original'));
    await expect(backend.put(key, failingAfter(crypto.randomBytes(50_000)))).rejects.toThrow(/client went away/);
    expect((await readAll((await backend.get(key)).stream)).toString()).toBe('the original');
    expect(filesUnder(path.join(root, 'store', 't/fail2'))).toEqual(['keep.txt']);
  });

  it('content over max_bytes is refused while streaming with StoragePayloadTooLarge (413) and nothing is left', async () => {
    const key = 't/big/too-large.bin';
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 64 * 1024;
        // far more than the limit: the write must stop long before the source would end
        if (produced > 64 * 1024 * 1024) return void this.push(null);
        this.push(Buffer.alloc(64 * 1024, 1));
      },
    });
    const err = await backend.put(key, endless, { max_bytes: 100_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoragePayloadTooLarge);
    expect(err).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, context: { backend_key: 'local-test', key, operation: 'put' } });
    expect(produced).toBeLessThan(4 * 1024 * 1024);
    expect(await backend.exists(key)).toBe(false);
    expect(filesUnder(path.join(root, 'store', 't/big'))).toEqual([]);

    // exactly at the limit is fine
    const ok = await backend.put(key, Buffer.alloc(100_000, 2), { max_bytes: 100_000 });
    expect(ok.size).toBe(100_000);
  });

  it('an expected checksum that does not match is a StorageIntegrityError and leaves nothing', async () => {
    const err = await backend.put('t/integrity/x.txt', Buffer.from('abc'), { checksum: sha(Buffer.from('abd')) }).catch((e) => e);
    expect(err).toMatchObject({ code: 'STORAGE_INTEGRITY', context: { operation: 'put', key: 't/integrity/x.txt' } });
    expect(filesUnder(path.join(root, 'store', 't/integrity'))).toEqual([]);
    const ok = await backend.put('t/integrity/x.txt', Buffer.from('abc'), { checksum: sha(Buffer.from('abc')) });
    expect(ok.checksum).toBe(sha(Buffer.from('abc')));
  });

  it('listings ignore temp files a crashed write left behind', async () => {
    await backend.put('t/crash/real.txt', Buffer.from('r'));
    fs.writeFileSync(path.join(root, 'store', 't/crash', '.half.txt.abcdef012345.fwtmp'), 'partial');
    expect((await backend.list('t/crash/')).map((r) => r.key)).toEqual(['t/crash/real.txt']);
    expect(await backend.exists('t/crash/half.txt')).toBe(false);
  });

  it('the root folder is created on first upload', async () => {
    const fresh = path.join(root, 'fresh', 'nested');
    const b = createLocalBackend({ root: fresh });
    expect(fs.existsSync(fresh)).toBe(false);
    await b.put('a/b.txt', Buffer.from('x'));
    expect(fs.readFileSync(path.join(fresh, 'a/b.txt'), 'utf8')).toBe('x');
  });
});

describe('key helpers', () => {
  it('joinKey joins segments with / and refuses empty, ".", ".." and "/"-containing segments', () => {
    expect(joinKey(['a', 'b', 'c.txt'])).toBe('a/b/c.txt');
    for (const segs of [['a', ''], ['.', 'b'], ['a', '..'], ['a/b', 'c'], ['a', 'b\\c']]) {
      const err = (() => {
        try {
          joinKey(segs, 'kb');
        } catch (e) {
          return e as StorageKeyError;
        }
        return null;
      })();
      expect(err, JSON.stringify(segs)).toBeInstanceOf(StorageKeyError);
      expect(err!.code).toBe('INVALID_STORAGE_KEY');
      expect(err!.context).toEqual({ backend_key: 'kb', key: segs.join('/'), operation: 'key' });
    }
  });

  it('documentKey follows {tenant_id}/{org_uuid}/storage.document/{doc_uuid}/v{N}/{filename} with the filename sanitised', () => {
    const org = crypto.randomUUID();
    const doc = crypto.randomUUID();
    expect(documentKey('default', org, doc, 3, 'report.pdf')).toBe(`default/${org}/storage.document/${doc}/v3/report.pdf`);
    expect(documentKey('default', org, doc, 1, '../../etc/passwd')).toBe(`default/${org}/storage.document/${doc}/v1/passwd`);
    expect(documentKey('default', '', doc, 1, 'a.txt')).toBe(`default/no-org/storage.document/${doc}/v1/a.txt`);
    expect(() => documentKey('', org, doc, 1, 'a.txt')).toThrow(StorageKeyError);
    expect(() => documentKey('..', org, doc, 1, 'a.txt')).toThrow(StorageKeyError);
  });

  it('sanitizeFilename keeps one safe segment: no path parts, no control characters, no dot-only names, at most 200 characters', () => {
    expect(sanitizeFilename('report.pdf')).toBe('report.pdf');
    expect(sanitizeFilename('dir/sub/report.pdf')).toBe('report.pdf');
    expect(sanitizeFilename('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(sanitizeFilename('../../secret')).toBe('secret');
    expect(sanitizeFilename('..')).toBe('file');
    expect(sanitizeFilename('.')).toBe('file');
    expect(sanitizeFilename('')).toBe('file');
    expect(sanitizeFilename('dir/')).toBe('file');
    expect(sanitizeFilename('bad\u0000na\nme\u007f.txt')).toBe('badname.txt');
    expect(sanitizeFilename('  spaced.txt  ')).toBe('spaced.txt');
    expect(sanitizeFilename('Résumé – 東京.pdf')).toBe('Résumé – 東京.pdf');
    expect(sanitizeFilename(`${'x'.repeat(300)}.txt`).length).toBe(200);
    expect(sanitizeFilename('.hidden')).toBe('.hidden');
  });
});

describe('local backend: flush-behind', () => {
  const MiB = 1024 * 1024;

  it('starts an fdatasync once 8 MiB more were written, never two at once, and fsyncs at the end', async () => {
    let release: () => void = () => {};
    const datasync = vi.fn(() => new Promise<void>((r) => { release = r; }));
    const sync = vi.fn(async () => {});
    const flush = flushBehind({ datasync, sync });
    flush.wrote(7 * MiB);
    expect(datasync).toHaveBeenCalledTimes(0);
    flush.wrote(8 * MiB);
    flush.wrote(17 * MiB); // the first is still in flight
    expect(datasync).toHaveBeenCalledTimes(1);
    release();
    await flush.settled();
    flush.wrote(17 * MiB);
    expect(datasync).toHaveBeenCalledTimes(2);
    release();
    await flush.done();
    expect(sync).toHaveBeenCalledTimes(1);
  });

  it('a failed fdatasync fails the put at the end, even if the final fsync would report clean', async () => {
    const sync = vi.fn(async () => {});
    const flush = flushBehind({ datasync: () => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })), sync });
    flush.wrote(8 * MiB);
    await flush.settled();
    await expect(flush.done()).rejects.toMatchObject({ code: 'EIO' });
    expect(sync).not.toHaveBeenCalled();
  });
});
