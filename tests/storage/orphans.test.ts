/**
 * An upload streams its content to the backend first (outside any transaction) and writes its
 * rows afterwards (`createDocument`, `addVersion` in src/apps/storage/documents.ts). When that
 * database write fails, the object just stored is deleted again: no orphan file, no temp file and
 * no empty folder is left on disk, and no row either. Three ways the write fails, made by a
 * fixture app's hooks on the rows the upload writes:
 *
 * - the document row's insert is refused by the database (a reference to a user that does not exist);
 * - the document row is written, then the version row's insert fails (the transaction rolls back);
 * - a new version's row fails (the document keeps its previous version and that version's file).
 */
import type { FastifyInstance } from 'fastify';
import crypto from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookDecl } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { buildServer } from '../../src/server/index.ts';
import { bootTestKernel, fixtureApp, PROVIDERS, type TestKernel } from '../helpers/kernel.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/server.ts';
import { emptyDirsUnder, filesUnder, qs, STORAGE_MODULES } from './helpers.ts';

/** For a create, a pre hook's payload is the values about to be written (it may change them). */
const valuesOf = (payload: Record<string, unknown>) => payload;

const hooks: HookDecl[] = [
  {
    // the insert itself fails in the database layer: the uploader points at no user
    point: 'pre.storage.document.create',
    handler(ctx) {
      const v = valuesOf(ctx.payload);
      if (String(v.original_filename).startsWith('fail-document')) v.owner_id = crypto.randomUUID();
    },
  },
  {
    // the document row is in, then the version row fails: the whole transaction rolls back
    point: 'pre.storage.document_version.create',
    handler(ctx) {
      const v = valuesOf(ctx.payload);
      if (String(v.original_filename).startsWith('fail-version') || v.change_note === 'fail-db') {
        throw new Error('simulated database failure while writing the version row');
      }
    },
  },
];

describe.each(PROVIDERS)('no orphan file when an upload\'s database write fails (%s)', (provider) => {
  let tk: TestKernel;
  let server: FastifyInstance;
  let token: string;
  const T = 'default';
  let root: string;

  beforeAll(async () => {
    tk = await bootTestKernel({ provider, settings: { ACTIVE_MODULES: STORAGE_MODULES }, apps: [fixtureApp('orphan_fixture', { hooks })] });
    server = await buildServer(tk.kernel);
    await tk.kernel.tenants.get(T);
    const login = await server.inject({ method: 'POST', url: '/api/auth/login', payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(login.statusCode, login.body).toBe(200);
    token = login.json().access_token;
    root = path.join(tk.dataDir, 'storage');
  });
  afterAll(async () => {
    await server?.close(); // closes the kernel too
    await tk?.cleanup();
  });

  const upload = async (url: string, content: Buffer, query: Record<string, string>) => {
    const res = await server.inject({
      method: 'POST', url: `${url}?${qs(query)}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      payload: content,
    });
    return { status: res.statusCode, body: res.json() };
  };
  const count = async (model: string) =>
    (await tk.kernel.dispatch<{ count: number }>('fw.count', { model }, systemPrincipal(T))).count;
  const snapshot = async () => ({
    files: filesUnder(root),
    emptyDirs: emptyDirsUnder(root),
    documents: await count('storage.document'),
    versions: await count('storage.document_version'),
  });

  it('a document row the database refuses: the upload fails and its streamed object is removed', async () => {
    const before = await snapshot();
    const res = await upload('/api/storage/documents', crypto.randomBytes(300_000), { filename: 'fail-document.bin' });
    // the database's foreign key refuses the row (mapped to 422 INVALID_REFERENCE)
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe('INVALID_REFERENCE');
    expect(await snapshot()).toEqual(before);
  });

  it('the version row fails after the document row was written: nothing of the upload remains', async () => {
    const before = await snapshot();
    const res = await upload('/api/storage/documents', crypto.randomBytes(300_000), { filename: 'fail-version.bin' });
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    expect(await snapshot()).toEqual(before);
  });

  it('a new version whose row fails: the document keeps version 1 and its file, version 2\'s object is removed', async () => {
    const ok = await upload('/api/storage/documents', Buffer.from('first version'), { filename: 'kept.txt' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const doc = ok.body;
    const before = await snapshot();
    expect(before.files.some((f) => f.endsWith(path.join(doc.id, 'v1', 'kept.txt')))).toBe(true);

    const res = await upload(`/api/storage/documents/${doc.id}/versions`, crypto.randomBytes(200_000), { filename: 'kept-v2.txt', change_note: 'fail-db' });
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(await snapshot()).toEqual(before);
    const stored = await delegateOf(await tk.kernel.tenants.get(T), tk.kernel.registry.model('storage.document')).findUnique({ where: { record_uuid: doc.id } });
    expect(stored).toMatchObject({ current_version: 1, version_count: 1, original_filename: 'kept.txt' });

    // the same upload without the failure goes through: the cleanup did not break the document
    const v2 = await upload(`/api/storage/documents/${doc.id}/versions`, Buffer.from('second version'), { filename: 'kept-v2.txt' });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    expect(v2.body).toMatchObject({ current_version: 2, version_count: 2 });
  });
});
