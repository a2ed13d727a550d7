/**
 * The session in the browser, with nothing secret in storage a page script can read.
 *
 * - The refresh token (and the retry key of its rotation) lives in the `fw_refresh` cookie the
 *   server sets: HttpOnly, SameSite=Strict, sent only to /api/auth. The client asks for it with
 *   `X-Auth-Cookie: 1` on login, refresh and logout, and never sees the token.
 * - The access token lives in this module's memory, per tab. A tab that has none (a new tab, a
 *   reload) gets one with a cookie refresh; without a live cookie it is signed out.
 * - Tabs of one browser share the login through the cookie, and talk on the `fw.session`
 *   BroadcastChannel: a tab that refreshed posts its new access token (the others adopt it
 *   instead of rotating again), and a logout or a refused refresh posts `ended`, which signs
 *   every tab out.
 * - A refresh token is single-use (the server revokes the whole login when one is replayed), so
 *   refreshes are serialised across tabs with the `fw.refresh` Web Lock: the cookie a tab sends
 *   is always the one the previous refresh set. A tab that waited for the lock while another
 *   rotated takes that tab's access token (announced by a marker in IndexedDB, an id and a time,
 *   nothing secret) instead of rotating again. A refresh whose answer is lost (the page was
 *   unloaded after the server rotated) leaves the old cookie, token and retry key together, and
 *   the next refresh repeats it, which the server answers as a retry, not reuse.
 */
import { createStore, get, set } from 'idb-keyval';

export interface Tokens {
  access_token: string;
  /** epoch ms when the access token expires */
  expires_at: number;
  /** a random id of the login or refresh that issued it (not a secret: it names, it does not grant) */
  rotation: string;
}

/** Why a session ended: the person signed out (in some tab), or the server refused it. */
export type EndReason = 'signed_out' | 'refused';
type Msg = { t: 'session'; tokens: Tokens } | { t: 'ended'; reason?: EndReason };

let current: Tokens | null = null;
/** When this tab got its current token (or was loaded, before it had one). */
let since = Date.now();
const listeners = new Set<(t: Tokens | null, reason?: EndReason) => void>();
const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('fw.session');
/** Tokens other tabs posted, by rotation id, and who waits for one. */
const posted = new Map<string, Tokens>();
const waiting = new Map<string, (t: Tokens) => void>();

function adopt(t: Tokens): void {
  if (current && t.expires_at <= current.expires_at) return;
  current = t;
  since = Date.now();
}

channel?.addEventListener('message', (e: MessageEvent<Msg>) => {
  const msg = e.data;
  if (msg.t === 'session') {
    // another tab refreshed or logged in: its access token is as good as a new one of our own
    const had = current;
    adopt(msg.tokens);
    // signed in again elsewhere after this tab's session ended (a page kept open): it goes on
    if (!had && current) for (const l of listeners) l(current);
    posted.clear();
    posted.set(msg.tokens.rotation, msg.tokens);
    waiting.get(msg.tokens.rotation)?.(msg.tokens);
  } else if (msg.t === 'ended') {
    current = null;
    for (const l of listeners) l(null, msg.reason ?? 'refused');
  }
});

/** This tab's access token, if it has one (it may have expired: see `refreshOnce`). */
export function readTokens(): Tokens | null {
  return current;
}

/** Sets this tab's tokens and tells the other tabs (null: the session ended in every tab, for `reason`). */
export function writeTokens(t: Tokens | null, reason: EndReason = 'refused'): void {
  current = t;
  since = Date.now();
  channel?.postMessage((t ? { t: 'session', tokens: t } : { t: 'ended', reason }) satisfies Msg);
  for (const l of listeners) l(t, t ? undefined : reason);
}

export function onTokens(listener: (t: Tokens | null, reason?: EndReason) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const tokensFrom = (r: { access_token: string; expires_in: number }): Tokens => ({
  access_token: r.access_token,
  expires_at: Date.now() + r.expires_in * 1000,
  rotation: crypto.randomUUID(),
});

/**
 * The browser's last rotation (its id and time, nothing secret), in IndexedDB: its transactions
 * are consistent across tabs, where a BroadcastChannel message may still be on its way when the
 * lock passes to the next tab.
 */
interface Rotation { id: string; at: number }
let idb: ReturnType<typeof createStore> | null = null;
const store = () => (idb ??= createStore('fw', 'session'));
const lastRotation = (): Promise<Rotation | undefined> => get<Rotation>('rotation', store()).catch(() => undefined);
const recordRotation = (t: Tokens): Promise<void> => set('rotation', { id: t.rotation, at: Date.now() } satisfies Rotation, store()).catch(() => {});

/** The token another tab posted for rotation `id`, or null after `ms`. */
function postedToken(id: string, ms: number): Promise<Tokens | null> {
  const t = posted.get(id);
  if (t) return Promise.resolve(t);
  return new Promise((resolve) => {
    const timer = setTimeout(() => { waiting.delete(id); resolve(null); }, ms);
    waiting.set(id, (tokens) => { clearTimeout(timer); waiting.delete(id); resolve(tokens); });
  });
}

/** Headers of every call to /api/auth: cookie mode, JSON. */
const AUTH_HEADERS = { 'content-type': 'application/json', accept: 'application/json', 'x-auth-cookie': '1' };

export class AuthCallError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** POST /api/auth/<path> in cookie mode; a network failure rejects with status 0. */
export async function authCall<T>(path: 'login' | 'refresh' | 'logout', body: unknown, accessToken?: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/auth/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { ...AUTH_HEADERS, ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
      body: JSON.stringify(body ?? {}),
    });
  } catch (err) {
    throw new AuthCallError(0, 'NETWORK_ERROR', String(err));
  }
  const json = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } } & T;
  if (!res.ok) throw new AuthCallError(res.status, json.error?.code ?? `HTTP_${res.status}`, json.error?.message ?? res.statusText);
  return json;
}

let inFlight: Promise<Tokens | null> | null = null;

/**
 * A fresh access token for this tab, refreshed once for everybody: concurrent callers in this
 * tab share one promise, other tabs wait on the `fw.refresh` lock. `stale` is the access token
 * the caller found wanting (null: the tab has none yet); if another tab refreshed meanwhile its
 * token is taken instead of rotating again. Resolves null when the cookie is refused (the
 * session is over); rejects when the server cannot be reached (the session is kept).
 */
export function refreshOnce(stale: string | null, earlyMs: number): Promise<Tokens | null> {
  inFlight ??= withLock('fw.refresh', async () => {
    const fresh = (t: Tokens | null): t is Tokens => !!t && t.access_token !== stale && t.expires_at - Date.now() > earlyMs;
    // another tab rotated since this one got its token: it posted the new token before it
    // released the lock, and the message may still be on its way
    const last = await lastRotation();
    if (last && last.at > since && last.id !== current?.rotation) {
      const theirs = await postedToken(last.id, 1000);
      if (fresh(theirs)) adopt(theirs);
    }
    if (fresh(current)) return current;
    try {
      const next = tokensFrom(await authCall<{ access_token: string; expires_in: number }>('refresh', {}));
      await recordRotation(next);
      writeTokens(next);
      return next;
    } catch (err) {
      if (err instanceof AuthCallError && (err.status === 0 || err.status >= 500)) throw err;
      // refused: the login is over here and in every tab (a tab without a session just stays signed out)
      if (current || stale) writeTokens(null);
      return null;
    }
  }).finally(() => { inFlight = null; });
  return inFlight;
}

function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  // Web Locks exist in secure contexts (https, localhost); elsewhere a tab only dedupes itself
  return navigator.locks ? navigator.locks.request(name, fn) : fn();
}
