import type { Client } from 'graphql-ws';
import { accessToken } from '../api/client.ts';
import { currentOrganization, organizationParams } from '../api/organization.ts';
import { changedDocument, type ModelInfo } from '../model/records.ts';

/**
 * One live connection per browser, shared by all its tabs: the tabs elect a leader with a Web
 * Lock; only the leader opens the graphql-ws connection (the `clientReload` subscription and one
 * `<model>Changed` subscription per model some tab watches) and relays every message to all
 * tabs on a BroadcastChannel. When the leader tab closes its lock passes to another tab, which
 * asks the others what they watch and subscribes again.
 */
export interface Change { model: string; op: 'create' | 'update' | 'delete'; id: string }
export interface ReloadMessage { event_id?: string; name?: string; payload?: { reason?: string; new_slug?: string; org_id?: string } }
type Msg =
  | { t: 'watch'; model: ModelInfo }
  | { t: 'hello' }
  | { t: 'change'; change: Change }
  | { t: 'reload'; reload: ReloadMessage }
  /** the live connection (re)connected: changes made while there was none are unknown */
  | { t: 'resync' }
  /** the leader's connection went down or came back (`status?` asks the leader to say) */
  | { t: 'status'; up: boolean }
  | { t: 'status?' }
  /** a tab asks the leader to reconnect now instead of at its next retry */
  | { t: 'reconnect' };

// tabs of one organization share a socket and elect its leader on a channel of that organization
// (a tab in another organization needs its own scope); chosen by startLive, once the shell knows
// the organization even when the URL does not name it yet (`/` before the redirect)
let channel: BroadcastChannel | null = null;
const changeListeners = new Map<string, Set<(c: Change) => void>>();
const reloadListeners = new Set<(r: ReloadMessage) => void>();
const resyncListeners = new Set<() => void>();
const statusListeners = new Set<(up: boolean) => void>();
/** Whether the live connection is up, as far as this tab knows (true until told otherwise). */
let up = true;
const watched = new Map<string, ModelInfo>();
let leader: { client: Client; subscribed: Set<string> } | null = null;
let started = false;
/** The fw dev server this tab's connection last reached (none outside fw dev). */
let devInstance: string | null = null;

function deliver(msg: Msg) {
  if (msg.t === 'change') for (const l of changeListeners.get(msg.change.model) ?? []) l(msg.change);
  if (msg.t === 'reload') for (const l of reloadListeners) l(msg.reload);
  if (msg.t === 'resync') for (const l of resyncListeners) l();
  if (msg.t === 'status' && msg.up !== up) {
    up = msg.up;
    for (const l of statusListeners) l(up);
  }
}

/** The leader relays to the other tabs and to itself (a channel does not echo to its sender). */
function relay(msg: Msg) {
  channel?.postMessage(msg);
  deliver(msg);
}

function onMessage(msg: Msg) {
  if (msg.t === 'watch' && leader) subscribeModel(msg.model);
  else if (msg.t === 'status?') { if (leader) channel?.postMessage({ t: 'status', up } satisfies Msg); }
  else if (msg.t === 'reconnect') { if (leader) reconnectLeader(); }
  else if (msg.t === 'hello') for (const m of watched.values()) channel?.postMessage({ t: 'watch', model: m } satisfies Msg);
  else deliver(msg);
}

function subscribeModel(m: ModelInfo) {
  if (!leader || leader.subscribed.has(m.key)) return;
  leader.subscribed.add(m.key);
  leader.client.subscribe<{ change: { op: Change['op']; id: string } }>({ query: changedDocument(m) }, {
    next: (r) => r.data && relay({ t: 'change', change: { model: m.key, op: r.data.change.op, id: r.data.change.id } }),
    error: () => leader?.subscribed.delete(m.key),
    complete: () => leader?.subscribed.delete(m.key),
  });
}

async function becomeLeader(): Promise<void> {
  const { createClient } = await import('graphql-ws');
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const client = createClient({
    url,
    lazy: false,
    onNonLazyError: () => {}, // a closed socket (page unload, server restart) is retried, not an error to show
    retryAttempts: Infinity,
    shouldRetry: () => true,
    // the token is checked at connect: every (re)connect takes a fresh one
    connectionParams: async () => ({ authorization: `Bearer ${await accessToken()}`, ...organizationParams() }),
    // a lost connection is retried within seconds, not after graphql-ws's growing back-off
    retryWait: (retries) => new Promise((r) => setTimeout(r, Math.min(500 * 2 ** retries, 5000))),
    on: {
      // messages are not durable: after a (re)connect or a leader change, every tab refetches
      connected: (_socket, payload) => {
        relay({ t: 'status', up: true });
        // under fw dev the server names itself: another name means it was replaced after a
        // change of views or code, which only a page load picks up
        const instance = (payload as { fw_dev_instance?: unknown } | undefined)?.fw_dev_instance;
        if (typeof instance === 'string') {
          if (devInstance && devInstance !== instance) relay({ t: 'reload', reload: { name: 'web.client.reload', payload: { reason: 'fw_dev_restart' } } });
          devInstance = instance;
        }
        relay({ t: 'resync' });
      },
      // every tab shows that live updates stopped, instead of a page that only looks live
      closed: () => relay({ t: 'status', up: false }),
    },
  });
  leader = { client, subscribed: new Set() };
  client.subscribe<{ clientReload: ReloadMessage }>({ query: 'subscription Reload { clientReload }' }, {
    next: (r) => r.data && relay({ t: 'reload', reload: r.data.clientReload }),
    error: () => {},
    complete: () => {},
  });
  for (const m of watched.values()) subscribeModel(m);
  channel?.postMessage({ t: 'hello' } satisfies Msg);
  document.documentElement.dataset.liveLeader = 'true';
}

/** Drops the leader's socket so graphql-ws connects again at once (its retry follows). */
function reconnectLeader(): void {
  leader?.client.terminate();
}

/** Joins the election once per tab (the lock is held until the tab closes). */
export function startLive(organization: string): void {
  if (started) return;
  started = true;
  const scope = currentOrganization() ?? organization;
  channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(`fw.live.${scope}`);
  channel?.addEventListener('message', (e: MessageEvent<Msg>) => onMessage(e.data));
  channel?.postMessage({ t: 'status?' } satisfies Msg);
  if (navigator.locks) {
    void navigator.locks.request(`fw.live.leader.${scope}`, () => becomeLeader().then(() => new Promise<never>(() => {})));
  } else {
    void becomeLeader(); // no Web Locks (insecure context): every tab connects itself
  }
}

/** Calls `listener` for every create, update and delete of the model (from any tab's connection). */
export function watchModel(m: ModelInfo, listener: (c: Change) => void): () => void {
  let set = changeListeners.get(m.key);
  if (!set) changeListeners.set(m.key, (set = new Set()));
  set.add(listener);
  if (!watched.has(m.key)) {
    watched.set(m.key, m);
    if (leader) subscribeModel(m);
    else channel?.postMessage({ t: 'watch', model: m } satisfies Msg);
  }
  return () => set!.delete(listener);
}

/** Called when the live connection (re)connects, so what changed without it is fetched again. */
export function onResync(listener: () => void): () => void {
  resyncListeners.add(listener);
  return () => resyncListeners.delete(listener);
}

export function onReload(listener: (r: ReloadMessage) => void): () => void {
  reloadListeners.add(listener);
  return () => reloadListeners.delete(listener);
}

/** Called with `false` when the live connection goes down and `true` when it is back. */
export function onLiveStatus(listener: (up: boolean) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}

export const liveIsUp = (): boolean => up;

/** Reconnects now (the leader tab does it, whichever tab asks). */
export function reconnectLive(): void {
  if (leader) reconnectLeader();
  else channel?.postMessage({ t: 'reconnect' } satisfies Msg);
}
