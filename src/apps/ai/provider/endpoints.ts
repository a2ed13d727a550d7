import { BootError } from '../../../kernel/errors.js';
import type { Settings } from '../../../kernel/settings.js';
import { ProviderUrlNotAllowed } from '../errors.js';
import { aiSettings } from '../settings.js';

/**
 * Which endpoints a provider call may reach. An organization admin writes
 * `ai.provider.config.base_url`; without this policy they could point it at a host of their own
 * and receive the tenant's key (and every prompt) in clear. The operator decides instead, with
 * AI_PROVIDER_URL_ALLOWLIST: origins (scheme, host and port match exactly) or host patterns
 * (https on 443 only). The origin of AI_PROVIDER_A_BASE_URL, also the operator's, is always
 * allowed. An empty list adds loopback addresses outside production, for local models and tests.
 */
type Entry = { origin: string } | { host: string; wildcard: boolean };

const cache = new WeakMap<Settings, Entry[]>();

function parseEntry(raw: string): Entry {
  if (raw.includes('://')) {
    let u: URL;
    try { u = new URL(raw); } catch { throw new BootError(`AI_PROVIDER_URL_ALLOWLIST entry "${raw}" is not a URL origin`, undefined, 'AI_SETTINGS_INVALID'); }
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) {
      throw new BootError(`AI_PROVIDER_URL_ALLOWLIST entry "${raw}" must be an http(s) origin without a path, query or credentials`, undefined, 'AI_SETTINGS_INVALID');
    }
    return { origin: u.origin };
  }
  const host = raw.toLowerCase();
  const wildcard = host.startsWith('*.');
  const name = wildcard ? host.slice(2) : host;
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(name) || (wildcard && !name.includes('.'))) {
    throw new BootError(`AI_PROVIDER_URL_ALLOWLIST entry "${raw}" must be an origin or a host name, optionally starting with "*." (e.g. *.openai.azure.com)`, undefined, 'AI_SETTINGS_INVALID');
  }
  return { host: name, wildcard };
}

/** The parsed allow-list; a malformed entry stops the boot (called from checkAiSettings). */
export function allowList(settings: Settings): Entry[] {
  let v = cache.get(settings);
  if (!v) {
    v = aiSettings(settings).AI_PROVIDER_URL_ALLOWLIST.map(parseEntry);
    cache.set(settings, v);
  }
  return v;
}

const isLoopback = (hostname: string) => hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

/** Why `url` may not be called, or null when it may. */
export function endpointProblem(settings: Settings, url: string): string | null {
  let u: URL;
  try { u = new URL(url); } catch { return 'it is not a URL'; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'only http and https endpoints are called';
  // `https://api.openai.com@evil.example` is a URL of evil.example: credentials in a URL are refused
  if (u.username || u.password) return 'a provider URL may not carry credentials';
  const s = aiSettings(settings);
  const entries = allowList(settings);
  let defaultOrigin: string | null = null;
  try { defaultOrigin = new URL(s.AI_PROVIDER_A_BASE_URL).origin; } catch { /* no usable default: nothing implied */ }
  if (u.origin === defaultOrigin) return null;
  const host = u.hostname.toLowerCase();
  for (const e of entries) {
    if ('origin' in e) {
      if (e.origin === u.origin) return null;
    } else if (u.protocol === 'https:' && u.port === '' && (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host)) {
      return null;
    }
  }
  if (!entries.length && settings.NODE_ENV !== 'production' && isLoopback(host)) return null;
  return `${u.origin} is not in AI_PROVIDER_URL_ALLOWLIST`;
}

/** Refuses an endpoint outside the policy (AI_PROVIDER_URL_NOT_ALLOWED, 403); never names the key. */
export function checkEndpoint(settings: Settings, url: string, provider: string): void {
  const problem = endpointProblem(settings, url);
  if (problem) throw new ProviderUrlNotAllowed(`the AI provider endpoint is not allowed: ${problem}; the server's operator sets AI_PROVIDER_URL_ALLOWLIST`, { provider, url: safeOrigin(url) });
}

const safeOrigin = (url: string) => { try { return new URL(url).origin; } catch { return null; } };

/** A base URL as compared for key binding: parsed, without a trailing slash; empty = the server's default. */
export function normalizeBaseUrl(v: unknown): string {
  const raw = typeof v === 'string' ? v.trim() : '';
  if (!raw) return '';
  try { return new URL(raw).href.replace(/\/+$/, ''); } catch { return raw; }
}
