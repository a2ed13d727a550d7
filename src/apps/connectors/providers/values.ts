import { ConnectorConfigError } from '../errors.js';
import type { ConnectionTestResult, ConnectorConfig, ConnectorProvider } from './types.js';

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

/**
 * Network failures as people say them: Node's fetch reports only "fetch failed" and puts the
 * reason (ECONNREFUSED, "bad port", a certificate error…) in `cause`, which used to reach the
 * connector form as "fetch failed: bad port".
 */
export const NETWORK_REASONS: Array<[RegExp, string, string]> = [
  [/bad port/i, 'blocked_port', 'this port is blocked for web requests (fetch refuses ports such as 9, 25 and 6000); use another port'],
  [/ECONNREFUSED/, 'refused', 'nothing answers at that address (connection refused)'],
  [/ENOTFOUND|EAI_AGAIN/, 'unknown_host', 'the host name could not be found'],
  [/ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|timed? ?out/i, 'timeout', 'the server did not answer in time'],
  [/ECONNRESET|EPIPE|other side closed|socket hang up/i, 'closed', 'the server closed the connection'],
  [/CERT|certificate|self[- ]signed|SSL|TLS/i, 'certificate', "the server's certificate is not trusted"],
  [/EHOSTUNREACH|ENETUNREACH/, 'unreachable', 'the network cannot reach that host'],
];

/**
 * A failure of any kind as a connection test result (never throws). A network reason people
 * recognise has its message id (`connectors.test.network.<reason>`); the driver's own words
 * (anything else) have none and are shown as they are.
 */
export function failure(err: unknown, fallback = 'connection failed'): ConnectionTestResult & { success: false } {
  const e = err as { message?: string; code?: string; responseCode?: number; cause?: { message?: string; code?: string } };
  const cause = e?.cause?.message || e?.cause?.code;
  const raw = `${e?.message || fallback}${cause && !e?.message?.includes(cause) ? `: ${cause}` : ''}`;
  const reason = NETWORK_REASONS.find(([re]) => re.test(`${raw} ${e?.code ?? ''} ${e?.cause?.code ?? ''}`));
  const message = (reason ? `could not connect: ${reason[2]}` : raw).slice(0, 500);
  const details: Record<string, unknown> = {};
  if (typeof e?.code === 'string') details.code = e.code;
  else if (typeof e?.cause?.code === 'string') details.code = e.cause.code;
  if (typeof e?.responseCode === 'number') details.response_code = e.responseCode;
  // the driver's own words stay available to an administrator
  if (reason) details.cause = raw.slice(0, 500);
  return {
    success: false, message,
    ...(reason ? { message_id: `connectors.test.network.${reason[1]}` } : {}),
    ...(Object.keys(details).length ? { details } : {}),
  };
}
