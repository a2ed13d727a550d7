/**
 * Deleting a record something still refers to, on SQLite and PostgreSQL. An organization is
 * deleted only once nothing belongs to it (users, documents, folders, connectors, … through any
 * Reference): otherwise 409 RECORD_REFERENCED names the models and counts, and nothing changes.
 * The seeded default organization is never deleted (409 ORGANIZATION_PROTECTED). Any record held
 * by a `restrict` Reference answers the same RECORD_REFERENCED with counts. Deleting documents
 * leaves no file and no empty folder of them on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { gql, gqlError } from '../helpers/api.ts';
import { PROVIDERS } from '../helpers/kernel.ts';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, emptyDirsUnder, filesUnder, startStorageServer, storageRoot, uploadBase64, waitFor } from './helpers.ts';

type Rec = Record<string, any>;

describe.each(PROVIDERS)('deleting referenced records on %s', (provider) => {
  let ts: TestServer;
  let admin: string;
  let org: string;
  let user: Rec;
  let member: string;
  let docs: Rec[];
  let folder: Rec;
  let connector: Rec;

  beforeAll(async () => {
    ts = await startStorageServer({}, { provider });
    admin = (await ts.loginAdmin()).access_token;
    org = await ts.createOrg(admin, 'Acme');
    user = await ts.createUser(admin, { email: 'member@acme.test', password: 'user-pass-1', organization: org });
    member = (await ts.login('member@acme.test', 'user-pass-1')).access_token;
    const f = await ts.request('POST', '/api/data/storage.folder', { token: member, body: { name: 'Reports' } });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
    folder = f.body;
    docs = [
      created(await uploadBase64(ts, member, Buffer.from('one'), { filename: 'one.txt' })),
      created(await uploadBase64(ts, member, Buffer.from('two'), { filename: 'two.txt', folder: folder.id })),
    ];
    const c = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Hook', category: 'messaging', provider_type: 'webhook', organization_id: org } });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    connector = c.body;
  });
  afterAll(async () => {
    await ts?.close();
  });

  const deleteOrg = (id: string) => ts.request('DELETE', `/api/data/res.organization/${id}`, { token: admin });
  const orgDir = () => path.join(storageRoot(ts), 'default', org);

  it('deleting an organization that users, documents, folders and connectors still belong to is refused with 409 RECORD_REFERENCED naming each model and count', async () => {
    const res = await deleteOrg(org);
    expectError(res, 409, 'RECORD_REFERENCED');
    expect(res.body.error.details).toEqual({
      model: 'res.organization',
      id: org,
      references: expect.arrayContaining([
        { model: 'res.user', field: 'organization', on_delete: 'set null', count: 1 },
        { model: 'storage.document', field: 'organization_id', on_delete: 'cascade', count: 2 },
        { model: 'storage.folder', field: 'organization', on_delete: 'cascade', count: 1 },
        { model: 'ir.connector', field: 'organization_id', on_delete: 'set null', count: 1 },
      ]),
    });
    expect(res.body.error.details.references).toHaveLength(4);
    expect(res.body.error.message).toMatch(/^Organization "Acme" is still referred to by .+; delete them or move them to another organization first$/);
    for (const part of ['1 res.user (organization)', '2 storage.document (organization_id)', '1 storage.folder (organization)', '1 ir.connector (organization_id)']) {
      expect(res.body.error.message).toContain(part);
    }
  });

  it('a refused organization delete changes nothing: records, their organization and the stored files stay', async () => {
    expect((await ts.request('GET', `/api/data/res.organization/${org}`, { token: admin })).status).toBe(200);
    expect((await ts.request('GET', `/api/data/res.user/${user.id}`, { token: admin })).body.organization).toBe(org);
    expect((await ts.request('GET', `/api/connectors/${connector.id}`, { token: admin })).body.organization_id).toBe(org);
    for (const d of docs) expect(fs.existsSync(path.join(storageRoot(ts), d.storage_key))).toBe(true);
    // the member keeps working in the organization: creating another user there still works
    expect((await ts.createUser(admin, { email: 'second@acme.test', password: 'user-pass-1', organization: org })).organization).toBe(org);
    expect((await ts.request('DELETE', `/api/data/res.user/${(await ts.request('GET', `/api/data/res.user?filter=${encodeURIComponent(JSON.stringify([['email', '=', 'second@acme.test']]))}`, { token: admin })).body.items[0].id}`, { token: admin })).status).toBe(200);
  });

  it('GraphQL and batch deletes are refused the same way', async () => {
    const res = await gql(ts, 'mutation($id: ID!) { resOrganizationDelete(id: $id) { id } }', { id: org }, { token: admin });
    expect(gqlError(res, 'RECORD_REFERENCED', 409).extensions?.details?.references).toHaveLength(4);
    const batch = await ts.request('POST', '/api/command/fw.delete_many', { token: admin, body: { model: 'res.organization', domain: [['record_uuid', '=', org]] } });
    expectError(batch, 409, 'RECORD_REFERENCED');
  });

  it('the seeded default organization cannot be deleted: 409 ORGANIZATION_PROTECTED on every path', async () => {
    const sys = systemPrincipal('default');
    const def = (await ts.kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'res.organization', domain: [['code', '=', 'default']] }, sys)).items[0];
    const res = await deleteOrg(def.id);
    expectError(res, 409, 'ORGANIZATION_PROTECTED');
    expect(res.body.error.details).toEqual({ model: 'res.organization', id: def.id, code: 'default' });
    gqlError(await gql(ts, 'mutation($id: ID!) { resOrganizationDelete(id: $id) { id } }', { id: def.id }, { token: admin }), 'ORGANIZATION_PROTECTED', 409);
    // not even the system may: the seed finds the default organization by its code
    await expect(ts.kernel.dispatch('fw.delete', { model: 'res.organization', id: def.id }, sys)).rejects.toMatchObject({ code: 'ORGANIZATION_PROTECTED', status: 409 });
    expect((await ts.request('GET', `/api/data/res.organization/${def.id}`, { token: admin })).status).toBe(200);
  });

  it('once nothing refers to it any more, the organization is deleted and no file or folder of its documents remains', async () => {
    expect(fs.existsSync(orgDir())).toBe(true);
    for (const d of docs) expect((await ts.request('DELETE', `/api/storage/documents/${d.id}`, { token: member })).status).toBe(200);
    expect((await ts.request('DELETE', `/api/data/storage.folder/${folder.id}`, { token: member })).status).toBe(200);
    expect((await ts.request('DELETE', `/api/data/ir.connector/${connector.id}`, { token: admin })).status).toBe(200);
    // still one user in it
    const left = await deleteOrg(org);
    expectError(left, 409, 'RECORD_REFERENCED');
    expect(left.body.error.details.references).toEqual([{ model: 'res.user', field: 'organization', on_delete: 'set null', count: 1 }]);
    expect((await ts.request('DELETE', `/api/data/res.user/${user.id}`, { token: admin })).status).toBe(200);
    const res = await deleteOrg(org);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ id: org, deleted: true });
    expectError(await ts.request('GET', `/api/data/res.organization/${org}`, { token: admin }), 404, 'RECORD_NOT_FOUND');
    await waitFor(() => !fs.existsSync(orgDir()), 'the organization\'s storage folder removed');
    expect(filesUnder(storageRoot(ts)).filter((f) => f.includes(org))).toEqual([]);
    // the prune walks up one folder at a time: the tenant's folder goes a moment after the organization's
    await waitFor(() => emptyDirsUnder(storageRoot(ts)).length === 0, 'no empty folder left');
    expect(emptyDirsUnder(storageRoot(ts))).toEqual([]);
  });

  it('a record still held by a restrict Reference (a storage connector documents were stored through) is refused with 409 RECORD_REFERENCED counting them', async () => {
    const other = await ts.createOrg(admin, 'Stored elsewhere');
    await ts.createUser(admin, { email: 'disk@acme.test', password: 'user-pass-1', organization: other });
    const user2 = (await ts.login('disk@acme.test', 'user-pass-1')).access_token;
    const c = (await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Disk', category: 'storage', provider_type: 'local', organization_id: other, is_default: true } })).body;
    const root = path.join(ts.kernel.settings.DATA_DIR, 'connector-root');
    const action = (a: string, body: Rec = {}) => ts.request('POST', `/api/connectors/${c.id}/${a}`, { token: admin, body });
    expect((await action('import-config', { json_data: { root } })).status).toBe(200);
    expect((await action('test')).body).toMatchObject({ success: true });
    expect((await action('activate')).body.is_enabled).toBe(true);
    const doc = created(await uploadBase64(ts, user2, Buffer.from('via the connector'), { filename: 'c.txt' }));
    expect(doc.connector_id).toBe(c.id);

    const res = await ts.request('DELETE', `/api/data/ir.connector/${c.id}`, { token: admin });
    expectError(res, 409, 'RECORD_REFERENCED');
    expect(res.body.error.details).toEqual({
      model: 'ir.connector',
      id: c.id,
      references: [
        { model: 'storage.document', field: 'connector_id', on_delete: 'restrict', count: 1 },
        { model: 'storage.document_version', field: 'connector_id', on_delete: 'restrict', count: 1 },
      ],
    });
    expect(res.body.error.message).toBe('Connector "Disk" is still referred to by 1 storage.document (connector_id) and 1 storage.document_version (connector_id); delete them or point them elsewhere first');
    expect((await ts.request('GET', `/api/connectors/${c.id}`, { token: admin })).status).toBe(200);
    // without the document, the connector goes
    expect((await ts.request('DELETE', `/api/storage/documents/${doc.id}`, { token: user2 })).status).toBe(200);
    expect((await ts.request('DELETE', `/api/data/ir.connector/${c.id}`, { token: admin })).status).toBe(200);
    await waitFor(() => filesUnder(root).length === 0 && emptyDirsUnder(root).length === 0, 'the document and its folders removed from the connector\'s root');
  });
});
