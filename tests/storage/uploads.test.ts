/**
 * Upload modes over HTTP: binary body (any non-JSON content type, `filename`/`name` in the
 * query), base64 JSON (`name`, `filename`, `content_b64`, `content_type`) on both
 * /api/storage/documents and /api/storage/upload, and GraphQL multipart through
 * `storageDocumentUploadFile` against a listening server; owner attachment.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { listen } from '../helpers/api.ts';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, filesUnder, sha256, startStorageServer, storageRoot, uploadBase64, uploadBinary, waitFor } from './helpers.ts';

let ts: TestServer;
let admin: string;
let adminUser: Record<string, any>;
let base: string;

beforeAll(async () => {
  ts = await startStorageServer();
  admin = (await ts.loginAdmin()).access_token;
  adminUser = (await ts.request('GET', '/api/auth/me', { token: admin })).body;
  base = await listen(ts);
});
afterAll(async () => {
  await ts?.close();
});

/** The document as stored: its content read back through the download route. */
async function contentOf(id: string): Promise<Buffer> {
  const d = await download(ts, admin, `/api/storage/documents/${id}/download`);
  expect(d.status).toBe(200);
  return d.bytes;
}

describe('binary body upload', () => {
  it('POST /api/storage/documents?filename=…&name=… with raw bytes creates version 1 on the local backend under the standard key', async () => {
    const bytes = crypto.randomBytes(50_000);
    const doc = created(await uploadBinary(ts, admin, bytes, { filename: 'photo.png', name: 'Holiday photo' }, { contentType: 'image/png' }));
    const org = adminUser.organization.id;
    expect(doc).toEqual(expect.objectContaining({
      name: 'Holiday photo', original_filename: 'photo.png', content_type: 'image/png', file_size: bytes.length, checksum: sha256(bytes),
      storage_backend: 'local', connector_id: null, current_version: 1, version_count: 1, is_active: true,
      organization_id: org, owner_id: adminUser.id,
      storage_key: `default/${org}/storage.document/${doc.id}/v1/photo.png`,
    }));
    expect(fs.readFileSync(path.join(storageRoot(ts), doc.storage_key))).toEqual(bytes);
    expect(await contentOf(doc.id)).toEqual(bytes);
  });

  it('any non-JSON content type is binary mode; the stored content type drops parameters', async () => {
    const text = Buffer.from('{"looks":"like json but is a text file"}');
    const doc = created(await uploadBinary(ts, admin, text, { filename: 'notes.txt' }, { contentType: 'text/plain; charset=utf-8' }));
    expect(doc.content_type).toBe('text/plain');
    expect(doc.name).toBe('notes.txt'); // name defaults to the filename
    expect(await contentOf(doc.id)).toEqual(text);
    const csv = created(await uploadBinary(ts, admin, Buffer.from('a,b\n1,2\n'), { filename: 'data.csv', name: 'Data' }, { contentType: 'text/csv' }));
    expect(csv.content_type).toBe('text/csv');
  });

  it('binary mode also works on POST /api/storage/upload, with description and tags from the query', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('via upload'), { filename: 'u.bin', name: 'U', description: 'from the query', tags: 'a,b' }, { url: '/api/storage/upload' }));
    expect(doc).toEqual(expect.objectContaining({ name: 'U', original_filename: 'u.bin', description: 'from the query', tags: 'a,b', file_size: 10 }));
    expect((await contentOf(doc.id)).toString()).toBe('via upload');
  });

  it('a path in the filename is reduced to its last segment (no traversal through the filename)', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('x'), { filename: '../../../etc/passwd' }));
    expect(doc.original_filename).toBe('passwd');
    expect(doc.storage_key).toMatch(new RegExp(`/storage\\.document/${doc.id}/v1/passwd$`));
    expect(fs.existsSync(path.join(storageRoot(ts), doc.storage_key))).toBe(true);
    const dots = created(await uploadBinary(ts, admin, Buffer.from('y'), { filename: '..' }));
    expect(dots.original_filename).toBe('file');
  });

  it('an empty body stores an empty document', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.alloc(0), { filename: 'empty.dat' }));
    expect(doc.file_size).toBe(0);
    expect(doc.checksum).toBe(sha256(Buffer.alloc(0)));
    expect((await contentOf(doc.id)).length).toBe(0);
  });

  it('a client that disconnects mid-upload leaves no object, no temp file and no row', async () => {
    const count = async () => (await ts.kernel.dispatch<{ count: number }>('fw.count', { model: 'storage.document' }, systemPrincipal('default'))).count;
    const rows = await count();
    const before = filesUnder(storageRoot(ts));
    const req = http.request(`${base}/api/storage/documents?filename=aborted.bin`, {
      method: 'POST', agent: false,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined);
    req.write(crypto.randomBytes(256 * 1024));
    // wait until the server has started writing the temp file, then vanish
    await waitFor(() => filesUnder(storageRoot(ts)).some((f) => f.endsWith('.fwtmp')), 'the upload reached the disk');
    req.destroy();
    await waitFor(() => !filesUnder(storageRoot(ts)).some((f) => f.endsWith('.fwtmp')), 'the temp file removed');
    expect(filesUnder(storageRoot(ts))).toEqual(before);
    expect(await count()).toBe(rows);
  });

  it('needs a bearer token (401) and leaves nothing behind', async () => {
    const before = filesUnder(storageRoot(ts)).length;
    const res = await ts.server.inject({ method: 'POST', url: '/api/storage/documents?filename=x.bin', headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from('x') });
    expect(res.statusCode).toBe(401);
    expect(filesUnder(storageRoot(ts)).length).toBe(before);
  });
});

describe('base64 JSON upload', () => {
  it.each(['/api/storage/documents', '/api/storage/upload'])('%s accepts name, filename, content_b64 and content_type', async (url) => {
    const bytes = crypto.randomBytes(30_000);
    const doc = created(await uploadBase64(ts, admin, bytes, { name: `B64 ${url}`, filename: 'blob.dat', content_type: 'application/x-test' }, url));
    expect(doc).toEqual(expect.objectContaining({
      name: `B64 ${url}`, original_filename: 'blob.dat', content_type: 'application/x-test', file_size: bytes.length,
      checksum: sha256(bytes), storage_backend: 'local', connector_id: null, current_version: 1, version_count: 1,
    }));
    expect(await contentOf(doc.id)).toEqual(bytes);
  });

  it('without content_type the type comes from the filename', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('<p>hi</p>'), { filename: 'page.html' }));
    expect(doc.content_type).toBe('text/html');
    expect(doc.name).toBe('page.html');
  });

  it('refuses a body without content_b64 (422 REQUIRED), content that is not base64 (400) and malformed JSON (400)', async () => {
    const missing = await ts.request('POST', '/api/storage/documents', { token: admin, body: { name: 'x', filename: 'x.txt' } });
    expectError(missing, 422);
    expect(JSON.stringify(missing.body.error.details)).toMatch(/content_b64/);
    expectError(await ts.request('POST', '/api/storage/documents', { token: admin, body: { name: 'x', filename: 'x.txt', content_b64: 'not base64!!' } }), 400, 'INVALID_BASE64');
    const bad = await ts.server.inject({ method: 'POST', url: '/api/storage/documents', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, payload: '{"name":' });
    expect(bad.statusCode).toBe(400);
  });

  it('the generic REST create (POST /api/data/storage.document) is the base64 upload too', async () => {
    const res = await ts.request('POST', '/api/data/storage.document', { token: admin, body: { name: 'Generic', filename: 'g.txt', content_b64: Buffer.from('generic').toString('base64') } });
    const doc = created(res);
    expect(doc.file_size).toBe(7);
    expect((await contentOf(doc.id)).toString()).toBe('generic');
  });
});

describe('owner attachment', () => {
  it('owner_model and owner_record_uuid attach the document to a record, in both modes', async () => {
    const org = await ts.createOrg(admin, 'Owner org');
    const b64 = created(await uploadBase64(ts, admin, Buffer.from('attached'), { filename: 'a.txt', owner_model: 'res.organization', owner_record_uuid: org }));
    expect(b64).toEqual(expect.objectContaining({ owner_model: 'res.organization', owner_record_uuid: org }));
    const bin = created(await uploadBinary(ts, admin, Buffer.from('attached too'), { filename: 'b.txt', owner_model: 'res.organization', owner_record_uuid: org }));
    expect(bin).toEqual(expect.objectContaining({ owner_model: 'res.organization', owner_record_uuid: org }));

    const filter = encodeURIComponent(JSON.stringify([['owner_model', '=', 'res.organization'], ['owner_record_uuid', '=', org]]));
    const list = await ts.request('GET', `/api/storage/documents?filter=${filter}`, { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.items.map((d: any) => d.id).sort()).toEqual([b64.id, bin.id].sort());
  });

  it('an unknown owner_model is refused with 422 and nothing is stored', async () => {
    const before = filesUnder(storageRoot(ts));
    expectError(await uploadBase64(ts, admin, Buffer.from('x'), { filename: 'x.txt', owner_model: 'no.such.model', owner_record_uuid: crypto.randomUUID() }), 422, 'INVALID_OWNER');
    expectError(await uploadBinary(ts, admin, Buffer.from('x'), { filename: 'x.txt', owner_model: 'no.such.model' }), 422, 'INVALID_OWNER');
    expect(filesUnder(storageRoot(ts))).toEqual(before);
  });

  it('owner_record_uuid must be a UUID (422)', async () => {
    const res = await uploadBase64(ts, admin, Buffer.from('x'), { filename: 'x.txt', owner_model: 'res.organization', owner_record_uuid: 'not-a-uuid' });
    expectError(res, 422);
  });
});


describe('GraphQL multipart upload', () => {
  const UPLOAD = `mutation Upload($file: File!, $name: String, $tags: String) {
    storageDocumentUploadFile(file: $file, name: $name, tags: $tags) { id name original_filename content_type file_size checksum storage_backend current_version version_count tags }
  }`;
  const ADD_VERSION = `mutation AddVersion($id: ID!, $file: File!, $note: String) {
    storageDocumentAddVersionFile(id: $id, file: $file, change_note: $note) { id current_version version_count file_size checksum original_filename }
  }`;

  /** A request per the GraphQL multipart request spec: operations, map, then the file part. */
  function multipart(query: string, bytes: Buffer, filename: string, type: string, variables: Record<string, unknown>): FormData {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query, variables: { ...variables, file: null } }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(bytes)], { type }), filename);
    return form;
  }

  async function gqlUpload(form: FormData, token?: string): Promise<{ status: number; json: any }> {
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'x-graphql-csrf': '1', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: form });
    return { status: res.status, json: await res.json() };
  }

  it('storageDocumentUploadFile(file: File!, name: …) streams the file into a new document', async () => {
    const bytes = crypto.randomBytes(120_000);
    const { status, json } = await gqlUpload(multipart(UPLOAD, bytes, 'scan.pdf', 'application/pdf', { name: 'Scanned contract', tags: 'legal' }), admin);
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.errors).toBeUndefined();
    const doc = json.data.storageDocumentUploadFile;
    expect(doc).toEqual({
      id: expect.any(String), name: 'Scanned contract', original_filename: 'scan.pdf', content_type: 'application/pdf',
      file_size: bytes.length, checksum: sha256(bytes), storage_backend: 'local', current_version: 1, version_count: 1, tags: 'legal',
    });
    expect(await contentOf(doc.id)).toEqual(bytes);
  });

  it('storageDocumentAddVersionFile(id, file, change_note) adds version 2 and keeps version 1', async () => {
    const v1 = Buffer.from('version one');
    const doc = created(await uploadBase64(ts, admin, v1, { filename: 'gql.txt' }));
    const v2 = crypto.randomBytes(4000);
    const { status, json } = await gqlUpload(multipart(ADD_VERSION, v2, 'gql-v2.bin', 'application/octet-stream', { id: doc.id, note: 'via graphql' }), admin);
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.data.storageDocumentAddVersionFile).toEqual({ id: doc.id, current_version: 2, version_count: 2, file_size: v2.length, checksum: sha256(v2), original_filename: 'gql-v2.bin' });
    expect(await contentOf(doc.id)).toEqual(v2);
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/versions/1/download`)).bytes).toEqual(v1);
    const versions = (await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: admin })).body.items;
    expect(versions[1].change_note).toBe('via graphql');
  });

  it('without a token the mutation is refused as unauthenticated and nothing is stored', async () => {
    const before = filesUnder(storageRoot(ts));
    const { json } = await gqlUpload(multipart(UPLOAD, Buffer.from('anon'), 'anon.txt', 'text/plain', {}));
    expect(json.data?.storageDocumentUploadFile ?? null).toBeNull();
    expect(json.errors?.[0]?.extensions?.code).toMatch(/UNAUTHENTICATED|FORBIDDEN|ACCESS_DENIED/);
    expect(filesUnder(storageRoot(ts))).toEqual(before);
  });

  it('the file-upload commands are not reachable through the generic command route (they need a stream)', async () => {
    expectError(await ts.request('POST', '/api/command/storage.document.upload_stream', { token: admin, body: { name: 'x' } }), 404);
  });
});
