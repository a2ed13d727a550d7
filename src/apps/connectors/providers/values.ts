import { ConnectorConfigError } from '../errors.js';
import type { ConnectorConfig, ConnectorProvider } from './types.js';

/** A config value by dotted key, as text; empty text and missing values are undefined. */
export function configText(config: ConnectorConfig, key: string): string | undefined {
  let v: unknown = config;
  for (const part of key.split('.')) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  if (v === undefined || v === null) return undefined;
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s.trim() === '' ? undefined : s.trim();
}

/** Required keys of the provider's config schema must be present: else ConnectorConfigError naming them. */
export function requireConfig(provider: ConnectorProvider, config: ConnectorConfig): void {
  const missing = (provider.config_schema ?? []).filter((e) => e.required && configText(config, e.key) === undefined).map((e) => e.key);
  if (missing.length) {
    throw new ConnectorConfigError(`${provider.display_name}: missing required config ${missing.join(', ')}`, { missing, provider_type: provider.provider_type });
  }
}

export function configBool(config: ConnectorConfig, key: string, fallback: boolean): boolean {
  const v = configText(config, key);
  if (v === undefined) return fallback;
  if (/^(true|1|yes|on)$/i.test(v)) return true;
  if (/^(false|0|no|off)$/i.test(v)) return false;
  throw new ConnectorConfigError(`config ${key} must be true or false, got ${JSON.stringify(v)}`, { key });
}

export function configInt(config: ConnectorConfig, key: string, fallback: number, min = 0, max = 2 ** 31 - 1): number {
  const v = configText(config, key);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConnectorConfigError(`config ${key} must be an integer between ${min} and ${max}, got ${JSON.stringify(v)}`, { key });
  return n;
}

/** An http(s) URL, or ConnectorConfigError. */
export function configUrl(config: ConnectorConfig, key: string): string | undefined {
  const v = configText(config, key);
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConnectorConfigError(`config ${key} must be a URL, got ${JSON.stringify(v)}`, { key });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConnectorConfigError(`config ${key} must be an http(s) URL`, { key });
  return v;
}

/** A failure of any kind as a connection test result (never throws). */
export function failure(err: unknown, fallback = 'connection failed'): { success: false; message: string; details?: Record<string, unknown> } {
  const e = err as { message?: string; code?: string; responseCode?: number; cause?: { message?: string; code?: string } };
  // fetch reports "fetch failed" and puts the reason (ECONNREFUSED …) in `cause`
  const cause = e?.cause?.message || e?.cause?.code;
  const message = `${e?.message || fallback}${cause && !e?.message?.includes(cause) ? `: ${cause}` : ''}`.slice(0, 500);
  const details: Record<string, unknown> = {};
  if (typeof e?.code === 'string') details.code = e.code;
  else if (typeof e?.cause?.code === 'string') details.code = e.cause.code;
  if (typeof e?.responseCode === 'number') details.response_code = e.responseCode;
  return Object.keys(details).length ? { success: false, message, details } : { success: false, message };
}
