/**
 * The recorder's state that outlives a page load, in sessionStorage (one recording per tab): the
 * recording's id, whether it is paused, the steps not yet sent, the last page seen. This module
 * is in the initial bundle (the header button reads it to reopen the bar after a reload); the
 * recorder itself (recorder.ts, RecorderBar.tsx) is loaded on demand.
 */
export const STORE_KEY = 'fw.qa.recorder';
/** `fw e2e record` prints `<start_path>?qa_recording=<uuid>`: the bar opens attached to it. */
export const URL_PARAM = 'qa_recording';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StoredStep {
  /** The sequence the server should give it (a step sent before a reload is not sent twice). */
  seq: number;
  step: Record<string, unknown>;
}
export interface Stored {
  id: string;
  paused?: boolean;
  /** Steps captured, not yet acknowledged by the server, in order. */
  queue?: StoredStep[];
  /** Steps stored on the server (its last sequence). */
  count?: number;
  lastStepId?: string | null;
  /** The page (path + query) last seen: a page load elsewhere is a `navigate` step. */
  lastPath?: string | null;
  /** The recording's status as last seen (the header's dot is red while it is live). */
  status?: 'live' | 'finalised' | 'promoted';
}

const watchers = new Set<() => void>();
/** Calls `fn` whenever this tab's stored recorder state changes. */
export function subscribeStored(fn: () => void): () => void {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

export function readStored(): Stored | null {
  try {
    const raw = sessionStorage.getItem(STORE_KEY);
    const v = raw ? (JSON.parse(raw) as Stored) : null;
    return v && typeof v.id === 'string' && UUID.test(v.id) ? v : null;
  } catch {
    return null;
  }
}

export function writeStored(v: Stored | null): void {
  try {
    if (v) sessionStorage.setItem(STORE_KEY, JSON.stringify(v));
    else sessionStorage.removeItem(STORE_KEY);
  } catch { /* storage full or disabled: the recording goes on in memory */ }
  watchers.forEach((w) => w());
}

/** Whether this tab records now (a live recording, as last seen). */
export const isLive = (): boolean => readStored()?.status === 'live';

/** The id in `?qa_recording=`, also inside the login page's `redirect` (a signed-out visit). */
function idInUrl(href: string): string | null {
  try {
    const url = new URL(href, location.origin);
    const direct = url.searchParams.get(URL_PARAM);
    if (direct && UUID.test(direct)) return direct;
    const redirect = url.searchParams.get('redirect');
    return redirect && redirect !== href ? idInUrl(redirect) : null;
  } catch {
    return null;
  }
}

/** Attaches this tab to the recording named in the URL (a new id replaces the stored state). */
export function attachFromUrl(): string | null {
  const id = idInUrl(location.href);
  if (id && readStored()?.id !== id) writeStored({ id });
  return id;
}

export const activeRecordingId = (): string | null => readStored()?.id ?? null;

/** The page as a step names it: path and query, without the recorder's own parameter. */
export function pagePath(href = location.href): string {
  const url = new URL(href, location.origin);
  url.searchParams.delete(URL_PARAM);
  const q = url.searchParams.toString();
  return `${url.pathname}${q ? `?${q}` : ''}`;
}

// at load, before the router may rewrite the URL
attachFromUrl();
