/**
 * Connector secrets (encrypted at rest, masked in every read path, in clear only for the server)
 * and the OAuth callback (single-use, expiring state; exchange, upsert, auto-test, action).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLACEHOLDER_CONNECTOR_KEY } from '../../src/apps/connectors/settings.ts';
import { providers } from '../../src/apps/connectors/providers/registry.ts';
import type { ConnectorConfig, ConnectorProvider } from '../../src/apps/connectors/providers/types.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { gql, gqlOk } from '../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, startSmtp, type MailSink, type Receiver } from './helpers.ts';

/** Where the public placeholder key stops the boot: development without the switch, production with or without it. */
const REFUSING_ENVS: Array<Record<string, string>> = [{}, { NODE_ENV: 'production' }, { NODE_ENV: 'production', ALLOW_PUBLIC_DEV_KEYS: 'true' }];

const MASK = '********';
const HOOK_SECRET = 'whsec-Very-Secret-0042';
const SMTP_PASSWORD = 'smtp-Pass-Word-9931';

let ts: TestServer;
let admin: string;
let user: string;
let orgId: string;
let hook: Receiver;
let smtp: MailSink;

/** An OAuth provider registered by the test: the exchange returns tokens; the test needs one. */
const exchanges: Array<{ code: string; config: ConnectorConfig; redirect_uri: string }> = [];
const oauthProvider: ConnectorProvider = {
  category: 'messaging',
  provider_type: 'oauth_test',
  display_name: 'OAuth test provider',
  config_schema: [
    { key: 'client_id', label: 'Client id', required: true, secret: false },
    { key: 'client_secret', label: 'Client secret', required: true, secret: true },
    { key: 'access_token', label: 'Access token', required: false, secret: true },
    { key: 'refresh_token', label: 'Refresh token', required: false, secret: true },
  ],
  async exchange_oauth_code(code, config, ctx) {
    exchanges.push({ code, config, redirect_uri: ctx.redirect_uri });
    if (code === 'bad-code') throw new Error('invalid_grant');
    return { access_token: `at-${code}`, refresh_token: 'rt-1', 'token.expires_in': '3600' };
  },
  oauth_authorize_url: (config, { state, redirect_uri }) =>
    `https://provider.example/authorize?client_id=${String(config.client_id)}&state=${encodeURIComponent(state)}&redirect_uri=${encodeURIComponent(redirect_uri)}`,
  from_config(config) {
    return {
      async test_connection() {
        return typeof config.access_token === 'string' && config.access_token.startsWith('at-')
          ? { success: true, message: 'token accepted' }
          : { success: false, message: 'no access token' };
      },
    };
  },
};

beforeAll(async () => {
  providers.register(oauthProvider, { replace: true });
  [ts, hook, smtp] = await Promise.all([
    startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors', CONNECTOR_OAUTH_REDIRECT_BASE_URL: 'https://fw.example.com/' }),
    startReceiver(),
    startSmtp({ user: 'mailer', password: SMTP_PASSWORD }),
  ]);
  admin = (await ts.loginAdmin()).access_token;
  const org = await ts.createOrg(admin, 'Secret Org');
  orgId = org;
  await ts.createUser(admin, { email: 'plain@example.com', password: 'user-pass-1', organization: org });
  user = (await ts.login('plain@example.com', 'user-pass-1')).access_token;
});

afterAll(async () => {
  providers.unregister('messaging', 'oauth_test');
  await Promise.all([ts?.close(), hook?.close(), smtp?.close()]);
});

async function create(values: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await ts.request('POST', '/api/connectors', { token: admin, body: values });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const post = (id: string, action: string, body: unknown = {}, token = admin) => ts.request('POST', `/api/connectors/${id}/${action}`, { token, body });
const rawParams = async (connectorId: string) => {
  const db = await ts.kernel.tenants.get('default');
  return delegateOf(db, ts.kernel.registry.model('ir.connector.param')).findMany({ where: { connector_id: connectorId }, orderBy: { sequence: 'asc' } });
};
const rawConnector = async (id: string) => {
  const db = await ts.kernel.tenants.get('default');
  return (await delegateOf(db, ts.kernel.registry.model('ir.connector')).findUnique({ where: { record_uuid: id } }))!;
};
const systemConfig = (id: string) => ts.kernel.dispatch<{ config: Record<string, any> }>('ir.connector.get_config', { id }, systemPrincipal('default'));
const paramsFilter = (id: string) => encodeURIComponent(JSON.stringify([['connector_id', '=', id]]));

describe('connector secrets', () => {
  let hookConn: Record<string, any>;

  beforeAll(async () => {
    hookConn = await create({ name: 'Signed hook', category: 'messaging', provider_type: 'webhook' });
    const imp = await post(hookConn.id, 'import-config', { json_data: { url: hook.url, secret: HOOK_SECRET } });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
  });

  it('over GraphQL, import_config, read_with_params and get_config answer their typed objects, secrets masked', async () => {
    const c = await create({ name: 'Typed hook', category: 'messaging', provider_type: 'webhook', organization_id: orgId });
    const imported = await gqlOk(ts, 'mutation($id: ID!, $json: JSON) { irConnectorImportConfig(id: $id, json_data: $json) { success count keys } }',
      { id: c.id, json: { url: hook.url, secret: HOOK_SECRET } }, { token: admin });
    expect(imported.irConnectorImportConfig).toEqual({ success: true, count: 2, keys: ['url', 'secret'] });
    const read = await gqlOk(ts, 'query($id: ID!) { irConnectorReadWithParams(id: $id) { connector { id name provider_type } params { key value } } }', { id: c.id }, { token: admin });
    expect(read.irConnectorReadWithParams).toEqual({
      connector: { id: c.id, name: 'Typed hook', provider_type: 'webhook' },
      params: [{ key: 'url', value: hook.url }, { key: 'secret', value: MASK }],
    });
    // a user of the connector's organization reads the connector, not its params: null
    const plain = await gqlOk(ts, 'query($id: ID!) { irConnectorReadWithParams(id: $id) { connector { id } params { key } } }', { id: c.id }, { token: user });
    expect(plain.irConnectorReadWithParams).toEqual({ connector: { id: c.id }, params: null });
    const cfg = await gqlOk(ts, 'query($id: ID!) { irConnectorGetConfig(id: $id) { success config } }', { id: c.id }, { token: admin });
    expect(cfg.irConnectorGetConfig).toEqual({ success: true, config: { url: hook.url, secret: MASK } });
  });

  it('are encrypted at rest (AES-GCM ciphertext in a private column; value holds only the mask)', async () => {
    const rows = await rawParams(hookConn.id);
    const secret = rows.find((r) => r.key === 'secret')!;
    expect(secret.value).toBe(MASK);
    expect(String(secret.secret_value)).toMatch(/^fwenc:v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(JSON.stringify(rows)).not.toContain(HOOK_SECRET);
    const url = rows.find((r) => r.key === 'url')!;
    expect(url.value).toBe(hook.url);
    expect(url.secret_value).toBeNull();
    // a fresh IV each time: the same secret encrypts differently
    await post(hookConn.id, 'import-config', { json_data: { url: hook.url, secret: HOOK_SECRET } });
    const again = (await rawParams(hookConn.id)).find((r) => r.key === 'secret')!;
    expect(again.secret_value).not.toBe(secret.secret_value);
  });

  it('are masked in GET /api/connectors/{id}, the generic record routes and filters', async () => {
    const res = await ts.request('GET', `/api/connectors/${hookConn.id}`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.params.find((p: any) => p.key === 'secret').value).toBe(MASK);
    expect(JSON.stringify(res.body)).not.toContain(HOOK_SECRET);
    expect(JSON.stringify(res.body)).not.toContain('fwenc:');

    const list = await ts.request('GET', `/api/data/ir.connector.param?filter=${paramsFilter(hookConn.id)}`, { token: admin });
    expect(JSON.stringify(list.body)).not.toContain(HOOK_SECRET);
    const secretParam = list.body.items.find((p: any) => p.key === 'secret');
    expect(secretParam).not.toHaveProperty('secret_value');
    const one = await ts.request('GET', `/api/data/ir.connector.param/${secretParam.id}`, { token: admin });
    expect(one.body.value).toBe(MASK);
    expect(one.body).not.toHaveProperty('secret_value');
    // the private column can be neither filtered, nor selected, nor grouped on
    expectError(await ts.request('GET', `/api/data/ir.connector.param?filter=${encodeURIComponent(JSON.stringify([['secret_value', '!=', null]]))}`, { token: admin }), 400);
    expectError(await ts.request('GET', `/api/data/ir.connector.param?fields=key,secret_value`, { token: admin }), 400);
    const grouped = await ts.request('POST', '/api/data/ir.connector.param/read_group', { token: admin, body: { groupby: ['value'], filter: [['connector_id', '=', hookConn.id]] } });
    expect(JSON.stringify(grouped.body)).not.toContain(HOOK_SECRET);
    // HTTP get_config (an admin, not the server) masks too
    const cfg = await ts.request('GET', `/api/connectors/${hookConn.id}/config`, { token: admin });
    expect(cfg.body).toEqual({ success: true, config: { url: hook.url, secret: MASK } });
  });

  it('are masked in GraphQL (lists, nested params) and the ciphertext column is not in the schema', async () => {
    const data = await gqlOk(ts, `query($id: ID!) {
      irConnector(id: $id) { name param_ids { key value } }
      irConnectorParams(where: { key: { eq: "secret" } }) { key value }
    }`, { id: hookConn.id }, { token: admin });
    expect(data.irConnector.param_ids.find((p: any) => p.key === 'secret').value).toBe(MASK);
    expect(data.irConnectorParams.length).toBeGreaterThan(0);
    expect(data.irConnectorParams.every((p: any) => p.value === MASK)).toBe(true);
    expect(JSON.stringify(data)).not.toContain(HOOK_SECRET);
    const cfg = await gqlOk(ts, 'query($id: ID!) { irConnectorGetConfig(id: $id) { success config } }', { id: hookConn.id }, { token: admin });
    expect(cfg.irConnectorGetConfig).toEqual({ success: true, config: { url: hook.url, secret: MASK } });
    expect(JSON.stringify(cfg)).not.toContain(HOOK_SECRET);
    const bad = await gql(ts, '{ irConnectorParams { key secret_value } }', undefined, { token: admin });
    expect(bad.body.errors?.[0].message).toMatch(/secret_value/);
  });

  it('are decrypted for the server: get_config as the system principal, and the connection test (signature checks out)', async () => {
    expect((await systemConfig(hookConn.id)).config).toEqual({ url: hook.url, secret: HOOK_SECRET });
    const t = await post(hookConn.id, 'test');
    expect(t.body.success).toBe(true);
    const ping = hook.received.at(-1)!;
    const sig = crypto.createHmac('sha256', HOOK_SECRET).update(`${ping.headers['x-fw-timestamp']}.${ping.body}`).digest('hex');
    expect(ping.headers['x-fw-signature']).toBe(`sha256=${sig}`);
  });

  it('writing the mask back keeps the secret; a new value is re-encrypted; a rename never reveals it', async () => {
    const list = await ts.request('GET', `/api/data/ir.connector.param?filter=${paramsFilter(hookConn.id)}`, { token: admin });
    const p = list.body.items.find((x: any) => x.key === 'secret');
    const same = await ts.request('PATCH', `/api/data/ir.connector.param/${p.id}`, { token: admin, body: { value: MASK } });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect((await systemConfig(hookConn.id)).config.secret).toBe(HOOK_SECRET);

    const changed = await ts.request('PATCH', `/api/data/ir.connector.param/${p.id}`, { token: admin, body: { value: 'rotated-secret-1' } });
    expect(changed.body.value).toBe(MASK);
    expect((await systemConfig(hookConn.id)).config.secret).toBe('rotated-secret-1');
    expect(JSON.stringify(await rawParams(hookConn.id))).not.toContain('rotated-secret-1');

    const renamed = await ts.request('PATCH', `/api/data/ir.connector.param/${p.id}`, { token: admin, body: { key: 'not_a_secret_key' } });
    expect(renamed.body.value).toBe(MASK);
    expect((await ts.request('GET', `/api/data/ir.connector.param/${p.id}`, { token: admin })).body.value).toBe(MASK);

    // a param created by hand under a secret key is encrypted as well
    const created = await ts.request('POST', '/api/data/ir.connector.param', { token: admin, body: { connector_id: hookConn.id, key: 'secret', value: 'hand-made-secret', sequence: 90 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.value).toBe(MASK);
    expect(JSON.stringify(await rawParams(hookConn.id))).not.toContain('hand-made-secret');
  });

  it('re-importing a config whose secrets are masked (an edited export) keeps the stored secrets', async () => {
    const c = await create({ name: 'Round trip', category: 'messaging', provider_type: 'webhook' });
    await post(c.id, 'import-config', { json_data: { url: hook.url, secret: 'kept-secret-31' } });
    const exported = (await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin })).body.config;
    expect(exported.secret).toBe(MASK);
    const imp = await post(c.id, 'import-config', { json_data: { ...exported, url: `${hook.url}?v=2` } });
    expect(imp.status).toBe(200);
    expect((await systemConfig(c.id)).config).toEqual({ url: `${hook.url}?v=2`, secret: 'kept-secret-31' });
  });

  it('SMTP password: only the server sees it, and the test authenticates with it', async () => {
    const c = await create({ name: 'Secret mail', category: 'email', provider_type: 'smtp' });
    await post(c.id, 'import-config', { json_data: { host: '127.0.0.1', port: smtp.port, user: 'mailer', password: SMTP_PASSWORD } });
    expect((await post(c.id, 'test')).body).toEqual(expect.objectContaining({ success: true, status: 'connected' }));
    const read = await ts.request('GET', `/api/connectors/${c.id}`, { token: admin });
    expect(JSON.stringify(read.body)).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(await rawParams(c.id))).not.toContain(SMTP_PASSWORD);
  });

  it('secret keys in a legacy config JSON are encrypted in place and revealed only to the server', async () => {
    const c = await create({ name: 'Legacy secret', category: 'messaging', provider_type: 'webhook', config: { url: hook.url, secret: 'legacy-secret-77' } });
    expect(JSON.stringify(c)).not.toContain('legacy-secret-77');
    const raw = await rawConnector(c.id);
    expect(JSON.stringify(raw.config)).not.toContain('legacy-secret-77');
    expect((raw.config as any).secret).toMatch(/^fwenc:v1:/);
    const http = await ts.request('GET', `/api/connectors/${c.id}/config`, { token: admin });
    expect(http.body.config).toEqual({ url: hook.url, secret: MASK });
    expect((await systemConfig(c.id)).config).toEqual({ url: hook.url, secret: 'legacy-secret-77' });
  });

  it('the legacy config never shows a secret, on any read path: the admin reads secret leaves as the mask, a plain user of the connector\'s organization does not get the config at all', async () => {
    const c = await create({ name: 'Legacy masked', category: 'messaging', provider_type: 'webhook', organization_id: orgId, config: { url: hook.url, secret: 'legacy-secret-88' } });
    expect(c.config).toEqual({ url: hook.url, secret: MASK });
    const reads = [
      await ts.request('GET', `/api/data/ir.connector/${c.id}`, { token: admin }),
      await ts.request('GET', `/api/data/ir.connector?filter=${encodeURIComponent(JSON.stringify([['record_uuid', '=', c.id]]))}`, { token: admin }),
      await ts.request('GET', `/api/connectors/${c.id}`, { token: admin }),
    ];
    for (const r of reads) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toMatch(/legacy-secret-88|fwenc:v1:/);
    }
    expect(reads[0].body.config).toEqual({ url: hook.url, secret: MASK });
    const g = await gqlOk(ts, 'query($id: ID!) { irConnector(id: $id) { config } irConnectors { id config } }', { id: c.id }, { token: admin });
    expect(g.irConnector.config).toEqual({ url: hook.url, secret: MASK });
    expect(JSON.stringify(g)).not.toMatch(/legacy-secret-88|fwenc:v1:/);
    for (const url of [`/api/data/ir.connector/${c.id}`, `/api/connectors/${c.id}`]) {
      const r = await ts.request('GET', url, { token: user });
      expect(r.status, url).toBe(200);
      expect(r.body).not.toHaveProperty('config');
    }
    // the server itself still reads the secret
    expect((await systemConfig(c.id)).config).toEqual({ url: hook.url, secret: 'legacy-secret-88' });
  });

  it('a legacy config saved back with the mask keeps its secret; a secret key stored in clear (before encryption) reads as the mask', async () => {
    const c = await create({ name: 'Legacy round trip', category: 'messaging', provider_type: 'webhook', config: { url: hook.url, secret: 'legacy-secret-99' } });
    const saved = await ts.request('PATCH', `/api/data/ir.connector/${c.id}`, { token: admin, body: { config: { url: `${hook.url}?v=3`, secret: MASK } } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect((await systemConfig(c.id)).config).toEqual({ url: `${hook.url}?v=3`, secret: 'legacy-secret-99' });
    const db = await ts.kernel.tenants.get('default');
    await delegateOf(db, ts.kernel.registry.model('ir.connector')).update({ where: { record_uuid: c.id }, data: { config: { url: hook.url, secret: 'stored-in-clear-1' } } });
    const r = await ts.request('GET', `/api/data/ir.connector/${c.id}`, { token: admin });
    expect(r.body.config).toEqual({ url: hook.url, secret: MASK });
  });

  it('another CONNECTOR_SECRET_KEY cannot decrypt them', async () => {
    const other = await Kernel.boot({
      settings: loadSettings({ DATA_DIR: ts.kernel.settings.DATA_DIR, DATABASE_URL: ts.kernel.settings.DATABASE_URL, PG_DATABASE_PREFIX: ts.kernel.settings.PG_DATABASE_PREFIX, ACTIVE_MODULES: 'base,auth,presentation,connectors', ACTIVE_DOMAINS: 'crm', ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', CONNECTOR_SECRET_KEY: 'a-completely-different-key-of-32+chars', LOG_LEVEL: 'silent' }),
      worker: false,
      log: () => {},
    });
    try {
      const err = (await other.dispatch('ir.connector.get_config', { id: hookConn.id }, systemPrincipal('default')).catch((e: unknown) => e)) as { code?: string };
      expect(err.code).toBe('CONNECTOR_CONFIG_INVALID');
    } finally {
      await other.close();
    }
  });

  it('the placeholder key is refused (in development too, unless ALLOW_PUBLIC_DEV_KEYS outside production), and short keys always', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-conn-boot-'));
    const boot = (extra: Record<string, string>) => Kernel.boot({
      settings: loadSettings({ DATA_DIR: dir, ACTIVE_MODULES: 'base,auth,connectors', JWT_SECRET_KEY: 'x'.repeat(40), LOG_LEVEL: 'silent', ...extra }),
      worker: false,
      log: () => {},
    });
    try {
      for (const env of REFUSING_ENVS) {
        await expect(boot({ CONNECTOR_SECRET_KEY: PLACEHOLDER_CONNECTOR_KEY, ...env })).rejects.toMatchObject({ code: 'INSECURE_CONNECTOR_KEY' });
      }
      const dev = await boot({ CONNECTOR_SECRET_KEY: PLACEHOLDER_CONNECTOR_KEY, ALLOW_PUBLIC_DEV_KEYS: 'true' });
      await dev.close();
      await expect(boot({ CONNECTOR_SECRET_KEY: 'short' })).rejects.toMatchObject({ code: 'INSECURE_CONNECTOR_KEY' });
      const ok = await boot({ NODE_ENV: 'production', CONNECTOR_SECRET_KEY: 'k'.repeat(48) });
      await ok.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('OAuth callback', () => {
  let conn: Record<string, any>;

  beforeAll(async () => {
    conn = await create({ name: 'OAuth app', category: 'messaging', provider_type: 'oauth_test' });
    await post(conn.id, 'import-config', { json_data: { client_id: 'client-1', client_secret: 'cs-secret-55' } });
  });

  const start = async (id = conn.id) => {
    const res = await ts.request('POST', `/api/data/ir.connector/${id}/oauth_start`, { token: admin, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { state: string; expires_at: string; redirect_uri: string; authorize_url: string };
  };
  const callback = (q: Record<string, string>, provider = 'oauth_test') =>
    ts.request('GET', `/api/connectors/oauth/callback/${provider}?${new URLSearchParams(q)}`);

  it('oauth_start issues {connector_uuid}:{nonce} with an expiry; only the nonce hash is stored', async () => {
    const s = await start();
    expect(s.state).toMatch(new RegExp(`^${conn.id}:default\\.[A-Za-z0-9_-]{43}$`));
    const ttl = Date.parse(s.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(s.redirect_uri).toBe('https://fw.example.com/api/connectors/oauth/callback/oauth_test');
    expect(s.authorize_url).toContain(encodeURIComponent(s.state));
    const raw = await rawConnector(conn.id);
    const nonce = s.state.slice(s.state.indexOf(':') + 1);
    expect(raw.oauth_state_hash).toBe(crypto.createHash('sha256').update(nonce).digest('hex'));
    expect(JSON.stringify(raw)).not.toContain(nonce);
    const read = await ts.request('GET', `/api/connectors/${conn.id}`, { token: admin });
    expect(JSON.stringify(read.body)).not.toContain('oauth_state');
  });

  it('happy path without a bearer token: exchange with the decrypted config, tokens stored as secret params, auto-test, action back to the form', async () => {
    const s = await start();
    const res = await callback({ code: 'c0de', state: s.state });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ success: true, connector_id: conn.id, status: 'connected' }));
    expect(res.body.stored_keys).toEqual(['access_token', 'refresh_token', 'token.expires_in']);
    expect(res.body.action).toEqual(expect.objectContaining({ type: 'navigate', target: `/connectors/${conn.id}`, model_key: 'ir.connector', record_id: conn.id, view_type: 'form', action_id: expect.any(String) }));

    const ex = exchanges.at(-1)!;
    expect(ex.code).toBe('c0de');
    expect(ex.config).toEqual(expect.objectContaining({ client_id: 'client-1', client_secret: 'cs-secret-55' }));
    expect(ex.redirect_uri).toBe('https://fw.example.com/api/connectors/oauth/callback/oauth_test');

    const read = await ts.request('GET', `/api/connectors/${conn.id}`, { token: admin });
    expect(read.body.status).toBe('connected');
    const params = Object.fromEntries(read.body.params.map((p: any) => [p.key, p.value]));
    expect(params).toEqual(expect.objectContaining({ client_id: 'client-1', client_secret: MASK, access_token: MASK, refresh_token: MASK, 'token.expires_in': '3600' }));
    expect(JSON.stringify(await rawParams(conn.id))).not.toContain('at-c0de');
    expect((await systemConfig(conn.id)).config).toEqual(expect.objectContaining({ access_token: 'at-c0de', refresh_token: 'rt-1', token: { expires_in: '3600' } }));

    // a second authorization updates the same params instead of adding rows
    const again = await callback({ code: 'c0de2', state: (await start()).state });
    expect(again.body.success).toBe(true);
    const keys = (await rawParams(conn.id)).map((r) => r.key);
    expect(keys.filter((k) => k === 'access_token').length).toBe(1);
    expect((await systemConfig(conn.id)).config.access_token).toBe('at-c0de2');
  });

  it('over GraphQL, oauth_start and the (anonymous) callback answer their typed objects', async () => {
    const { irConnectorOauthStart: s } = await gqlOk(ts, 'mutation($id: ID!) { irConnectorOauthStart(id: $id) { state expires_at redirect_uri authorize_url } }', { id: conn.id }, { token: admin });
    expect(s.state).toMatch(new RegExp(`^${conn.id}:default\\.`));
    expect(Date.parse(s.expires_at)).toBeGreaterThan(Date.now());
    expect(s.redirect_uri).toBe('https://fw.example.com/api/connectors/oauth/callback/oauth_test');
    expect(s.authorize_url).toContain(encodeURIComponent(s.state));
    const done = await gqlOk(ts, `mutation($state: String!) { connectorsOauthCallback(provider_type: "oauth_test", state: $state, code: "gql-code") {
      success connector_id status message stored_keys action { type target model_key record_id view_type action_id }
    } }`, { state: s.state });
    expect(done.connectorsOauthCallback).toEqual({
      success: true, connector_id: conn.id, status: 'connected', message: 'token accepted', stored_keys: ['access_token', 'refresh_token', 'token.expires_in'],
      action: { type: 'navigate', target: `/connectors/${conn.id}`, model_key: 'ir.connector', record_id: conn.id, view_type: 'form', action_id: expect.any(String) },
    });
  });

  it('a replayed state is refused (401 OAUTH_STATE_REPLAYED) and changes nothing', async () => {
    const s = await start();
    expect((await callback({ code: 'first', state: s.state })).status).toBe(200);
    const before = await rawParams(conn.id);
    const replay = await callback({ code: 'second', state: s.state });
    expectError(replay, 401, 'OAUTH_STATE_REPLAYED');
    expect(await rawParams(conn.id)).toEqual(before);
    expect(exchanges.some((e) => e.code === 'second')).toBe(false);
  });

  it('an expired state is refused (400 OAUTH_STATE_EXPIRED)', async () => {
    const s = await start();
    const db = await ts.kernel.tenants.get('default');
    await delegateOf(db, ts.kernel.registry.model('ir.connector')).update({
      where: { record_uuid: conn.id }, data: { oauth_state_expires_at: new Date(Date.now() - 1000) },
    });
    expectError(await callback({ code: 'late', state: s.state }), 400, 'OAUTH_STATE_EXPIRED');
    expect(exchanges.some((e) => e.code === 'late')).toBe(false);
  });

  it('forged, malformed, superseded or misrouted states are refused', async () => {
    const s = await start();
    const forged = `${conn.id}:default.${crypto.randomBytes(32).toString('base64url')}`;
    expectError(await callback({ code: 'x', state: forged }), 401, 'OAUTH_STATE_INVALID');
    expectError(await callback({ code: 'x', state: 'garbage' }), 400, 'OAUTH_STATE_MALFORMED');
    expectError(await callback({ code: 'x' }), 400, 'OAUTH_STATE_MALFORMED');
    expectError(await callback({ code: 'x', state: `${crypto.randomUUID()}:default.${crypto.randomBytes(32).toString('base64url')}` }), 401, 'OAUTH_STATE_INVALID');
    // a state naming a tenant that does not exist is just an unknown state (no 404 telling
    // tenants apart), and opens (and creates) no database
    const ghost = await callback({ code: 'x', state: `${conn.id}:ghost-tenant.${crypto.randomBytes(32).toString('base64url')}` });
    expectError(ghost, 401, 'OAUTH_STATE_INVALID');
    expect(await ts.kernel.tenants.exists('ghost-tenant')).toBe(false);
    // the right state on another provider's callback path
    expectError(await callback({ code: 'x', state: s.state }, 'webhook'), 401, 'OAUTH_STATE_INVALID');
    // a newer start supersedes the pending state
    const newer = await start();
    expectError(await callback({ code: 'x', state: s.state }), 401, 'OAUTH_STATE_INVALID');
    expect((await callback({ code: 'ok', state: newer.state })).body.success).toBe(true);
  });

  it('a refused authorization or a failing exchange consumes the state and records the error, with the action back and the message\'s id and values', async () => {
    const denied = await callback({ error: 'access_denied', error_description: 'user said no', state: (await start()).state });
    expect(denied.status).toBe(200);
    expect(denied.body).toEqual(expect.objectContaining({ success: false, status: 'error', action: expect.objectContaining({ type: 'navigate' }) }));
    expect(denied.body.message).toMatch(/access_denied/);
    expect(denied.body).toMatchObject({ message_id: 'connectors.oauth.refused_described', message_values: { error: 'access_denied', description: 'user said no' } });

    const s = await start();
    const bad = await callback({ code: 'bad-code', state: s.state });
    expect(bad.body).toEqual(expect.objectContaining({ success: false, status: 'error' }));
    expect(bad.body.message).toMatch(/invalid_grant/);
    expect(bad.body.message_id).toBe('connectors.oauth.exchange_failed');
    expect(bad.body.message_values.reason).toMatch(/invalid_grant/);
    expect((await ts.request('GET', `/api/connectors/${conn.id}`, { token: admin })).body.status).toBe('error');
    expectError(await callback({ code: 'bad-code', state: s.state }), 401, 'OAUTH_STATE_REPLAYED');
  });

  it('oauth_start needs an admin and a provider with an OAuth flow', async () => {
    const plain = await create({ name: 'No OAuth', category: 'messaging', provider_type: 'webhook' });
    expectError(await ts.request('POST', `/api/data/ir.connector/${plain.id}/oauth_start`, { token: admin, body: {} }), 409, 'CONNECTOR_NOT_SUPPORTED');
    expectError(await ts.request('POST', `/api/data/ir.connector/${conn.id}/oauth_start`, { token: user, body: {} }), 403);
  });
});
