import type { HookDecl } from '../../kernel/app.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { ValidationError } from '../../kernel/errors.js';
import { providers } from './providers/registry.js';
import {
  connectorModel,
  encryptLegacyConfig,
  isObject,
  isSecretKey,
  keepMaskedLeaves,
  maskLegacyConfig,
  paramModel,
  providerOf,
} from './services/config.js';
import { encryptSecret, MASK } from './services/secrets.js';

type Row = Record<string, unknown>;

function checkProvider(category: unknown, provider_type: unknown): void {
  if (typeof category !== 'string' || typeof provider_type !== 'string') return; // the required-field check reports it
  // a value of the body, not a resource the URL names: 422 on the field, like any bad value
  if (!providers.isRegistered(category, provider_type)) {
    throw new ValidationError(`no ${category} connector provider "${provider_type}" is registered`, { field: 'provider_type', category, provider_type }, 'UNKNOWN_PROVIDER_TYPE');
  }
}

/**
 * At most one default per (category, organization_id): every other default of the scope is
 * cleared through fw.update (so revisions, hooks and change notifications apply to it too).
 */
async function clearDefault(env: Env, category: unknown, organization: unknown, except: string | null): Promise<void> {
  const rows = await delegateOf(env.db, connectorModel(env)).findMany({
    where: {
      category,
      organization_id: organization ?? null,
      is_default: true,
      ...(except ? { NOT: { record_uuid: except } } : {}),
    },
    select: { record_uuid: true },
  });
  for (const r of rows) {
    await env.sudo().dispatch('fw.update', { model: 'ir.connector', id: r.record_uuid, values: { is_default: false } });
  }
}

/**
 * Secret params: the clear value goes to the private `secret_value` (encrypted) and `value`
 * keeps only the mask. Sending the mask back (a form that round-trips what it read) leaves the
 * secret unchanged. Renaming a secret param to a non-secret key keeps it encrypted (renaming
 * must not be a way to read a secret); writing a new value under a non-secret key stores it in
 * clear and drops the old ciphertext.
 */
async function protectSecret(env: Env, payload: Row, before: Row | null): Promise<void> {
  const connectorId = (payload.connector_id ?? before?.connector_id) as string | undefined;
  const connector = connectorId
    ? await delegateOf(env.db, connectorModel(env)).findUnique({ where: { record_uuid: String(connectorId).toLowerCase() }, select: { category: true, provider_type: true } })
    : null;
  const key = String(payload.key ?? before?.key ?? '');
  const secret = connector ? isSecretKey(providerOf(connector), key) : false;
  let hasValue = 'value' in payload;
  if (hasValue && payload.value === MASK) {
    delete payload.value;
    hasValue = false;
    // trusted code carrying an existing ciphertext (import_config keeping a secret sent back masked)
    if (payload.secret_value) payload.value = MASK;
  }
  if (secret) {
    if (hasValue) {
      const v = payload.value;
      if (v === null || v === undefined || v === '') {
        payload.secret_value = null;
      } else {
        payload.secret_value = encryptSecret(env.settings, String(v));
        payload.value = MASK;
      }
    } else if (before && !before.secret_value && typeof before.value === 'string' && before.value !== '' && before.value !== MASK) {
      // renamed onto a secret key: encrypt what was stored in clear
      payload.secret_value = encryptSecret(env.settings, before.value);
      payload.value = MASK;
    }
  } else if (hasValue && before?.secret_value) {
    payload.secret_value = null;
  }
}

const paramRow = (env: Env, id: unknown) =>
  delegateOf(env.db, paramModel(env)).findUnique({ where: { record_uuid: String(id).toLowerCase() } });

export const hooks: HookDecl[] = [
  {
    point: 'pre.ir.connector.create',
    async handler({ env, payload }) {
      checkProvider(payload.category, payload.provider_type);
      if (payload.organization_id === undefined && env.principal.organization_id) payload.organization_id = env.principal.organization_id;
      if ('config' in payload) {
        payload.config = encryptLegacyConfig(env, providers.find(String(payload.category), String(payload.provider_type)), payload.config);
      }
      if (payload.is_default === true) await clearDefault(env, payload.category, payload.organization_id, null);
    },
  },
  {
    // the provider's config_schema pre-populates the params, unless a legacy config was given
    point: 'post.ir.connector.create',
    async handler({ env, after }) {
      if (!after) return;
      const provider = providerOf(after);
      if (!provider?.config_schema?.length || (isObject(after.config) && Object.keys(after.config).length)) return;
      let sequence = 0;
      for (const e of provider.config_schema) {
        sequence += 10;
        await env.sudo().dispatch('fw.create', { model: 'ir.connector.param', values: { connector_id: after.id, key: e.key, value_type: 'text', sequence } });
      }
    },
  },
  {
    point: 'pre.ir.connector.update',
    async handler({ env, payload, before }) {
      const merged = { ...before, ...payload };
      if ('category' in payload || 'provider_type' in payload) checkProvider(merged.category, merged.provider_type);
      if ('config' in payload) payload.config = encryptLegacyConfig(env, providerOf(merged), keepMaskedLeaves(payload.config, before?.config));
      const scopeTouched = payload.is_default === true || 'category' in payload || 'organization_id' in payload;
      if (merged.is_default === true && scopeTouched) await clearDefault(env, merged.category, merged.organization_id, String(before!.id));
    },
  },
  {
    // the legacy config never shows a secret, to anyone, on any read path
    point: 'post.ir.connector.read',
    async handler({ env, after }) {
      if (!after || after.config === undefined || after.config === null) return;
      const kind = after.category !== undefined && after.provider_type !== undefined ? after
        : await delegateOf(env.db, connectorModel(env)).findUnique({ where: { record_uuid: String(after.id).toLowerCase() }, select: { category: true, provider_type: true } });
      after.config = maskLegacyConfig(kind ? providerOf(kind) : undefined, after.config);
    },
  },
  {
    point: 'pre.ir.connector.param.create',
    handler: ({ env, payload }) => protectSecret(env, payload, null),
  },
  {
    point: 'pre.ir.connector.param.update',
    async handler({ env, payload, before }) {
      await protectSecret(env, payload, before ? await paramRow(env, before.id) : null);
    },
  },
];
