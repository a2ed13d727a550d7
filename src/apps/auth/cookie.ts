/**
 * The web client's refresh token, in a cookie no page script can read.
 *
 * A client opts in per request with the header `X-Auth-Cookie: 1` on `POST /api/auth/login`,
 * `/refresh` and `/logout` (a custom header: a page of another site cannot send it without a
 * CORS preflight, which fails). Then the refresh token travels only in the `fw_refresh` cookie:
 * HttpOnly, SameSite=Strict, Path=/api/auth (it reaches no other route), Secure per
 * AUTH_COOKIE_SECURE, Max-Age the refresh-token lifetime; the JSON body carries the access token
 * and no `refresh_token`. Without the header the routes keep the contract's JSON exchange.
 *
 * The cookie also holds the retry key of the token it carries (`<token>~<key>`, a random key
 * drawn when the token is issued): a refresh whose answer is lost leaves the old cookie in the
 * browser, and the next refresh sends the same token with the same key, which the server
 * answers as a retry of that rotation (AUTH_REFRESH_RETRY_SECONDS) instead of reuse. Before,
 * the client kept that key in IndexedDB, readable by any script of the page.
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const REFRESH_COOKIE = 'fw_refresh';
export const REFRESH_COOKIE_PATH = '/api/auth';
export const COOKIE_MODE_HEADER = 'x-auth-cookie';

/** Whether the request opted into cookie mode (`X-Auth-Cookie: 1` or `true`). */
export function wantsCookie(req: FastifyRequest): boolean {
  const v = String(req.headers[COOKIE_MODE_HEADER] ?? '').trim().toLowerCase();
  return v === '1' || v === 'true';
}

export type CookieSecure = 'auto' | 'always' | 'never';

/** `auto`: Secure when the request came over https (`X-Forwarded-Proto` counts with TRUST_PROXY). */
function secure(req: FastifyRequest, mode: CookieSecure): boolean {
  return mode === 'always' || (mode === 'auto' && req.protocol === 'https');
}

function cookie(req: FastifyRequest, value: string, maxAgeSeconds: number, mode: CookieSecure): string {
  return [`${REFRESH_COOKIE}=${value}`, `Path=${REFRESH_COOKIE_PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(secure(req, mode) ? ['Secure'] : [])].join('; ');
}

/** Sets the cookie for a newly issued refresh token, with a fresh retry key for its rotation. */
export function setRefreshCookie(req: FastifyRequest, reply: FastifyReply, refreshToken: string, maxAgeSeconds: number, mode: CookieSecure): void {
  const key = crypto.randomBytes(24).toString('base64url');
  void reply.header('set-cookie', cookie(req, `${refreshToken}~${key}`, maxAgeSeconds, mode));
}

export function clearRefreshCookie(req: FastifyRequest, reply: FastifyReply, mode: CookieSecure): void {
  void reply.header('set-cookie', cookie(req, '', 0, mode));
}

/** The refresh token and retry key of the request's cookie, or null when it has none. */
export function readRefreshCookie(req: FastifyRequest): { token: string; retryKey: string | undefined } | null {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== REFRESH_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (!value) return null;
    const tilde = value.indexOf('~');
    return tilde < 0 ? { token: value, retryKey: undefined } : { token: value.slice(0, tilde), retryKey: value.slice(tilde + 1) || undefined };
  }
  return null;
}
