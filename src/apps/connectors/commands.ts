import { canAccess } from '../../kernel/access.js';
import type { CommandDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { o } from '../../kernel/output.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { BadRequest } from '../../kernel/errors.js';
import {
  ConnectionFailedError,
  ConnectorConfigError,
  ConnectorError,
  ConnectorNotConnectedError,
  ConnectorNotSupportedError,
  OAuthStateError,
} from './errors.js';
import { providers } from './providers/registry.js';
import { CONNECTOR_CATEGORIES, type ConnectionTestResult, type ProviderContext } from './providers/types.js';
import { failure } from './providers/values.js';
import {
  assembleConfig,
  connectorModel,
  connectorRow,
  flattenConfig,
  isObject,
  paramRows,
  providerOf,
} from './services/config.js';
import { providerContextOf } from './providers/context.js';
import { hashNonce, newNonce, parseState, sameHash } from './services/oauth.js';
import { MASK } from './services/secrets.js';
import { connectorSettings } from './settings.js';

type Row = Record<string, unknown>;
/** GraphQL result types (src/kernel/output.ts); REST answers the handler's result unchanged. */
const ConnectorTypes = o.object('ConnectorTypes', {
  types: o.list(o.object('ConnectorType', {
    category: o.string(),
    provider_type: o.string(),
    display_name: o.string(),
    oauth: o.boolean(),
    config_schema: o.list(o.object('ConnectorConfigKey', { key: o.string(), label: o.string(), required: o.boolean(), secret: o.boolean() })),
  })),
}, { nullable: true });
const ConnectorTestResult = o.object('ConnectorTestResult', {
  success: o.boolean(),
  message: o.string({ nullable: true, description: 'What the test found, in English' }),
  message_id: o.string({ nullable: true, description: 'The id of the message (the connectors app\'s web messages translate it), when it is one of the app\'s own' }),
  message_values: o.json({ nullable: true, description: 'The values message_id\'s text names ({ status }, { host, port }, …)' }),
  status: o.string({ nullable: true, description: 'The connector status after the test (connected or error)' }),
  details: o.json({ nullable: true }),
}, { nullable: true });

const ConnectorWithParams = o.object('ConnectorWithParams', {
  connector: o.record('ir.connector', { from: (result) => result }),
  params: o.list(o.record('ir.connector.param'), { nullable: true, description: 'In sequence order, secrets masked; null for a role that may not read params' }),
}, { description: 'REST answers the connector\'s record with `params` beside its fields' });

const ConnectorConfigImported = o.object('ConnectorConfigImported', {
  success: o.boolean(),
  count: o.int({ description: 'How many params the configuration became' }),
  keys: o.list(o.string(), { description: 'Their dotted keys, in order' }),
});

const ConnectorConfig = o.object('ConnectorConfig', {
  success: o.boolean(),
  config: o.json({ description: 'The params assembled into one object (its shape is the provider\'s)' }),
});

const ConnectorOAuthStart = o.object('ConnectorOAuthStart', {
  state: o.string({ description: '{connector_uuid}:{nonce}, single use' }),
  expires_at: o.datetime(),
  redirect_uri: o.string({ description: 'Where the provider sends the browser back' }),
  authorize_url: o.string({ nullable: true, description: 'The provider\'s consent screen, when the provider builds one' }),
});

const ConnectorOAuthResult = o.object('ConnectorOAuthResult', {
  success: o.boolean(),
  connector_id: o.id(),
  status: o.string({ nullable: true, description: 'The connector status after the callback (connected or error)' }),
  message: o.string({ nullable: true }),
  message_id: o.string({ nullable: true }),
  message_values: o.json({ nullable: true }),
  stored_keys: o.list(o.string(), { description: 'The param keys the code exchange stored' }),
  action: o.object('ConnectorFormAction', {
    type: o.string({ description: 'Always "navigate"' }),
    target: o.string({ description: 'The web client path of the connector\'s form' }),
    model_key: o.string(),
    record_id: o.id(),
    view_type: o.string(),
    action_id: o.id({ nullable: true }),
  }, { description: 'Where the browser goes next: the connector\'s form' }),
});

const CONNECTOR = 'ir.connector';
const PARAM = 'ir.connector.param';
const MAX_IMPORT_PARAMS = 500;
const MAX_IMPORT_FILE_BYTES = 1024 * 1024;

export const providerContext = (env: Env, connector: Row): ProviderContext => providerContextOf(env.settings, env.tenant, String(connector.record_uuid));

/** Rejects with ConnectionFailedError when `p` takes longer than the configured test timeout. */
function withTimeout<T>(env: Env, p: Promise<T>, what: string): Promise<T> {
  const ms = connectorSettings(env.settings).CONNECTOR_TEST_TIMEOUT_MS;
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectionFailedError(`${what} timed out after ${ms} ms`, { timeout_ms: ms })), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Runs the provider's test with the assembled (decrypted) config; never throws for a failed test. */
async function providerTest(env: Env, row: Row): Promise<ConnectionTestResult> {
  try {
    const provider = providers.get(String(row.category), String(row.provider_type));
    const config = await assembleConfig(env.sudo(), row, { reveal: true });
    const instance = provider.from_config(config, providerContext(env, row));
    try {
      return await withTimeout(env, instance.test_connection(), 'the connection test');
    } finally {
      await Promise.resolve(instance.close?.()).catch(() => undefined);
    }
  } catch (err) {
    // a provider's configuration or refusal is said in the error's English; only the timeout is the app's own sentence
    const timedOut = err instanceof ConnectionFailedError && typeof err.details?.timeout_ms === 'number'
      ? { message_id: 'connectors.test.timed_out', message_values: { ms: err.details.timeout_ms } } : {};
    if (err instanceof ConnectorError) return { success: false, message: err.message, ...timedOut, details: { code: err.code, ...(err.details ?? {}) } };
    return failure(err);
  }
}

/** The message of a test or an OAuth callback: English, and its id and values when it is the app's own. */
type Said = Pick<ConnectionTestResult, 'message' | 'message_id' | 'message_values'>;

async function recordStatus(env: Env, id: string, success: boolean, said: Said): Promise<Row> {
  return env.sudo().dispatch<Row>('fw.update', {
    model: CONNECTOR,
    id,
    values: {
      status: success ? 'connected' : 'error', status_message: said.message.slice(0, 512),
      status_message_id: said.message_id ?? null, status_message_values: said.message_id ? said.message_values ?? {} : null,
      last_tested_at: new Date().toISOString(),
    },
  });
}

/** Where the browser goes after the OAuth callback: the connector's form. */
async function formAction(env: Env, id: string): Promise<Record<string, unknown>> {
  const action = await delegateOf(env.db, env.registry.model('ir.action'))
    .findUnique({ where: { xml_id: 'connectors.action_connectors' }, select: { record_uuid: true } });
  return {
    type: 'navigate',
    target: `/connectors/${id}`,
    model_key: CONNECTOR,
    record_id: id,
    view_type: 'form',
    action_id: action?.record_uuid ?? null,
  };
}

function decodeImportFile(p: Row): unknown {
  const raw = String(p.file_content).replace(/^data:[^,]*,/, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(raw)) throw new ConnectorConfigError('file_content must be base64', { field: 'file_content' });
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length > MAX_IMPORT_FILE_BYTES) throw new ConnectorConfigError(`the imported file is larger than ${MAX_IMPORT_FILE_BYTES} bytes`, { field: 'file_content' });
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch {
    const what = [p.file_name, p.file_mime].filter(Boolean).join(', ');
    throw new ConnectorConfigError(`the imported file${what ? ` (${what})` : ''} is not JSON`, { field: 'file_content' });
  }
}

/** Writes key/value pairs as text params: an existing key is updated in place, a new one appended. */
async function upsertParams(env: Env, connectorId: string, pairs: Array<[string, string]>): Promise<void> {
  const rows = await paramRows(env, connectorId);
  const byKey = new Map(rows.map((r) => [String(r.key), r]));
  let sequence = rows.reduce((m, r) => Math.max(m, Number(r.sequence) || 0), 0);
  for (const [key, value] of pairs) {
    const existing = byKey.get(key);
    if (existing) {
      await env.dispatch('fw.update', { model: PARAM, id: existing.record_uuid, values: { value, value_type: 'text', file_id: null } });
    } else {
      sequence += 10;
      await env.dispatch('fw.create', { model: PARAM, values: { connector_id: connectorId, key, value, value_type: 'text', sequence } });
    }
  }
}

export const commands: CommandDecl[] = [
  {
    name: 'ir.connector.read_with_params',
    op: 'read',
    record: true,
    mutates: false,
    returns: 'json',
    output: ConnectorWithParams,
    description: 'A connector with its params (secret values masked; params only for roles that may read them)',
    async handler(env, p) {
      const record = await env.dispatch<Row>('fw.read_one', { model: CONNECTOR, id: p.id });
      if (!canAccess(env.registry.model(PARAM), env.principal, 'read')) return record;
      const params = await env.dispatch<{ items: Row[] }>('fw.search', { model: PARAM, domain: [['connector_id', '=', record.id]], order: 'sequence asc' });
      return { ...record, params: params.items };
    },
  },
  {
    name: 'ir.connector.test_connection',
    op: 'update',
    record: true,
    // the provider talks to the network: no database transaction is held open meanwhile
    transaction: false,
    returns: 'json',
    output: ConnectorTestResult,
    description: 'Run the provider\'s connection test; status becomes connected or error',
    async handler(env, p) {
      const id = String(p.id).toLowerCase();
      const row = await connectorRow(env, id);
      const result = await providerTest(env, row);
      const connector = await recordStatus(env, id, result.success, result);
      const said = result.message_id ? { message_id: result.message_id, message_values: result.message_values ?? {} } : {};
      return { success: result.success, message: result.message, ...said, ...(result.details ? { details: result.details } : {}), status: connector.status, connector };
    },
  },
  {
    name: 'ir.connector.activate',
    op: 'update',
    record: true,
    returns: 'record',
    description: 'Enable the connector (its last connection test must have succeeded)',
    async handler(env, p) {
      const row = await connectorRow(env, String(p.id));
      if (row.status !== 'connected') throw new ConnectorNotConnectedError(String(row.record_uuid), String(row.status));
      return env.sudo().dispatch('fw.update', { model: CONNECTOR, id: row.record_uuid, values: { is_enabled: true } });
    },
  },
  {
    name: 'ir.connector.deactivate',
    op: 'update',
    record: true,
    returns: 'record',
    description: 'Disable the connector',
    handler: (env, p) => env.sudo().dispatch('fw.update', { model: CONNECTOR, id: p.id, values: { is_enabled: false } }),
  },
  {
    name: 'ir.connector.import_config',
    op: 'update',
    record: true,
    returns: 'json',
    output: ConnectorConfigImported,
    description: 'Replace the params with a JSON configuration (json_data, or a base64 JSON file), flattened to dotted keys',
    input: {
      json_data: f.json({ description: 'Configuration object' }),
      file_content: f.text({ description: 'Base64 JSON file (instead of json_data)' }),
      file_name: f.char(255),
      file_mime: f.char(255),
    },
    async handler(env, p) {
      const id = String(p.id).toLowerCase();
      const row = await connectorRow(env, id);
      let data: unknown;
      if (p.json_data !== undefined) data = p.json_data;
      else if (typeof p.file_content === 'string') data = decodeImportFile(p);
      else throw new BadRequest('send json_data (an object) or file_content (base64 JSON)', undefined, 'INVALID_PAYLOAD');
      if (!isObject(data)) throw new ConnectorConfigError('the imported configuration must be a JSON object');
      const provider = providerOf(row);
      if (provider?.normalize_import_json) {
        data = provider.normalize_import_json(data);
        if (!isObject(data)) throw new ConnectorConfigError(`${provider.display_name}: the normalised configuration is not an object`);
      }
      const pairs = flattenConfig(data as Row);
      if (pairs.length > MAX_IMPORT_PARAMS) throw new ConnectorConfigError(`at most ${MAX_IMPORT_PARAMS} keys may be imported`, { count: pairs.length });
      const existing = await paramRows(env, id);
      // a secret sent back as the mask (an edited export of get_config) keeps its stored value
      const kept = new Map(existing.filter((r) => r.secret_value).map((r) => [String(r.key), r.secret_value]));
      for (const r of existing) await env.dispatch('fw.delete', { model: PARAM, id: r.record_uuid });
      let sequence = 0;
      for (const [key, value] of pairs) {
        sequence += 10;
        const values = { connector_id: id, key, value, value_type: 'text', sequence };
        if (value === MASK && kept.has(key)) await env.sudo().dispatch('fw.create', { model: PARAM, values: { ...values, secret_value: kept.get(key) } });
        else await env.dispatch('fw.create', { model: PARAM, values });
      }
      return { success: true, count: pairs.length, keys: pairs.map(([k]) => k) };
    },
  },
  {
    name: 'ir.connector.get_config',
    op: 'read',
    record: true,
    roles: ['admin'],
    mutates: false,
    returns: 'json',
    output: ConnectorConfig,
    description: 'The configuration assembled from the params (secrets masked; in clear only for the server itself)',
    async handler(env, p) {
      const row = await connectorRow(env, String(p.id));
      return { success: true, config: await assembleConfig(env, row, { reveal: env.principal.kind === 'system' }) };
    },
  },
  {
    name: 'ir.connector.oauth_start',
    op: 'update',
    record: true,
    returns: 'json',
    output: ConnectorOAuthStart,
    description: 'Issue a single-use OAuth state ({connector_uuid}:{nonce}) for the provider\'s consent screen',
    async handler(env, p) {
      const id = String(p.id).toLowerCase();
      const row = await connectorRow(env, id);
      const provider = providers.get(String(row.category), String(row.provider_type));
      if (!provider.exchange_oauth_code) throw new ConnectorNotSupportedError(`${provider.display_name} has no OAuth flow`, { provider_type: provider.provider_type });
      const s = connectorSettings(env.settings);
      const nonce = newNonce(env.tenant);
      const expires_at = new Date(Date.now() + s.CONNECTOR_OAUTH_STATE_TTL_SECONDS * 1000).toISOString();
      await env.sudo().dispatch('fw.update', {
        model: CONNECTOR, id, values: { oauth_state_hash: hashNonce(nonce), oauth_state_expires_at: expires_at, oauth_state_used_at: null },
      });
      const state = `${id}:${nonce}`;
      const redirect_uri = `${s.CONNECTOR_OAUTH_REDIRECT_BASE_URL.replace(/\/$/, '')}/api/connectors/oauth/callback/${provider.provider_type}`;
      const out: Row = { state, expires_at, redirect_uri };
      if (provider.oauth_authorize_url) {
        out.authorize_url = provider.oauth_authorize_url(await assembleConfig(env.sudo(), row, { reveal: true }), { state, redirect_uri });
      }
      return out;
    },
  },
  {
    name: 'connectors.oauth_callback',
    // the browser comes back from the provider without a bearer token; the single-use state is the credential
    public: true,
    transaction: false,
    returns: 'json',
    output: ConnectorOAuthResult,
    description: 'OAuth redirect target: check the state, exchange the code, store the returned params, test the connection',
    // a state naming a tenant that does not exist is an unknown state, like any other
    async unknown_tenant() {
      throw new OAuthStateError('OAUTH_STATE_INVALID', 'the OAuth state is unknown', 401);
    },
    input: {
      provider_type: f.char(64, { required: true }),
      state: f.char(200, { required: true }),
      code: f.text(),
      error: f.char(200),
      error_description: f.text(),
    },
    async handler(env, p) {
      const sys = env.sudo();
      const parsed = parseState(p.state);
      const invalid = () => new OAuthStateError('OAUTH_STATE_INVALID', 'the OAuth state is unknown', 401);
      if (parsed.tenant !== env.tenant) throw invalid();
      if (!p.code && !p.error) throw new BadRequest('the callback needs a code (or an error from the provider)', undefined, 'INVALID_PAYLOAD');
      const model = connectorModel(sys);
      const row = await delegateOf(sys.db, model).findUnique({ where: { record_uuid: parsed.connector_id } });
      if (!row || row.provider_type !== p.provider_type || typeof row.oauth_state_hash !== 'string') throw invalid();
      const hash = hashNonce(parsed.nonce);
      if (!sameHash(hash, row.oauth_state_hash)) throw invalid();
      if (row.oauth_state_used_at) throw new OAuthStateError('OAUTH_STATE_REPLAYED', 'this OAuth state was already used', 401);
      if (!row.oauth_state_expires_at || new Date(row.oauth_state_expires_at as string).getTime() <= Date.now()) {
        throw new OAuthStateError('OAUTH_STATE_EXPIRED', 'the OAuth state has expired; start the authorization again', 400);
      }
      // consumed atomically: of two concurrent callbacks with the same state only one gets here
      const consumed = await delegateOf(sys.db, model).updateMany({
        where: { dbid: row.dbid, oauth_state_hash: hash, oauth_state_used_at: null },
        data: { oauth_state_used_at: new Date(), revision: { increment: 1 } },
      });
      if (consumed.count !== 1) throw new OAuthStateError('OAUTH_STATE_REPLAYED', 'this OAuth state was already used', 401);

      const id = String(row.record_uuid);
      const action = await formAction(sys, id);
      if (p.error) {
        const message = `authorization refused by the provider: ${String(p.error)}${p.error_description ? ` (${String(p.error_description)})` : ''}`;
        const said: Said = p.error_description
          ? { message, message_id: 'connectors.oauth.refused_described', message_values: { error: String(p.error), description: String(p.error_description) } }
          : { message, message_id: 'connectors.oauth.refused', message_values: { error: String(p.error) } };
        const connector = await recordStatus(sys, id, false, said);
        return { success: false, connector_id: id, status: connector.status, ...said, stored_keys: [], action };
      }
      let pairs: Array<[string, string]>;
      try {
        const provider = providers.get(String(row.category), String(row.provider_type));
        const config = await assembleConfig(sys, row, { reveal: true });
        const s = connectorSettings(env.settings);
        const redirect_uri = `${s.CONNECTOR_OAUTH_REDIRECT_BASE_URL.replace(/\/$/, '')}/api/connectors/oauth/callback/${provider.provider_type}`;
        const result = provider.exchange_oauth_code
          ? await withTimeout(env, provider.exchange_oauth_code(String(p.code), config, { ...providerContext(env, row), redirect_uri }), 'the OAuth code exchange')
          : {};
        if (!isObject(result)) throw new ConnectorConfigError('the OAuth code exchange must return a key/value object');
        pairs = flattenConfig(result);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        const said: Said = { message: `OAuth code exchange failed: ${reason}`.slice(0, 512), message_id: 'connectors.oauth.exchange_failed', message_values: { reason: reason.slice(0, 480) } };
        const connector = await recordStatus(sys, id, false, said);
        return { success: false, connector_id: id, status: connector.status, ...said, stored_keys: [], action };
      }
      await upsertParams(sys, id, pairs);
      const test = await sys.dispatch<{ success: boolean; message: string; message_id?: string; message_values?: Row; status: string }>('ir.connector.test_connection', { id });
      const said = test.message_id ? { message_id: test.message_id, message_values: test.message_values } : {};
      return { success: test.success, connector_id: id, status: test.status, message: test.message, ...said, stored_keys: pairs.map(([k]) => k), action };
    },
  },
  {
    name: 'connectors.list_types',
    mutates: false,
    returns: 'json',
    output: ConnectorTypes,
    description: 'Registered connector provider types (of one category)',
    input: { category: f.enum(CONNECTOR_CATEGORIES) },
    handler: async (_env, p) => ({ types: providers.describe(p.category as string | undefined) }),
  },
];
