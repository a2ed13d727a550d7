/**
 * REDIS_PREFIX (src/kernel/pubsub/names.ts): every channel and key fw uses in Redis starts with
 * the deployment's prefix, so two deployments on one Redis server (staging and production, the
 * concurrent test servers of CI, all with tenant `default`) stay apart.
 *
 * - Checked at boot: 1 to 64 of `A-Z a-z 0-9 _ - .`, no `:` (a prefix with `:` could be another
 *   prefix followed by a tenant); default `fw`, the names of earlier releases. Anything else is
 *   BootError REDIS_PREFIX_INVALID and `fw serve` stops before it serves.
 * - Over the machine's Redis, on the same tenant `default`: kernels with the same prefix hear each
 *   other's record changes, a kernel with another prefix hears none of them; a logout on one server
 *   is heard by the server with the same prefix (the token refused there at once) and not by the
 *   one with another prefix (it answers from its session cache); the login throttle's counters and
 *   the export links' single use are shared by the deployment only, under its prefix.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REDIS_PREFIX } from '../../src/kernel/pubsub/names.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { adminToken } from '../helpers/api.ts';
import { ADMIN_PASSWORD, bootTestKernel, tempDir, type TestKernel } from '../helpers/kernel.ts';
import { TEST_REDIS_URL, uniqueRedisPrefix } from '../helpers/redis.ts';
import { expectError, randomKey, startTestServer, type TestServer } from '../helpers/server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TENANT = 'default';
const RULE = 'must be 1 to 64 letters, digits, "_", "-" or "." (no ":"), e.g. "fw-staging"';

describe('REDIS_PREFIX is checked at boot', () => {
  it('defaults to `fw` (the names of earlier releases); letters, digits, `_`, `-` and `.` up to 64 characters are taken as given', () => {
    expect(DEFAULT_REDIS_PREFIX).toBe('fw');
    expect(loadSettings({}).REDIS_PREFIX).toBe('fw');
    for (const ok of ['fw-staging', 'Prod.eu_1', 'x', 'a'.repeat(64)]) expect(loadSettings({ REDIS_PREFIX: ok }).REDIS_PREFIX).toBe(ok);
  });

  it('an empty value, a `:`, spaces, other characters and more than 64 characters are refused: BootError REDIS_PREFIX_INVALID naming the setting', () => {
    for (const bad of ['', 'fw:staging', ':', 'fw staging', 'fw*', 'prod/eu', 'é', 'a'.repeat(65)]) {
      let err: unknown;
      try {
        loadSettings({ REDIS_PREFIX: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toMatchObject({ code: 'REDIS_PREFIX_INVALID', status: 500, message: `setting REDIS_PREFIX="${bad}" ${RULE}`, details: { setting: 'REDIS_PREFIX', value: bad } });
    }
  });

  it('`fw serve` with REDIS_PREFIX="fw:staging" stops before it serves: exit code 1, the code and the reason on stderr, no tenant created', async () => {
    const dataDir = tempDir('redis-prefix-boot');
    try {
      const res = await new Promise<{ code: number | null; output: string }>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
          cwd: ROOT,
          timeout: 60_000,
          env: {
            PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
            DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: 'fw:staging', PORT: '0', LOG_LEVEL: 'silent', ADMIN_PASSWORD,
          },
        }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, output: stdout + stderr }));
      });
      expect(res.code, res.output).toBe(1);
      expect(res.output.trim()).toBe(`REDIS_PREFIX_INVALID: setting REDIS_PREFIX="fw:staging" ${RULE}`);
      expect(fs.existsSync(path.join(dataDir, 'tenants'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('record changes on one Redis, tenant `default` everywhere', () => {
  const deployment = uniqueRedisPrefix();
  const other = uniqueRedisPrefix();
  let a: TestKernel;
  let b: TestKernel;
  let c: TestKernel;
  const heard: Record<'a' | 'b' | 'c', string[]> = { a: [], b: [], c: [] };
  const offs: Array<() => void> = [];

  beforeAll(async () => {
    const boot = (prefix: string) => bootTestKernel({ settings: { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } });
    [a, b, c] = await Promise.all([boot(deployment), boot(deployment), boot(other)]);
    await Promise.all([a.kernel.tenants.get(TENANT), c.kernel.tenants.get(TENANT)]);
    for (const [name, k] of [['a', a], ['b', b], ['c', c]] as const) {
      offs.push(await k.kernel.subscribe(TENANT, 'changed:res.organization', (m) => heard[name].push((m as { id: string }).id)));
    }
  }, 120_000);
  afterAll(async () => {
    for (const off of offs) off();
    await Promise.all([a?.cleanup(), b?.cleanup(), c?.cleanup()]);
  });

  const create = async (k: TestKernel, name: string) =>
    (await k.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name } }, { kind: 'system', user_id: null, tenant_id: TENANT, role: 'system' })).id;
  const until = async (check: () => boolean, what: string) => {
    for (const start = Date.now(); !check(); await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() - start > 5_000) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(heard)}`);
    }
  };

  it('a change on A is heard on A and B (same prefix), never on C (another prefix); C\'s own change is heard on C only', async () => {
    const onA = await create(a, 'Made on A');
    await until(() => heard.a.includes(onA) && heard.b.includes(onA), 'A\'s change on A and B');

    const onC = await create(c, 'Made on C');
    await until(() => heard.c.includes(onC), 'C\'s change on C');
    // a marker published on A after C's change reached Redis: a subscriber connection receives in
    // order, so once A and B have the marker they would have had C's change before it
    const marker = await create(a, 'Marker on A');
    await until(() => heard.a.includes(marker) && heard.b.includes(marker), 'the marker on A and B');

    expect(heard.a).toEqual([onA, marker]);
    expect(heard.b).toEqual([onA, marker]);
    expect(heard.c).toEqual([onC]);
  });
});

describe('revocations, login throttle and export links on one Redis, tenant `default` everywhere', () => {
  const deployment = uniqueRedisPrefix();
  const other = uniqueRedisPrefix();
  let shared: string;
  let a: TestServer;
  let b: TestServer;
  let c: TestServer;
  let redis: Redis;

  const me = (ts: TestServer, token: string) => ts.request('GET', '/api/auth/me', { token });
  const keysUnder = async (prefix: string) => {
    const keys: string[] = [];
    for (let cursor = '0'; ;) {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      keys.push(...batch);
      if ((cursor = next) === '0') return keys.sort();
    }
  };

  beforeAll(async () => {
    shared = tempDir('redis-prefix');
    // one database and one set of keys for all three, so a token of one is valid on the others:
    // only the Redis prefix differs between C and the deployment A + B
    const same = {
      DATA_DIR: shared, JWT_SECRET_KEY: randomKey(), CONNECTOR_SECRET_KEY: randomKey(), REDIS_URL: TEST_REDIS_URL,
      AUTH_SESSION_CACHE_SECONDS: '30', LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '3', LOGIN_SLOWDOWN_AFTER: '100', LOGIN_IP_SLOWDOWN_AFTER: '100',
    };
    a = await startTestServer({ ...same, REDIS_PREFIX: deployment });
    b = await startTestServer({ ...same, REDIS_PREFIX: deployment });
    c = await startTestServer({ ...same, REDIS_PREFIX: other });
    redis = new Redis(TEST_REDIS_URL);
    const admin = await adminToken(a);
    for (const email of ['walker@example.com', 'guessed@example.com']) await a.createUser(admin, { email, password: 'prefix-pass-1' });
  }, 120_000);
  afterAll(async () => {
    for (const ts of [a, b, c]) await ts?.close();
    if (redis) {
      for (const prefix of [deployment, other]) {
        const keys = await keysUnder(prefix);
        if (keys.length) await redis.del(...keys);
      }
      redis.disconnect();
    }
    if (shared) fs.rmSync(shared, { recursive: true, force: true });
  });

  it('a logout on A refuses the token at once on B (same prefix); C (another prefix) does not hear it and answers from its cache', async () => {
    const { access_token: token } = await b.login('walker@example.com', 'prefix-pass-1');
    // cached on B and on C
    expect((await me(b, token)).status).toBe(200);
    expect((await me(c, token)).status).toBe(200);
    expect((await a.request('POST', '/api/auth/logout', { token })).status).toBe(200);
    await expect.poll(async () => (await me(b, token)).status, { timeout: 1_000, interval: 10 }).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect((await me(c, token)).status, 'C did not hear the revocation: its cache still holds the session').toBe(200);
  });

  it('3 wrong passwords spread over A and B refuse the pair on both (429); on C, of another prefix, the right password still signs in', async () => {
    for (const ts of [a, b, a]) expectError(await ts.tryLogin('guessed@example.com', 'wrong-pass-1'), 401, 'AUTHENTICATION_FAILED');
    expectError(await b.tryLogin('guessed@example.com', 'prefix-pass-1'), 429, 'THROTTLED');
    expectError(await a.tryLogin('guessed@example.com', 'prefix-pass-1'), 429, 'THROTTLED');
    expect((await c.tryLogin('guessed@example.com', 'prefix-pass-1')).status).toBe(200);
    // the deployment's counters are under its prefix; C's success left none of its own
    expect((await keysUnder(deployment)).some((k) => k.startsWith(`${deployment}:_auth:login:pair:`))).toBe(true);
    expect((await keysUnder(other)).filter((k) => k.includes('guessed@example.com'))).toEqual([]);
  });

  it('an export link issued on A works once across A and B, claimed under the deployment\'s prefix (`<prefix>:_auth:link:default:<jti>`)', async () => {
    const token = (await a.login('walker@example.com', 'prefix-pass-1')).access_token;
    const res = await a.request('POST', '/graphql', { token, body: { query: 'mutation { exportLink(model: "res.organization", fields: ["name"]) { url } }' } });
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    const url = res.body.data.exportLink.url as string;
    expect((await b.server.inject({ method: 'GET', url })).statusCode).toBe(200);
    const again = await a.server.inject({ method: 'GET', url });
    expect(again.statusCode).toBe(401);
    expect(JSON.parse(again.body).error.code).toBe('EXPORT_LINK_USED');
    const jti = JSON.parse(Buffer.from(url.split('token=')[1]!.split('.')[1]!, 'base64url').toString()).jti as string;
    expect(await keysUnder(deployment)).toContain(`${deployment}:_auth:link:${TENANT}:${jti}`);
  });
});
