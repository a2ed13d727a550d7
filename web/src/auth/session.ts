import { createStore, get, set } from 'idb-keyval';

/**
 * The session's tokens live in localStorage so every tab of the browser shares one login; a
 * `storage` event tells the other tabs about a refresh or a logout. A refresh token is single-use
 * (the server revokes the whole family when one is replayed), so refreshes are serialised across
 * tabs with the Web Locks API, and each rotation is also written to IndexedDB before the lock is
 * released: localStorage reaches other tabs' renderers asynchronously, so a tab that waited could
 * still read the rotated-away token there, while IndexedDB transactions are consistent across tabs.
 *
 * A refresh can also be lost: the page that sent it is unloaded (a navigation, a reload) after the
 * server rotated the token, and no tab ever sees the answer. So a random retry key is stored in
 * IndexedDB before the refresh is sent, and sent with it; whoever takes the lock next and still
 * holds the same token sends the same key again, which the server answers as a retry of that
 * rotation (AUTH_REFRESH_RETRY_SECONDS) instead of revoking the session as reuse.
 */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  /** epoch ms when the access token expires */
  expires_at: number;
}

const KEY = 'fw.session';
const listeners = new Set<(t: Tokens | null) => void>();

export function readTokens(): Tokens | null {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Tokens) : null;
  } catch {
    return null;
  }
}

export function writeTokens(t: Tokens | null): void {
  if (t) localStorage.setItem(KEY, JSON.stringify(t));
  else localStorage.removeItem(KEY);
  for (const l of listeners) l(t);
}

let listening = false;
export function onTokens(listener: (t: Tokens | null) => void): () => void {
  if (!listening) {
    listening = true;
    window.addEventListener('storage', (e) => {
      if (e.key === KEY) for (const l of listeners) l(readTokens());
    });
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const tokensFrom = (r: { access_token: string; refresh_token: string; expires_in: number }): Tokens => ({
  access_token: r.access_token,
  refresh_token: r.refresh_token,
  expires_at: Date.now() + r.expires_in * 1000,
});

let inFlight: Promise<Tokens | null> | null = null;

/** The last rotation: refresh token `from` was exchanged for `to` (null: refused, the session ended). */
interface Rotation { from: string; to: Tokens | null }
/** A refresh of `from` about to be sent (or sent, its answer unknown) with retry key `key`. */
interface Pending { from: string; key: string }
let idb: ReturnType<typeof createStore> | null = null;
const rotations = () => (idb ??= createStore('fw', 'session'));
const lastRotation = (): Promise<Rotation | undefined> => get<Rotation>('rotation', rotations()).catch(() => undefined);
const recordRotation = (r: Rotation): Promise<void> => set('rotation', r, rotations()).catch(() => {});
const lastPending = (): Promise<Pending | undefined> => get<Pending>('pending', rotations()).catch(() => undefined);

/** The retry key for refreshing `from`: the one a lost attempt used, or a new one, stored first. */
async function retryKeyFor(from: string): Promise<string> {
  const pending = await lastPending();
  if (pending?.from === from) return pending.key;
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const key = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  // stored before the request leaves, or a lost answer could not be asked for again
  await set('pending', { from, key } satisfies Pending, rotations()).catch(() => {});
  return key;
}

/**
 * Rotates the refresh token once for everybody: concurrent callers in this tab share one
 * promise, and other tabs wait on the `fw.refresh` lock. `rotate` performs the network call.
 */
export function refreshOnce(stale: string, rotate: (refreshToken: string, retryKey: string) => Promise<Tokens | null>): Promise<Tokens | null> {
  inFlight ??= withLock('fw.refresh', async () => {
    // another tab may have rotated `stale` while this one waited for the lock
    const done = await lastRotation();
    if (done?.from === stale) {
      if (JSON.stringify(readTokens()) !== JSON.stringify(done.to)) writeTokens(done.to);
      return done.to;
    }
    const current = readTokens();
    if (!current) return null;
    if (current.refresh_token !== stale) return current;
    const next = await rotate(current.refresh_token, await retryKeyFor(current.refresh_token));
    await recordRotation({ from: current.refresh_token, to: next });
    writeTokens(next);
    return next;
  }).finally(() => { inFlight = null; });
  return inFlight;
}

function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  // Web Locks exist in secure contexts (https, localhost); elsewhere a tab only dedupes itself
  return navigator.locks ? navigator.locks.request(name, fn) : fn();
}
