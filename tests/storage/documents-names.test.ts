/**
 * Long Unicode file names on every upload path (src/apps/storage/documents.ts `store`), on both
 * engines: a name of 100 CJK characters (300 UTF-8 bytes) or 60 emoji (240 bytes) failed with
 * ENAMETOOLONG, a 500, because the key's name was cut at 200 characters and the local backend's
 * temp name `.<name>.<12 hex>.fwtmp` passed 255 bytes (the fuzzer's `storage-long-unicode-filename`).
 * Now every path stores the document: the record keeps the name as given (`original_filename`,
 * `name`, the download's Content-Disposition), the key a name cut at 200 UTF-8 bytes between
 * graphemes (`sanitizeFilename`), and nothing else (no temp file) is left on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILENAME_MAX_BYTES, sanitizeFilename } from '../../src/apps/storage/backends/keys.ts';
import { listen } from '../helpers/api.ts';
import { PROVIDERS } from '../helpers/kernel.ts';
import type { TestServer } from '../helpers/server.ts';
import { created, download, filesUnder, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

const CJK = '漢'.repeat(100); // 300 bytes
const EMOJI = '😀'.repeat(60); // 240 bytes
const FAMILY = `${'👨‍👩‍👧‍👦'.repeat(12)}.txt`; // 304 bytes, 12 graphemes of 7 code points each
/** Over 255 characters: the display name is cut too (original_filename is a char(255)). */
const HUGE = '漢'.repeat(400);

/** The `filename*` of a Content-Disposition header, decoded. */
const dispositionName = (header: unknown) => decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(String(header))![1]);

describe.each(PROVIDERS)('long Unicode file names are stored on every upload path (%s)', (provider) => {
  let ts: TestServer;
  let admin: string;
  let base: string;

  beforeAll(async () => {
    ts = await startStorageServer({}, { provider });
    admin = (await ts.loginAdmin()).access_token;
    base = await listen(ts);
  });
  afterAll(async () => {
    await ts?.close();
  });

  /** The stored document keeps `name` in full; its key holds the byte-bounded name; the content downloads under the full name. */
  async function expectStored(doc: Record<string, any>, name: string, content: Buffer, version = 1) {
    expect(doc.original_filename).toBe(name);
    const segment = doc.storage_key.split('/').pop();
    expect(doc.storage_key).toMatch(new RegExp(`/${doc.id}/v${version}/`));
    expect(segment).toBe(sanitizeFilename(name));
    expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(FILENAME_MAX_BYTES);
    expect(fs.readFileSync(path.join(storageRoot(ts), doc.storage_key))).toEqual(content);
    const d = await download(ts, admin, `/api/storage/documents/${doc.id}/download`);
    expect(d.status).toBe(200);
    expect(d.bytes).toEqual(content);
    expect(dispositionName(d.headers['content-disposition'])).toBe(name);
    // the version row says the same
    const versions = (await ts.request('GET', `/api/storage/documents/${doc.id}/versions`, { token: admin })).body.items;
    expect(versions.find((v: any) => v.version_number === version)).toMatchObject({ original_filename: name, storage_key: doc.storage_key });
  }

  const noTempFiles = () => expect(filesUnder(storageRoot(ts)).filter((f) => f.endsWith('.fwtmp'))).toEqual([]);

  it('REST base64 (POST /api/storage/upload and /api/storage/documents): 100 CJK characters and 60 emoji', async () => {
    for (const [url, name] of [['/api/storage/upload', CJK], ['/api/storage/documents', EMOJI], ['/api/storage/documents', FAMILY]] as const) {
      const content = Buffer.from(`base64 ${name.length}`);
      const doc = created(await uploadBase64(ts, admin, content, { filename: name }, url));
      expect(doc.name).toBe(name);
      await expectStored(doc, name, content);
    }
    noTempFiles();
  });

  it('REST binary (POST /api/storage/documents?filename=…): 100 CJK characters and 60 emoji', async () => {
    for (const name of [CJK, EMOJI]) {
      const content = Buffer.from(`binary ${name}`);
      const doc = created(await uploadBinary(ts, admin, content, { filename: name }));
      expect(doc.name).toBe(name);
      await expectStored(doc, name, content);
    }
    noTempFiles();
  });

  it('a name over 255 characters is kept to its first 255 on the record, and stored', async () => {
    const content = Buffer.from('huge');
    const doc = created(await uploadBinary(ts, admin, content, { filename: HUGE }));
    expect(doc.original_filename).toBe('漢'.repeat(255));
    expect(doc.name).toBe('漢'.repeat(255));
    expect(doc.storage_key.split('/').pop()).toBe('漢'.repeat(66));
  });

  it('GraphQL: storageDocumentCreate (base64) and storageDocumentUploadFile (multipart)', async () => {
    const res = await ts.request('POST', '/graphql', {
      token: admin,
      body: { query: 'mutation($i: StorageDocumentCreateInput!) { storageDocumentCreate(input: $i) { id name original_filename storage_key } }', variables: { i: { filename: EMOJI, content_b64: Buffer.from('gql base64').toString('base64') } } },
    });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    await expectStored(res.body.data.storageDocumentCreate, EMOJI, Buffer.from('gql base64'));

    const form = new FormData();
    form.append('operations', JSON.stringify({ query: 'mutation($file: File!) { storageDocumentUploadFile(file: $file) { id name original_filename storage_key } }', variables: { file: null } }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(Buffer.from('gql multipart'))], { type: 'text/plain' }), CJK);
    const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'x-graphql-csrf': '1' }, body: form });
    const json = (await r.json()) as any;
    expect(json.errors, JSON.stringify(json.errors)).toBeUndefined();
    expect(json.data.storageDocumentUploadFile.name).toBe(CJK);
    await expectStored(json.data.storageDocumentUploadFile, CJK, Buffer.from('gql multipart'));
    noTempFiles();
  });

  it('new versions: REST base64 and binary, GraphQL storageDocumentAddVersion and storageDocumentAddVersionFile', async () => {
    const doc = created(await uploadBase64(ts, admin, Buffer.from('v1'), { filename: 'short.txt' }));
    const v2 = Buffer.from('v2');
    const r2 = await uploadBase64(ts, admin, v2, { filename: CJK }, `/api/storage/documents/${doc.id}/versions`);
    expect(r2.status, JSON.stringify(r2.body)).toBe(201);
    await expectStored(r2.body, CJK, v2, 2);

    const v3 = Buffer.from('v3');
    const r3 = await uploadBinary(ts, admin, v3, { filename: EMOJI }, { url: `/api/storage/documents/${doc.id}/versions` });
    expect(r3.status, JSON.stringify(r3.body)).toBe(201);
    await expectStored(r3.body, EMOJI, v3, 3);

    const g4 = await ts.request('POST', '/graphql', {
      token: admin,
      body: { query: 'mutation($id: ID!, $f: String, $c: String) { storageDocumentAddVersion(id: $id, filename: $f, content_b64: $c) { id original_filename storage_key current_version } }', variables: { id: doc.id, f: FAMILY, c: Buffer.from('v4').toString('base64') } },
    });
    expect(g4.body.errors, JSON.stringify(g4.body.errors)).toBeUndefined();
    expect(g4.body.data.storageDocumentAddVersion.current_version).toBe(4);
    await expectStored(g4.body.data.storageDocumentAddVersion, FAMILY, Buffer.from('v4'), 4);

    const form = new FormData();
    form.append('operations', JSON.stringify({ query: 'mutation($id: ID!, $file: File!) { storageDocumentAddVersionFile(id: $id, file: $file) { id original_filename storage_key current_version } }', variables: { id: doc.id, file: null } }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(Buffer.from('v5'))], { type: 'text/plain' }), EMOJI);
    const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'x-graphql-csrf': '1' }, body: form });
    const json = (await r.json()) as any;
    expect(json.errors, JSON.stringify(json.errors)).toBeUndefined();
    expect(json.data.storageDocumentAddVersionFile.current_version).toBe(5);
    await expectStored(json.data.storageDocumentAddVersionFile, EMOJI, Buffer.from('v5'), 5);

    // every earlier version still downloads
    for (const [n, body] of [[1, 'v1'], [2, 'v2'], [3, 'v3'], [4, 'v4']] as const) {
      expect((await download(ts, admin, `/api/storage/documents/${doc.id}/versions/${n}/download`)).bytes.toString()).toBe(body);
    }
    noTempFiles();
  });
});
