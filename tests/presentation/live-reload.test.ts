/**
 * Live client reload: changing `res.organization.code` emits res.organization.field_changed, whose
 * handler emits web.client.reload, which reaches every open client of that tenant — server-sent
 * events at GET /api/presentation/events (token as header or `access_token`) and the GraphQL
 * `clientReload` subscription over graphql-ws — and no client of another tenant. Each hop goes
 * through the outbox and the event worker (running here, polling every 50 ms); arrivals are
 * awaited with a deadline. Also: 401 without a valid token, heartbeats, Last-Event-ID replay.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { adminToken, Inbox, listen, readSseBlocks, trackSubscribes, wsClient, wsSubscribe } from '../helpers/api.ts';
import { waitFor } from '../helpers/kernel.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

const A = 'default';
const B = 'reload-b';

interface SseEvent { id: string | null; event: string | null; data: any }
interface Stream {
  status: number;
  headers: Headers;
  events: Inbox<SseEvent>;
  comments: Inbox<string>;
  /** `retry:` values sent. */
  retries: number[];
  stop(): void;
}

let ts: TestServer;
let base: string;
let tokenA: string;
let tokenB: string;
let subs: ReturnType<typeof trackSubscribes>;
const streams: Stream[] = [];
const clients: Client[] = [];
const stops: Array<() => void> = [];

/**
 * Opens GET /api/presentation/events and parses the stream into events and comment lines.
 * Resolves once the server has registered the client (its `: connected` comment arrived).
 */
async function openStream(o: { query?: string; bearer?: string; lastEventId?: string }): Promise<Stream> {
  const ctrl = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  if (o.lastEventId) headers['last-event-id'] = o.lastEventId;
  const res = await fetch(`${base}/api/presentation/events${o.query ? `?access_token=${encodeURIComponent(o.query)}` : ''}`, { headers, signal: ctrl.signal });
  const s: Stream = { status: res.status, headers: res.headers, events: new Inbox(), comments: new Inbox(), retries: [], stop: () => ctrl.abort() };
  streams.push(s);
  if (res.status !== 200) return s;
  const done = () => {
    s.events.finish();
    s.comments.finish();
  };
  void readSseBlocks(res.body!, (block) => {
    const e: SseEvent = { id: null, event: null, data: undefined };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) s.comments.push(line.slice(1).trim());
      else if (line.startsWith('id:')) e.id = line.slice(3).trim();
      else if (line.startsWith('event:')) e.event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trim());
      else if (line.startsWith('retry:')) s.retries.push(Number(line.slice(6)));
    }
    if (e.event !== null || data.length) s.events.push({ ...e, data: data.length ? JSON.parse(data.join('\n')) : undefined });
  }).then(done, done);
  await s.comments.waitFor((c) => c === 'connected', 'the connected comment');
  return s;
}

/** A graphql-ws `clientReload` subscriber; resolves once the server listens on the topic. */
async function subscribeReload(token: string) {
  const ready = subs.next('client.reload');
  const c = wsClient(base, token);
  clients.push(c);
  const s = wsSubscribe(c, 'subscription { clientReload }');
  stops.push(s.stop);
  await Promise.race([ready, s.inbox.ended(5000).then((e) => { throw new Error(`subscription ended: ${JSON.stringify(e)}`); })]);
  return s.inbox;
}

async function createOrg(token: string, name: string): Promise<{ id: string; code: string }> {
  const res = await ts.request('POST', '/api/data/res.organization', { token, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function patchOrg(token: string, id: string, values: Record<string, unknown>): Promise<void> {
  const res = await ts.request('PATCH', `/api/data/res.organization/${id}`, { token, body: values });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const isReloadFor = (slug: string) => (e: SseEvent) => e.event === 'web.client.reload' && e.data?.new_slug === slug;

beforeAll(async () => {
  ts = await startTestServer({
    ACTIVE_MODULES: 'base,auth,presentation,connectors,storage',
    SSE_HEARTBEAT_SECONDS: '1',
    EVENT_POLL_INTERVAL_MS: '50',
    EVENT_RETRY_BASE_MS: '20',
  });
  ts.kernel.worker.start();
  subs = trackSubscribes(ts.kernel);
  tokenA = await adminToken(ts, A);
  tokenB = await adminToken(ts, B);
  base = await listen(ts);
});

afterAll(async () => {
  for (const s of streams) s.stop();
  for (const s of stops) s();
  await Promise.all(clients.map((c) => c.dispose()));
  await ts?.close();
});

describe('slug change → web.client.reload', () => {
  it('reaches SSE clients (access_token and bearer header) and a graphql-ws client of the tenant, and no client of another tenant', async () => {
    const sseQuery = await openStream({ query: tokenA });
    const sseHeader = await openStream({ bearer: tokenA });
    const sseB = await openStream({ query: tokenB });
    const wsA = await subscribeReload(tokenA);
    const wsB = await subscribeReload(tokenB);

    const org = await createOrg(tokenA, 'Reload Alpha');
    await patchOrg(tokenA, org.id, { code: 'alpha-renamed' });
    const expected = { reason: 'org_slug_changed', org_id: org.id, new_slug: 'alpha-renamed', tenant_id: A };

    for (const s of [sseQuery, sseHeader]) {
      const e = await s.events.waitFor(isReloadFor('alpha-renamed'), 'the reload over SSE', 10_000);
      expect(e.event).toBe('web.client.reload');
      expect(e.data).toEqual(expected);
      expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const eventId = sseQuery.events.items[0].id;
    expect(sseHeader.events.items[0].id).toBe(eventId);
    // the SSE id is the outbox event id of the web.client.reload event
    const rows = await ts.kernel.dispatch<{ items: Array<Record<string, any>> }>('fw.search', { model: 'ir.event', domain: [['name', '=', 'web.client.reload']] }, systemPrincipal(A));
    expect(rows.items.filter((r) => r.payload.org_id === org.id).map((r) => r.event_uuid)).toEqual([eventId]);
    // GraphQL delivers the event envelope: its id (the SSE id), its name and the payload
    const msg = await wsA.waitFor((m) => m.data?.clientReload !== undefined, 'the reload over graphql-ws', 10_000);
    expect(msg.data!.clientReload).toEqual({ event_id: eventId, name: 'web.client.reload', payload: expected });

    // tenant B's clients got nothing of A's: its own change is the first thing they see
    const orgB = await createOrg(tokenB, 'Reload Beta');
    await patchOrg(tokenB, orgB.id, { code: 'beta-renamed' });
    const expectedB = { reason: 'org_slug_changed', org_id: orgB.id, new_slug: 'beta-renamed', tenant_id: B };
    await sseB.events.waitFor(isReloadFor('beta-renamed'), 'B reload over SSE', 10_000);
    await wsB.waitFor((m) => m.data?.clientReload !== undefined, 'B reload over graphql-ws', 10_000);
    expect(sseB.events.items.map((e) => e.data)).toEqual([expectedB]);
    expect(wsB.items.map((m) => m.data!.clientReload.payload)).toEqual([expectedB]);
    // and A's clients nothing of B's: B's reload has reached B's clients, so it would have reached A's by now
    for (const s of [sseQuery, sseHeader]) expect(s.events.items.map((e) => e.data)).toEqual([expected]);
    expect(wsA.items.map((m) => m.data!.clientReload.payload)).toEqual([expected]);
  });

  it('the chain runs through the outbox: field_changed {field, old_value, new_value, record_id} then web.client.reload, both delivered', async () => {
    const org = await createOrg(tokenA, 'Outbox Org');
    await patchOrg(tokenA, org.id, { code: 'outbox-new' });
    const sys = systemPrincipal(A);
    const events = async (name: string) => (await ts.kernel.dispatch<{ items: Array<Record<string, any>> }>('fw.search', {
      model: 'ir.event', domain: [['name', '=', name]],
    }, sys)).items;
    const changed = await waitFor(async () => (await events('res.organization.field_changed')).find((e) => e.payload.record_id === org.id && e.status === 'done'), 'field_changed delivered');
    expect(changed).toMatchObject({
      handler: 'presentation.slug_changed_reload', tenant_id: A,
      payload: expect.objectContaining({ field: 'code', old_value: org.code, new_value: 'outbox-new', record_id: org.id }),
    });
    const reload = await waitFor(async () => (await events('web.client.reload')).find((e) => e.payload.org_id === org.id && e.status === 'done'), 'web.client.reload delivered');
    expect(reload).toMatchObject({
      handler: 'presentation.broadcast_reload', tenant_id: A,
      payload: { reason: 'org_slug_changed', org_id: org.id, new_slug: 'outbox-new', tenant_id: A },
    });
  });

  it('an update that leaves the code unchanged (other fields, or the same code) sends no reload', async () => {
    const s = await openStream({ query: tokenA });
    const org = await createOrg(tokenA, 'Quiet Org');
    await patchOrg(tokenA, org.id, { name: 'Quiet Org Renamed' });
    await patchOrg(tokenA, org.id, { code: org.code });
    await patchOrg(tokenA, org.id, { code: 'quiet-after' });
    const e = await s.events.waitFor(isReloadFor('quiet-after'), 'the code change', 10_000);
    expect(s.events.items).toEqual([e]);
  });
});

describe('the event stream', () => {
  it('answers text/event-stream with retry and heartbeat comment lines', async () => {
    const s = await openStream({ query: tokenA });
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('cache-control')).toBe('no-cache');
    expect(s.retries).toEqual([3000]);
    await s.comments.waitFor((c) => c === 'heartbeat', 'a heartbeat (SSE_HEARTBEAT_SECONDS=1)', 5000);
    await s.comments.waitFor(() => s.comments.items.filter((c) => c === 'heartbeat').length >= 2, 'a second heartbeat', 5000);
  });

  it('a missing or invalid token answers 401 (query parameter and header alike)', async () => {
    expectError(await ts.request('GET', '/api/presentation/events'), 401, 'UNAUTHENTICATED');
    expectError(await ts.request('GET', '/api/presentation/events?access_token=not-a-jwt'), 401);
    expectError(await ts.request('GET', '/api/presentation/events', { token: 'not-a-jwt' }), 401);
    const forged = `${tokenA.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`;
    expectError(await ts.request('GET', `/api/presentation/events?access_token=${forged}`), 401);
    const s = await fetch(`${base}/api/presentation/events`);
    expect(s.status).toBe(401);
    await s.body?.cancel();
  });

  it('a client reconnecting with Last-Event-ID gets the events it missed, in order, and only those', async () => {
    const watcher = await openStream({ query: tokenA });
    const org = await createOrg(tokenA, 'Replay Org');
    const first = await openStream({ query: tokenA });
    await patchOrg(tokenA, org.id, { code: 'replay-one' });
    const one = await first.events.waitFor(isReloadFor('replay-one'), 'replay-one', 10_000);
    first.stop(); // the tab loses its connection

    await patchOrg(tokenA, org.id, { code: 'replay-two' });
    await patchOrg(tokenA, org.id, { code: 'replay-three' });
    const three = await watcher.events.waitFor(isReloadFor('replay-three'), 'replay-three (watcher)', 10_000);

    const again = await openStream({ query: tokenA, lastEventId: one.id! });
    await again.events.waitFor(isReloadFor('replay-three'), 'the replayed replay-three', 5000);
    expect(again.events.items.map((e) => e.data.new_slug)).toEqual(['replay-two', 'replay-three']);
    expect(again.events.items.map((e) => e.id)).toEqual(watcher.events.items.slice(-2).map((e) => e.id));

    // up to date: reconnecting after the last event replays nothing, live events follow
    const current = await openStream({ bearer: tokenA, lastEventId: three.id! });
    await patchOrg(tokenA, org.id, { code: 'replay-four' });
    await current.events.waitFor(isReloadFor('replay-four'), 'replay-four', 10_000);
    expect(current.events.items.map((e) => e.data.new_slug)).toEqual(['replay-four']);
  });

  it('Last-Event-ID of another tenant replays nothing of it', async () => {
    const watcherA = await openStream({ query: tokenA });
    const org = await createOrg(tokenA, 'Cross Org');
    await patchOrg(tokenA, org.id, { code: 'cross-one' });
    const one = await watcherA.events.waitFor(isReloadFor('cross-one'), 'cross-one', 10_000);
    await patchOrg(tokenA, org.id, { code: 'cross-two' });
    await watcherA.events.waitFor(isReloadFor('cross-two'), 'cross-two', 10_000);

    const b = await openStream({ query: tokenB, lastEventId: one.id! });
    const orgB = await createOrg(tokenB, 'Cross B Org');
    await patchOrg(tokenB, orgB.id, { code: 'cross-beta' });
    await b.events.waitFor(isReloadFor('cross-beta'), 'B own reload', 10_000);
    expect(b.events.items.map((e) => e.data.new_slug)).toEqual(['cross-beta']);
  });
});
