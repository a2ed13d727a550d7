import { defineSettings } from '../../kernel/settings.js';

/** The publicly known development key (once the default): refused unless ALLOW_PUBLIC_DEV_KEYS. */
export const PLACEHOLDER_JWT_KEY = 'fw-insecure-development-key-change-me';

export const authSettings = defineSettings('auth', {
  JWT_SECRET_KEY: { kind: 'string', default: '', generated: true, doc: 'HMAC signing key of access tokens (HS*), at least 32 bytes. Unset = a random key generated once into `<DATA_DIR>/secrets.json`. The public placeholder stops the boot (unless ALLOW_PUBLIC_DEV_KEYS). Several server processes must share one key.' },
  JWT_ALGORITHM: { kind: 'string', default: 'HS256', doc: 'Signing algorithm: HS256, HS384, HS512 (shared key), or RS256/ES256 with JWT_PRIVATE_KEY/JWT_PUBLIC_KEY (PEM).' },
  JWT_PRIVATE_KEY: { kind: 'string', default: '', doc: 'PKCS#8 PEM private key for RS256/ES256.' },
  JWT_PUBLIC_KEY: { kind: 'string', default: '', doc: 'SPKI PEM public key for RS256/ES256.' },
  JWT_ACCESS_TOKEN_EXPIRE_MINUTES: { kind: 'int', default: '30', doc: 'Access-token lifetime in minutes (`expires_in` = 60 × this).' },
  JWT_REFRESH_TOKEN_EXPIRE_DAYS: { kind: 'int', default: '7', doc: 'Refresh-token lifetime in days.' },
  AUTH_SESSION_CACHE_SECONDS: { kind: 'int', default: '30', doc: 'How long a verified session (and its user) is trusted without a database read; revocations take effect at once in this process and, with REDIS_URL, in every other of the deployment (`<REDIS_PREFIX>:_auth:forget`); without Redis other processes see them within this window.' },
  AUTH_REFRESH_RETRY_SECONDS: { kind: 'int', default: '60', doc: 'How long after a rotation the same refresh may be retried with the retry key it was sent with (its answer was lost, e.g. the page was unloaded): the unseen new token is superseded instead of the family being revoked as reuse. 0 turns retries off.' },
  AUTH_COOKIE_SECURE: { kind: 'string', default: 'auto', doc: 'The `Secure` attribute of the web client\'s refresh cookie (`X-Auth-Cookie` mode): `auto` = when the request came over https (X-Forwarded-Proto counts with TRUST_PROXY), `always`, or `never`. Any other value stops the boot.' },
  LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: { kind: 'int', default: '5', doc: 'Failed logins for one email (per tenant) from one client address before that email is refused from that address with 429 (the right password included) for LOGIN_BLOCK_SECONDS. Other addresses are not affected.' },
  LOGIN_FAILURE_WINDOW_SECONDS: { kind: 'int', default: '900', doc: 'Window in which failures are counted.' },
  LOGIN_BLOCK_SECONDS: { kind: 'int', default: '900', doc: 'How long an (email, address) pair stays refused once over its limit.' },
  LOGIN_SLOWDOWN_AFTER: { kind: 'int', default: '2', doc: 'Failures for one email (from any address) after which each further attempt on it is delayed (250 ms per failure, at most 3 s); never refused.' },
  LOGIN_IP_SLOWDOWN_AFTER: { kind: 'int', default: '20', doc: 'Failures from one client address (any email) after which each further attempt from it is delayed (250 ms per failure, at most 3 s); never refused, so people sharing the address still log in.' },
  AUTH_SESSION_MAX_DAYS: { kind: 'int', default: '30', doc: 'Absolute lifetime of a login in days, counted from the login that started it: refreshing cannot extend a session past it (refresh then answers 401 TOKEN_INVALID).' },
});
