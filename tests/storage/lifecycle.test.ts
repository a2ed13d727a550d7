/**
 * Document lifecycle on the local backend: metadata update (name, description, tags only),
 * listing, soft delete (archive / unarchive, include_inactive) and hard delete, which removes
 * every stored version object (pre.storage.document.delete; backend errors never veto).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, emptyDirsUnder, filesUnder, startStorageServer, storageRoot, uploadBase64, uploadBinary, waitFor } from './helpers.ts';

let ts: TestServer;
let admin: string;

beforeAll(async () => {
  ts = await startStorageServer();
  admin = (await ts.loginAdmin()).access_token;
});
afterAll(async () => {
  await ts?.close();
});

const get = (id: string) => ts.request('GET', `/api/storage/documents/${id}`, { token: admin });
const list = async (query = '') => {
  const res = await ts.request('GET', `/api/storage/documents${query}`, { token: admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map((d: any) => d.id) as string[];
};

/** A document with three versions; returns it with the disk paths of its objects. */
async function threeVersions(name: string): Promise<{ doc: Record<string, any>; paths: string[] }> {
  const doc = created(await uploadBinary(ts, admin, crypto.randomBytes(2000), { filename: `${name}.bin`, name }));
  for (const n of [2, 3]) {
    const res = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: `${name}.bin`, content_b64: crypto.randomBytes(2000 + n).toString('base64') } });
    expect(res.status).toBe(201);
  }
  const versions = (await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: admin })).body.items;
  const paths = versions.map((v: any) => path.join(storageRoot(ts), v.storage_key));
  expect(paths.length).toBe(3);
  for (const p of paths) expect(fs.existsSync(p)).toBe(true);
  return { doc, paths };
}

describe('metadata', () => {
  it('PUT /api/storage/documents/{id} changes name, description and tags', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('meta'), { name: 'Before', filename: 'm.txt' }));
    const res = await ts.request('PUT', `/api/storage/documents/${doc.id}`, { token: admin, body: { name: 'After', description: 'Quarterly figures', tags: 'finance,q3' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ name: 'After', description: 'Quarterly figures', tags: 'finance,q3', original_filename: 'm.txt', current_version: 1 }));
    expect((await get(doc.id)).body).toEqual(expect.objectContaining({ name: 'After', description: 'Quarterly figures', tags: 'finance,q3' }));
    // the content is untouched
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/download`)).bytes.toString()).toBe('meta');
  });

  it.each([
    ['original_filename', 'evil.exe'], ['content_type', 'text/html'], ['file_size', 1], ['checksum', 'x'], ['storage_key', '../../etc/passwd'],
    ['storage_backend', 'object_store_a'], ['connector_id', null], ['owner_model', 'res.user'], ['organization_id', null], ['current_version', 9], ['is_active', false],
  ])('PUT refuses %s with 422 READONLY_FIELD and changes nothing', async (field, value) => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('ro'), { name: 'RO', filename: 'ro.txt' }));
    const res = await ts.request('PUT', `/api/storage/documents/${doc.id}`, { token: admin, body: { name: 'Changed?', [field]: value } });
    expectError(res, 422, 'READONLY_FIELD');
    expect(res.body.error.details).toEqual({ field });
    const after = (await get(doc.id)).body;
    expect(after.name).toBe('RO');
    expect(after[field]).toEqual(doc[field]);
  });

  it('PUT with a stale revision is a conflict (409)', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('rev'), { name: 'Rev', filename: 'rev.txt' }));
    expect((await ts.request('PUT', `/api/storage/documents/${doc.id}`, { token: admin, body: { name: 'Rev 2', revision: doc.revision } })).status).toBe(200);
    expectError(await ts.request('PUT', `/api/storage/documents/${doc.id}`, { token: admin, body: { name: 'Rev 3', revision: doc.revision } }), 409);
  });
});

describe('soft delete', () => {
  it('archive hides the document from GET /api/storage/documents unless include_inactive=true; the content stays; unarchive restores it', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('keep me'), { filename: 'soft.txt', name: 'Soft' }));
    expect(await list()).toContain(doc.id);
    const res = await ts.request('POST', `/api/data/storage.document/${doc.id}/archive`, { token: admin, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.is_active).toBe(false);

    expect(await list()).not.toContain(doc.id);
    expect(await list('?include_inactive=true')).toContain(doc.id);
    expect(fs.existsSync(path.join(storageRoot(ts), doc.storage_key))).toBe(true);
    // still readable by id, and downloadable
    expect((await get(doc.id)).body.is_active).toBe(false);
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/download`)).bytes.toString()).toBe('keep me');

    const back = await ts.request('POST', `/api/data/storage.document/${doc.id}/unarchive`, { token: admin, body: {} });
    expect(back.body.is_active).toBe(true);
    expect(await list()).toContain(doc.id);
  });
});

describe('hard delete', () => {
  it('DELETE /api/storage/documents/{id} removes the document, its version rows and every version object on disk', async () => {
    const { doc, paths } = await threeVersions('hard');
    const res = await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: admin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectError(await get(doc.id), 404);
    const filter = encodeURIComponent(JSON.stringify([['document_id', '=', doc.id]]));
    expect((await ts.request('GET', `/api/data/storage.document_version?filter=${filter}`, { token: admin })).body.items).toEqual([]);
    await waitFor(() => paths.every((p) => !fs.existsSync(p)), 'every version object deleted');
    expect(filesUnder(path.dirname(path.dirname(paths[0])))).toEqual([]);
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}/download`, { token: admin }), 404);
  });

  it('deleting a document leaves no empty folders behind: its key path folders go with its last object', async () => {
    const keep = created(await uploadBinary(ts, admin, Buffer.from('stays'), { filename: 'stays.txt' }));
    const { doc, paths } = await threeVersions('tidy');
    const docDir = path.dirname(path.dirname(paths[0]));
    expect(docDir.endsWith(doc.id)).toBe(true);
    expect((await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: admin })).status).toBe(200);
    await waitFor(() => !fs.existsSync(docDir), 'the document folder removed');
    expect(emptyDirsUnder(storageRoot(ts))).toEqual([]);
    // folders shared with another document stay, with its object
    expect(fs.existsSync(path.join(storageRoot(ts), keep.storage_key))).toBe(true);
    // the last document of the organization: its whole key path goes, up to the storage root
    for (const id of (await list('?include_inactive=true&limit=500'))) {
      expect((await ts.request('DELETE', `/api/storage/documents/${id}`, { token: admin })).status).toBe(200);
    }
    await waitFor(() => filesUnder(storageRoot(ts)).length === 0, 'every object deleted');
    await waitFor(() => emptyDirsUnder(storageRoot(ts)).length === 0, 'no folder left');
    expect(fs.readdirSync(storageRoot(ts))).toEqual([]);
  });

  it('the generic DELETE /api/data/storage.document/{id} runs the same hook', async () => {
    const { doc, paths } = await threeVersions('generic');
    expect((await ts.request('DELETE', `/api/data/storage.document/${doc.id}`, { token: admin })).status).toBe(200);
    await waitFor(() => paths.every((p) => !fs.existsSync(p)), 'every version object deleted');
  });

  it('a backend error (object already gone) is logged and does not veto the deletion; the other objects still go', async () => {
    const { doc, paths } = await threeVersions('vanished');
    fs.rmSync(paths[1]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const res = await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: admin });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectError(await get(doc.id), 404);
      await waitFor(() => paths.every((p) => !fs.existsSync(p)), 'the remaining version objects deleted');
      await waitFor(() => warn.mock.calls.some((c) => String(c[0]).includes('/v2/vanished.bin')), 'the failure logged');
    } finally {
      warn.mockRestore();
    }
  });

  it('deleting an archived document removes its objects too', async () => {
    const { doc, paths } = await threeVersions('archived');
    await ts.request('POST', `/api/data/storage.document/${doc.id}/archive`, { token: admin, body: {} });
    expect((await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: admin })).status).toBe(200);
    await waitFor(() => paths.every((p) => !fs.existsSync(p)), 'archived document objects deleted');
  });

  it('deleting an unknown document is 404', async () => {
    expectError(await ts.request('DELETE', `/api/storage/documents/${crypto.randomUUID()}`, { token: admin }), 404);
  });
});
