import type { CommandDecl, HookDecl } from '../../kernel/app.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import { systemPrincipal, type Principal } from '../../kernel/env.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import { decryptSecret, encryptSecret, MASK } from '../connectors/services/secrets.js';
import { ProviderKeyRequired, ProviderNotAllowed, ProviderNotConfigured, ResidencyRefused } from './errors.js';
import { checkEndpoint, normalizeBaseUrl } from './provider/endpoints.js';
import { createOpenAiCompatibleProvider, type AiProvider } from './provider/index.js';
import { priceOf, type Price } from './prices.js';
import { aiSettings } from './settings.js';

type Rec = Record<string, unknown>;

/** The provider a call will use, with the price its usage is charged at. */
export interface ResolvedProvider { id: string; model: string; price: Price; client: AiProvider }

/**
 * What `ai.resolve_provider` returns to the caller's process: the provider row and routing rule
 * as data (the key decrypted). Clients are built from it and cached by the values they use.
 */
interface ProviderChoice { id: string; model: string; baseURL: string; apiKey: string; price: Price }

export const resolveProviderCommand: CommandDecl = {
  name: 'ai.resolve_provider',
  internal: true,
  mutates: false,
  roles: ['system'],
  returns: 'json',
  description: 'Provider, model, endpoint and key of one call (routing rules, residency, keys)',
  handler: async (env, p): Promise<ProviderChoice> => {
    const s = aiSettings(env.settings);
    const rules = await delegateOf(env.db, env.registry.model('ai.provider.routing')).findMany({ where: { is_active: true }, orderBy: [{ sequence: 'asc' }, { dbid: 'asc' }] });
    const rule = rules.find((r) => (!r.skill_pack_id || r.skill_pack_id === p.skill_pack_id) && (!r.role || r.role === p.role));
    const id = String(rule?.provider ?? s.AI_DEFAULT_PROVIDER);
    if (!s.AI_ALLOWED_PROVIDERS.includes(id)) {
      throw new ProviderNotAllowed(`the AI provider ${id} is not in AI_ALLOWED_PROVIDERS`, { provider: id, rule: rule?.name ?? null });
    }
    if (s.AI_DATA_RESIDENCY_STRICT && !s.AI_DATA_RESIDENCY_ALLOWED_PROVIDERS.includes(id)) {
      throw new ResidencyRefused(`data residency: the AI provider ${id} is not in AI_DATA_RESIDENCY_ALLOWED_PROVIDERS`, { provider: id });
    }
    const cfg = await delegateOf(env.db, env.registry.model('ai.provider.config')).findUnique({ where: { provider: id } }) as Rec | null;
    if (cfg && cfg.is_active === false) throw new ProviderNotConfigured(`the AI provider ${id} is switched off in this tenant`, { provider: id });
    const isA = id === 'provider_a';
    const configured = normalizeBaseUrl(cfg?.base_url);
    let apiKey = '';
    if (cfg?.api_key_secret) {
      const stored = unbindKey(decryptSecret(env.settings, String(cfg.api_key_secret)));
      // a key goes only to the endpoint it was entered for, whoever changed base_url since
      if (stored.url !== null && stored.url !== configured) throw keyRequired(id);
      apiKey = stored.key;
    } else if (s.AI_BYO_KEY_REQUIRED) {
      throw new ProviderNotConfigured(`this tenant has no key for the AI provider ${id}; an admin stores one in ai.provider.config (AI_BYO_KEY_REQUIRED)`, { provider: id });
    } else if (isA) {
      // the operator's server-wide key goes to the operator's endpoint only, never to a tenant's
      if (configured && configured !== normalizeBaseUrl(s.AI_PROVIDER_A_BASE_URL)) throw keyRequired(id);
      apiKey = s.AI_PROVIDER_A_API_KEY;
    }
    const baseURL = String(cfg?.base_url || (isA ? s.AI_PROVIDER_A_BASE_URL : ''));
    if (!baseURL) throw new ProviderNotConfigured(`the AI provider ${id} has no endpoint (ai.provider.config.base_url)`, { provider: id });
    // again before every call: a row written before the allow-list changed is held to it too
    checkEndpoint(env.settings, baseURL, id);
    const model = String(rule?.model || cfg?.model || s.AI_PROVIDER_A_MODEL);
    const price = priceOf(model, cfg ? { input: cfg.input_usd_per_mtok as number | null, output: cfg.output_usd_per_mtok as number | null, version: `config:${id}@${String(cfg.revision)}` } : undefined);
    return { id, model, baseURL, apiKey, price };
  },
};

const clients = new Map<string, AiProvider>();

/** Routing, allow-list, residency and key of one call; refused with a clear error when any fails. */
export async function resolveProvider(kernel: KernelHandle, principal: Principal, skillPackId: string | null): Promise<ResolvedProvider> {
  const c = await kernel.dispatch<ProviderChoice>('ai.resolve_provider', { skill_pack_id: skillPackId, role: principal.role }, systemPrincipal(principal.tenant_id));
  const s = aiSettings(kernel.settings);
  const cacheKey = JSON.stringify([c.id, c.baseURL, c.apiKey, c.model, s.AI_PROVIDER_TIMEOUT_MS, s.AI_PROVIDER_MAX_RETRIES]);
  let client = clients.get(cacheKey);
  if (!client) {
    if (clients.size > 200) clients.clear();
    client = createOpenAiCompatibleProvider({ id: c.id, baseURL: c.baseURL, apiKey: c.apiKey, model: c.model, timeoutMs: s.AI_PROVIDER_TIMEOUT_MS, maxRetries: s.AI_PROVIDER_MAX_RETRIES });
    clients.set(cacheKey, client);
  }
  return { id: c.id, model: c.model, price: c.price, client };
}

const keyRequired = (provider: string) => new ProviderKeyRequired(
  `the endpoint of the AI provider ${provider} changed after its key was stored: an admin enters the key again with the new base_url; a stored key is never sent to another endpoint`,
  { provider },
);

/**
 * The encrypted plaintext binds the key to the `base_url` it was entered with (normalized; empty
 * = the server's default), so the binding cannot be edited without the encryption key. Secrets
 * stored before the binding existed are plain keys (`url: null`), held to the allow-list only.
 */
const BOUND = 'fw.ai.key.v1';
function bindKey(url: string, key: string): string {
  return JSON.stringify({ [BOUND]: true, url, key });
}
function unbindKey(plain: string): { url: string | null; key: string } {
  if (plain.startsWith('{')) {
    try {
      const v = JSON.parse(plain) as Rec;
      if (v[BOUND] === true && typeof v.url === 'string' && typeof v.key === 'string') return { url: v.url, key: v.key };
    } catch { /* not a bound key */ }
  }
  return { url: null, key: plain };
}

type Settings = Parameters<typeof encryptSecret>[0];

/**
 * Keys are write-only: a clear `api_key` is encrypted, bound to the config's `base_url`, into the
 * private `api_key_secret` and replaced by the mask; writing the mask back keeps the stored key.
 * A written `base_url` must pass the endpoint policy, and changing it while a key is stored
 * needs the key again in the same write (AI_PROVIDER_KEY_REQUIRED): the stored key never
 * follows the endpoint to a host the person who entered it did not choose.
 */
const protectKey = ({ env, payload, before }: { env: { settings: Settings }; payload: Rec; before?: Rec }) => {
  const provider = String(payload.provider ?? before?.provider ?? '');
  if ('base_url' in payload && normalizeBaseUrl(payload.base_url)) checkEndpoint(env.settings, String(payload.base_url).trim(), provider);
  const url = normalizeBaseUrl('base_url' in payload ? payload.base_url : before?.base_url);
  const v = payload.api_key;
  if (!('api_key' in payload) || v === MASK) {
    delete payload.api_key;
    // `before` has no private fields: a stored key shows as the mask in `api_key`
    if (before?.api_key && url !== normalizeBaseUrl(before.base_url)) throw keyRequired(provider);
    return;
  }
  if (v === null || v === '') { payload.api_key = null; payload.api_key_secret = null; return; }
  payload.api_key_secret = encryptSecret(env.settings, bindKey(url, String(v)));
  payload.api_key = MASK;
};

export const providerConfigHooks: HookDecl[] = [
  { point: 'pre.ai.provider.config.create', handler: (ctx) => protectKey(ctx) },
  { point: 'pre.ai.provider.config.update', handler: (ctx) => protectKey(ctx) },
];
