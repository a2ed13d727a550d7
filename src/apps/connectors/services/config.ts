import { delegateOf } from '../../../kernel/data/delegate.js';
import type { Env } from '../../../kernel/env.js';
import { NotFound } from '../../../kernel/errors.js';
import { ConnectorConfigError } from '../errors.js';
import { providers } from '../providers/registry.js';
import type { ConnectorConfig, ConnectorProvider } from '../providers/types.js';
import { decryptSecret, encryptSecret, isCiphertext, MASK } from './secrets.js';

type Row = Record<string, unknown>;

export const connectorModel = (env: Env) => env.registry.model('ir.connector');
export const paramModel = (env: Env) => env.registry.model('ir.connector.param');

/** The stored connector row (private fields included), or 404. Callers have done the access check. */
export async function connectorRow(env: Env, id: string): Promise<Row> {
  const row = await delegateOf(env.db, connectorModel(env)).findUnique({ where: { record_uuid: id.toLowerCase() } });
  if (!row) throw new NotFound(`ir.connector ${id} not found`, { model: 'ir.connector', id }, 'RECORD_NOT_FOUND');
  return row;
}

/** Params of a connector as stored (secret_value included), by sequence then creation. */
export function paramRows(env: Env, connectorId: string): Promise<Row[]> {
  return delegateOf(env.db, paramModel(env)).findMany({
    where: { connector_id: connectorId },
    orderBy: [{ sequence: 'asc' }, { dbid: 'asc' }],
  });
}

// ---- secrets -------------------------------------------------------------------------------

/**
 * A key is secret when the provider's config_schema has a `secret` entry equal to it or to its
 * last dotted segment (`secret_access_key` also covers an imported `s3.secret_access_key`).
 */
export function isSecretKey(provider: ConnectorProvider | undefined, key: string): boolean {
  if (!provider?.config_schema) return false;
  const last = key.slice(key.lastIndexOf('.') + 1);
  return provider.config_schema.some((e) => e.secret && (e.key === key || e.key === last));
}

export const providerOf = (row: Row): ConnectorProvider | undefined =>
  providers.find(String(row.category), String(row.provider_type));

/** The legacy `config` JSON with secret leaves replaced by ciphertext (already encrypted ones kept). */
export function encryptLegacyConfig(env: Env, provider: ConnectorProvider | undefined, config: unknown): unknown {
  if (!isObject(config)) return config;
  const walk = (o: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (isObject(v)) out[k] = walk(v, key);
      else if (v !== null && v !== undefined && v !== '' && v !== MASK && !isCiphertext(v) && isSecretKey(provider, key)) {
        out[k] = encryptSecret(env.settings, typeof v === 'string' ? v : JSON.stringify(v));
      } else out[k] = v;
    }
    return out;
  };
  return walk(config, '');
}

function revealLegacy(env: Env, config: unknown, reveal: boolean): unknown {
  if (isCiphertext(config)) return reveal ? decryptSecret(env.settings, config) : MASK;
  if (Array.isArray(config)) return config.map((v) => revealLegacy(env, v, reveal));
  if (isObject(config)) return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, revealLegacy(env, v, reveal)]));
  return config;
}

/**
 * The legacy `config` JSON as generic reads show it (the `post.ir.connector.read` hook): every
 * encrypted leaf, and every non-empty leaf under a key the provider's config_schema marks
 * secret (stored before secrets were encrypted), reads as the mask, as the config route shows
 * them. A new object: the record's own value is not changed in place.
 */
export function maskLegacyConfig(provider: ConnectorProvider | undefined, config: unknown, prefix = ''): unknown {
  if (isCiphertext(config)) return MASK;
  if (Array.isArray(config)) return config.map((v) => maskLegacyConfig(provider, v, prefix));
  if (isObject(config)) {
    return Object.fromEntries(Object.entries(config).map(([k, v]) => {
      const key = prefix ? `${prefix}.${k}` : k;
      if (!isObject(v) && v !== null && v !== undefined && v !== '' && isSecretKey(provider, key)) return [k, MASK];
      return [k, maskLegacyConfig(provider, v, key)];
    }));
  }
  return config;
}

/**
 * A legacy config written back with masked leaves (a client saving what it read) keeps the
 * stored value of each: the mask never replaces a secret.
 */
export function keepMaskedLeaves(config: unknown, stored: unknown): unknown {
  if (config === MASK) return stored === undefined ? MASK : stored;
  if (isObject(config)) {
    const old = isObject(stored) ? stored : {};
    return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, keepMaskedLeaves(v, old[k])]));
  }
  return config;
}

// ---- flatten / un-flatten ------------------------------------------------------------------

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_KEY = 255;

/** A leaf as param text: strings as they are, numbers and booleans as text, lists as JSON, null as ''. */
export const leafText = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * `{ a: { b: 1 }, c: 'x' }` → `[['a.b', '1'], ['c', 'x']]`, depth first in object order. Every
 * leaf becomes text (params hold text); empty objects contribute nothing.
 */
export function flattenConfig(obj: Record<string, unknown>, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  for (const [k, v] of Object.entries(obj)) {
    // keys may already be dotted (`{"installed.client_id": …}`); empty and reserved segments are refused
    if (k.split('.').some((part) => !part || UNSAFE.has(part))) {
      throw new ConnectorConfigError(`config key ${JSON.stringify(k)} cannot be stored (empty or reserved segment)`, { key: prefix ? `${prefix}.${k}` : k });
    }
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObject(v)) flattenConfig(v, key, out);
    else {
      if (key.length > MAX_KEY) throw new ConnectorConfigError(`config key ${key.slice(0, 40)}… is longer than ${MAX_KEY} characters`, { key });
      out.push([key, leafText(v)]);
    }
  }
  return out;
}

/** The reverse: dotted keys become nested objects; a later pair wins over an earlier conflicting one. */
export function unflattenConfig(pairs: Array<[string, unknown]>): ConnectorConfig {
  const root: Record<string, unknown> = {};
  for (const [key, value] of pairs) {
    const parts = key.split('.');
    if (parts.some((p) => !p || UNSAFE.has(p))) continue;
    let node = root;
    for (const p of parts.slice(0, -1)) {
      if (!isObject(node[p])) node[p] = {};
      node = node[p] as Record<string, unknown>;
    }
    node[parts.at(-1)!] = value;
  }
  return root;
}

// ---- assembly ------------------------------------------------------------------------------

/**
 * The spec's config assembly: params by sequence; text params give their value, file params the
 * referenced storage.document read as UTF-8 (through storage's `storage.document.read_text`);
 * dotted keys un-flattened. No params at all: the legacy `config` field. Secrets are decrypted
 * only with `reveal` (the server's own use); otherwise they read as the mask.
 */
export async function assembleConfig(env: Env, connector: Row, opts: { reveal: boolean }): Promise<ConnectorConfig> {
  const rows = await paramRows(env, String(connector.record_uuid));
  if (!rows.length) {
    const legacy = revealLegacy(env, connector.config ?? {}, opts.reveal);
    return isObject(legacy) ? legacy : {};
  }
  const provider = providerOf(connector);
  const pairs: Array<[string, unknown]> = [];
  for (const r of rows) {
    const key = String(r.key);
    const secret = r.secret_value !== null && r.secret_value !== undefined ? String(r.secret_value) : null;
    if (!opts.reveal && (secret || isSecretKey(provider, key))) {
      pairs.push([key, MASK]);
    } else if (r.value_type === 'file') {
      if (!r.file_id) continue;
      const { text } = await env.sudo().dispatch<{ text: string }>('storage.document.read_text', { id: r.file_id });
      pairs.push([key, text]);
    } else if (secret) {
      pairs.push([key, decryptSecret(env.settings, secret)]);
    } else {
      pairs.push([key, r.value ?? '']);
    }
  }
  return unflattenConfig(pairs);
}

