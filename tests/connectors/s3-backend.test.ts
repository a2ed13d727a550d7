/**
 * The S3-compatible storage backend against a real S3 server (s3rver on 127.0.0.1, temp folder):
 * the storage backend contract, multipart uploads, streamed size limits, key rules, error mapping.
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StorageAuthError,
  StorageIntegrityError,
  StorageKeyError,
  StorageNotFoundError,
  StoragePayloadTooLarge,
  StorageTransientError,
} from '../../src/apps/storage/backends/errors.ts';
import { createS3Backend, type S3Backend } from '../../src/apps/storage/backends/s3/index.ts';
import { readAll, S3_KEY, S3_SECRET, startS3, type S3Sink } from './helpers.ts';

let s3: S3Sink;
let backend: S3Backend;

const sha = (b: Buffer) => `sha256:${crypto.createHash('sha256').update(b).digest('hex')}`;

/** A stream of `total` pseudo-random bytes in 64 KiB chunks, with the digest of what it produced. */
function randomStream(total: number): { stream: Readable; digest: () => string } {
  const hash = crypto.createHash('sha256');
  let left = total;
  const stream = new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const chunk = crypto.randomBytes(Math.min(left, 64 * 1024));
      left -= chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => `sha256:${hash.digest('hex')}` };
}

beforeAll(async () => {
  s3 = await startS3('contract');
  backend = createS3Backend({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true, backend_key: 'conn-1' });
});
afterAll(async () => {
  backend?.destroy();
  await s3?.close();
});

describe('S3 backend: the storage backend contract', () => {
  it('reports truthful capabilities', () => {
    expect(backend.backend_key).toBe('conn-1');
    expect(backend.capabilities).toEqual({ directories: false, atomic_put: true, resumable_upload: true, integrity_checksum: true, native_sharing: false });
  });

  it('put returns a reference with the SHA-256 and size computed while streaming; get gives the bytes back', async () => {
    const body = Buffer.from('hello, object store\n');
    const ref = await backend.put('t1/org/storage.document/d1/v1/hello.txt', Readable.from([body.subarray(0, 5), body.subarray(5)]), { mime_type: 'text/plain' });
    expect(ref).toEqual({
      backend_key: 'conn-1', key: 't1/org/storage.document/d1/v1/hello.txt',
      object_id: expect.any(String), checksum: sha(body), size: body.length, mime_type: 'text/plain',
    });
    expect(ref.object_id).not.toBe('');
    const got = await backend.get(ref.key);
    expect(got.size).toBe(body.length);
    expect(got.mime_type).toBe('text/plain');
    expect(await readAll(got.stream)).toEqual(body);
  });

  it('accepts a Buffer body, and records a supplied checksum that get() then reports', async () => {
    const body = Buffer.from('buffer body');
    const ref = await backend.put('t1/buf.bin', body, { checksum: sha(body) });
    expect(ref.checksum).toBe(sha(body));
    expect(ref.mime_type).toBe('application/octet-stream');
    const got = await backend.get('t1/buf.bin');
    expect(got.checksum).toBe(sha(body));
    expect(await readAll(got.stream)).toEqual(body);
  });

  it('get with an inclusive range returns exactly those bytes', async () => {
    const body = Buffer.from('0123456789abcdef');
    await backend.put('t1/range.txt', body);
    const part = await backend.get('t1/range.txt', { start: 3, end: 7 });
    expect(part.size).toBe(5);
    expect((await readAll(part.stream)).toString()).toBe('34567');
    const last = await backend.get('t1/range.txt', { start: 15, end: 15 });
    expect((await readAll(last.stream)).toString()).toBe('f');
    const beyond = await backend.get('t1/range.txt', { start: 16, end: 20 }).catch((e) => e);
    expect(beyond.status).toBe(416);
    await expect(backend.get('t1/range.txt', { start: 5, end: 2 })).rejects.toMatchObject({ status: 416 });
  });

  it('stores an empty object', async () => {
    const ref = await backend.put('t1/empty.txt', Readable.from([]));
    expect(ref.size).toBe(0);
    expect(ref.checksum).toBe(sha(Buffer.alloc(0)));
    expect((await readAll((await backend.get('t1/empty.txt')).stream)).length).toBe(0);
  });

  it('exists, delete (idempotent) and not-found errors', async () => {
    await backend.put('t1/gone.txt', Buffer.from('x'));
    expect(await backend.exists('t1/gone.txt')).toBe(true);
    await backend.delete('t1/gone.txt');
    expect(await backend.exists('t1/gone.txt')).toBe(false);
    await expect(backend.delete('t1/gone.txt')).resolves.toBeUndefined();
    const err = await backend.get('t1/gone.txt').catch((e) => e);
    expect(err).toBeInstanceOf(StorageNotFoundError);
    expect(err.code).toBe('STORAGE_NOT_FOUND');
    expect(err.status).toBe(404);
    expect(err.context).toEqual({ backend_key: 'conn-1', key: 't1/gone.txt', operation: 'get' });
  });

  it('list(prefix) returns the objects under the prefix with sizes, bounded by max_results (paging through truncation)', async () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) await backend.put(`list/p/${n}.txt`, Buffer.from(n.repeat(3)));
    await backend.put('list/other/x.txt', Buffer.from('x'));
    const all = await backend.list('list/p/');
    expect(all.map((r) => r.key)).toEqual(['list/p/a.txt', 'list/p/b.txt', 'list/p/c.txt', 'list/p/d.txt', 'list/p/e.txt']);
    expect(all.every((r) => r.size === 3 && r.backend_key === 'conn-1')).toBe(true);
    expect((await backend.list('list/p/', 2)).map((r) => r.key)).toEqual(['list/p/a.txt', 'list/p/b.txt']);
    expect(await backend.list('nothing-here/')).toEqual([]);
    await expect(backend.list('list/p')).rejects.toBeInstanceOf(StorageKeyError);
  });

  it('a prefix option keeps every key under it and strips it from listings', async () => {
    const scoped = createS3Backend({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET, prefix: 'tenant-x' });
    try {
      await scoped.put('docs/a.txt', Buffer.from('scoped'));
      expect(await backend.exists('tenant-x/docs/a.txt')).toBe(true);
      expect((await scoped.list('docs/')).map((r) => r.key)).toEqual(['docs/a.txt']);
      expect((await readAll((await scoped.get('docs/a.txt')).stream)).toString()).toBe('scoped');
    } finally {
      scoped.destroy();
    }
  });
});

describe('S3 backend: large and refused uploads', () => {
  it('a body over 5 MiB goes up as a multipart upload and comes back byte-identical', async () => {
    const total = 6 * 1024 * 1024 + 12345;
    const src = randomStream(total);
    const before = s3.requests.length;
    const ref = await backend.put('big/six-mib.bin', src.stream, { mime_type: 'application/octet-stream' });
    await s3.settle();
    const seen = s3.requests.slice(before);
    expect(seen.some((r) => r.startsWith('POST') && r.includes('uploads'))).toBe(true);
    expect(seen.filter((r) => r.startsWith('PUT') && r.includes('partNumber=')).length).toBe(2);
    expect(seen.some((r) => r.startsWith('POST') && r.includes('uploadId='))).toBe(true);
    expect(ref.size).toBe(total);
    expect(ref.checksum).toBe(src.digest());
    const back = await readAll((await backend.get('big/six-mib.bin')).stream);
    expect(back.length).toBe(total);
    expect(sha(back)).toBe(ref.checksum);
  });

  it('max_bytes is enforced while streaming: StoragePayloadTooLarge, and no object is left', async () => {
    const small = randomStream(300 * 1024);
    const err = await backend.put('limits/small.bin', small.stream, { max_bytes: 100 * 1024 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoragePayloadTooLarge);
    expect(err.status).toBe(413);
    expect(await backend.exists('limits/small.bin')).toBe(false);

    // past the first part: a multipart upload was started, and is never completed
    const big = randomStream(12 * 1024 * 1024);
    const err2 = await backend.put('limits/big.bin', big.stream, { max_bytes: 7 * 1024 * 1024 }).catch((e) => e);
    expect(err2).toBeInstanceOf(StoragePayloadTooLarge);
    expect(await backend.exists('limits/big.bin')).toBe(false);
    expect((await backend.list('limits/')).length).toBe(0);

    const buf = await backend.put('limits/buf.bin', Buffer.alloc(11), { max_bytes: 10 }).catch((e) => e);
    expect(buf).toBeInstanceOf(StoragePayloadTooLarge);
    expect(await backend.exists('limits/buf.bin')).toBe(false);
  });

  it('an expected checksum that does not match refuses the write before it completes', async () => {
    const err = await backend.put('integrity/x.bin', Buffer.from('actual'), { checksum: sha(Buffer.from('other')) }).catch((e) => e);
    expect(err).toBeInstanceOf(StorageIntegrityError);
    expect(await backend.exists('integrity/x.bin')).toBe(false);
  });
});

describe('S3 backend: key rules and error mapping', () => {
  it('refuses traversal and malformed keys on every operation', async () => {
    const bad = ['../etc/passwd', 'a/../b', '/abs/key', 'a//b', './a', 'a/./b', 'a\\b', ''];
    for (const key of bad) {
      await expect(backend.put(key, Buffer.from('x')), key).rejects.toBeInstanceOf(StorageKeyError);
      await expect(backend.get(key), key).rejects.toBeInstanceOf(StorageKeyError);
      await expect(backend.exists(key), key).rejects.toBeInstanceOf(StorageKeyError);
      await expect(backend.delete(key), key).rejects.toBeInstanceOf(StorageKeyError);
    }
    const err = await backend.put('../x', Buffer.from('x')).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.code).toBe('INVALID_STORAGE_KEY');
    expect(s3.files().some((f) => f.includes('passwd'))).toBe(false);
  });

  it('wrong credentials are a StorageAuthError, on objects and on the bucket check', async () => {
    const wrong = createS3Backend({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: 'nobody', secret_access_key: 'nothing' });
    try {
      await expect(wrong.get('t1/range.txt')).rejects.toBeInstanceOf(StorageAuthError);
      await expect(wrong.put('t1/new.txt', Buffer.from('x'))).rejects.toBeInstanceOf(StorageAuthError);
      await expect(wrong.checkBucket()).rejects.toBeInstanceOf(StorageAuthError);
    } finally {
      wrong.destroy();
    }
  });

  it('a missing bucket is not found; an unreachable endpoint is transient', async () => {
    const missing = createS3Backend({ bucket: 'no-such-bucket', endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET });
    const down = createS3Backend({ bucket: s3.bucket, endpoint: 'http://127.0.0.1:9', access_key_id: S3_KEY, secret_access_key: S3_SECRET });
    try {
      await expect(missing.checkBucket()).rejects.toBeInstanceOf(StorageNotFoundError);
      await expect(missing.exists('a.txt')).rejects.toBeInstanceOf(StorageNotFoundError);
      const err = await down.exists('a.txt').catch((e) => e);
      expect(err).toBeInstanceOf(StorageTransientError);
      expect(err.status).toBe(503);
    } finally {
      missing.destroy();
      down.destroy();
    }
  });
});
