/**
 * storage.folder, the organisational tree of documents, on SQLite and PostgreSQL: folders belong
 * to their creator's organization (subfolders to their parent's), sibling names are unique
 * (409 FOLDER_NAME_TAKEN), a folder cannot move under itself (422 FOLDER_CYCLE), documents are
 * uploaded into and moved between folders, and a folder that still holds documents or subfolders
 * is never deleted (409 FOLDER_NOT_EMPTY through REST, /api/command, batch deletes and GraphQL).
 * A folder of another organization looks like a missing one (422 INVALID_REFERENCE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { gql, gqlError, gqlOk } from '../helpers/api.ts';
import { expectError, type Provider, type Res, type TestServer } from '../helpers/server.ts';
import { created, filesUnder, startStorageServer, storageRoot, uploadBase64, uploadBinary } from './helpers.ts';

type Rec = Record<string, any>;

describe.each(['sqlite', 'postgresql'] as Provider[])('document folders on %s', (provider) => {
  let ts: TestServer;
  let admin: string;
  let orgA: string;
  let orgB: string;
  let a1: string;
  let a2: string;
  let b1: string;

  beforeAll(async () => {
    ts = await startStorageServer({}, { provider });
    admin = (await ts.loginAdmin()).access_token;
    orgA = await ts.createOrg(admin, 'Folders A');
    orgB = await ts.createOrg(admin, 'Folders B');
    await ts.createUser(admin, { email: 'fa1@example.com', password: 'user-pass-1', organization: orgA });
    await ts.createUser(admin, { email: 'fa2@example.com', password: 'user-pass-1', organization: orgA });
    await ts.createUser(admin, { email: 'fb1@example.com', password: 'user-pass-1', organization: orgB });
    [a1, a2, b1] = await Promise.all(['fa1', 'fa2', 'fb1'].map(async (u) => (await ts.login(`${u}@example.com`, 'user-pass-1')).access_token));
  });
  afterAll(async () => {
    await ts?.close();
  });

  const createFolder = (token: string, values: Rec): Promise<Res> => ts.request('POST', '/api/data/storage.folder', { token, body: values });
  const folder = async (token: string, name: string, parent?: string): Promise<Rec> => {
    const res = await createFolder(token, { name, ...(parent ? { parent } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const getFolder = (token: string, id: string) => ts.request('GET', `/api/data/storage.folder/${id}`, { token });
  const patchFolder = (token: string, id: string, values: Rec) => ts.request('PATCH', `/api/data/storage.folder/${id}`, { token, body: values });
  const filter = (domain: unknown[]) => `filter=${encodeURIComponent(JSON.stringify(domain))}`;
  const folderNames = async (token: string, domain: unknown[]) => {
    const res = await ts.request('GET', `/api/data/storage.folder?${filter(domain)}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items.map((f: Rec) => f.name) as string[];
  };
  const docIds = async (token: string, query: string) => {
    const res = await ts.request('GET', `/api/storage/documents?${query}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items.map((d: Rec) => d.id) as string[];
  };
  const upload = async (token: string, name: string, folderId?: string): Promise<Rec> =>
    created(await uploadBase64(ts, token, Buffer.from(`content of ${name}`), { filename: `${name}.txt`, name, ...(folderId ? { folder: folderId } : {}) }));
  const putDoc = (token: string, id: string, body: Rec) => ts.request('PUT', `/api/storage/documents/${id}`, { token, body });

  describe('the tree', () => {
    it('a top-level folder belongs to its creator\'s organization, a subfolder to its parent\'s', async () => {
      const finance = await folder(a1, 'Finance');
      expect(finance).toEqual(expect.objectContaining({ name: 'Finance', parent: null, organization: orgA, sequence: 10 }));
      expect(finance).not.toHaveProperty('sibling_key');
      const year = await folder(a2, '2026', finance.id);
      expect(year).toEqual(expect.objectContaining({ parent: finance.id, organization: orgA }));
      // the admin (of the default organization) creating a subfolder in organization B's tree: B's
      const bRoot = await folder(b1, 'B root');
      expect(bRoot.organization).toBe(orgB);
      expect((await folder(admin, 'From the admin', bRoot.id)).organization).toBe(orgB);
    });

    it('the organization is set by the server (422 READONLY_FIELD) and a name is required', async () => {
      const res = await createFolder(a1, { name: 'Mine', organization: orgB });
      expectError(res, 422, 'VALIDATION_FAILED');
      expect(res.body.error.details.errors).toEqual([expect.objectContaining({ field: 'organization', code: 'READONLY_FIELD' })]);
      for (const name of [undefined, '   ']) {
        const r = await createFolder(a1, { name });
        expectError(r, 422, 'VALIDATION_FAILED');
        expect(r.body.error.details.errors).toEqual([expect.objectContaining({ field: 'name', code: 'REQUIRED' })]);
      }
      expectError(await createFolder(a1, { name: 'x', sibling_key: 'abc' }), 422, 'VALIDATION_FAILED');
    });

    it('lists top-level folders and the children of a folder, in sequence then name order', async () => {
      const root = await folder(a1, 'Projects');
      await folder(a1, 'Zeta', root.id);
      await folder(a1, 'Alpha', root.id);
      const first = await folder(a1, 'Later but first', root.id);
      expect((await patchFolder(a1, first.id, { sequence: 1 })).status).toBe(200);
      expect(await folderNames(a1, [['parent', '=', root.id]])).toEqual(['Later but first', 'Alpha', 'Zeta']);
      const top = await folderNames(a1, [['parent', '=', null]]);
      expect(top).toEqual(expect.arrayContaining(['Finance', 'Projects']));
      expect(top).not.toContain('2026');
      expect(top).not.toContain('B root');
      // children through a relation path: folders holding a subfolder named Alpha
      expect(await folderNames(a1, [['children.name', '=', 'Alpha']])).toEqual(['Projects']);
    });

    it('names are trimmed; sibling names are unique per parent, case-insensitively (409 FOLDER_NAME_TAKEN)', async () => {
      const root = await folder(a1, '  Contracts  ');
      expect(root.name).toBe('Contracts');
      const sub = await folder(a1, 'Signed', root.id);
      for (const name of ['Contracts', 'contracts', ' CONTRACTS ']) {
        const res = await createFolder(a2, { name });
        expectError(res, 409, 'FOLDER_NAME_TAKEN');
        expect(res.body.error.message).toBe(`a folder named "${name.trim()}" already exists at the top level`);
        expect(res.body.error.details).toEqual({ name: name.trim(), parent: null, existing_id: root.id });
      }
      const inside = await createFolder(a1, { name: 'signed', parent: root.id });
      expectError(inside, 409, 'FOLDER_NAME_TAKEN');
      expect(inside.body.error.message).toBe('a folder named "signed" already exists in this folder');
      // the same name elsewhere is fine: under another parent, or in another organization
      expect((await folder(a1, 'Signed', (await folder(a1, 'Drafts')).id)).name).toBe('Signed');
      expect((await folder(b1, 'Contracts')).organization).toBe(orgB);
      // renaming into a clash, and moving next to a sibling of the same name, are refused too
      const other = await folder(a1, 'Other', root.id);
      expectError(await patchFolder(a1, other.id, { name: 'SIGNED' }), 409, 'FOLDER_NAME_TAKEN');
      const loose = await folder(a1, 'Signed', (await folder(a1, 'Inbox')).id);
      expectError(await patchFolder(a1, loose.id, { parent: root.id }), 409, 'FOLDER_NAME_TAKEN');
      expect((await getFolder(a1, loose.id)).body.parent).not.toBe(root.id);
      // a rename that keeps the name (or only its case) is not a clash with itself
      expect((await patchFolder(a1, sub.id, { name: 'SIGNED' })).body.name).toBe('SIGNED');
      // the rule holds through PUT and GraphQL as well
      expectError(await ts.request('PUT', `/api/data/storage.folder/${other.id}`, { token: a1, body: { name: 'signed', parent: root.id } }), 409, 'FOLDER_NAME_TAKEN');
      gqlError(await gql(ts, 'mutation($p: ID) { storageFolderCreate(input: { name: "Signed", parent: $p }) { id } }', { p: root.id }, { token: a1 }), 'FOLDER_NAME_TAKEN');
    });

    it('moves a folder with its subtree; moving it under itself or a descendant is refused (422 FOLDER_CYCLE)', async () => {
      const top = await folder(a1, 'Archive');
      const mid = await folder(a1, 'Mid', top.id);
      const leaf = await folder(a1, 'Leaf', mid.id);
      for (const target of [top.id, mid.id, leaf.id]) {
        const res = await patchFolder(a1, top.id, { parent: target });
        expectError(res, 422, 'FOLDER_CYCLE');
        expect(res.body.error.message).toBe('a folder cannot be moved into itself or one of its subfolders');
      }
      // an id in upper case is the same folder
      expectError(await patchFolder(a1, top.id, { parent: leaf.id.toUpperCase() }), 422, 'FOLDER_CYCLE');
      expectError(await patchFolder(a1, mid.id, { parent: leaf.id }), 422, 'FOLDER_CYCLE');
      expect((await getFolder(a1, top.id)).body.parent).toBeNull();
      expect((await getFolder(a1, mid.id)).body.parent).toBe(top.id);

      // legal moves: the leaf to the top level, then the whole Mid subtree under another folder
      expect((await patchFolder(a1, leaf.id, { parent: null })).body.parent).toBeNull();
      const elsewhere = await folder(a1, 'Elsewhere');
      const moved = await patchFolder(a2, mid.id, { parent: elsewhere.id });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.parent).toBe(elsewhere.id);
      expect((await patchFolder(a1, leaf.id, { parent: mid.id })).body.parent).toBe(mid.id);
      expectError(await patchFolder(a1, elsewhere.id, { parent: leaf.id }), 422, 'FOLDER_CYCLE');
      gqlError(await gql(ts, 'mutation($id: ID!, $p: ID) { storageFolderUpdate(id: $id, input: { parent: $p }) { id } }', { id: elsewhere.id, p: leaf.id }, { token: a1 }), 'FOLDER_CYCLE');
    });
  });

  describe('concurrent changes', () => {
    it('of ten simultaneous creates of one name, one wins and the others answer 409 FOLDER_NAME_TAKEN', async () => {
      const parent = await folder(a1, 'Race parent');
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => createFolder(i % 2 ? a1 : a2, { name: i % 3 ? 'Same' : 'same ', parent: parent.id })));
      expect(results.filter((r) => r.status === 201).length).toBe(1);
      for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'FOLDER_NAME_TAKEN');
      expect(await folderNames(a1, [['parent', '=', parent.id]])).toHaveLength(1);
    });

    it('"A under B" and "B under A" at the same moment: one move wins, the other is 422 FOLDER_CYCLE', async () => {
      for (let round = 0; round < 3; round++) {
        const a = await folder(a1, `Cross A${round}`);
        const b = await folder(a1, `Cross B${round}`);
        const [ra, rb] = await Promise.all([patchFolder(a1, a.id, { parent: b.id }), patchFolder(a2, b.id, { parent: a.id })]);
        expect([ra.status, rb.status].sort()).toEqual([200, 422]);
        expectError(ra.status === 422 ? ra : rb, 422, 'FOLDER_CYCLE');
        const parents = [(await getFolder(a1, a.id)).body.parent, (await getFolder(a1, b.id)).body.parent];
        expect(parents.filter((p) => p === null)).toHaveLength(1);
      }
    });
  });

  describe('documents in folders', () => {
    it('uploads into a folder (base64 and binary) and lists a folder\'s documents; folder=root lists the rest', async () => {
      const inv = await folder(a1, 'Invoices');
      const d1 = await upload(a1, 'invoice-1', inv.id);
      expect(d1.folder).toBe(inv.id);
      const d2 = created(await uploadBinary(ts, a2, Buffer.from('binary invoice'), { filename: 'invoice-2.pdf', folder: inv.id }));
      expect(d2.folder).toBe(inv.id);
      const loose = await upload(a1, 'loose');
      expect(loose.folder).toBeNull();
      expect((await docIds(a1, `folder=${inv.id}`)).sort()).toEqual([d1.id, d2.id].sort());
      const root = await docIds(a1, 'folder=root');
      expect(root).toContain(loose.id);
      expect(root).not.toContain(d1.id);
      expect(await docIds(a1, filter([['folder.name', '=', 'Invoices']]))).toEqual(expect.arrayContaining([d1.id, d2.id]));
    });

    it('moves a document between folders (PUT /api/storage/documents, PATCH /api/data) and back to the top level', async () => {
      const from = await folder(a1, 'From');
      const to = await folder(a1, 'To');
      const doc = await upload(a1, 'mover', from.id);
      const put = await putDoc(a2, doc.id, { folder: to.id, revision: doc.revision });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toEqual(expect.objectContaining({ folder: to.id, name: 'mover', revision: doc.revision + 1 }));
      expect(await docIds(a1, `folder=${from.id}`)).toEqual([]);
      expect(await docIds(a1, `folder=${to.id}`)).toEqual([doc.id]);
      const patch = await ts.request('PATCH', `/api/data/storage.document/${doc.id}`, { token: a1, body: { folder: from.id } });
      expect(patch.body.folder).toBe(from.id);
      expect((await putDoc(a1, doc.id, { folder: null })).body.folder).toBeNull();
      expect(await docIds(a1, 'folder=root')).toContain(doc.id);
      // still limited to the editable fields
      expectError(await putDoc(a1, doc.id, { organization_id: orgB }), 422, 'READONLY_FIELD');
      // an unknown folder: 422 INVALID_REFERENCE, the document stays where it was
      const unknown = '00000000-0000-4000-8000-000000000000';
      const res = await putDoc(a1, doc.id, { folder: unknown });
      expectError(res, 422, 'INVALID_REFERENCE');
      expect(res.body.error.details).toEqual({ model: 'storage.document', field: 'folder', id: unknown });
      expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: a1 })).body.folder).toBeNull();
    });

    it('GraphQL shows the tree: a folder\'s parent, subfolders and documents, and a document\'s folder', async () => {
      const top = await folder(a1, 'Tree top');
      const sub = await folder(a1, 'Tree sub', top.id);
      const doc = await upload(a1, 'tree-doc', sub.id);
      const data = await gqlOk(ts, `query($id: ID!, $doc: ID!) {
        storageFolder(id: $id) { name organization { id } parent { name } children { name documents { name folder { name parent { name } } } } }
        storageDocument(id: $doc) { folder { id } }
      }`, { id: top.id, doc: doc.id }, { token: a1 });
      expect(data.storageFolder).toEqual({
        name: 'Tree top', organization: { id: orgA }, parent: null,
        children: [{ name: 'Tree sub', documents: [{ name: 'tree-doc', folder: { name: 'Tree sub', parent: { name: 'Tree top' } } }] }],
      });
      expect(data.storageDocument.folder.id).toBe(sub.id);
    });
  });

  describe('deleting a folder', () => {
    it('a folder holding documents and a subfolder is refused with 409 FOLDER_NOT_EMPTY on every path, and nothing is deleted', async () => {
      const full = await folder(a1, 'Full');
      const sub = await folder(a1, 'Sub', full.id);
      const docs = [await upload(a1, 'f1', full.id), await upload(a1, 'f2', full.id), await upload(a1, 'f3', full.id)];
      expect((await ts.request('POST', `/api/data/storage.document/${docs[2].id}/archive`, { token: a1, body: {} })).body.is_active).toBe(false);
      const message = 'Folder "Full" still holds 3 documents (1 archived) and 1 subfolder; move or delete them first';
      const details = { id: full.id, name: 'Full', documents: 3, archived_documents: 1, subfolders: 1 };

      const rest = await ts.request('DELETE', `/api/data/storage.folder/${full.id}`, { token: a1 });
      expectError(rest, 409, 'FOLDER_NOT_EMPTY');
      expect(rest.body.error).toEqual({ code: 'FOLDER_NOT_EMPTY', message, details });
      const cmd = await ts.request('POST', '/api/command/fw.delete', { token: a2, body: { model: 'storage.folder', id: full.id } });
      expectError(cmd, 409, 'FOLDER_NOT_EMPTY');
      expect(cmd.body.error.message).toBe(message);
      const many = await ts.request('POST', '/api/command/fw.delete_many', { token: admin, body: { model: 'storage.folder', domain: [['name', 'in', ['Full', 'Sub']], ['organization', '=', orgA]] } });
      expectError(many, 409, 'FOLDER_NOT_EMPTY');
      const g = gqlError(await gql(ts, 'mutation($id: ID!) { storageFolderDelete(id: $id) { id deleted } }', { id: full.id }, { token: a1 }), 'FOLDER_NOT_EMPTY');
      expect(g.message).toBe(message);
      gqlError(await gql(ts, 'mutation($id: ID!) { storageFolderDeleteMany(where: { id: { eq: $id } }) { count } }', { id: full.id }, { token: a1 }), 'FOLDER_NOT_EMPTY');
      // the kernel path as a command handler would take it
      await expect(ts.kernel.dispatch('fw.delete', { model: 'storage.folder', id: full.id }, systemPrincipal('default'))).rejects.toMatchObject({ code: 'FOLDER_NOT_EMPTY', status: 409 });

      expect((await getFolder(a1, full.id)).status).toBe(200);
      expect((await getFolder(a1, sub.id)).status).toBe(200);
      expect((await docIds(a1, `folder=${full.id}&include_inactive=true`)).sort()).toEqual(docs.map((d) => d.id).sort());
    });

    it('the message counts what is left: one document alone, subfolders alone', async () => {
      const one = await folder(a1, 'One doc');
      await upload(a1, 'only', one.id);
      const r1 = await ts.request('DELETE', `/api/data/storage.folder/${one.id}`, { token: a1 });
      expect(r1.body.error.message).toBe('Folder "One doc" still holds 1 document; move or delete it first');
      const parent = await folder(a1, 'Two subs');
      await folder(a1, 's1', parent.id);
      await folder(a1, 's2', parent.id);
      const r2 = await ts.request('DELETE', `/api/data/storage.folder/${parent.id}`, { token: a1 });
      expectError(r2, 409, 'FOLDER_NOT_EMPTY');
      expect(r2.body.error.message).toBe('Folder "Two subs" still holds 2 subfolders; move or delete them first');
    });

    it('an empty folder is deleted; once emptied, a refused folder can be deleted too', async () => {
      const empty = await folder(a1, 'Empty');
      expect((await ts.request('DELETE', `/api/data/storage.folder/${empty.id}`, { token: a1 })).body).toEqual({ id: empty.id, deleted: true });
      expectError(await getFolder(a1, empty.id), 404, 'RECORD_NOT_FOUND');

      const box = await folder(a1, 'Box');
      const inner = await folder(a1, 'Inner', box.id);
      const doc = await upload(a1, 'boxed', box.id);
      expectError(await ts.request('DELETE', `/api/data/storage.folder/${box.id}`, { token: a1 }), 409, 'FOLDER_NOT_EMPTY');
      expect((await putDoc(a1, doc.id, { folder: null })).status).toBe(200);
      const gone = await gqlOk(ts, 'mutation($id: ID!) { storageFolderDelete(id: $id) { id deleted } }', { id: inner.id }, { token: a1 });
      expect(gone.storageFolderDelete).toEqual({ id: inner.id, deleted: true });
      expect((await ts.request('DELETE', `/api/data/storage.folder/${box.id}`, { token: a1 })).status).toBe(200);
      expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: a1 })).body.folder).toBeNull();
    });
  });

  describe('another organization', () => {
    let secret: Rec;
    let secretDoc: Rec;
    beforeAll(async () => {
      secret = await folder(a1, 'A only');
      secretDoc = await upload(a1, 'a-doc', secret.id);
    });

    it('cannot see the folder: 404 by id, absent from lists, filters and GraphQL', async () => {
      expectError(await getFolder(b1, secret.id), 404, 'RECORD_NOT_FOUND');
      expect(await folderNames(b1, [])).not.toContain('A only');
      expect(await folderNames(b1, [['name', '=', 'A only']])).toEqual([]);
      expect(await docIds(b1, `folder=${secret.id}`)).toEqual([]);
      const data = await gqlOk(ts, 'query($id: ID!) { storageFolder(id: $id) { id } storageFolders(where: { name: { eq: "A only" } }) { id } }', { id: secret.id }, { token: b1 });
      expect(data).toEqual({ storageFolder: null, storageFolders: [] });
    });

    it('cannot use it: no subfolder, upload, move or folder move into it (422 INVALID_REFERENCE), and nothing is stored', async () => {
      const before = filesUnder(storageRoot(ts));
      for (const res of [
        await createFolder(b1, { name: 'Planted', parent: secret.id }),
        await uploadBase64(ts, b1, Buffer.from('planted'), { filename: 'p.txt', folder: secret.id }),
        await uploadBinary(ts, b1, Buffer.from('planted'), { filename: 'p.bin', folder: secret.id }),
      ]) {
        expectError(res, 422, 'INVALID_REFERENCE');
        expect(res.body.error.details).toEqual(expect.objectContaining({ id: secret.id }));
      }
      expect(filesUnder(storageRoot(ts))).toEqual(before);
      const bDoc = await upload(b1, 'b-doc');
      expectError(await putDoc(b1, bDoc.id, { folder: secret.id }), 422, 'INVALID_REFERENCE');
      expectError(await ts.request('PATCH', `/api/data/storage.document/${bDoc.id}`, { token: b1, body: { folder: secret.id } }), 422, 'INVALID_REFERENCE');
      const bFolder = await folder(b1, 'B folder');
      expectError(await patchFolder(b1, bFolder.id, { parent: secret.id }), 422, 'INVALID_REFERENCE');
      expect((await ts.request('GET', `/api/storage/documents/${bDoc.id}`, { token: b1 })).body.folder).toBeNull();
      expect(await docIds(a1, `folder=${secret.id}`)).toEqual([secretDoc.id]);
    });

    it('cannot rename, move or delete it (404), and it is unchanged', async () => {
      expectError(await patchFolder(b1, secret.id, { name: 'pwned' }), 404, 'RECORD_NOT_FOUND');
      expectError(await ts.request('DELETE', `/api/data/storage.folder/${secret.id}`, { token: b1 }), 404, 'RECORD_NOT_FOUND');
      gqlError(await gql(ts, 'mutation($id: ID!) { storageFolderDelete(id: $id) { id } }', { id: secret.id }, { token: b1 }), 'RECORD_NOT_FOUND');
      expect((await getFolder(a1, secret.id)).body).toEqual(expect.objectContaining({ name: 'A only', parent: null, organization: orgA }));
    });

    it('the admin sees every organization\'s folders but cannot mix organizations (422 FOLDER_ORGANIZATION_MISMATCH)', async () => {
      expect((await getFolder(admin, secret.id)).status).toBe(200);
      const bFolder = await folder(b1, 'B target');
      const bDoc = await upload(b1, 'b-doc-2');
      const res = await putDoc(admin, bDoc.id, { folder: secret.id });
      expectError(res, 422, 'FOLDER_ORGANIZATION_MISMATCH');
      expect(res.body.error.details).toEqual({ folder: secret.id, folder_organization: orgA, organization: orgB });
      expectError(await patchFolder(admin, bFolder.id, { parent: secret.id }), 422, 'FOLDER_ORGANIZATION_MISMATCH');
      // an admin's upload belongs to the admin's organization, so not into organization A's folder
      expectError(await uploadBase64(ts, admin, Buffer.from('x'), { filename: 'x.txt', folder: secret.id }), 422, 'FOLDER_ORGANIZATION_MISMATCH');
      // within one organization the admin moves freely
      expect((await putDoc(admin, bDoc.id, { folder: bFolder.id })).body.folder).toBe(bFolder.id);
    });
  });

  it('deleting an organization that still has folders and documents is refused (409 RECORD_REFERENCED); they all stay', async () => {
    const orgC = await ts.createOrg(admin, 'Folders C');
    await ts.createUser(admin, { email: 'fc1@example.com', password: 'user-pass-1', organization: orgC });
    const c1 = (await ts.login('fc1@example.com', 'user-pass-1')).access_token;
    const top = await folder(c1, 'C top');
    const sub = await folder(c1, 'C sub', top.id);
    const doc = await upload(c1, 'c-doc', sub.id);
    const res = await ts.request('DELETE', `/api/data/res.organization/${orgC}`, { token: admin });
    expectError(res, 409, 'RECORD_REFERENCED');
    expect(res.body.error.details.references).toEqual(expect.arrayContaining([
      { model: 'storage.folder', field: 'organization', on_delete: 'cascade', count: 2 },
      { model: 'storage.document', field: 'organization_id', on_delete: 'cascade', count: 1 },
    ]));
    for (const id of [top.id, sub.id]) expect((await getFolder(admin, id)).status).toBe(200);
    expect((await ts.request('GET', `/api/storage/documents/${doc.id}`, { token: admin })).body.folder).toBe(sub.id);
  });
});
