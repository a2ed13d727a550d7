/**
 * fw behind PgBouncer in transaction pooling mode, as docs/configuration.md ("PgBouncer")
 * prescribes: one wildcard database entry (a database per tenant, created on the fly), a
 * non-superuser role in DATABASE_URL, `max_db_connections` capping each tenant's database and
 * `max_user_connections` the role's total on the server. Prisma's pg adapter sends unnamed
 * statements only, which transaction pooling supports without PgBouncer's prepared-statement
 * support (1.21+); the kernel's advisory locks are transaction-scoped. fw's reader names its
 * statements unless PG_STATEMENT_CACHE=0, as operations.md prescribes behind PgBouncer 1.18; the
 * server here keeps the default, so it also shows the reader turning to unnamed statements by
 * itself when the pooler refuses a named one.
 *
 * Runs Debian's `pgbouncer` (apt `pgbouncer`) on a free loopback port in front of the machine's
 * PostgreSQL; skipped where the binary is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPostgresReader } from '../../../src/kernel/db/readers/postgresql/index.ts';
import { PG_URL, tempDir, waitFor, withPgClient } from '../../helpers/kernel.ts';
import { freePort } from '../../helpers/team-project.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'].find((f) => fs.existsSync(f));

const canConnect = (port: number) => new Promise<boolean>((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
  s.on('error', () => resolve(false));
});

describe.skipIf(!BINARY)('fw behind PgBouncer (transaction pooling)', () => {
  const role = `fwt_${crypto.randomBytes(4).toString('hex')}_app`;
  const dir = tempDir('pgbouncer');
  let bouncer: ChildProcess | undefined;
  let ts: TestServer;
  let token: string;
  let bouncerPort: number;
  const MAX_USER = 4;

  beforeAll(async () => {
    await withPgClient(PG_URL, (c) => c.query(`CREATE ROLE ${role} LOGIN CREATEDB`));
    const server = new URL(PG_URL);
    const port = await freePort();
    bouncerPort = port;
    fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${role}" ""\n`);
    fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 2',
      'max_db_connections = 2',
      `max_user_connections = ${MAX_USER}`,
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'));
    fs.chmodSync(dir, 0o777);
    for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o666);
    // PgBouncer refuses to run as root: as the postgres user where the tests run as root
    const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    bouncer = spawn(BINARY!, [...asUser, path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
    await waitFor(() => canConnect(port), 'PgBouncer listening', 10_000, 50);
    ts = await startTestServer({
      DATABASE_URL: `postgresql://${role}@127.0.0.1:${port}/postgres`,
      PG_MAX_CONNECTIONS_PER_PROCESS: '20',
    }, { provider: 'postgresql' });
    token = (await ts.loginAdmin()).access_token;
  }, 120_000);

  afterAll(async () => {
    try {
      await ts?.close();
    } finally {
      bouncer?.kill('SIGTERM');
      await withPgClient(PG_URL, async (c) => {
        const { rows } = await c.query<{ datname: string }>('SELECT datname FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE r.rolname = $1', [role]);
        for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
        await c.query(`DROP ROLE IF EXISTS ${role}`);
      });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a tenant is created, migrated and seeded through PgBouncer by a role that is not a superuser, and answers logins, writes in transactions and reads on REST and GraphQL', async () => {
    const created = await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Bounced Inc', code: 'bounced' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const updated = await ts.request('PATCH', `/api/data/res.organization/${created.body.id}`, { token, body: { name: 'Bounced Ltd' } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const gql = await ts.request('POST', '/graphql', {
      token, body: { query: '{ resOrganizations(limit: 10) { id name } }' },
      headers: { 'content-type': 'application/json' },
    });
    expect(gql.status, JSON.stringify(gql.body)).toBe(200);
    expect(gql.body.data.resOrganizations.map((o: { name: string }) => o.name)).toContain('Bounced Ltd');
    const superuser = await withPgClient(PG_URL, async (c) => (await c.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = $1', [role])).rows[0]!.rolsuper);
    expect(superuser).toBe(false);
  });

  it('a burst of concurrent requests over two tenants all succeed while the server sees at most max_user_connections connections of the role', async () => {
    await ts.provisionTenant('bounced-two');
    const other = (await ts.loginAdmin('bounced-two')).access_token;
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const n = await withPgClient(PG_URL, async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1', [role])).rows[0]!.n));
        peak = Math.max(peak, n);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => i % 2
      ? ts.request('GET', '/api/data/res.user', { token })
      : ts.request('POST', '/api/data/res.organization', { token: other, body: { name: `Burst ${i}` } })));
    sampling = false;
    await sampler;
    expect(results.map((r) => r.status).filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(MAX_USER);
  });
  it('a reader that names its statements turns to unnamed ones after the pooler refused names POOLER_REFUSALS times, warns once, and every read answers right', async () => {
    const database = `${ts.kernel.settings.PG_DATABASE_PREFIX}default`;
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    // three connections of the client, two server connections behind them: at least two clients
    // prepare the same name on one server connection (42P05), or bind it on the other (26000)
    const pool = new pg.Pool({ connectionString: `postgresql://${role}@127.0.0.1:${bouncerPort}/${database}`, max: 3 });
    const reader = createPostgresReader(pool, { statementsPerConnection: 100 });
    try {
      const sql = 'SELECT count(*)::int FROM res_user WHERE email <> $1';
      const expected = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM res_user WHERE email <> $1', ['nobody'])).rows[0]!.n;
      const warnings = () => warn.mock.calls.filter(([, o]) => (o as { code?: string } | undefined)?.code === 'FW_PG_STATEMENTS_UNNAMED').length;
      // every refused read is repeated unnamed: rounds go on until the refusals turned naming off
      let rounds = 0;
      while (warnings() === 0 && rounds < 20) {
        rounds++;
        const all = await Promise.all(Array.from({ length: 6 }, () => reader.rows(sql, ['nobody'])));
        expect(all).toEqual(Array.from({ length: 6 }, () => [[expected]]));
      }
      expect(warnings()).toBe(1);
      // unnamed from then on: no refusal, no second warning
      for (let round = 0; round < 3; round++) {
        expect(await Promise.all(Array.from({ length: 6 }, () => reader.rows(sql, ['nobody'])))).toEqual(Array.from({ length: 6 }, () => [[expected]]));
      }
      expect(warnings()).toBe(1);
    } finally {
      warn.mockRestore();
      await reader.close();
    }
  });
});
