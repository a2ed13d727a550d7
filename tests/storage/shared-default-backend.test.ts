/**
 * Several instances share files by settings (issue 27 §4): with STORAGE_DEFAULT_BACKEND_KIND=s3
 * and the STORAGE_S3_* settings, uploads without a storage connector go to one S3 bucket (s3rver
 * on 127.0.0.1), so a document uploaded through one instance downloads through another, though
 * each has its own local folder (two machines). A document written to one instance's local
 * folder is what the issue found: missing on the other. Bad settings stop the boot.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Backend, type S3Backend } from '../../src/apps/storage/backends/s3/index.ts';
import { storageSettings } from '../../src/apps/storage/settings.ts';
import { FwError } from '../../src/kernel/errors.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { randomKey, type TestServer } from '../helpers/server.ts';
import { S3_KEY, S3_SECRET, startS3, type S3Sink } from '../connectors/helpers.ts';
import { created, download, startStorageServer, uploadBinary } from './helpers.ts';

let s3: S3Sink;
let raw: S3Backend;
let shared: string;
/** Two instances on one database and one bucket, each with a local folder of its own. */
let a: TestServer;
let b: TestServer;
/** A third on the same database, its uploads in its own local folder, no S3 settings. */
let c: TestServer;
let admin: string;

beforeAll(async () => {
  s3 = await startS3('fw-shared-default');
  raw = createS3Backend({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true });
  shared = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-shared-storage-'));
  const keys = { DATA_DIR: shared, JWT_SECRET_KEY: randomKey(), CONNECTOR_SECRET_KEY: randomKey() };
  const bucket = { STORAGE_DEFAULT_BACKEND_KIND: 's3', STORAGE_S3_BUCKET: s3.bucket, STORAGE_S3_ENDPOINT: s3.endpoint, STORAGE_S3_ACCESS_KEY_ID: S3_KEY, STORAGE_S3_SECRET_ACCESS_KEY: S3_SECRET, STORAGE_S3_PREFIX: 'fw/' };
  // one after the other: the first boot creates and seeds the shared default tenant
  a = await startStorageServer({ ...keys, ...bucket, STORAGE_LOCAL_ROOT: path.join(shared, 'local-a') });
  admin = (await a.loginAdmin()).access_token;
  b = await startStorageServer({ ...keys, ...bucket, STORAGE_LOCAL_ROOT: path.join(shared, 'local-b') });
  c = await startStorageServer({ ...keys, STORAGE_LOCAL_ROOT: path.join(shared, 'local-c') });
  await b.kernel.tenants.get('default');
  await c.kernel.tenants.get('default');
}, 120_000);

afterAll(async () => {
  for (const ts of [a, b, c]) await ts?.close();
  raw?.destroy();
  await s3?.close();
  if (shared) fs.rmSync(shared, { recursive: true, force: true });
});

describe('the default storage backend from settings', () => {
  it('an upload on A lands in the bucket (under the prefix), not on disk, and downloads through B; a delete on B removes the object', async () => {
    const bytes = crypto.randomBytes(70_000);
    const doc = created(await uploadBinary(a, admin, bytes, { filename: 'shared.bin' }));
    expect(doc).toEqual(expect.objectContaining({ storage_backend: 'object_store_a', connector_id: null }));
    expect(fs.existsSync(path.join(shared, 'local-a'))).toBe(false);
    const inBucket = (await raw.list('fw/')).map((o) => o.key);
    expect(inBucket).toContain(`fw/${doc.storage_key}`);

    const onB = await download(b, admin, `/api/storage/documents/${doc.id}/download`);
    expect(onB.status, onB.bytes.toString().slice(0, 200)).toBe(200);
    expect(onB.bytes.equals(bytes)).toBe(true);

    const del = await b.request('DELETE', `/api/data/storage.document/${doc.id}`, { token: admin });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    await expect.poll(async () => (await raw.list('fw/')).map((o) => o.key)).not.toContain(`fw/${doc.storage_key}`);
  });

  it("a local upload is only on its instance's disk: another instance answers 404, which is why several instances need S3 or a shared folder", async () => {
    const bytes = crypto.randomBytes(10_000);
    const doc = created(await uploadBinary(c, admin, bytes, { filename: 'here-only.bin' }));
    expect(doc).toEqual(expect.objectContaining({ storage_backend: 'local', connector_id: null }));
    expect((await download(c, admin, `/api/storage/documents/${doc.id}/download`)).status).toBe(200);
    const elsewhere = await download(a, admin, `/api/storage/documents/${doc.id}/download`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('STORAGE_NOT_FOUND');
  });

  it('a server without the S3 settings answers 503 STORAGE_NOT_CONFIGURED for content in the bucket, and keeps it', async () => {
    const bytes = crypto.randomBytes(5_000);
    const doc = created(await uploadBinary(a, admin, bytes, { filename: 'bucket-only.bin' }));
    const onC = await download(c, admin, `/api/storage/documents/${doc.id}/download`);
    expect(onC.status).toBe(503);
    expect(onC.body.error.code).toBe('STORAGE_NOT_CONFIGURED');
    expect((await download(b, admin, `/api/storage/documents/${doc.id}/download`)).bytes.equals(bytes)).toBe(true);
  });
});

describe('settings of the default backend', () => {
  const check = (env: Record<string, string>) => () => storageSettings(loadSettings({ DATA_DIR: os.tmpdir(), ...env }));
  const refused = (env: Record<string, string>, message: RegExp) => {
    let err: unknown;
    try {
      check(env)();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FwError);
    expect((err as FwError).code).toBe('STORAGE_SETTINGS_INVALID');
    expect((err as FwError).message).toMatch(message);
  };
  const s3env = { STORAGE_DEFAULT_BACKEND_KIND: 's3', STORAGE_S3_BUCKET: 'b', STORAGE_S3_ACCESS_KEY_ID: 'k', STORAGE_S3_SECRET_ACCESS_KEY: 's' };

  it('local is the default; s3 with a bucket and credentials is accepted', () => {
    expect(check({})().STORAGE_DEFAULT_BACKEND_KIND).toBe('local');
    expect(check(s3env)().STORAGE_S3_BUCKET).toBe('b');
  });

  it('an unknown kind, s3 without its bucket or credentials, a bad endpoint or path-style value stop the boot (STORAGE_SETTINGS_INVALID)', () => {
    refused({ STORAGE_DEFAULT_BACKEND_KIND: 'ftp' }, /STORAGE_DEFAULT_BACKEND_KIND=ftp is not one of local, s3/);
    refused({ STORAGE_DEFAULT_BACKEND_KIND: 's3' }, /needs STORAGE_S3_BUCKET, STORAGE_S3_ACCESS_KEY_ID, STORAGE_S3_SECRET_ACCESS_KEY/);
    refused({ ...s3env, STORAGE_S3_SECRET_ACCESS_KEY: '' }, /needs STORAGE_S3_SECRET_ACCESS_KEY$/);
    refused({ ...s3env, STORAGE_S3_ENDPOINT: 'localhost:9000' }, /not an http\(s\) URL/);
    refused({ ...s3env, STORAGE_S3_FORCE_PATH_STYLE: 'maybe' }, /must be true, false or empty/);
  });
});
