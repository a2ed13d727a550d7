/**
 * Cross-site request forgery on /graphql. A page of another site can make the browser send a
 * "simple" request without asking the server first (no CORS preflight): a POST whose body is a
 * form (`application/x-www-form-urlencoded`, `multipart/form-data`) or `text/plain`, with no
 * custom header. yoga parses form and multipart bodies as GraphQL (multipart is the upload
 * protocol), so such a request would run. A POST with one of those content types (or none) must
 * carry one of the headers below, which no page can add without a preflight that CORS then
 * refuses (CORS_ORIGINS). JSON bodies (`application/json`, the contract's format) need no
 * header: their content type already forces a preflight.
 *
 * The rule is Apollo Server's `csrfPrevention` and @graphql-yoga/plugin-csrf-prevention's: either
 * client's header is accepted. GET is not checked: over GET yoga runs queries only (never a
 * mutation), and /graphql has no ambient credential (no cookie reaches it; the token is a bearer
 * header a page of another site cannot set), so a forged GET reads nothing private.
 */
import type { FastifyRequest } from 'fastify';
import { CsrfRefused } from '../../kernel/errors.js';

/** Headers that mark a request as sent by a client that could have been preflighted. */
export const CSRF_HEADERS: readonly string[] = ['x-graphql-csrf', 'x-graphql-yoga-csrf', 'apollo-require-preflight'];

/** Content types a cross-origin page can send without a preflight (the Fetch standard's list). */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

export function checkCsrf(req: FastifyRequest): void {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type && !SIMPLE_TYPES.has(type)) return;
  if (CSRF_HEADERS.some((h) => String(req.headers[h] ?? '').trim() !== '')) return;
  throw new CsrfRefused(`a ${type || 'body without a content type'} request to /graphql must carry the header ${CSRF_HEADERS[0]} (any value)`, { headers: [...CSRF_HEADERS] });
}
