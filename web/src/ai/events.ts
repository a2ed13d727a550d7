import type { Client } from 'graphql-ws';
import { accessToken } from '../api/client.ts';
import { organizationParams } from '../api/organization.ts';
import { EventsDocument, type AiEvent } from './api.ts';

/**
 * The assistant's own graphql-ws connection, for `aiConversationEvents` only. The live hub
 * (live/hub.ts) relays a fixed set of messages (clientReload, `<model>Changed`) from the leader
 * tab over a BroadcastChannel and has no way to carry an arbitrary subscription for one tab,
 * and a turn's events matter only to the tab that shows it. So this socket is lazy: it opens
 * with the first conversation watched (the panel is open, or a turn runs) and closes a few
 * seconds after the last one is let go. Events are a preview: the turn's mutation result is
 * what the thread keeps, so a dropped socket only costs the live typing.
 */
let client: Promise<Client> | null = null;
let connected = false;
const waiters = new Set<() => void>();

function getClient(): Promise<Client> {
  client ??= import('graphql-ws').then(({ createClient }) => createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    lazy: true,
    lazyCloseTimeout: 5_000,
    retryAttempts: 5,
    // the token is checked at connect: every (re)connect takes a fresh one
    connectionParams: async () => ({ authorization: `Bearer ${await accessToken()}`, ...organizationParams() }),
    on: {
      connected: () => { connected = true; waiters.forEach((w) => w()); waiters.clear(); },
      closed: () => { connected = false; },
    },
  }));
  return client;
}

/** Streams a conversation's events to `onEvent` until the returned function is called. */
export function subscribeConversation(id: string, onEvent: (e: AiEvent) => void): () => void {
  let stop: (() => void) | null = null;
  let cancelled = false;
  void getClient().then((c) => {
    if (cancelled) return;
    stop = c.subscribe<{ aiConversationEvents: AiEvent }>({ query: String(EventsDocument), variables: { id } }, {
      next: (r) => { if (r.data) onEvent(r.data.aiConversationEvents); },
      error: () => {}, // a preview only: the turn's result still arrives through its mutation
      complete: () => {},
    });
  }, () => {});
  return () => { cancelled = true; stop?.(); };
}

/**
 * Resolves once the socket is connected (the subscribe message then goes out before the turn is
 * posted), or after `ms` without it: the turn never waits long for its preview.
 */
export function connectedOrTimeout(ms = 1_500): Promise<void> {
  if (connected) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); waiters.delete(done); resolve(); };
    const timer = setTimeout(done, ms);
    waiters.add(done);
  });
}
