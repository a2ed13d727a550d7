/**
 * The login throttle across instances (issue 27, "whatever a process caches must stay right with
 * two processes"): with Redis its counters are shared, so failures spread over two instances count
 * together and the (email, address) pair is refused on both once over the limit; an instance
 * without Redis counts alone and would have let the guesser go on. A and B are one deployment (the
 * same REDIS_PREFIX, which keeps their counters apart from any other run's).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, uniqueRedisPrefix } from '../helpers/redis.ts';
import { expectError, randomKey, startTestServer, type TestServer } from '../helpers/server.ts';

const redis = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: uniqueRedisPrefix() };
const tenant = `throttle-${crypto.randomBytes(4).toString('hex')}`;

let shared: string;
let a: TestServer;
let b: TestServer;
let local: TestServer;

const attempt = (ts: TestServer, email: string, password: string) =>
  ts.request('POST', '/api/auth/login', { body: { email, password }, headers: { 'x-tenant': tenant } });

beforeAll(async () => {
  shared = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-throttle-'));
  const same = {
    DATA_DIR: shared, JWT_SECRET_KEY: randomKey(), CONNECTOR_SECRET_KEY: randomKey(),
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '3', LOGIN_SLOWDOWN_AFTER: '100', LOGIN_IP_SLOWDOWN_AFTER: '100',
  };
  a = await startTestServer({ ...same, ...redis });
  await a.kernel.tenants.get(tenant);
  b = await startTestServer({ ...same, ...redis });
  await b.kernel.tenants.get(tenant);
  local = await startTestServer(same);
  await local.kernel.tenants.get(tenant);
  const admin = (await a.loginAdmin(tenant)).access_token;
  for (const email of ['spread@example.com', 'alone@example.com']) {
    const made = await a.request('POST', '/api/data/res.user', { token: admin, body: { email, name: email, password: 'throttle-pass-1' }, headers: { 'x-tenant': tenant } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  for (const ts of [a, b, local]) await ts?.close();
  if (shared) fs.rmSync(shared, { recursive: true, force: true });
});

describe('the login throttle with Redis', () => {
  it('failures on A and on B count together: after 3 (2 on A, 1 on B) the pair is refused with 429 on both, the right password included', async () => {
    for (const [ts, n] of [[a, 2], [b, 1]] as const) {
      for (let i = 0; i < n; i++) expectError(await attempt(ts, 'spread@example.com', 'wrong-password-1'), 401, 'AUTHENTICATION_FAILED');
    }
    const onA = await attempt(a, 'spread@example.com', 'throttle-pass-1');
    expectError(onA, 429, 'THROTTLED');
    expect(Number(onA.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await attempt(b, 'spread@example.com', 'throttle-pass-1'), 429, 'THROTTLED');
  });

  it('an instance without Redis counts alone: the same failures made elsewhere do not stop a login there', async () => {
    for (let i = 0; i < 3; i++) expectError(await attempt(a, 'alone@example.com', 'wrong-password-1'), 401, 'AUTHENTICATION_FAILED');
    expectError(await attempt(b, 'alone@example.com', 'throttle-pass-1'), 429, 'THROTTLED');
    expect((await attempt(local, 'alone@example.com', 'throttle-pass-1')).status).toBe(200);
  });
});
