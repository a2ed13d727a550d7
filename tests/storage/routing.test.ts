/**
 * Routing between the local backend and an S3 storage connector (s3rver on 127.0.0.1): uploads
 * go to the organization's active default storage connector, else local; downloads and deletes
 * use the connector that stored each version; changing the default only affects later uploads.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Backend, type S3Backend } from '../../src/apps/storage/backends/s3/index.ts';
import { listen } from '../helpers/api.ts';
import { expectError, type TestServer } from '../helpers/server.ts';
import { readAll, S3_KEY, S3_SECRET, startS3, type S3Sink } from '../connectors/helpers.ts';
import { created, download, filesUnder, rawRequest, sha256, startStorageServer, storageRoot, uploadBase64, uploadBinary, waitFor } from './helpers.ts';

const FILE_MAX = 8 * 1024 * 1024;

let s3: S3Sink;
let raw: S3Backend;
let ts: TestServer;
let admin: string;
let org: string;
let base: string;
let connectorId: string;
/** Documents written before the connector existed (local) and through it (S3), with their content. */
const localDocs: Array<{ doc: Record<string, any>; bytes: Buffer }> = [];
const s3Docs: Array<{ doc: Record<string, any>; bytes: Buffer }> = [];

beforeAll(async () => {
  [s3, ts] = await Promise.all([startS3('storage-routing'), startStorageServer({ STORAGE_MAX_FILE_SIZE_BYTES: String(FILE_MAX) })]);
  raw = createS3Backend({ bucket: s3.bucket, endpoint: s3.endpoint, access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true });
  admin = (await ts.loginAdmin()).access_token;
  org = (await ts.request('GET', '/api/auth/me', { token: admin })).body.organization.id;
  base = await listen(ts);
});
afterAll(async () => {
  raw?.destroy();
  await ts?.close();
  await s3?.close();
});

const s3Config = () => ({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true });
const post = (id: string, action: string, body: unknown = {}) => ts.request('POST', `/api/connectors/${id}/${action}`, { token: admin, body });
/** Keys in the bucket under a document's prefix (s3rver's listing). */
const bucketKeys = async (docId: string) => (await raw.list(`default/${org}/storage.document/${docId}/`)).map((r) => r.key).sort();
const onDisk = (key: string) => fs.existsSync(path.join(storageRoot(ts), key));

async function expectContent(id: string, bytes: Buffer, url = `/api/storage/documents/${id}/download`): Promise<void> {
  const d = await download(ts, admin, url);
  expect(d.status, `${url}: ${d.bytes.toString().slice(0, 200)}`).toBe(200);
  expect(d.bytes.equals(bytes), url).toBe(true);
}

describe('routing', () => {
  it('without a storage connector uploads go to the local filesystem (storage_backend local, connector_id null)', async () => {
    for (let i = 0; i < 2; i++) {
      const bytes = crypto.randomBytes(40_000 + i);
      const doc = created(await uploadBinary(ts, admin, bytes, { filename: `local-${i}.bin` }));
      expect(doc).toEqual(expect.objectContaining({ storage_backend: 'local', connector_id: null }));
      expect(onDisk(doc.storage_key)).toBe(true);
      expect(await bucketKeys(doc.id)).toEqual([]);
      localDocs.push({ doc, bytes });
    }
  });

  it('an S3 connector that is not yet active and default does not receive uploads', async () => {
    const c = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Objects', category: 'storage', provider_type: 's3', is_default: true } });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body.organization_id).toBe(org);
    connectorId = c.body.id;
    expect((await post(connectorId, 'import-config', { json_data: s3Config() })).status).toBe(200);
    // default but not enabled: still local
    const doc = created(await uploadBase64(ts, admin, Buffer.from('still local'), { filename: 'draft.txt' }));
    expect(doc.storage_backend).toBe('local');
    expect(onDisk(doc.storage_key)).toBe(true);
  });

  it('once tested, activated and default, later uploads go to S3: object in the bucket, connector_id set, storage_backend object_store_a', async () => {
    const t = await post(connectorId, 'test');
    expect(t.body, JSON.stringify(t.body)).toEqual(expect.objectContaining({ success: true, status: 'connected' }));
    expect((await post(connectorId, 'activate')).body.is_enabled).toBe(true);

    const bytes = crypto.randomBytes(250_000);
    const bin = created(await uploadBinary(ts, admin, bytes, { filename: 'cloud.bin', name: 'Cloud' }));
    expect(bin).toEqual(expect.objectContaining({ storage_backend: 'object_store_a', connector_id: connectorId, file_size: bytes.length, checksum: sha256(bytes) }));
    expect(bin.storage_key).toBe(`default/${org}/storage.document/${bin.id}/v1/cloud.bin`);
    expect(bin.storage_object_id).toEqual(expect.any(String));
    expect(await bucketKeys(bin.id)).toEqual([bin.storage_key]);
    expect(await readAll((await raw.get(bin.storage_key)).stream)).toEqual(bytes);
    expect(onDisk(bin.storage_key)).toBe(false);
    s3Docs.push({ doc: bin, bytes });

    const b64bytes = crypto.randomBytes(1000);
    const b64 = created(await uploadBase64(ts, admin, b64bytes, { filename: 'cloud.json', content_type: 'application/json' }, '/api/storage/upload'));
    expect(b64).toEqual(expect.objectContaining({ storage_backend: 'object_store_a', connector_id: connectorId }));
    expect(await bucketKeys(b64.id)).toEqual([b64.storage_key]);
    s3Docs.push({ doc: b64, bytes: b64bytes });

    const versions = (await ts.request('GET', `/api/storage/documents/${bin.id}/versions`, { token: admin })).body.items;
    expect(versions[0]).toEqual(expect.objectContaining({ storage_backend: 'object_store_a', connector_id: connectorId }));
  });

  it('S3 documents download byte-identical with the same headers, ETag and Range support', async () => {
    const { doc, bytes } = s3Docs[0];
    const d = await download(ts, admin, `/api/storage/documents/${doc.id}/download`);
    expect(d.status).toBe(200);
    expect(d.bytes.equals(bytes)).toBe(true);
    expect(d.headers['content-disposition']).toMatch(/^attachment; filename="cloud\.bin"/);
    expect(d.headers.etag).toBe(`"${doc.checksum}"`);
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/download`, { 'if-none-match': `"${doc.checksum}"` })).status).toBe(304);
    const part = await download(ts, admin, `/api/storage/documents/${doc.id}/download`, { range: 'bytes=100-299' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-299/${bytes.length}`);
    expect(part.bytes.equals(bytes.subarray(100, 300))).toBe(true);
    const suffix = await download(ts, admin, `/api/storage/download/${doc.id}`, { range: 'bytes=-64' });
    expect(suffix.bytes.equals(bytes.subarray(bytes.length - 64))).toBe(true);
  });

  it('a large streamed upload goes to S3 as a multipart upload and downloads byte-identical', async () => {
    const bytes = crypto.randomBytes(6 * 1024 * 1024 + 123);
    const before = s3.requests.length;
    const res = await rawRequest(base, 'POST', '/api/storage/documents?filename=big.bin',
      { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      (await import('node:stream')).Readable.from([bytes.subarray(0, 3_000_000), bytes.subarray(3_000_000)]));
    expect(res.status, res.text).toBe(201);
    const doc = JSON.parse(res.text);
    expect(doc).toEqual(expect.objectContaining({ storage_backend: 'object_store_a', file_size: bytes.length, checksum: sha256(bytes) }));
    await s3.settle();
    expect(s3.requests.slice(before).some((r) => /^POST .*\?uploads/.test(r))).toBe(true);
    await expectContent(doc.id, bytes);
    s3Docs.push({ doc, bytes });
  });

  it('an oversize streamed upload to S3 is refused with 413 and leaves no object in the bucket', async () => {
    const all = async () => (await raw.list(`default/${org}/`)).map((r) => r.key).sort();
    const before = await all();
    let produced = 0;
    const { Readable } = await import('node:stream');
    const body = new Readable({
      read() {
        if (produced >= FILE_MAX * 3) return void this.push(null);
        produced += 256 * 1024;
        this.push(crypto.randomBytes(256 * 1024));
      },
    });
    const res = await rawRequest(base, 'POST', '/api/storage/documents?filename=huge.bin',
      { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }, body);
    expect(res.status, res.text).toBe(413);
    expect(await all()).toEqual(before);
  });

  it('documents written before the connector still download from the local filesystem', async () => {
    for (const { doc, bytes } of localDocs) await expectContent(doc.id, bytes);
  });

  it('a new version of a local document goes to S3 while version 1 stays local and downloadable', async () => {
    const { doc, bytes } = localDocs[0];
    const v2 = crypto.randomBytes(3000);
    const res = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: 'local-0.bin', content_b64: v2.toString('base64'), change_note: 'to the cloud' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({ current_version: 2, storage_backend: 'object_store_a', connector_id: connectorId }));
    const versions = (await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: admin })).body.items;
    expect(versions.map((v: any) => [v.version_number, v.storage_backend, v.connector_id])).toEqual([[1, 'local', null], [2, 'object_store_a', connectorId]]);
    await expectContent(doc.id, bytes, `/api/storage/documents/${doc.id}/versions/1/download`);
    await expectContent(doc.id, v2, `/api/storage/documents/${doc.id}/versions/2/download`);
    await expectContent(doc.id, v2);
    expect(await bucketKeys(doc.id)).toEqual([versions[1].storage_key]);
    expect(onDisk(versions[0].storage_key)).toBe(true);
  });

  it('deactivating the default connector sends new uploads local again; S3 documents stay downloadable', async () => {
    expect((await post(connectorId, 'deactivate')).body.is_enabled).toBe(false);
    const doc = created(await uploadBinary(ts, admin, Buffer.from('back home'), { filename: 'home.txt' }));
    expect(doc).toEqual(expect.objectContaining({ storage_backend: 'local', connector_id: null }));
    expect(onDisk(doc.storage_key)).toBe(true);
    for (const { doc: d, bytes } of s3Docs) await expectContent(d.id, bytes);
    localDocs.push({ doc, bytes: Buffer.from('back home') });
  });

  it('removing the default flag (connector active but not default) also sends uploads local; S3 documents stay downloadable', async () => {
    expect((await post(connectorId, 'activate')).body.is_enabled).toBe(true);
    expect(created(await uploadBase64(ts, admin, Buffer.from('s3 again'), { filename: 'again.txt' })).storage_backend).toBe('object_store_a');
    const put = await ts.request('PUT', `/api/connectors/${connectorId}`, { token: admin, body: { is_default: false } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const doc = created(await uploadBase64(ts, admin, Buffer.from('local again'), { filename: 'local-again.txt' }));
    expect(doc).toEqual(expect.objectContaining({ storage_backend: 'local', connector_id: null }));
    for (const { doc: d, bytes } of s3Docs) await expectContent(d.id, bytes);
  });

  it('a connector that stored documents cannot be deleted while they reference it (on_delete restrict); they stay downloadable', async () => {
    const del = await ts.request('DELETE', `/api/connectors/${connectorId}`, { token: admin });
    expectError(del, 409);
    expect((await ts.request('GET', `/api/connectors/${connectorId}`, { token: admin })).status).toBe(200);
    for (const { doc: d, bytes } of s3Docs) await expectContent(d.id, bytes);
  });

  it('hard delete of an S3 document removes every version object from the bucket', async () => {
    // make it default again so the new versions go to S3 too
    await ts.request('PUT', `/api/connectors/${connectorId}`, { token: admin, body: { is_default: true } });
    const { doc } = s3Docs[0];
    for (const n of [2, 3]) {
      const res = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: `cloud-v${n}.bin`, content_b64: crypto.randomBytes(500).toString('base64') } });
      expect(res.body.storage_backend).toBe('object_store_a');
    }
    expect((await bucketKeys(doc.id)).length).toBe(3);
    expect((await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: admin })).status).toBe(200);
    const deadline = Date.now() + 5000;
    while ((await bucketKeys(doc.id)).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await bucketKeys(doc.id)).toEqual([]);
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: admin }), 404);
  });

  it('hard delete of a document with versions on both backends removes the local file and the S3 object', async () => {
    const { doc } = localDocs[0]; // v1 local, v2 on S3
    const versions = (await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: admin })).body.items;
    expect((await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: admin })).status).toBe(200);
    await waitFor(() => !onDisk(versions[0].storage_key), 'local version object deleted');
    const deadline = Date.now() + 5000;
    while ((await bucketKeys(doc.id)).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await bucketKeys(doc.id)).toEqual([]);
    expect(filesUnder(path.join(storageRoot(ts), `default/${org}/storage.document/${doc.id}`))).toEqual([]);
  });
});
