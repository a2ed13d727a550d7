import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The browser-facing headers of every response (helmet's, set by an `onRequest` hook, so API
 * answers, static files, the SPA shell, 404s and errors all carry them). They do not depend on
 * the request, so helmet computes them once at boot and the hook copies them: run per request
 * (as @fastify/helmet does), helmet rebuilt the same policy for every answer, about 2 % of the
 * CPU of an uncached GraphQL list (docs/performance.md).
 *
 * The policy fits the built web client: scripts and styles come from its own files under
 * /assets/ (no inline script: the theme snippet is /theme.js), images may be `data:` (the
 * favicon, QA screenshots) or `blob:` (authorised images and downloads fetched with the token),
 * and the only connections are to this origin (POST /graphql, graphql-ws and SSE; CSP Level 3
 * matches ws:/wss: of the same host with 'self'). Styles come from the built CSS files; the styles
 * React sets on elements (the virtualised lists, React Aria's positioning) go through the CSSOM,
 * which CSP does not restrict, so no 'unsafe-inline' is needed. Nothing may frame a page of this origin (`frame-ancestors 'none'`, and X-Frame-Options for
 * browsers without CSP 2).
 */
/**
 * The one `<style>` element the client creates at run time: React Aria's
 * `<style id="react-aria-pressable-style">` (touch-action on pressable elements), allowed by its
 * hash instead of allowing every inline style element. A React Aria upgrade that changes it shows
 * up as a violation in tests/web/auth.test.ts ("no Content-Security-Policy violation"), which
 * prints the new hash.
 */
const REACT_ARIA_PRESSABLE_STYLE = "'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='";

export const CSP_DIRECTIVES: Readonly<Record<string, string[]>> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", REACT_ARIA_PRESSABLE_STYLE],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'media-src': ["'self'", 'blob:'],
  'worker-src': ["'self'"],
  'object-src': ["'none'"],
  // the documents screen previews a PDF in a frame from a blob: URL it made of the bytes it
  // fetched with the token (typed application/pdf, so only the browser's PDF viewer runs there);
  // no page of this or another origin can be framed
  'frame-src': ['blob:'],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
};

export const cspHeader = (directives: Readonly<Record<string, string[]>>): string =>
  Object.entries(directives).map(([k, v]) => `${k} ${v.join(' ')}`).join('; ');

const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { ...CSP_DIRECTIVES } },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  // cross-origin API clients (CORS_ORIGINS) read responses with CORS; CORP only limits no-cors loads
  crossOriginResourcePolicy: { policy: 'same-origin' },
};

/** The headers helmet sets with these options, as a name → value map (on a response to no request). */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let failed: unknown = null;
  helmet(options)(req, res, (err?: unknown) => { failed = err ?? null; });
  if (failed) throw failed;
  return Object.fromEntries(Object.entries(res.getHeaders()).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
}

export async function installSecurityHeaders(server: FastifyInstance): Promise<void> {
  const headers = helmetHeaders(HELMET_OPTIONS);
  server.addHook('onRequest', async (_req, reply) => {
    reply.headers(headers);
  });
}

/**
 * A response that needs another policy than the default (the GraphiQL page): replaces the
 * Content-Security-Policy header the hook set.
 */
export function replaceCsp(reply: FastifyReply, directives: Readonly<Record<string, string[]>>): FastifyReply {
  return reply.header('content-security-policy', cspHeader(directives));
}

/**
 * The essential headers for an answer given before any hook runs (a URL Fastify cannot even
 * route, `frameworkErrors`): the same policy, set by hand.
 */
export function setBaselineHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', cspHeader(CSP_DIRECTIVES)).header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer');
}
