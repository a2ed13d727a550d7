/**
 * Record rules: users see the documents of their own organization. A user of organization B
 * gets 404 for everything about a document of organization A (read, list, download, versions,
 * new version, metadata, archive, delete), while other users of A can do all of it.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, filesUnder, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

let ts: TestServer;
let admin: string;
let orgA: string;
let orgB: string;
let a1: string;
let a2: string;
let b1: string;
let doc: Record<string, any>;
const content = crypto.randomBytes(20_000);

beforeAll(async () => {
  ts = await startStorageServer();
  admin = (await ts.loginAdmin()).access_token;
  orgA = await ts.createOrg(admin, 'Storage A');
  orgB = await ts.createOrg(admin, 'Storage B');
  await ts.createUser(admin, { email: 'sa1@example.com', password: 'user-pass-1', organization: orgA });
  await ts.createUser(admin, { email: 'sa2@example.com', password: 'user-pass-1', organization: orgA });
  await ts.createUser(admin, { email: 'sb1@example.com', password: 'user-pass-1', organization: orgB });
  [a1, a2, b1] = await Promise.all(['sa1', 'sa2', 'sb1'].map(async (u) => (await ts.login(`${u}@example.com`, 'user-pass-1')).access_token));
  doc = created(await uploadBinary(ts, a1, content, { filename: 'a-secret.bin', name: 'A secret' }));
});
afterAll(async () => {
  await ts?.close();
});

const downloads = (id: string) => [`/api/storage/documents/${id}/download`, `/api/storage/documents/${id}/versions/1/download`, `/api/storage/download/${id}`, `/api/storage/download/${id}?version_number=1`];
const listIds = async (token: string, query = '') => {
  const res = await ts.request('GET', `/api/storage/documents${query}`, { token });
  expect(res.status).toBe(200);
  return res.body.items.map((d: any) => d.id) as string[];
};

describe('documents belong to the uploader\'s organization', () => {
  it('an upload is owned by the uploading user\'s organization and user', async () => {
    const me = (await ts.request('GET', '/api/auth/me', { token: a1 })).body;
    expect(doc).toEqual(expect.objectContaining({ organization_id: orgA, owner_id: me.id }));
    expect(doc.storage_key.startsWith(`default/${orgA}/storage.document/`)).toBe(true);
    const bDoc = created(await uploadBase64(ts, b1, Buffer.from('b'), { filename: 'b.txt' }));
    expect(bDoc.organization_id).toBe(orgB);
    expect(bDoc.storage_key.startsWith(`default/${orgB}/storage.document/`)).toBe(true);
  });
});

describe('a user of another organization', () => {
  it('cannot see the document: GET is 404 and listings (also include_inactive) leave it out', async () => {
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: b1 }), 404);
    expect(await listIds(b1)).not.toContain(doc.id);
    expect(await listIds(b1, '?include_inactive=true')).not.toContain(doc.id);
    expect(await listIds(b1, `?filter=${encodeURIComponent(JSON.stringify([['name', '=', 'A secret']]))}`)).toEqual([]);
    expectError(await ts.request('GET', `/api/data/storage.document/${doc.id}`, { token: b1 }), 404);
  });

  it('cannot download it or list its versions (404)', async () => {
    for (const url of downloads(doc.id)) {
      const d = await download(ts, b1, url);
      expect(d.status, url).toBe(404);
      expect(d.bytes.includes(content.subarray(0, 64))).toBe(false);
    }
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: b1 }), 404);
    const filter = encodeURIComponent(JSON.stringify([['document_id', '=', doc.id]]));
    expect((await ts.request('GET', `/api/data/storage.document_version?filter=${filter}`, { token: b1 })).body.items).toEqual([]);
  });

  it('cannot add a version in either mode (404) and nothing is stored', async () => {
    const before = filesUnder(storageRoot(ts));
    const bin = await ts.server.inject({
      method: 'POST', url: `/api/storage/documents/${doc.id}/versions?filename=evil.bin&change_note=mine`,
      headers: { authorization: `Bearer ${b1}`, 'content-type': 'application/octet-stream' }, payload: Buffer.from('overwrite attempt'),
    });
    expect(bin.statusCode).toBe(404);
    expectError(await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: b1, body: { filename: 'evil.bin', content_b64: 'ZXZpbA==' } }), 404);
    expectError(await ts.request('POST', `/api/data/storage.document/${doc.id}/add_version`, { token: b1, body: { file_content: 'ZXZpbA==', file_name: 'evil.bin' } }), 404);
    expect(filesUnder(storageRoot(ts))).toEqual(before);
    expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: a1 })).body.current_version).toBe(1);
  });

  it('cannot change, archive or delete it (404) and the document is unchanged', async () => {
    expectError(await ts.request('PUT', `/api/storage/documents/${doc.id}`, { token: b1, body: { name: 'pwned' } }), 404);
    expectError(await ts.request('POST', `/api/data/storage.document/${doc.id}/archive`, { token: b1, body: {} }), 404);
    expectError(await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: b1 }), 404);
    expectError(await ts.request('DELETE', `/api/data/storage.document/${doc.id}`, { token: b1 }), 404);
    const still = (await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: a1 })).body;
    expect(still).toEqual(expect.objectContaining({ name: 'A secret', is_active: true }));
    expect((await download(ts, a1, downloads(doc.id)[0])).bytes.equals(content)).toBe(true);
  });
});

describe('a user of the same organization', () => {
  it('sees, lists and downloads it', async () => {
    expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: a2 })).status).toBe(200);
    expect(await listIds(a2)).toContain(doc.id);
    for (const url of downloads(doc.id)) {
      const d = await download(ts, a2, url);
      expect(d.status, url).toBe(200);
      expect(d.bytes.equals(content)).toBe(true);
    }
    expect(await listIds(a2)).not.toContain((await listIds(b1))[0]);
  });

  it('adds a version, edits metadata, archives and finally deletes it', async () => {
    const v2 = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: a2, body: { filename: 'a-secret.bin', content_b64: Buffer.from('v2 by a2').toString('base64'), change_note: 'by a colleague' } });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    expect(v2.body.current_version).toBe(2);
    const me2 = (await ts.request('GET', '/api/auth/me', { token: a2 })).body;
    const versions = (await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: a1 })).body.items;
    expect(versions[1]).toEqual(expect.objectContaining({ version_number: 2, uploaded_by: me2.id, change_note: 'by a colleague' }));
    // the document keeps its organization and uploader
    expect(v2.body).toEqual(expect.objectContaining({ organization_id: orgA, owner_id: doc.owner_id }));

    expect((await ts.request('PUT', `/api/storage/documents/${doc.id}`, { token: a2, body: { tags: 'shared' } })).body.tags).toBe('shared');
    expect((await ts.request('POST', `/api/data/storage.document/${doc.id}/archive`, { token: a2, body: {} })).body.is_active).toBe(false);
    expect(await listIds(a1)).not.toContain(doc.id);
    expect(await listIds(a1, '?include_inactive=true')).toContain(doc.id);
    expect((await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: a2 })).status).toBe(200);
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: a1 }), 404);
  });

  it('the admin sees every organization\'s documents', async () => {
    const bDoc = created(await uploadBase64(ts, b1, Buffer.from('for admin'), { filename: 'adm.txt' }));
    expect((await ts.request('GET', `/api/storage/documents/${bDoc.id}`, { token: admin })).status).toBe(200);
    expect((await download(ts, admin, `/api/storage/download/${bDoc.id}`)).bytes.toString()).toBe('for admin');
    expectError(await ts.request('GET', `/api/storage/documents/${bDoc.id}`, { token: a1 }), 404);
  });
});
