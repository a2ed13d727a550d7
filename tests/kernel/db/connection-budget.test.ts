/**
 * The process-wide PostgreSQL connection budget (PG_MAX_CONNECTIONS_PER_PROCESS,
 * src/kernel/db/budget.ts), against the real server: every tenant pool of a process opens its
 * connections through one budget; a tenant needing one when it is full takes the slot of an idle
 * connection (the least recently used pool's first), else waits up to PG_CONNECTION_WAIT_MS;
 * past that wait, and when PostgreSQL itself refuses a connection (SQLSTATE 53300), the request
 * is answered 503 DATABASE_BUSY with Retry-After on REST and GraphQL, never a 500, and the next
 * request after the pressure ends succeeds.
 *
 * "Busy" is a real interactive transaction held open on a tenant's pool until the test lets it
 * finish; connections are counted in pg_stat_activity by database name.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RootDbClient } from '../../../src/kernel/env.ts';
import type { Kernel } from '../../../src/kernel/kernel.ts';
import { loadSettings } from '../../../src/kernel/settings.ts';
import { PG_URL, withPgClient } from '../../helpers/kernel.ts';
import { expectError, startTestServer, type TestServer } from '../../helpers/server.ts';

type Tx = { $transaction<T>(fn: (tx: { $queryRawUnsafe(sql: string): Promise<unknown> }) => Promise<T>, o?: object): Promise<T> };

/** Holds one connection of `tenant`'s pool in an open transaction until `release()` is called. */
async function holdConnection(kernel: Kernel, tenant: string): Promise<{ release: () => void; done: Promise<unknown> }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let started!: () => void;
  const running = new Promise<void>((r) => { started = r; });
  const done = kernel.tenants.withClient(tenant, (db: RootDbClient) => (db as unknown as Tx).$transaction(async (tx) => {
    await tx.$queryRawUnsafe('SELECT 1');
    started();
    await gate;
  }, { maxWait: 20_000, timeout: 60_000 }));
  // a failure to start must fail the test, not hang it
  await Promise.race([running, done.then(() => { throw new Error('the transaction ended before it was held'); })]);
  return { release, done };
}

/** Connections to each of the given databases now, as the server counts them. */
async function connectionsTo(databases: string[]): Promise<Record<string, number>> {
  return withPgClient(PG_URL, async (c) => {
    const { rows } = await c.query<{ datname: string; n: string }>(
      'SELECT datname, count(*) AS n FROM pg_stat_activity WHERE datname = ANY($1) GROUP BY datname', [databases]);
    return Object.fromEntries(databases.map((d) => [d, Number(rows.find((r) => r.datname === d)?.n ?? 0)]));
  });
}

const read = (kernel: Kernel, tenant: string) =>
  kernel.tenants.withClient(tenant, (db) => (db as unknown as { $queryRawUnsafe(sql: string): Promise<unknown> }).$queryRawUnsafe('SELECT 1'));

describe('the connection settings', () => {
  it('PG_MAX_CONNECTIONS_PER_PROCESS defaults to 20 and must be 2 to 10000; PG_CONNECTION_WAIT_MS defaults to 5000 and must be 10 to 600000; PG_IDLE_TIMEOUT_MS keeps pg\'s 10000', () => {
    const d = loadSettings({});
    expect([d.PG_MAX_CONNECTIONS_PER_PROCESS, d.PG_CONNECTION_WAIT_MS, d.PG_IDLE_TIMEOUT_MS]).toEqual([20, 5000, 10000]);
    expect(() => loadSettings({ PG_MAX_CONNECTIONS_PER_PROCESS: '1' })).toThrow('setting PG_MAX_CONNECTIONS_PER_PROCESS="1" must be between 2 and 10000');
    expect(() => loadSettings({ PG_CONNECTION_WAIT_MS: '0' })).toThrow('setting PG_CONNECTION_WAIT_MS="0" must be between 10 and 600000');
    expect(() => loadSettings({ PG_IDLE_TIMEOUT_MS: '-1' })).toThrow('setting PG_IDLE_TIMEOUT_MS="-1" must be between 0 and 86400000');
  });
});

describe('PostgreSQL connection budget of a process', () => {
  let ts: TestServer;
  let token: string;
  const [A, B, C] = ['budget-a', 'budget-b', 'budget-c'];
  const db = (t: string) => ts.kernel.tenants.pgDatabase(t);

  beforeAll(async () => {
    ts = await startTestServer({
      PG_MAX_CONNECTIONS_PER_PROCESS: '2', PG_CONNECTION_WAIT_MS: '400', PG_POOL_MAX: '2', PG_IDLE_TIMEOUT_MS: '0',
    }, { provider: 'postgresql' });
    for (const t of [A, B, C]) await ts.provisionTenant(t);
    token = (await ts.loginAdmin()).access_token;
  }, 120_000);
  afterAll(async () => {
    await ts?.close();
  });

  it('provisioning and using more tenants than the budget never holds more than PG_MAX_CONNECTIONS_PER_PROCESS connections', async () => {
    for (const t of [A, B, C, ts.kernel.settings.DEFAULT_TENANT, A]) await read(ts.kernel, t);
    const counts = await connectionsTo([A, B, C, ts.kernel.settings.DEFAULT_TENANT].map(db));
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2);
    expect(ts.kernel.tenants.budget!.inUse()).toBeLessThanOrEqual(2);
  });

  it('a tenant needing a connection when the budget is full closes an idle one of the least recently used tenant, not of a more recent one', async () => {
    await read(ts.kernel, A);
    await read(ts.kernel, B); // A is now the least recently used, both idle with one connection each
    expect(await connectionsTo([db(A), db(B)])).toEqual({ [db(A)]: 1, [db(B)]: 1 });
    await read(ts.kernel, C);
    expect(await connectionsTo([db(A), db(B), db(C)])).toEqual({ [db(A)]: 0, [db(B)]: 1, [db(C)]: 1 });
  });

  it('with the budget held by two busy tenants a third waits, and gets a connection as soon as one of them finishes', async () => {
    const a = await holdConnection(ts.kernel, A);
    const b = await holdConnection(ts.kernel, B);
    let answered = false;
    const third = read(ts.kernel, C).then(() => { answered = true; });
    await new Promise((r) => setTimeout(r, 150));
    expect(answered).toBe(false);
    expect(ts.kernel.tenants.budget!.waiting()).toBe(1);
    a.release();
    await a.done;
    await third; // well within PG_CONNECTION_WAIT_MS (400 ms)
    expect(answered).toBe(true);
    b.release();
    await b.done;
  });

  it('a wait longer than PG_CONNECTION_WAIT_MS answers REST with 503 DATABASE_BUSY and Retry-After, never 500; the same request succeeds once a connection is free', async () => {
    const a = await holdConnection(ts.kernel, A);
    const b = await holdConnection(ts.kernel, B);
    try {
      const started = Date.now();
      const res = await ts.request('GET', '/api/data/res.user', { token });
      expectError(res, 503, 'DATABASE_BUSY');
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error.details).toMatchObject({ retry_after_seconds: 1, reason: 'budget_full' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      // a write goes through Prisma's driver adapter, which wraps what the pool threw
      const write = await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Busy Org' } });
      expectError(write, 503, 'DATABASE_BUSY');
      expect(write.headers['retry-after']).toBe('1');
    } finally {
      a.release();
      b.release();
      await Promise.all([a.done, b.done]);
    }
    const ok = await ts.request('GET', '/api/data/res.user', { token });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it("a request on a tenant whose own pool (PG_POOL_MAX) is all busy waits PG_CONNECTION_WAIT_MS too, not until a connection frees, then is answered 503 DATABASE_BUSY (reason pool_full); the next succeeds", async () => {
    const adminA = (await ts.loginAdmin(A)).access_token;
    // both of A's pool connections held: the pool is full before the budget is asked anything
    const a1 = await holdConnection(ts.kernel, A);
    const a2 = await holdConnection(ts.kernel, A);
    try {
      const started = Date.now();
      const res = await Promise.race([
        ts.request('GET', '/api/data/res.organization?limit=3', { token: adminA, headers: { 'x-tenant': A } }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still waiting for a connection of the full pool after 3 s')), 3_000)),
      ]);
      expectError(res, 503, 'DATABASE_BUSY');
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error.details).toMatchObject({ reason: 'pool_full', retry_after_seconds: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      // a write, through Prisma's driver adapter
      const write = await ts.request('POST', '/api/data/res.organization', { token: adminA, body: { name: 'Pool Full Org' }, headers: { 'x-tenant': A } });
      expectError(write, 503, 'DATABASE_BUSY');
      expect(write.headers['retry-after']).toBe('1');
    } finally {
      a1.release();
      a2.release();
      await Promise.all([a1.done, a2.done]);
    }
    const ok = await ts.request('GET', '/api/data/res.organization?limit=3', { token: adminA, headers: { 'x-tenant': A } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('the same exhaustion answers GraphQL with HTTP 503, errors[0].extensions.code DATABASE_BUSY and Retry-After; the next query succeeds', async () => {
    const gql = () => ts.request('POST', '/graphql', {
      token, body: { query: '{ resUsers(limit: 1) { id } }' },
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    });
    const a = await holdConnection(ts.kernel, A);
    const b = await holdConnection(ts.kernel, B);
    try {
      const res = await gql();
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body.errors[0].extensions.code).toBe('DATABASE_BUSY');
      expect(res.headers['retry-after']).toBe('1');
    } finally {
      a.release();
      b.release();
      await Promise.all([a.done, b.done]);
    }
    const ok = await gql();
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.errors).toBeUndefined();
  });
});

describe('PostgreSQL refusing a connection itself (SQLSTATE 53300)', () => {
  // a role of its own with a connection limit: superusers are exempt from PostgreSQL's limits
  const role = `fwt_${crypto.randomBytes(4).toString('hex')}_role`;
  let ts: TestServer;
  let token: string;

  beforeAll(async () => {
    await withPgClient(PG_URL, (c) => c.query(`CREATE ROLE ${role} LOGIN CREATEDB`));
    const url = new URL(PG_URL);
    url.username = role;
    url.password = '';
    ts = await startTestServer({ DATABASE_URL: url.toString(), PG_IDLE_TIMEOUT_MS: '0' }, { provider: 'postgresql' });
    token = (await ts.loginAdmin()).access_token;
  }, 120_000);
  afterAll(async () => {
    await ts?.close();
    await withPgClient(PG_URL, (c) => c.query(`DROP ROLE IF EXISTS ${role}`));
  });

  it('a request whose new connection PostgreSQL refuses ("too many connections", 53300) is answered 503 DATABASE_BUSY with Retry-After on REST and GraphQL, and succeeds once a connection is free', async () => {
    const tenant = ts.kernel.settings.DEFAULT_TENANT;
    const held = await holdConnection(ts.kernel, tenant);
    try {
      // the role may keep the connections it has, and open no more
      await withPgClient(PG_URL, async (c) => {
        const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1', [role]);
        await c.query(`ALTER ROLE ${role} CONNECTION LIMIT ${Number(rows[0]!.n)}`);
      });
      const slots = ts.kernel.tenants.budget!.inUse();
      const rest = await ts.request('GET', '/api/data/res.user', { token });
      expectError(rest, 503, 'DATABASE_BUSY');
      expect(rest.body.error.details).toMatchObject({ reason: 'server_full' });
      // the refused connection gave its slot of the budget back
      expect(ts.kernel.tenants.budget!.inUse()).toBe(slots);
      expect(rest.headers['retry-after']).toBe('1');
      const gql = await ts.request('POST', '/graphql', {
        token, body: { query: '{ resUsers(limit: 1) { id } }' },
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      });
      expect(gql.status, JSON.stringify(gql.body)).toBe(503);
      expect(gql.body.errors[0].extensions.code).toBe('DATABASE_BUSY');
      expect(gql.headers['retry-after']).toBe('1');
      const write = await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Refused Org' } });
      expectError(write, 503, 'DATABASE_BUSY');
    } finally {
      held.release();
      await held.done;
    }
    // the held connection is idle again: the request takes it, no new connection needed
    const ok = await ts.request('GET', '/api/data/res.user', { token });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await withPgClient(PG_URL, (c) => c.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`));
  });
});
