/**
 * Subscriptions over graphql-ws and over SSE on the same server: per-model change streams and
 * clientReload, filtered by tenant and by the subscriber's read access (RBAC and record rules),
 * refused to anonymous callers.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, gqlOk, listen, sleep, sseSubscribe, trackSubscribes, wsClient, wsSubscribe } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ORG_CHANGED = 'subscription { resOrganizationChanged { op id record { id name code } } }';
const LEAD_CHANGED = 'subscription { crmLeadChanged { op id record { name organization { id } } } }';

let ts: TestServer;
let base: string;
let token: string;
let tokenB: string;
let subs: ReturnType<typeof trackSubscribes>;
const clients: Client[] = [];
const stops: Array<() => void> = [];

/** A graphql-ws client that afterAll disposes. */
const client = (t?: string) => {
  const c = wsClient(base, t);
  clients.push(c);
  return c;
};

/** Subscribes over graphql-ws and waits until the server listens on the topic. */
async function subscribeWs(t: string | undefined, query: string, topic: string) {
  const ready = subs.next(topic);
  const s = wsSubscribe(client(t), query);
  stops.push(s.stop);
  await Promise.race([ready, s.inbox.ended(5000).then((e) => { throw new Error(`subscription ended: ${JSON.stringify(e)}`); })]);
  return s.inbox;
}

const createOrg = async (t: string, name: string) => {
  const res = await ts.request('POST', '/api/data/res.organization', { token: t, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string };
};

beforeAll(async () => {
  ts = await startTestServer();
  subs = trackSubscribes(ts.kernel);
  token = await adminToken(ts);
  tokenB = await adminToken(ts, 'tenant-b');
  base = await listen(ts);
});

afterAll(async () => {
  for (const s of stops) s();
  await Promise.all(clients.map((c) => c.dispose()));
  await ts?.close();
});

describe('graphql-ws', () => {
  it('resOrganizationChanged receives a create made over HTTP, with the record', async () => {
    const inbox = await subscribeWs(token, ORG_CHANGED, 'changed:res.organization');
    const org = await createOrg(token, 'WS Created');
    const msg = await inbox.waitFor((m) => m.data?.resOrganizationChanged.id === org.id, 'the create');
    expect(msg.data.resOrganizationChanged).toEqual({ op: 'create', id: org.id, record: { id: org.id, name: 'WS Created', code: 'ws-created' } });
  });

  it('an aliased, named subscription (as the web client sends) delivers too instead of closing the socket', async () => {
    const inbox = await subscribeWs(token, 'subscription Changed { change: resOrganizationChanged { op id } }', 'changed:res.organization');
    const org = await createOrg(token, 'WS Aliased');
    const msg = await inbox.waitFor((m) => m.data?.change?.id === org.id, 'the aliased create');
    expect(msg.data.change).toEqual({ op: 'create', id: org.id });
  });

  it('updates and deletes arrive too; a delete carries no record', async () => {
    const inbox = await subscribeWs(token, ORG_CHANGED, 'changed:res.organization');
    const org = await createOrg(token, 'WS Lifecycle');
    await gqlOk(ts, 'mutation($id: ID!) { resOrganizationUpdate(id: $id, input: { name: "WS Renamed" }) { id } }', { id: org.id }, { token });
    await ts.request('DELETE', `/api/data/res.organization/${org.id}`, { token });
    const ops = async () => {
      await inbox.waitFor((m) => m.data?.resOrganizationChanged.op === 'delete' && m.data.resOrganizationChanged.id === org.id, 'the delete');
      return inbox.items.map((m) => m.data.resOrganizationChanged).filter((c) => c.id === org.id);
    };
    const changes = await ops();
    expect(changes.map((c) => c.op)).toEqual(['create', 'update', 'delete']);
    expect(changes[1].record.name).toBe('WS Renamed');
    expect(changes[2].record).toBeNull();
  });

  it('a subscriber of tenant B receives nothing when tenant A changes', async () => {
    const inboxB = await subscribeWs(tokenB, ORG_CHANGED, 'changed:res.organization');
    const inboxA = await subscribeWs(token, ORG_CHANGED, 'changed:res.organization');
    const inA = await createOrg(token, 'Only In A');
    await inboxA.waitFor((m) => m.data?.resOrganizationChanged.id === inA.id, 'A sees its own change');
    const inB = await createOrg(tokenB, 'Only In B');
    // B's own change arrives; A's (made first) never did
    await inboxB.waitFor((m) => m.data?.resOrganizationChanged.id === inB.id, 'B sees its own change');
    expect(inboxB.items.map((m) => m.data.resOrganizationChanged.id)).toEqual([inB.id]);
    await sleep(100);
    expect(inboxA.items.map((m) => m.data.resOrganizationChanged.id)).not.toContain(inB.id);
  });

  it('record rules filter change events: a user of org X gets leads of X, not of Y', async () => {
    const x = await createOrg(token, 'Rule Org X');
    const y = await createOrg(token, 'Rule Org Y');
    await ts.createUser(token, { email: 'sub-x@example.com', password: 'sub-x-password', role: 'user', organization: x.id });
    const userToken = (await ts.login('sub-x@example.com', 'sub-x-password')).access_token;
    const userInbox = await subscribeWs(userToken, LEAD_CHANGED, 'changed:crm.lead');
    const adminInbox = await subscribeWs(token, LEAD_CHANGED, 'changed:crm.lead');

    const leadY = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Lead in Y', organization: y.id } });
    const leadX = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Lead in X', organization: x.id } });
    expect([leadY.status, leadX.status]).toEqual([201, 201]);

    const got = await userInbox.waitFor((m) => m.data?.crmLeadChanged.id === leadX.body.id, 'the lead of X');
    expect(got.data.crmLeadChanged.record).toEqual({ name: 'Lead in X', organization: { id: x.id } });
    await adminInbox.waitFor((m) => m.data?.crmLeadChanged.id === leadX.body.id, 'admin sees X');
    expect(adminInbox.items.map((m) => m.data.crmLeadChanged.id)).toContain(leadY.body.id);
    await sleep(100);
    expect(userInbox.items.map((m) => m.data.crmLeadChanged.id)).toEqual([leadX.body.id]);
  });

  it('a delete notice reaches only subscribers who could read the record before it was deleted (no ids of org Y for a user of X)', async () => {
    const x = await createOrg(token, 'Delete Org X');
    const y = await createOrg(token, 'Delete Org Y');
    await ts.createUser(token, { email: 'del-x@example.com', password: 'del-x-password', role: 'user', organization: x.id });
    const userToken = (await ts.login('del-x@example.com', 'del-x-password')).access_token;
    const leadY = (await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Doomed in Y', organization: y.id } })).body.id as string;
    const leadX = (await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Doomed in X', organization: x.id } })).body.id as string;
    const userInbox = await subscribeWs(userToken, LEAD_CHANGED, 'changed:crm.lead');
    const adminInbox = await subscribeWs(token, LEAD_CHANGED, 'changed:crm.lead');
    for (const id of [leadY, leadX]) expect((await ts.request('DELETE', `/api/data/crm.lead/${id}`, { token })).status).toBe(200);

    const deletes = (inbox: typeof userInbox) => inbox.items.map((m) => m.data?.crmLeadChanged).filter((c) => c?.op === 'delete').map((c) => c.id);
    await adminInbox.waitFor((m) => m.data?.crmLeadChanged.op === 'delete' && m.data.crmLeadChanged.id === leadX, 'admin sees the delete in X');
    expect(deletes(adminInbox)).toEqual([leadY, leadX]);
    const got = await userInbox.waitFor((m) => m.data?.crmLeadChanged.op === 'delete', 'the delete in X');
    expect(got.data.crmLeadChanged).toEqual({ op: 'delete', id: leadX, record: null });
    await sleep(100);
    expect(deletes(userInbox)).toEqual([leadX]);
  });

  it('a role that may not read the model cannot subscribe to its changes (ACCESS_DENIED)', async () => {
    await ts.createUser(token, { email: 'sub-plain@example.com', password: 'sub-plain-password', role: 'user' });
    const userToken = (await ts.login('sub-plain@example.com', 'sub-plain-password')).access_token;
    const s = wsSubscribe(client(userToken), 'subscription { irEventChanged { op id } }');
    stops.push(s.stop);
    const first = await s.inbox.waitFor(() => true, 'an error result');
    expect(first.data ?? null).toBeNull();
    expect(first.errors).toEqual([expect.objectContaining({
      message: 'role "user" may not read ir.event',
      extensions: expect.objectContaining({ code: 'ACCESS_DENIED', http: { status: 403 } }),
    })]);
  });

  it('clientReload delivers a client.reload published for the tenant, and only to that tenant', async () => {
    const inboxA = await subscribeWs(token, 'subscription { clientReload }', 'client.reload');
    const inboxB = await subscribeWs(tokenB, 'subscription { clientReload }', 'client.reload');
    const payload = { reason: 'org_slug_changed', org_id: 'o-1', new_slug: 'new-slug', tenant_id: 'default' };
    await ts.kernel.publish('default', 'client.reload', payload);
    const msg = await inboxA.waitFor(() => true, 'the reload');
    expect(msg.data).toEqual({ clientReload: payload });
    await ts.kernel.publish('tenant-b', 'client.reload', { reason: 'for-b' });
    await inboxB.waitFor(() => true, 'B reload');
    expect(inboxB.items.map((m) => m.data.clientReload)).toEqual([{ reason: 'for-b' }]);
    expect(inboxA.items).toHaveLength(1);
  });

  it('over graphql-ws our errors carry extensions.code and extensions.http.status (stale revision → STALE_REVISION, 409)', async () => {
    const org = await createOrg(token, 'WS Stale');
    await gqlOk(ts, 'mutation($id: ID!) { resOrganizationUpdate(id: $id, input: { name: "WS Stale 2" }, revision: 1) { id } }', { id: org.id }, { token });
    const s = wsSubscribe(client(token), 'mutation($id: ID!) { resOrganizationUpdate(id: $id, input: { name: "lost" }, revision: 1) { id } }', { id: org.id });
    const result = await s.inbox.waitFor(() => true, 'the mutation result');
    expect(result.errors).toEqual([expect.objectContaining({
      path: ['resOrganizationUpdate'],
      extensions: expect.objectContaining({ code: 'STALE_REVISION', http: { status: 409 } }),
    })]);
  });

  it('an anonymous connection is refused (close 4403) and an invalid token too', async () => {
    for (const t of [undefined, 'not-a-token']) {
      const s = wsSubscribe(client(t), ORG_CHANGED);
      const err = await s.inbox.ended();
      expect((err as { code?: number }).code).toBe(4403);
      expect(s.inbox.items).toEqual([]);
    }
  });
});

describe('server-sent events', () => {
  it('resOrganizationChanged over SSE receives a create made over HTTP', async () => {
    const ready = subs.next('changed:res.organization');
    const sse = await sseSubscribe(base, ORG_CHANGED, token);
    stops.push(sse.stop);
    expect(sse.status).toBe(200);
    expect(sse.contentType).toMatch(/text\/event-stream/);
    await ready;
    const org = await createOrg(token, 'SSE Created');
    const msg = await sse.inbox.waitFor((m) => m.data?.resOrganizationChanged.id === org.id, 'the create over SSE');
    expect(msg.data.resOrganizationChanged).toMatchObject({ op: 'create', record: { name: 'SSE Created' } });
    sse.stop();
  });

  it('SSE streams are tenant-filtered as well', async () => {
    const ready = subs.next('changed:res.organization');
    const sse = await sseSubscribe(base, ORG_CHANGED, tokenB);
    stops.push(sse.stop);
    await ready;
    await createOrg(token, 'A change B must not see');
    const inB = await createOrg(tokenB, 'B change over SSE');
    await sse.inbox.waitFor((m) => m.data?.resOrganizationChanged.id === inB.id, 'B change');
    expect(sse.inbox.items.map((m) => m.data.resOrganizationChanged.record.name)).toEqual(['B change over SSE']);
    sse.stop();
  });

  it('clientReload over SSE', async () => {
    const ready = subs.next('client.reload');
    const sse = await sseSubscribe(base, 'subscription { clientReload }', token);
    stops.push(sse.stop);
    await ready;
    await ts.kernel.publish('default', 'client.reload', { reason: 'sse-test' });
    const msg = await sse.inbox.waitFor(() => true, 'reload over SSE');
    expect(msg.data).toEqual({ clientReload: { reason: 'sse-test' } });
    sse.stop();
  });

  it('an anonymous SSE subscription is refused with UNAUTHENTICATED and no events', async () => {
    const sse = await sseSubscribe(base, ORG_CHANGED);
    stops.push(sse.stop);
    expect(sse.status).toBe(401);
    const first = await sse.inbox.waitFor(() => true, 'the refusal');
    expect(first.errors).toEqual([expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })]);
    expect(sse.inbox.items.filter((m) => m.data?.resOrganizationChanged)).toEqual([]);
    sse.stop();
  });
});
