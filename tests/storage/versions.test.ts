/**
 * Versions: POST /api/storage/documents/{id}/versions in binary and base64 mode with a
 * change_note, monotonic version_number, current_version and version_count, previous versions
 * kept and downloadable, /api/storage/download/{id}?version_number=, and the form button
 * payload (`file_content`/`file_name`/`file_mime`) of storage.document.add_version.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, qs, sha256, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

let ts: TestServer;
let admin: string;

beforeAll(async () => {
  ts = await startStorageServer();
  admin = (await ts.loginAdmin()).access_token;
});
afterAll(async () => {
  await ts?.close();
});

async function versionBinary(id: string, content: Buffer, query: Record<string, string | undefined>, contentType = 'application/octet-stream') {
  const res = await ts.server.inject({
    method: 'POST',
    url: `/api/storage/documents/${id}/versions?${qs(query)}`,
    headers: { authorization: `Bearer ${admin}`, 'content-type': contentType },
    payload: content,
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

const versionsOf = async (id: string) => {
  const res = await ts.request('GET', `/api/storage/documents/${id}/versions`, { token: admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { items: any[]; total: number };
};

describe('new versions', () => {
  it('binary mode: change_note is a query parameter; version_number, current_version and version_count advance; the document points at the new version', async () => {
    const v1 = crypto.randomBytes(10_000);
    const doc = created(await uploadBinary(ts, admin, v1, { filename: 'plan.txt', name: 'Plan' }, { contentType: 'text/plain' }));
    const v2 = crypto.randomBytes(12_000);
    const res = await versionBinary(doc.id, v2, { filename: 'plan-v2.txt', change_note: 'second draft' }, 'text/markdown');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({
      id: doc.id, name: 'Plan', current_version: 2, version_count: 2, file_size: v2.length, checksum: sha256(v2),
      original_filename: 'plan-v2.txt', content_type: 'text/markdown',
    }));
    expect(res.body.storage_key).toMatch(new RegExp(`/storage\\.document/${doc.id}/v2/plan-v2\\.txt$`));

    const { items, total } = await versionsOf(doc.id);
    expect(total).toBe(2);
    expect(items.map((v) => [v.version_number, v.change_note, v.file_size, v.original_filename])).toEqual([
      [1, null, v1.length, 'plan.txt'],
      [2, 'second draft', v2.length, 'plan-v2.txt'],
    ]);
    // both objects are on disk
    for (const v of items) expect(fs.existsSync(path.join(storageRoot(ts), v.storage_key))).toBe(true);
  });

  it('base64 mode: change_note is a body field; without a filename the document keeps its name', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('one'), { name: 'Notes', filename: 'notes.txt', content_type: 'text/plain' }));
    const res = await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, {
      token: admin, body: { filename: 'notes.txt', content_b64: Buffer.from('two!').toString('base64'), content_type: 'text/plain', change_note: 'typo fixed' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({ current_version: 2, version_count: 2, file_size: 4, name: 'Notes' }));
    const { items } = await versionsOf(doc.id);
    expect(items.find((v) => v.version_number === 2).change_note).toBe('typo fixed');
  });

  it('version numbers are monotonic across modes; every previous version stays downloadable byte for byte', async () => {
    const contents = [crypto.randomBytes(5000), crypto.randomBytes(6000), crypto.randomBytes(7000), crypto.randomBytes(8000)];
    const doc = created(await uploadBinary(ts, admin, contents[0], { filename: 'series.bin' }));
    expect((await versionBinary(doc.id, contents[1], { filename: 'series.bin', change_note: 'v2' })).status).toBe(201);
    expect((await ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: 'series.bin', content_b64: contents[2].toString('base64'), change_note: 'v3' } })).status).toBe(201);
    const last = await versionBinary(doc.id, contents[3], { filename: 'series.bin', change_note: 'v4' });
    expect(last.body).toEqual(expect.objectContaining({ current_version: 4, version_count: 4 }));

    const { items } = await versionsOf(doc.id);
    expect(items.map((v) => v.version_number)).toEqual([1, 2, 3, 4]);
    expect(items.map((v) => v.checksum)).toEqual(contents.map(sha256));
    expect(new Set(items.map((v) => v.storage_key)).size).toBe(4);

    for (let n = 1; n <= 4; n++) {
      const d = await download(ts, admin, `/api/storage/documents/${doc.id}/versions/${n}/download`);
      expect(d.status).toBe(200);
      expect(d.bytes.equals(contents[n - 1]), `version ${n}`).toBe(true);
      const alt = await download(ts, admin, `/api/storage/download/${doc.id}?version_number=${n}`);
      expect(alt.bytes.equals(contents[n - 1]), `download?version_number=${n}`).toBe(true);
    }
    // the default download is the latest version
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/download`)).bytes.equals(contents[3])).toBe(true);
    expect((await download(ts, admin, `/api/storage/download/${doc.id}`)).bytes.equals(contents[3])).toBe(true);
  });

  it('concurrent version uploads get distinct, consecutive version numbers and none loses its content', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('base'), { filename: 'race.txt' }));
    const contents = [0, 1, 2, 3].map(() => crypto.randomBytes(200_000));
    const results = await Promise.all(contents.map((c, i) => (i % 2
      ? versionBinary(doc.id, c, { filename: 'race.txt', change_note: `upload ${i}` })
      : ts.request('POST', `/api/storage/documents/${doc.id}/versions`, { token: admin, body: { filename: 'race.txt', content_b64: c.toString('base64'), change_note: `upload ${i}` } }))));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const { items } = await versionsOf(doc.id);
    expect(items.map((v) => v.version_number)).toEqual([1, 2, 3, 4, 5]);
    expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: admin })).body).toEqual(expect.objectContaining({ current_version: 5, version_count: 5 }));
    // every upload's content is stored under the version its row names
    for (const v of items.slice(1)) {
      const i = Number(/upload (\d)/.exec(v.change_note)![1]);
      expect(v.checksum).toBe(sha256(contents[i]));
      const d = await download(ts, admin, `/api/storage/documents/${doc.id}/versions/${v.version_number}/download`);
      expect(d.status, JSON.stringify(d.body)).toBe(200);
      expect(d.bytes.equals(contents[i]), `version ${v.version_number}`).toBe(true);
    }
  });

  it('a version that does not exist is 404; a version number that is not a positive integer is 400', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('only one'), { filename: 'one.txt' }));
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}/versions/2/download`, { token: admin }), 404, 'VERSION_NOT_FOUND');
    expectError(await ts.request('GET', `/api/storage/download/${doc.id}?version_number=9`, { token: admin }), 404, 'VERSION_NOT_FOUND');
    expectError(await ts.request('GET', `/api/storage/documents/${doc.id}/versions/0/download`, { token: admin }), 400);
    expectError(await ts.request('GET', `/api/storage/download/${doc.id}?version_number=abc`, { token: admin }), 400);
    expectError(await ts.request('GET', `/api/storage/download/${crypto.randomUUID()}`, { token: admin }), 404);
    expectError(await ts.request('POST', `/api/storage/documents/${crypto.randomUUID()}/versions`, {
      token: admin, body: { filename: 'x', content_b64: 'eA==' },
    }), 404);
  });

  it('the form button payload (file_content, file_name, file_mime) is accepted by storage.document.add_version', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('<v1/>'), { name: 'Form doc', filename: 'form.xml' }));
    const body = Buffer.from('<v2>from the form</v2>');
    const res = await ts.request('POST', `/api/data/storage.document/${doc.id}/add_version`, {
      token: admin, body: { file_content: body.toString('base64'), file_name: 'form-v2.xml', file_mime: 'application/xml', change_note: 'uploaded from the form' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ current_version: 2, version_count: 2, original_filename: 'form-v2.xml', content_type: 'application/xml', file_size: body.length }));
    const d = await download(ts, admin, `/api/storage/documents/${doc.id}/download`);
    expect(d.bytes.equals(body)).toBe(true);
    expect(d.headers['content-type']).toMatch(/^application\/xml/);
    const { items } = await versionsOf(doc.id);
    expect(items[1]).toEqual(expect.objectContaining({ version_number: 2, change_note: 'uploaded from the form', original_filename: 'form-v2.xml' }));
  });

  it('the version rows are read-only through the generic API (only the storage commands write them)', async () => {
    const doc = created(await uploadBinary(ts, admin, Buffer.from('ro'), { filename: 'ro.txt' }));
    const { items } = await versionsOf(doc.id);
    const patch = await ts.request('PATCH', `/api/data/storage.document_version/${items[0].id}`, { token: admin, body: { change_note: 'sneaky' } });
    expect(patch.status).toBe(403);
    const create = await ts.request('POST', '/api/data/storage.document_version', {
      token: admin, body: { document_id: doc.id, version_number: 7, original_filename: 'x', storage_key: 'x/y' },
    });
    expect(create.status).toBe(403);
  });
});
