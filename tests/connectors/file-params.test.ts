/**
 * File params: with the storage app active, a param of value_type `file` contributes the
 * referenced storage.document's content (read through storage as UTF-8) to get_config.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let admin: string;

beforeAll(async () => {
  ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors,storage' });
  admin = (await ts.loginAdmin()).access_token;
});
afterAll(async () => {
  await ts?.close();
});

async function upload(name: string, content: string): Promise<string> {
  const res = await ts.request('POST', '/api/storage/documents', {
    token: admin,
    body: { name, filename: name, content_b64: Buffer.from(content).toString('base64'), content_type: 'application/json' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe('file params', () => {
  it('get_config reads the referenced document as UTF-8, in sequence order with the text params', async () => {
    const conn = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Files', category: 'messaging', provider_type: 'webhook' } });
    expect(conn.status).toBe(201);
    const id = conn.body.id as string;
    await ts.request('POST', `/api/connectors/${id}/import-config`, { token: admin, body: { json_data: { url: 'https://hooks.example.com/a', installed: { client_id: 'cid' } } } });
    const credentials = '{"type":"service_account","project_id":"démo-π"}';
    const doc = await upload('credentials.json', credentials);
    const param = await ts.request('POST', '/api/data/ir.connector.param', {
      token: admin, body: { connector_id: id, key: 'installed.credentials', value_type: 'file', file_id: doc, sequence: 15 },
    });
    expect(param.status, JSON.stringify(param.body)).toBe(201);
    expect(param.body.file_id).toBe(doc);

    const cfg = await ts.request('GET', `/api/connectors/${id}/config`, { token: admin });
    expect(cfg.status, JSON.stringify(cfg.body)).toBe(200);
    expect(cfg.body).toEqual({ success: true, config: { url: 'https://hooks.example.com/a', installed: { credentials, client_id: 'cid' } } });
    expect(Object.keys(cfg.body.config.installed)).toEqual(['credentials', 'client_id']);
    const sys = await ts.kernel.dispatch<{ config: any }>('ir.connector.get_config', { id }, systemPrincipal('default'));
    expect(sys.config.installed.credentials).toBe(credentials);
  });

  it('file_id is a real reference: unknown documents are refused, and deleting the document clears it (set null)', async () => {
    const conn = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Files 2', category: 'messaging', provider_type: 'webhook' } });
    const id = conn.body.id as string;
    const bad = await ts.request('POST', '/api/data/ir.connector.param', {
      token: admin, body: { connector_id: id, key: 'cert', value_type: 'file', file_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);

    const doc = await upload('cert.pem', '-----BEGIN CERTIFICATE-----');
    const param = await ts.request('POST', '/api/data/ir.connector.param', { token: admin, body: { connector_id: id, key: 'cert', value_type: 'file', file_id: doc } });
    expect(param.status).toBe(201);
    const del = await ts.request('DELETE', `/api/storage/documents/${doc}`, { token: admin });
    expect(del.status, JSON.stringify(del.body)).toBeLessThan(300);
    const after = await ts.request('GET', `/api/data/ir.connector.param/${param.body.id}`, { token: admin });
    expect(after.body.file_id ?? null).toBeNull();
    // a file param without a file contributes nothing
    expect((await ts.request('GET', `/api/connectors/${id}/config`, { token: admin })).body.config).not.toHaveProperty('cert');
  });

  it('a non-admin cannot reach file contents through get_config', async () => {
    const org = await ts.createOrg(admin, 'Files org');
    await ts.createUser(admin, { email: 'files-user@example.com', password: 'user-pass-1', organization: org });
    const user = (await ts.login('files-user@example.com', 'user-pass-1')).access_token;
    const conn = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Org files', category: 'messaging', provider_type: 'webhook', organization_id: org } });
    expectError(await ts.request('GET', `/api/connectors/${conn.body.id}/config`, { token: user }), 403);
  });
});
