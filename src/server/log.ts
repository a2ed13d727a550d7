import type { FastifyServerOptions } from 'fastify';
import type { Writable } from 'node:stream';
import type { Settings } from '../kernel/settings.js';

/**
 * Query parameters whose value is a credential: an EventSource cannot send headers, so the event
 * stream takes its access token as `?access_token=`; the OAuth callback carries the provider's
 * `code` and the single-use `state`; signed links and clients put tokens and keys in URLs too.
 * Matched on the decoded name, case-insensitively.
 */
const SECRET_PARAMS = /^(access_token|refresh_token|id_token|token|code|state|password|secret|client_secret|api_key|apikey|key|signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token|auth|authorization|jwt)$/i;

export const REDACTED = '[REDACTED]';

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/**
 * The URL as the log shows it: every credential parameter's value replaced by `[REDACTED]`,
 * everything else as it was sent (so a log line still shows which request it was).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    return eq >= 0 && SECRET_PARAMS.test(decode(name)) ? `${name}=${REDACTED}` : part;
  }).join('&');
  return `${url.slice(0, q)}?${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}

/**
 * Fastify's logger with its request serializer (the `req` of "incoming request" lines) showing
 * the redacted URL; the other fields are Fastify's defaults. `stream` (tests) receives the JSON
 * lines instead of stdout.
 */
export function loggerOptions(settings: Settings, stream?: Writable): FastifyServerOptions['logger'] {
  if (settings.LOG_LEVEL === 'silent') return false;
  return {
    level: settings.LOG_LEVEL,
    ...(stream ? { stream } : {}),
    serializers: {
      req: (req) => ({
        method: req.method,
        url: redactUrl(req.url),
        version: [req.headers['accept-version']].flat()[0],
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
