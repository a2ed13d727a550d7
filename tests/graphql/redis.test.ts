/**
 * Several server processes: with REDIS_URL set, a change made through one instance reaches
 * subscribers connected to another (two instances here share one SQLite data folder and the
 * machine's Redis, as two processes of one deployment would share their database and Redis).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminToken, listen, sleep, trackSubscribes, wsClient, wsSubscribe } from '../helpers/api.ts';
import { TEST_REDIS_URL, uniqueRedisPrefix } from '../helpers/redis.ts';
import { randomKey, startTestServer, type TestServer } from '../helpers/server.ts';

/** A and B are one deployment: the same Redis, under the same prefix. */
const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: uniqueRedisPrefix() };
const tenant = `redis-${crypto.randomBytes(4).toString('hex')}`;

let shared: string;
let a: TestServer;
let b: TestServer;
let local: TestServer;
let tokenOnB: string;
let baseA: string;
const clients: Client[] = [];

beforeAll(async () => {
  shared = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-redis-'));
  // one after the other: the first boot creates and seeds the shared default tenant
  // instances of one deployment share their keys through the environment (a token of B works on A)
  const keys = { JWT_SECRET_KEY: randomKey(), CONNECTOR_SECRET_KEY: randomKey() };
  b = await startTestServer({ DATA_DIR: shared, ...redis, ...keys });
  a = await startTestServer({ DATA_DIR: shared, ...redis, ...keys });
  // B creates the tenant; A then opens the existing database
  tokenOnB = await adminToken(b, tenant);
  await a.kernel.tenants.get(tenant);
  baseA = await listen(a);
  // a third instance without Redis: in-process pub/sub, so it must see nothing from the others
  local = await startTestServer({ DATA_DIR: shared, ...keys });
  await local.kernel.tenants.get(tenant);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await Promise.all([a?.close(), b?.close(), local?.close()]);
  fs.rmSync(shared, { recursive: true, force: true });
});

it('a change made on instance B reaches a graphql-ws subscriber on instance A', async () => {
  const subs = trackSubscribes(a.kernel);
  const ready = subs.next('changed:res.organization');
  const c = wsClient(baseA, tokenOnB);
  clients.push(c);
  const { inbox } = wsSubscribe(c, 'subscription { resOrganizationChanged { op id record { name } } }');
  await ready; // A's Redis SUBSCRIBE is acknowledged

  const created = await b.request('POST', '/api/data/res.organization', { token: tokenOnB, body: { name: 'Made on B' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const msg = await inbox.waitFor((m) => m.data?.resOrganizationChanged.id === created.body.id, 'the change from B');
  expect(msg.data.resOrganizationChanged).toEqual({ op: 'create', id: created.body.id, record: { name: 'Made on B' } });
});

it('clientReload published on instance B reaches a subscriber on instance A', async () => {
  const subs = trackSubscribes(a.kernel);
  const ready = subs.next('client.reload');
  const c = wsClient(baseA, tokenOnB);
  clients.push(c);
  const { inbox } = wsSubscribe(c, 'subscription { clientReload }');
  await ready;
  await b.kernel.publish(tenant, 'client.reload', { reason: 'org_slug_changed', new_slug: 'made-on-b' });
  const msg = await inbox.waitFor(() => true, 'the reload from B');
  expect(msg.data).toEqual({ clientReload: { reason: 'org_slug_changed', new_slug: 'made-on-b' } });
});

it('without REDIS_URL the pub/sub is in-process: an instance sees only its own changes', async () => {
  const received: unknown[] = [];
  const off = await local.kernel.subscribe(tenant, 'changed:res.organization', (m) => received.push(m));
  const viaLocal = await local.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Made locally' } }, { kind: 'system', user_id: null, tenant_id: tenant, role: 'system' });
  const onB = await b.request('POST', '/api/data/res.organization', { token: tokenOnB, body: { name: 'Made on B again' } });
  expect(onB.status).toBe(201);
  await sleep(200);
  off();
  expect(received).toEqual([{ model: 'res.organization', op: 'create', id: viaLocal.id }]);
});
