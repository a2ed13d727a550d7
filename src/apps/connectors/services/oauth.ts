import crypto from 'node:crypto';
import { checkTenantKey } from '../../../kernel/db/tenants.js';
import { OAuthStateError } from '../errors.js';

/**
 * OAuth `state` = `{connector_uuid}:{nonce}`. The nonce is `<tenant>.<32 random bytes,
 * base64url>`: the browser comes back without a bearer token or X-Tenant header, so the nonce
 * names the tenant database (like refresh tokens do); only its SHA-256 is stored, on the
 * connector, with an expiry, and it is consumed on first use.
 */
const STATE_RE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([a-z0-9-]{1,63})\.([A-Za-z0-9_-]{43})$/;

export function newNonce(tenant: string): string {
  return `${tenant}.${crypto.randomBytes(32).toString('base64url')}`;
}

export const hashNonce = (nonce: string): string => crypto.createHash('sha256').update(nonce, 'utf8').digest('hex');

export interface ParsedState { connector_id: string; nonce: string; tenant: string }

export function parseState(state: unknown): ParsedState {
  const m = typeof state === 'string' ? STATE_RE.exec(state) : null;
  if (!m) throw new OAuthStateError('OAUTH_STATE_MALFORMED', 'the OAuth state is malformed', 400);
  let tenant: string;
  try {
    tenant = checkTenantKey(m[2]);
  } catch {
    throw new OAuthStateError('OAUTH_STATE_MALFORMED', 'the OAuth state is malformed', 400);
  }
  return { connector_id: m[1], nonce: `${m[2]}.${m[3]}`, tenant };
}

/** Tenant named by a state, for the public callback route (before any database is opened). */
export const tenantOfState = (state: unknown): string => parseState(state).tenant;

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && crypto.timingSafeEqual(x, y);
}
