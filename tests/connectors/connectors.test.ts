/**
 * The connectors app over HTTP with real external services on 127.0.0.1: an S3-compatible server
 * (s3rver), an SMTP sink and a webhook receiver. Covers provider types, the status state machine,
 * activate/deactivate, default uniqueness, record rules, import_config/get_config, menus.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { createS3Provider } from '../../src/apps/connectors/providers/s3/index.ts';
import { createSmtpProvider } from '../../src/apps/connectors/providers/smtp/index.ts';
import { createWebhookProvider } from '../../src/apps/connectors/providers/webhook/index.ts';
import { expectError, startTestServer, type Provider, type TestServer } from '../helpers/server.ts';
import { readAll, S3_KEY, S3_SECRET, startReceiver, startS3, startSmtp, type MailSink, type Receiver, type S3Sink } from './helpers.ts';
import { providerContextOf } from '../../src/apps/connectors/providers/context.ts';

let s3: S3Sink;
let smtp: MailSink;
let hook: Receiver;
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-local-conn-'));

beforeAll(async () => {
  [s3, smtp, hook] = await Promise.all([startS3('conn-bucket'), startSmtp({ user: 'mailer', password: 'mail-pass' }), startReceiver()]);
});

afterAll(async () => {
  await Promise.all([s3?.close(), smtp?.close(), hook?.close()]);
  fs.rmSync(localRoot, { recursive: true, force: true });
});

const s3Config = (over: Record<string, unknown> = {}) => ({
  bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', access_key_id: S3_KEY, secret_access_key: S3_SECRET, force_path_style: true, ...over,
});

describe.each(['sqlite', 'postgresql'] as Provider[])('connectors on %s', (provider) => {
  let ts: TestServer;
  let admin: string;
  let orgA: string;
  let orgB: string;
  let userA: string;
  let userB: string;

  beforeAll(async () => {
    ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors' }, { provider });
    admin = (await ts.loginAdmin()).access_token;
    orgA = await ts.createOrg(admin, 'Org A');
    orgB = await ts.createOrg(admin, 'Org B');
    await ts.createUser(admin, { email: 'ua@example.com', password: 'user-pass-1', organization: orgA });
    await ts.createUser(admin, { email: 'ub@example.com', password: 'user-pass-1', organization: orgB });
    userA = (await ts.login('ua@example.com', 'user-pass-1')).access_token;
    userB = (await ts.login('ub@example.com', 'user-pass-1')).access_token;
  });

  afterAll(async () => {
    await ts?.close();
  });

  async function create(values: Record<string, unknown>, token = admin): Promise<Record<string, any>> {
    const res = await ts.request('POST', '/api/connectors', { token, body: values });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }
  const get = async (id: string, token = admin) => (await ts.request('GET', `/api/connectors/${id}`, { token })).body;
  const post = (id: string, action: string, body?: unknown, token = admin) => ts.request('POST', `/api/connectors/${id}/${action}`, { token, body: body ?? {} });

  describe('provider types and seeded navigation', () => {
    it('GET /api/connectors/types lists every registered provider, filtered by category', async () => {
      const all = await ts.request('GET', '/api/connectors/types', { token: userA });
      expect(all.status).toBe(200);
      const pairs = all.body.map((t: any) => `${t.category}/${t.provider_type}`);
      expect(pairs).toEqual(expect.arrayContaining(['storage/local', 'storage/s3', 'email/smtp', 'messaging/webhook']));
      for (const t of all.body) expect(t).toEqual(expect.objectContaining({ provider_type: expect.any(String), display_name: expect.any(String), category: expect.any(String) }));
      const storage = await ts.request('GET', '/api/connectors/types?category=storage', { token: admin });
      expect(new Set(storage.body.map((t: any) => t.category))).toEqual(new Set(['storage']));
      const s3Type = storage.body.find((t: any) => t.provider_type === 's3');
      expect(s3Type.config_schema.find((e: any) => e.key === 'secret_access_key')).toEqual({ key: 'secret_access_key', label: expect.any(String), required: true, secret: true });
      expectError(await ts.request('GET', '/api/connectors/types?category=fax', { token: admin }), 422);
      expectError(await ts.request('GET', '/api/connectors/types'), 401);
    });

    it('seeds the admin-only Connectors menu under Settings > Integrations with its action', async () => {
      const menus = await ts.request('GET', `/api/data/ir.menu?filter=${encodeURIComponent(JSON.stringify([['xml_id', 'in', ['connectors.menu_connectors', 'base.menu_integrations']]]))}`, { token: admin });
      const byXml = Object.fromEntries(menus.body.items.map((m: any) => [m.xml_id, m]));
      const entry = byXml['connectors.menu_connectors'];
      expect(entry).toEqual(expect.objectContaining({ name: 'Connectors', sequence: 40, roles: 'admin', parent: byXml['base.menu_integrations'].id }));
      const action = await ts.request('GET', `/api/data/ir.action/${entry.action}`, { token: admin });
      expect(action.body).toEqual(expect.objectContaining({ xml_id: 'connectors.action_connectors', model_key: 'ir.connector' }));

      // the web client: admins get the entry with list and form views, users do not see it
      const boot = (await ts.request('GET', '/api/presentation/bootstrap', { token: admin })).body;
      const settings = boot.apps.find((a: any) => a.key === 'base.menu_settings');
      const integrations = settings.menus.find((m: any) => m.key === 'base.menu_integrations');
      expect(integrations.children.map((m: any) => [m.key, m.action, m.sequence])).toContainEqual(['connectors.menu_connectors', 'connectors.action_connectors', 40]);
      expect(boot.actions['connectors.action_connectors'].views).toEqual(expect.objectContaining({ list: 'ir.connector.list', form: 'ir.connector.form' }));
      const plan = await ts.request('GET', '/api/presentation/view/ir.connector.form', { token: admin });
      expect(plan.status).toBe(200);
      const userBoot = (await ts.request('GET', '/api/presentation/bootstrap', { token: userA })).body;
      expect(JSON.stringify(userBoot.apps)).not.toContain('connectors.menu_connectors');
    });
  });

  describe('connector lifecycle: draft → connected / error, activate, deactivate', () => {
    it('a new connector is a disabled draft of the caller\'s organization with params pre-populated from the provider schema', async () => {
      const c = await create({ name: 'Objects', category: 'storage', provider_type: 's3', organization_id: orgA });
      expect(c).toEqual(expect.objectContaining({ status: 'draft', is_enabled: false, is_default: false, organization_id: orgA }));
      const full = await get(c.id);
      expect(full.params.map((p: any) => [p.key, p.sequence])).toEqual([
        ['bucket', 10], ['region', 20], ['endpoint', 30], ['access_key_id', 40], ['secret_access_key', 50], ['force_path_style', 60], ['prefix', 70],
      ]);
      const mine = await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'Default org', category: 'email', provider_type: 'smtp' } });
      expect(mine.body.organization_id).toEqual(expect.any(String));
    });

    it('refuses an unregistered (category, provider_type) pair and a category outside the enum', async () => {
      // a bad value of the body: 422 on the field, not a 404 (the URL names nothing missing)
      for (const body of [{ name: 'x', category: 'storage', provider_type: 'ftp' }, { name: 'x', category: 'email', provider_type: 's3' }]) {
        const res = await ts.request('POST', '/api/connectors', { token: admin, body });
        expectError(res, 422, 'UNKNOWN_PROVIDER_TYPE');
        expect((res.body as { error: { details: unknown } }).error.details).toMatchObject({ field: 'provider_type', provider_type: body.provider_type });
      }
      expectError(await ts.request('POST', '/api/connectors', { token: admin, body: { name: 'x', category: 'fax', provider_type: 's3' } }), 422);
    });

    it('S3: a failing test sets error; activate is refused (409) until a test succeeds; then activate and deactivate', async () => {
      const c = await create({ name: 'S3 store', category: 'storage', provider_type: 's3', organization_id: orgA });
      expectError(await post(c.id, 'activate'), 409, 'CONNECTOR_NOT_CONNECTED');

      // missing required config: the test fails without touching the network
      let t = await post(c.id, 'test');
      expect(t.status).toBe(200);
      expect(t.body).toEqual(expect.objectContaining({ success: false, status: 'error' }));
      expect(t.body.message).toMatch(/bucket/);

      await post(c.id, 'import-config', { json_data: s3Config({ access_key_id: 'nobody', secret_access_key: 'wrong-secret' }) });
      t = await post(c.id, 'test');
      expect(t.body).toEqual(expect.objectContaining({ success: false, status: 'error' }));
      let row = await get(c.id);
      expect(row.status).toBe('error');
      expect(row.status_message).toMatch(/credentials/);
      const firstTest = row.last_tested_at;
      expect(Date.parse(firstTest)).toBeGreaterThan(Date.now() - 60_000);
      expectError(await post(c.id, 'activate'), 409, 'CONNECTOR_NOT_CONNECTED');

      await post(c.id, 'import-config', { json_data: s3Config() });
      t = await post(c.id, 'test');
      expect(t.body).toEqual(expect.objectContaining({ success: true, status: 'connected' }));
      row = await get(c.id);
      expect(row).toEqual(expect.objectContaining({ status: 'connected', is_enabled: false }));
      expect(row.status_message).toMatch(/reachable/);
      expect(row.last_tested_at >= firstTest).toBe(true);

      const on = await post(c.id, 'activate');
      expect(on.status).toBe(200);
      expect(on.body.is_enabled).toBe(true);
      const off = await post(c.id, 'deactivate');
      expect(off.body.is_enabled).toBe(false);
      expect((await get(c.id)).is_enabled).toBe(false);
    });

    it('status and is_enabled cannot be written through the generic update (only the commands move them)', async () => {
      const c = await create({ name: 'RO', category: 'messaging', provider_type: 'webhook', organization_id: orgA });
      expectError(await ts.request('PUT', `/api/connectors/${c.id}`, { token: admin, body: { is_enabled: true } }), 422);
      expectError(await ts.request('PUT', `/api/connectors/${c.id}`, { token: admin, body: { status: 'connected' } }), 422);
      const renamed = await ts.request('PUT', `/api/connectors/${c.id}`, { token: admin, body: { name: 'Renamed' } });
      expect(renamed.body).toEqual(expect.objectContaining({ name: 'Renamed', status: 'draft', category: 'messaging' }));
    });

    it('SMTP: verify() against a local sink decides the status; a wrong password is an error', async () => {
      const c = await create({ name: 'Mail', category: 'email', provider_type: 'smtp', organization_id: orgA });
      await post(c.id, 'import-config', { json_data: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 'mail-pass', from: 'fw@example.com' } });
      let t = await post(c.id, 'test');
      expect(t.body, JSON.stringify(t.body)).toEqual(expect.objectContaining({ success: true, status: 'connected' }));
      await post(c.id, 'import-config', { json_data: { host: '127.0.0.1', port: smtp.port, user: 'mailer', password: 'nope' } });
      t = await post(c.id, 'test');
      expect(t.body).toEqual(expect.objectContaining({ success: false, status: 'error' }));
      expect((await get(c.id)).status_message).toMatch(/auth|invalid/i);
    });

    it('SMTP provider sends mail through the sink', async () => {
      const instance = createSmtpProvider().from_config({ host: '127.0.0.1', port: String(smtp.port), user: 'mailer', password: 'mail-pass', from: 'fw@example.com' }, providerContextOf(ts.kernel.settings, 'default'));
      const info = await instance.send_mail({ to: 'ops@example.com', subject: 'Hello', text: 'from fw' });
      expect(info.accepted).toEqual(['ops@example.com']);
      const msg = smtp.messages.at(-1)!;
      expect(msg.from).toBe('fw@example.com');
      expect(msg.to).toEqual(['ops@example.com']);
      expect(msg.raw).toMatch(/Subject: Hello/);
    });

    it('webhook: a signed ping answered 2xx connects; a 500 or an unreachable URL is an error; send() posts messages; each result names its message id and values for the client to translate', async () => {
      const c = await create({ name: 'Hook', category: 'messaging', provider_type: 'webhook', organization_id: orgA });
      await post(c.id, 'import-config', { json_data: { url: hook.url, secret: 'hook-secret' } });
      hook.status = 200;
      const t = await post(c.id, 'test');
      expect(t.body).toEqual(expect.objectContaining({
        success: true, status: 'connected', message: 'webhook answered 200', message_id: 'connectors.test.webhook_ok', message_values: { status: 200 },
      }));
      // the connector keeps them with its status: a form opened later says the last test in its reader's language
      expect(t.body.connector).toMatchObject({ status_message: 'webhook answered 200', status_message_id: 'connectors.test.webhook_ok', status_message_values: { status: 200 } });
      const ping = hook.received.at(-1)!;
      expect(ping.method).toBe('POST');
      expect(JSON.parse(ping.body)).toEqual(expect.objectContaining({ type: 'ping' }));
      const crypto = await import('node:crypto');
      const expected = crypto.createHmac('sha256', 'hook-secret').update(`${ping.headers['x-fw-timestamp']}.${ping.body}`).digest('hex');
      expect(ping.headers['x-fw-signature']).toBe(`sha256=${expected}`);

      hook.status = 500;
      expect((await post(c.id, 'test')).body).toEqual(expect.objectContaining({
        success: false, status: 'error', message_id: 'connectors.test.webhook_refused', message_values: { status: 500 },
      }));
      hook.status = 200;
      await post(c.id, 'import-config', { json_data: { url: 'http://127.0.0.1:9/hook' } });
      // the reason in people's words (fetch itself says "fetch failed: bad port"), the driver's words in details
      const blocked = (await post(c.id, 'test')).body;
      expect(blocked).toEqual(expect.objectContaining({ success: false, status: 'error' }));
      expect(blocked.message).toMatch(/^could not connect: this port is blocked for web requests/);
      expect(blocked.details.cause).toMatch(/bad port/);
      expect(blocked).toMatchObject({ message_id: 'connectors.test.network.blocked_port', message_values: {} });
      // a port nobody listens on: refused, said so
      const net = await import('node:net');
      const closed = await new Promise<number>((resolve) => { const srv = net.createServer().listen(0, '127.0.0.1', () => { const { port } = srv.address() as { port: number }; srv.close(() => resolve(port)); }); });
      await post(c.id, 'import-config', { json_data: { url: `http://127.0.0.1:${closed}/hook` } });
      const refused = (await post(c.id, 'test')).body;
      expect(refused.message).toBe('could not connect: nothing answers at that address (connection refused)');
      expect(refused.message_id).toBe('connectors.test.network.refused');
      expect(refused.connector).toMatchObject({ status_message_id: 'connectors.test.network.refused', status_message_values: {} });

      const instance = createWebhookProvider().from_config({ url: hook.url }, providerContextOf(ts.kernel.settings, 'default'));
      await instance.send({ text: 'deploy finished' });
      expect(JSON.parse(hook.received.at(-1)!.body)).toEqual(expect.objectContaining({ type: 'message', text: 'deploy finished' }));
      hook.status = 503;
      await expect(instance.send({ text: 'x' })).rejects.toMatchObject({ code: 'CONNECTION_FAILED' });
      hook.status = 200;
    });

    it('local storage provider: the test proves the folder writable; its backend stores objects there', async () => {
      const c = await create({ name: 'Disk', category: 'storage', provider_type: 'local', organization_id: orgA });
      await post(c.id, 'import-config', { json_data: { root: localRoot } });
      expect((await post(c.id, 'test')).body).toEqual(expect.objectContaining({ success: true, status: 'connected' }));
      const { storageBackendOfConnector } = await import('../../src/apps/connectors/storage-backend.ts');
      const backend = await ts.kernel.execute(await ts.kernel.tenants.get('default'), systemPrincipal('default'), (env) => storageBackendOfConnector(env, c.id), false);
      const ref = await backend.put('default/x/storage.document/d/v1/a.txt', Buffer.from('on disk'));
      expect(ref.size).toBe(7);
      expect(fs.readFileSync(path.join(localRoot, 'default/x/storage.document/d/v1/a.txt'), 'utf8')).toBe('on disk');
    });

    it('S3 provider: the connector\'s storage backend writes to the configured bucket', async () => {
      const c = await create({ name: 'S3 backend', category: 'storage', provider_type: 's3', organization_id: orgA });
      await post(c.id, 'import-config', { json_data: { s3: s3Config({ prefix: 'via-connector' }) } });
      const { storageBackendOfConnector } = await import('../../src/apps/connectors/storage-backend.ts');
      const backend = await ts.kernel.execute(await ts.kernel.tenants.get('default'), systemPrincipal('default'), (env) => storageBackendOfConnector(env, c.id), false);
      expect(backend.capabilities.resumable_upload).toBe(true);
      await backend.put('k/hello.txt', Buffer.from('through the connector'));
      expect((await readAll((await backend.get('k/hello.txt')).stream)).toString()).toBe('through the connector');
      const raw = createS3Provider().from_config(s3Config(), providerContextOf(ts.kernel.settings, 'default')).as_storage_backend();
      expect(await raw.exists('via-connector/k/hello.txt')).toBe(true);
    });
  });

  describe('default uniqueness per (category, organization)', () => {
    it('setting is_default clears the previous default of the same category and organization only', async () => {
      const isDefault = async (id: string) => (await get(id)).is_default;
      const a = await create({ name: 'A', category: 'messaging', provider_type: 'webhook', organization_id: orgA, is_default: true });
      const b = await create({ name: 'B', category: 'messaging', provider_type: 'webhook', organization_id: orgA, is_default: true });
      expect(await isDefault(a.id)).toBe(false);
      expect(await isDefault(b.id)).toBe(true);
      const otherOrg = await create({ name: 'C', category: 'messaging', provider_type: 'webhook', organization_id: orgB, is_default: true });
      const otherCat = await create({ name: 'D', category: 'email', provider_type: 'smtp', organization_id: orgA, is_default: true });
      expect(await isDefault(b.id)).toBe(true);
      expect(await isDefault(otherOrg.id)).toBe(true);
      expect(await isDefault(otherCat.id)).toBe(true);

      // update: A becomes the default again
      await ts.request('PUT', `/api/connectors/${a.id}`, { token: admin, body: { is_default: true } });
      expect(await isDefault(a.id)).toBe(true);
      expect(await isDefault(b.id)).toBe(false);
      // moving the default to another organization clears that organization's default
      await ts.request('PUT', `/api/connectors/${a.id}`, { token: admin, body: { organization_id: orgB } });
      expect(await isDefault(a.id)).toBe(true);
      expect(await isDefault(otherOrg.id)).toBe(false);
      const defaults = await ts.request('GET', `/api/connectors?category=messaging&filter=${encodeURIComponent(JSON.stringify([['is_default', '=', true]]))}`, { token: admin });
      const perOrg = defaults.body.items.map((c: any) => c.organization_id).sort();
      expect(perOrg).toEqual([...new Set(perOrg)]);
    });
  });

  describe('access: admins manage connectors, users read their organization\'s', () => {
    it('lists filter by category and organization; users only see their organization', async () => {
      await create({ name: 'A-mail', category: 'email', provider_type: 'smtp', organization_id: orgA });
      const bMail = await create({ name: 'B-mail', category: 'email', provider_type: 'smtp', organization_id: orgB });
      const adminList = await ts.request('GET', `/api/connectors?category=email&organization_id=${orgB}`, { token: admin });
      expect(adminList.status).toBe(200);
      expect(adminList.body.items.length).toBeGreaterThan(0);
      expect(adminList.body.items.every((c: any) => c.category === 'email' && c.organization_id === orgB)).toBe(true);

      const listA = await ts.request('GET', '/api/connectors', { token: userA });
      expect(listA.body.items.length).toBeGreaterThan(0);
      expect(listA.body.items.every((c: any) => c.organization_id === orgA)).toBe(true);
      expect((await ts.request('GET', `/api/connectors?organization_id=${orgB}`, { token: userA })).body.items).toEqual([]);
      expectError(await ts.request('GET', `/api/connectors/${bMail.id}`, { token: userA }), 404);
      const own = await ts.request('GET', `/api/connectors/${bMail.id}`, { token: userB });
      expect(own.status).toBe(200);
      expect(own.body.params).toBeUndefined(); // params (configuration) are admin-only
    });

    it('users cannot create, change, test, activate or read the config of connectors', async () => {
      const c = await create({ name: 'Guarded', category: 'email', provider_type: 'smtp', organization_id: orgA });
      expectError(await ts.request('POST', '/api/connectors', { token: userA, body: { name: 'x', category: 'email', provider_type: 'smtp' } }), 403);
      expectError(await ts.request('PUT', `/api/connectors/${c.id}`, { token: userA, body: { name: 'y' } }), 403);
      expectError(await ts.request('DELETE', `/api/connectors/${c.id}`, { token: userA }), 403);
      expectError(await post(c.id, 'test', {}, userA), 403);
      expectError(await post(c.id, 'activate', {}, userA), 403);
      expectError(await post(c.id, 'import-config', { json_data: { host: 'x' } }, userA), 403);
      expectError(await ts.request('GET', `/api/connectors/${c.id}/config`, { token: userA }), 403);
      expectError(await ts.request('GET', `/api/data/ir.connector.param?filter=${encodeURIComponent(JSON.stringify([['connector_id', '=', c.id]]))}`, { token: userA }), 403);
    });

    it('DELETE removes the connector and its params (cascade)', async () => {
      const c = await create({ name: 'Temp', category: 'messaging', provider_type: 'webhook', organization_id: orgA });
      expect((await get(c.id)).params.length).toBe(2);
      const del = await ts.request('DELETE', `/api/connectors/${c.id}`, { token: admin });
      expect(del.body).toEqual({ id: c.id, deleted: true });
      expectError(await ts.request('GET', `/api/connectors/${c.id}`, { token: admin }), 404);
      const left = await ts.request('GET', `/api/data/ir.connector.param?filter=${encodeURIComponent(JSON.stringify([['connector_id', '=', c.id]]))}`, { token: admin });
      expect(left.body.items).toEqual([]);
    });
  });

  describe('import_config / get_config', () => {
    it('round-trips nested JSON through dotted params, in order', async () => {
      const c = await create({ name: 'Nested', category: 'messaging', provider_type: 'webhook', organization_id: orgA });
      const json = { url: 'https://hooks.example.com/x', installed: { client_id: 'cid', redirect_uris: ['https://a', 'https://b'], limits: { per_minute: 60, burst: true } }, note: null };
      const imp = await post(c.id, 'import-config', { json_data: json });
      expect(imp.status, JSON.stringify(imp.body)).toBe(200);
      expect(imp.body).toEqual({ success: true, count: 6, keys: ['url', 'installed.client_id', 'installed.redirect_uris', 'installed.limits.per_minute', 'installed.limits.burst', 'note'] });
      const params = (await get(c.id)).params;
      expect(params.map((p: any) => [p.key, p.value, p.sequence, p.value_type])).toEqual([
        ['url', 'https://hooks.example.com/x', 10, 'text'],
        ['installed.client_id', 'cid', 20, 'text'],
        ['installed.redirect_uris', '["https://a","https://b"]', 30, 'text'],
        ['installed.limits.per_minute', '60', 40, 'text'],
        ['installed.limits.burst', 'true', 50, 'text'],
        ['note', '', 60, 'text'],
      ]);
      const cfg = await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin });
      expect(cfg.body).toEqual({
        success: true,
        config: { url: 'https://hooks.example.com/x', installed: { client_id: 'cid', redirect_uris: '["https://a","https://b"]', limits: { per_minute: '60', burst: 'true' } }, note: '' },
      });

      // a second import replaces every row
      await post(c.id, 'import-config', { json_data: { url: 'https://other' } });
      expect((await get(c.id)).params.map((p: any) => p.key)).toEqual(['url']);
      expect((await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin })).body.config).toEqual({ url: 'https://other' });
    });

    it('assembles by sequence, not by creation order; a later conflicting key wins', async () => {
      const c = await create({ name: 'Ordered', category: 'messaging', provider_type: 'webhook', organization_id: orgA });
      await post(c.id, 'import-config', { json_data: {} });
      const add = (key: string, value: string, sequence: number) =>
        ts.request('POST', '/api/data/ir.connector.param', { token: admin, body: { connector_id: c.id, key, value, sequence } });
      await add('zeta', 'z', 30);
      await add('alpha', 'a', 10);
      await add('mid.inner', 'm', 20);
      await add('alpha', 'a-later', 40);
      const cfg = (await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin })).body.config;
      expect(Object.keys(cfg)).toEqual(['alpha', 'mid', 'zeta']);
      expect(cfg).toEqual({ alpha: 'a-later', mid: { inner: 'm' }, zeta: 'z' });
    });

    it('runs the provider normalisation first (S3 unwraps {"s3": {…}}) and accepts a base64 JSON file', async () => {
      const c = await create({ name: 'Wrapped', category: 'storage', provider_type: 's3', organization_id: orgA });
      const imp = await post(c.id, 'import-config', { json_data: { s3: { bucket: 'b1', region: 'eu-west-1' } } });
      expect(imp.body.keys).toEqual(['bucket', 'region']);
      expect((await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin })).body.config).toEqual({ bucket: 'b1', region: 'eu-west-1' });

      const file = Buffer.from(JSON.stringify({ s3: { bucket: 'from-file', endpoint: 'http://127.0.0.1:1' } })).toString('base64');
      const fromFile = await post(c.id, 'import-config', { file_content: file, file_name: 's3.json', file_mime: 'application/json' });
      expect(fromFile.status, JSON.stringify(fromFile.body)).toBe(200);
      expect((await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin })).body.config).toEqual({ bucket: 'from-file', endpoint: 'http://127.0.0.1:1' });

      expectError(await post(c.id, 'import-config', { file_content: Buffer.from('not json').toString('base64'), file_name: 'x.txt' }), 422, 'CONNECTOR_CONFIG_INVALID');
      expectError(await post(c.id, 'import-config', { json_data: [1, 2] }), 422, 'CONNECTOR_CONFIG_INVALID');
      expectError(await post(c.id, 'import-config', {}), 400);
    });

    it('falls back to the legacy config field when no params exist', async () => {
      const legacy = { url: 'https://legacy.example.com', headers: { 'x-team': 'ops' } };
      const c = await create({ name: 'Legacy', category: 'messaging', provider_type: 'webhook', organization_id: orgA, config: legacy });
      expect((await get(c.id)).params).toEqual([]); // a legacy config is not pre-populated over
      const cfg = await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin });
      expect(cfg.body).toEqual({ success: true, config: legacy });
      await post(c.id, 'import-config', { json_data: { url: 'https://params.example.com' } });
      expect((await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin })).body.config).toEqual({ url: 'https://params.example.com' });
    });
  });
});
