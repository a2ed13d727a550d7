/**
 * The storage error taxonomy: StorageError and its subtypes carry `{backend_key, key,
 * operation}` (as `context` and as the response's `details`) and map to HTTP statuses; over
 * HTTP, objects missing behind the app's back (local and S3) are 404 STORAGE_NOT_FOUND, and
 * S3 credential and network failures surface as STORAGE_AUTH / STORAGE_TRANSIENT with nothing
 * left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StorageAuthError,
  StorageConflictError,
  StorageError,
  StorageIntegrityError,
  StorageKeyError,
  StorageNotFoundError,
  StorageNotSupportedError,
  StoragePayloadTooLarge,
  StoragePermissionError,
  StorageTransientError,
} from '../../src/apps/storage/backends/errors.ts';
import { createS3Backend, type S3Backend } from '../../src/apps/storage/backends/s3/index.ts';
import { FwError, toErrorBody } from '../../src/kernel/errors.ts';
import { S3_KEY, S3_SECRET, startS3, type S3Sink } from '../connectors/helpers.ts';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, filesUnder, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

const ctx = { backend_key: 'b1', key: 'a/b.txt', operation: 'get' };

describe('taxonomy', () => {
  it.each([
    ['StorageNotFoundError', StorageNotFoundError, 'STORAGE_NOT_FOUND', 404],
    ['StorageAuthError', StorageAuthError, 'STORAGE_AUTH', 502],
    ['StoragePermissionError', StoragePermissionError, 'STORAGE_PERMISSION', 403],
    ['StorageConflictError', StorageConflictError, 'STORAGE_CONFLICT', 409],
    ['StorageTransientError', StorageTransientError, 'STORAGE_TRANSIENT', 503],
    ['StorageNotSupportedError', StorageNotSupportedError, 'STORAGE_NOT_SUPPORTED', 501],
    ['StorageIntegrityError', StorageIntegrityError, 'STORAGE_INTEGRITY', 502],
  ] as const)('%s is a StorageError with code %s, HTTP %i and details {backend_key, key, operation}', (_name, Cls, code, status) => {
    const err = new Cls(ctx);
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toBeInstanceOf(FwError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(Cls.name);
    expect(err).toMatchObject({ code, status, context: ctx, details: ctx });
    expect(err.message.length).toBeGreaterThan(0);
    expect(toErrorBody(err)).toEqual({ status, body: { error: { code, message: err.message, details: ctx } } });
  });

  it('invalid keys (400) and oversize content (413) are StorageErrors too; the base class defaults to 502', () => {
    const key = new StorageKeyError(ctx, 'bad key');
    expect(key).toMatchObject({ code: 'INVALID_STORAGE_KEY', status: 400, details: ctx });
    const big = new StoragePayloadTooLarge(ctx, 10);
    expect(big).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, details: ctx });
    expect(big.message).toMatch(/10 bytes/);
    const base = new StorageError(ctx, 'boom');
    expect(base).toMatchObject({ code: 'STORAGE_ERROR', status: 502, details: ctx });
    // details are a copy: changing them does not change the context
    (base.details as Record<string, unknown>).key = 'changed';
    expect(base.context.key).toBe('a/b.txt');
  });

  it('a custom message replaces the default', () => {
    expect(new StorageNotFoundError(ctx, 'gone').message).toBe('gone');
    expect(new StorageNotFoundError(ctx).message).toContain('a/b.txt');
    expect(new StorageNotSupportedError({ ...ctx, operation: 'share' }).message).toBe('share is not supported by b1');
  });
});

describe('over HTTP', () => {
  let s3: S3Sink;
  let raw: S3Backend;
  let ts: TestServer;
  let admin: string;
  let connectorId: string;

  const s3Config = (over: Record<string, unknown> = {}) => ({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true, ...over });
  const post = (action: string, body: unknown = {}) => ts.request('POST', `/api/connectors/${connectorId}/${action}`, { token: admin, body });

  beforeAll(async () => {
    [s3, ts] = await Promise.all([startS3('storage-errors'), startStorageServer()]);
    raw = createS3Backend({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true });
    admin = (await ts.loginAdmin()).access_token;
  });
  afterAll(async () => {
    raw?.destroy();
    await ts?.close();
    await s3?.close();
  });

  it('a local document whose object was deleted behind the app\'s back downloads as 404 STORAGE_NOT_FOUND with the context', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('soon gone'), { filename: 'gone.txt' }));
    fs.rmSync(path.join(storageRoot(ts), doc.storage_key));
    for (const url of [`/api/storage/documents/${doc.id}/download`, `/api/storage/documents/${doc.id}/versions/1/download`, `/api/storage/download/${doc.id}`]) {
      const d = await download(ts, admin, url);
      expect(d.status, url).toBe(404);
      expect(d.body.error).toEqual({ code: 'STORAGE_NOT_FOUND', message: expect.any(String), details: { backend_key: 'local', key: doc.storage_key, operation: 'get' } });
    }
    // the metadata is still there
    expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: admin })).status).toBe(200);
  });

  it('an S3 document whose object was deleted behind the app\'s back downloads as 404 STORAGE_NOT_FOUND naming the connector backend', async () => {
    const c = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Err S3', category: 'storage', provider_type: 's3', is_default: true } });
    connectorId = c.body.id;
    await post('import-config', { json_data: s3Config() });
    expect((await post('test')).body.status).toBe('connected');
    expect((await post('activate')).body.is_enabled).toBe(true);
    const doc = created(await uploadBase64(ts, admin, Buffer.from('cloud, soon gone'), { filename: 'cloud-gone.txt' }));
    expect(doc.storage_backend).toBe('object_store_a');
    await raw.delete(doc.storage_key);
    const d = await download(ts, admin, `/api/storage/documents/${doc.id}/download`);
    expect(d.status).toBe(404);
    expect(d.body.error).toEqual({ code: 'STORAGE_NOT_FOUND', message: expect.any(String), details: { backend_key: `s3:${connectorId}`, key: doc.storage_key, operation: 'get' } });
  });

  it('S3 credentials the server refuses: uploads fail with 502 STORAGE_AUTH and leave no rows', async () => {
    const count = async () => (await ts.request('GET', '/api/storage/documents?include_inactive=true&limit=500', { token: admin })).body.items.length;
    const before = await count();
    await post('import-config', { json_data: s3Config({ access_key_id: 'nobody', secret_access_key: 'wrong-secret' }) });
    const res = await uploadBase64(ts, admin, Buffer.from('denied'), { filename: 'denied.txt' });
    expectError(res, 502, 'STORAGE_AUTH');
    expect(res.body.error.details).toEqual(expect.objectContaining({ backend_key: `s3:${connectorId}`, operation: 'put' }));
    expect(await count()).toBe(before);
  });

  it('an unreachable S3 endpoint: uploads fail with 503 STORAGE_TRANSIENT (safe to retry) and leave nothing behind', async () => {
    const before = filesUnder(storageRoot(ts));
    await post('import-config', { json_data: s3Config({ endpoint: 'http://127.0.0.1:9' }) });
    const res = await uploadBinary(ts, admin, Buffer.from('nowhere'), { filename: 'nowhere.txt' });
    expectError(res, 503, 'STORAGE_TRANSIENT');
    expect(res.body.error.details).toEqual(expect.objectContaining({ backend_key: `s3:${connectorId}`, operation: 'put' }));
    expect(filesUnder(storageRoot(ts))).toEqual(before);
    // back to a working config: uploads succeed again
    await post('import-config', { json_data: s3Config() });
    expect(created(await uploadBinary(ts, admin, Buffer.from('works'), { filename: 'works.txt' })).storage_backend).toBe('object_store_a');
  });
});
