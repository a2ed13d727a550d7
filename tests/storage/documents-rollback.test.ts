/**
 * A failed batch leaves no stored object (src/apps/storage/documents.ts with the kernel's
 * `env.onRollback`; the fuzzer's `storage-orphan-in-failed-batch`). An upload stores its content
 * before it writes its rows. In a batch (`fw.create_many` on storage.document, GraphQL
 * `storageDocumentCreateMany`) every item runs in the batch's one transaction: when a later item
 * fails, the transaction takes the earlier items' rows with it, and their objects used to stay on
 * disk without a row. Each upload now registers the removal of its object on the transaction its
 * rows are written in, so the rollback removes it; a transaction that commits forgets it. Both
 * engines, real files under the local backend's root.
 */
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, HookDecl } from '../../src/kernel/app.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { ValidationError } from '../../src/kernel/errors.ts';
import { buildServer } from '../../src/server/index.ts';
import { bootTestKernel, fixtureApp, PROVIDERS, type TestKernel } from '../helpers/kernel.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/server.ts';
import { emptyDirsUnder, filesUnder, STORAGE_MODULES } from './helpers.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

const hooks: HookDecl[] = [
  {
    // a later item refused by the database layer, after its own object was stored
    point: 'pre.storage.document.create',
    handler(ctx) {
      if (String(ctx.payload.original_filename).startsWith('fail-in-db')) throw new Error('simulated database failure of a later item');
    },
  },
  {
    // the upload's rows are committed (its own transaction), then the command still fails
    point: 'post.storage.document.upload',
    handler(ctx) {
      if (ctx.payload.name === 'fail-after-commit') throw new ValidationError('refused after the rows were committed', undefined, 'FIXTURE_REFUSAL');
    },
  },
];

const commands: CommandDecl[] = [
  {
    // one transaction: a new version is uploaded, then the command fails
    name: 'rollback_fixture.version_then_fail',
    description: 'test fixture',
    async handler(env, p) {
      await env.dispatch('storage.document.add_version', { id: String(p.id), filename: 'second.txt', content_b64: b64('second version') });
      throw new ValidationError('refused after the new version', undefined, 'FIXTURE_REFUSAL');
    },
  },
  {
    // one transaction: two uploads through the generic create, then the command fails
    name: 'rollback_fixture.two_then_fail',
    description: 'test fixture',
    async handler(env) {
      await env.dispatch('fw.create', { model: 'storage.document', values: { filename: 'nested-1.txt', content_b64: b64('one') } }).catch(() => undefined);
      await env.dispatch('storage.document.upload', { filename: 'nested-2.txt', content_b64: b64('two') });
      await env.dispatch('storage.document.upload', { filename: 'nested-3.txt', content_b64: b64('three') });
      throw new ValidationError('refused after two uploads', undefined, 'FIXTURE_REFUSAL');
    },
  },
];

describe.each(PROVIDERS)('a failed batch leaves no stored object (%s)', (provider) => {
  let tk: TestKernel;
  let server: FastifyInstance;
  let token: string;
  let root: string;
  const T = 'default';

  beforeAll(async () => {
    tk = await bootTestKernel({ provider, settings: { ACTIVE_MODULES: STORAGE_MODULES }, apps: [fixtureApp('rollback_fixture', { hooks, commands })] });
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

  const call = async (url: string, body: unknown) => {
    const res = await server.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload: body as Record<string, unknown> });
    return { status: res.statusCode, body: res.json() };
  };
  const count = async (model: string) => (await tk.kernel.dispatch<{ count: number }>('fw.count', { model }, systemPrincipal(T))).count;
  /** What an upload leaves: rows, files (temp files included) and empty folders under the root. */
  const snapshot = async () => ({
    files: filesUnder(root),
    emptyDirs: emptyDirsUnder(root),
    documents: await count('storage.document'),
    versions: await count('storage.document_version'),
  });

  it('GraphQL storageDocumentCreateMany whose second item fails validation (the fuzzer\'s reproducer): 422, no row, no object', async () => {
    const before = await snapshot();
    const res = await call('/graphql', { query: 'mutation { storageDocumentCreateMany(inputs: [{ content_b64: "aGk=", filename: "first.txt" }, { content_type: "text/plain" }]) { id } }' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(await snapshot()).toEqual(before);
  });

  it('fw.create_many on storage.document: two stored items, the third refused, leave nothing', async () => {
    const before = await snapshot();
    const res = await call('/api/command/fw.create_many', {
      model: 'storage.document',
      values: [{ filename: 'a.txt', content_b64: b64('a') }, { filename: 'b.txt', content_b64: b64('b') }, { filename: 'c.txt', content_b64: '***' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('INVALID_BASE64');
    expect(await snapshot()).toEqual(before);
  });

  it('a later item whose own rows fail after its object was stored: neither its object nor the earlier items\' stay', async () => {
    const before = await snapshot();
    const res = await call('/api/command/fw.create_many', {
      model: 'storage.document',
      values: [{ filename: 'ok-1.txt', content_b64: b64('1') }, { filename: 'ok-2.txt', content_b64: b64('2') }, { filename: 'fail-in-db.txt', content_b64: b64('3') }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(await snapshot()).toEqual(before);
  });

  it('uploads dispatched inside another command\'s transaction are removed when it fails', async () => {
    const before = await snapshot();
    const res = await call('/api/command/rollback_fixture.two_then_fail', {});
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe('FIXTURE_REFUSAL');
    expect(await snapshot()).toEqual(before);
  });

  it('a new version uploaded inside a transaction that fails: the document keeps version 1 and its object, version 2\'s object is removed', async () => {
    const doc = await call('/api/storage/documents', { filename: 'first.txt', content_b64: b64('first version') });
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    const before = await snapshot();
    const res = await call('/api/command/rollback_fixture.version_then_fail', { id: doc.body.id });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(await snapshot()).toEqual(before);
    const dl = await server.inject({ method: 'GET', url: `/api/storage/documents/${doc.body.id}/download`, headers: { authorization: `Bearer ${token}` } });
    expect(dl.body).toBe('first version');
  });

  it('a batch that succeeds keeps every object, each downloadable', async () => {
    const before = await snapshot();
    const res = await call('/api/command/fw.create_many', {
      model: 'storage.document',
      values: [{ filename: 'keep-1.txt', content_b64: b64('keep one') }, { filename: 'keep-2.txt', content_b64: b64('keep two') }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await snapshot();
    expect(after.documents).toBe(before.documents + 2);
    expect(after.files.length).toBe(before.files.length + 2);
    for (const [d, text] of [[res.body[0], 'keep one'], [res.body[1], 'keep two']]) {
      const dl = await server.inject({ method: 'GET', url: `/api/storage/documents/${d.id}/download`, headers: { authorization: `Bearer ${token}` } });
      expect(dl.body).toBe(text);
    }
  });

  it('an upload whose own transaction committed keeps its object when the command fails afterwards (its row is there)', async () => {
    const before = await snapshot();
    const res = await call('/api/storage/documents', { filename: 'committed.txt', name: 'fail-after-commit', content_b64: b64('committed') });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const after = await snapshot();
    expect(after.documents).toBe(before.documents + 1);
    expect(after.files.length).toBe(before.files.length + 1);
    const row = (await tk.kernel.dispatch<{ items: Array<Record<string, any>> }>('fw.search', { model: 'storage.document', domain: [['name', '=', 'fail-after-commit']] }, systemPrincipal(T))).items[0];
    expect(after.files).toContain(path.join(row.storage_key));
  });
});
