/**
 * The fuzzer's server: a real kernel and Fastify app in this process (driven with `inject`, no
 * port), three tenants (`default`, `fuzz` — the one the fuzzer's own tokens and ids belong to —
 * and `other`, whose tokens and ids are the "foreign" ones), fixture users and records, and a
 * probe on the `fuzz` tenant's database that counts every committed row change (a trigger per
 * table), so "a refused request changes nothing" is checked exactly, per request.
 *
 * No vitest import: `bench/fuzz.ts` uses this file too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { Kernel } from '../../src/kernel/kernel.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { buildServer } from '../../src/server/index.ts';
import { registerSortKey } from '../../src/kernel/data/collation.ts';

export type Provider = 'sqlite' | 'postgresql';

export const PG_URL = process.env.FW_TEST_PG_URL || process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'fuzz-admin-pass-1';
/**
 * The fuzz server's signing key, random per process as an operator's would be (the public
 * placeholder is refused at boot): forged tokens are signed with it, so their claims are what is
 * tested, not their signature.
 */
export const FUZZ_JWT_KEY = crypto.randomBytes(32).toString('base64url');
export const FUZZ_TENANT = 'fuzz';
export const OTHER_TENANT = 'other';
/** Fixture logins come from this address, fuzzed logins from others (the per-address throttle stays on). */
const FIXTURE_ADDRESS = '10.250.250.250';

/** One generated HTTP request, printable and replayable. */
export interface FuzzRequest {
  /** The OpenAPI operation or GraphQL root field it was derived from, e.g. `GET /api/data/{model}` or `gql Query.resUsers`. */
  target: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A string, or raw bytes (invalid UTF-8 and the like). */
  body?: string | Buffer;
  /** Client address the server sees. */
  remoteAddress?: string;
  /** Which credential was sent (`admin`, `user`, `foreign-tenant`, `forged:expired`, …), for the report. */
  auth: string;
  /** A long-lived stream is a correct answer (SSE, subscriptions): a timeout is not a hang. */
  mayStream?: boolean;
  /** The auth level of the route the request was derived from (none for odd paths). */
  routeAuth?: 'public' | 'optional' | 'user';
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  /** The body's bytes as sent. */
  raw?: Buffer;
  json?: unknown;
  /** No answer within the time limit. */
  timedOut?: boolean;
  ms: number;
}

export interface Principal { token: string; userId: string; email: string; password: string; org: string | null }

export interface Fixtures {
  admin: Principal;
  userA: Principal;
  userB: Principal;
  otherAdmin: Principal;
  orgA: string;
  orgB: string;
  /** Ids of every model, by model key, in the fuzz tenant (grows as the fuzzer creates records). */
  ids: Record<string, string[]>;
  /** Ids of every model in the other tenant. */
  foreignIds: Record<string, string[]>;
  /** A refresh token of a fuzz-tenant login (its family is expendable). */
  refreshToken: string;
  /** A sid and user id of the fuzz tenant's admin session, for forged tokens. */
  adminSid: string;
  viewIds: string[];
  emails: string[];
}

/** Committed row changes of the fuzz tenant, by table. */
export type ChangeCounts = Record<string, number>;

export interface Probe {
  /** Current committed change counters (one row per table that ever changed). */
  changes(): Promise<ChangeCounts>;
  rows<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  tables: string[];
  close(): Promise<void>;
}

export interface FuzzHarness {
  server: FastifyInstance;
  kernel: Kernel;
  provider: Provider;
  dataDir: string;
  sandbox: string;
  fixtures: Fixtures;
  probe: Probe;
  send(req: FuzzRequest, timeoutMs?: number): Promise<FuzzResponse>;
  /** GET /health, /api/base/ping (admin) and `{ __typename }`: the server is alive and serving. */
  ping(): Promise<string | null>;
  /** Logs the fixture principals in again (and repairs them as the system) when the fuzzer ended their sessions. */
  repairFixtures(): Promise<void>;
  /** Re-reads the id pools (records the fuzzer created join them; deleted ones stay as stale ids). */
  refreshIds(): Promise<void>;
  tenants(): Promise<string[]>;
  close(): Promise<void>;
}

const rand = (n = 4) => crypto.randomBytes(n).toString('hex');

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Row-change counters by trigger: SQLite (a second connection on the tenant file). */
function sqliteProbe(file: string): Probe {
  const db = registerSortKey(new Database(file));
  db.pragma('busy_timeout = 10000');
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_%' ESCAPE '\\'`).all() as { name: string }[])
    .map((r) => r.name).filter((t) => t !== 'fz_changes');
  db.exec('CREATE TABLE IF NOT EXISTS fz_changes (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  for (const t of tables) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      db.exec(`CREATE TRIGGER IF NOT EXISTS "fz_${t}_${op.toLowerCase()}" AFTER ${op} ON "${t}" BEGIN
        INSERT INTO fz_changes (tbl, n) VALUES ('${t}', 1) ON CONFLICT (tbl) DO UPDATE SET n = n + 1; END`);
    }
  }
  const read = db.prepare('SELECT tbl, n FROM fz_changes');
  return {
    tables,
    async changes() {
      return Object.fromEntries((read.all() as { tbl: string; n: number }[]).map((r) => [r.tbl, Number(r.n)]));
    },
    async rows<T>(sql: string) {
      return db.prepare(sql).all() as T[];
    },
    async close() {
      db.close();
    },
  };
}

/** The same on PostgreSQL: a row-level trigger per table and a plpgsql counter function. */
async function postgresProbe(url: string): Promise<Probe> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = (await client.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE '\\_%' AND tablename <> 'fz_changes'`)).rows.map((r) => r.tablename);
  await client.query('CREATE TABLE IF NOT EXISTS fz_changes (tbl text PRIMARY KEY, n bigint NOT NULL)');
  await client.query(`CREATE OR REPLACE FUNCTION fz_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO fz_changes (tbl, n) VALUES (TG_TABLE_NAME, 1) ON CONFLICT (tbl) DO UPDATE SET n = fz_changes.n + 1; RETURN NULL; END $$`);
  for (const t of tables) {
    await client.query(`DROP TRIGGER IF EXISTS "fz_${t}" ON "${t}"`);
    await client.query(`CREATE TRIGGER "fz_${t}" AFTER INSERT OR UPDATE OR DELETE ON "${t}" FOR EACH ROW EXECUTE FUNCTION fz_count()`);
  }
  return {
    tables,
    async changes() {
      const { rows } = await client.query<{ tbl: string; n: string }>('SELECT tbl, n FROM fz_changes');
      return Object.fromEntries(rows.map((r) => [r.tbl, Number(r.n)]));
    },
    async rows<T>(sql: string) {
      return (await client.query(sql)).rows as T[];
    },
    async close() {
      await client.end();
    },
  };
}

export interface StartOptions {
  provider?: Provider;
  /** Extra settings. */
  settings?: Record<string, string>;
}

export async function startFuzzServer(opts: StartOptions = {}): Promise<FuzzHarness> {
  const provider = opts.provider ?? 'sqlite';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-fuzz-'));
  // connector roots and the like that name relative paths land here, not in the repository
  const sandbox = path.join(dataDir, 'cwd');
  fs.mkdirSync(sandbox);
  const pgPrefix = `fwz_${rand()}_`;
  const webDist = path.resolve('web/dist');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    ACTIVE_MODULES: 'base,auth,presentation,connectors,storage',
    ACTIVE_DOMAINS: 'crm',
    BCRYPT_COST: '4',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    JWT_SECRET_KEY: FUZZ_JWT_KEY,
    CONNECTOR_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
    WEB_CLIENT_DIR: fs.existsSync(path.join(webDist, 'index.html')) ? webDist : '',
    // throttling itself is tested in tests/auth; here a delay per failed login would only slow the
    // run down and lock the fixture accounts out
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '1000000',
    LOGIN_SLOWDOWN_AFTER: '1000000',
    LOGIN_IP_SLOWDOWN_AFTER: '1000000',
    // a connection test against a host that does not answer gives up quickly
    CONNECTOR_TEST_TIMEOUT_MS: '1500',
    // small enough that the fuzzer reaches them
    STORAGE_MAX_UPLOAD_BYTES: String(256 * 1024),
    HTTP_BODY_LIMIT_BYTES: String(512 * 1024),
    ...(provider === 'postgresql' ? { DATABASE_URL: PG_URL, PG_DATABASE_PREFIX: pgPrefix } : {}),
    ...opts.settings,
  });
  const kernel = await Kernel.boot({ settings, worker: false, log: () => {} });
  let server: FastifyInstance;
  try {
    server = await buildServer(kernel);
    // provisioned the way an operator would (`fw tenant create`): no request creates a tenant
    for (const t of [settings.DEFAULT_TENANT, FUZZ_TENANT, OTHER_TENANT]) await kernel.tenants.get(t);
  } catch (err) {
    await kernel.close();
    throw err;
  }
  const previousCwd = process.cwd();
  process.chdir(sandbox);

  const send = async (r: FuzzRequest, timeoutMs = 20_000): Promise<FuzzResponse> => {
    const started = performance.now();
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<FuzzResponse>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve({ status: 0, headers: {}, body: '', timedOut: true, ms: performance.now() - started });
      }, timeoutMs);
    });
    const answer = server.inject({
      method: r.method as 'GET',
      url: r.url,
      headers: r.headers,
      ...(r.body !== undefined ? { payload: r.body } : {}),
      remoteAddress: r.remoteAddress ?? '127.0.0.1',
      signal: abort.signal,
      // odd methods ('Post', 'QUERY') go through as a client would send them
      validate: false,
    }).then((res) => ({ status: res.statusCode, headers: res.headers as Record<string, unknown>, body: res.body, raw: res.rawPayload, json: parseBody(res.body), ms: performance.now() - started }));
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const call = async (method: string, url: string, token?: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await server.inject({
      method: method as 'GET', url, remoteAddress: FIXTURE_ADDRESS,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, json: parseBody(res.body) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const must = async (method: string, url: string, token?: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await call(method, url, token, body, headers);
    if (res.status >= 300) throw new Error(`fuzz fixture: ${method} ${url} answered ${res.status} ${JSON.stringify(res.json)}`);
    return res.json;
  };
  const login = async (tenant: string, email: string, password: string) =>
    (await must('POST', '/api/auth/login', undefined, { email, password }, { 'x-tenant': tenant })) as { access_token: string; refresh_token: string };
  const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { sub: string; sid: string };

  // ---- fixtures
  const adminPair = await login(FUZZ_TENANT, ADMIN_EMAIL, ADMIN_PASSWORD);
  const adminToken = adminPair.access_token;
  const orgA = (await must('POST', '/api/data/res.organization', adminToken, { name: 'Fuzz Org A', code: 'fuzz-a' })).id as string;
  const orgB = (await must('POST', '/api/data/res.organization', adminToken, { name: 'Fuzz Org B', code: 'fuzz-b' })).id as string;
  const users = {
    userA: { email: 'fuzz-a@example.com', password: 'fuzz-user-pass-a', org: orgA },
    userB: { email: 'fuzz-b@example.com', password: 'fuzz-user-pass-b', org: orgB },
  };
  const userIds: Record<string, string> = {};
  for (const [k, u] of Object.entries(users)) {
    userIds[k] = (await must('POST', '/api/data/res.user', adminToken, { email: u.email, name: k, password: u.password, role: 'user', organization: u.org })).id;
  }
  const userA = await login(FUZZ_TENANT, users.userA.email, users.userA.password);
  const userB = await login(FUZZ_TENANT, users.userB.email, users.userB.password);
  // a second admin session whose refresh token the fuzzer may burn
  const spare = await login(FUZZ_TENANT, ADMIN_EMAIL, ADMIN_PASSWORD);

  // records of every kind, in both organizations of the fuzz tenant and in the other tenant
  const seedRecords = async (token: string, org: string | null, tag: string) => {
    await must('POST', '/api/data/crm.lead', token, { name: `Lead ${tag}`, ...(org ? { organization: org } : {}), expected_revenue: 1000, probability: 0.5 });
    await must('POST', '/api/data/crm.lead', token, { name: `Lead ${tag} 2`, ...(org ? { organization: org } : {}), stage: 'qualified' });
    const folder = (await must('POST', '/api/data/storage.folder', token, { name: `Folder ${tag}` })).id as string;
    await must('POST', '/api/data/storage.folder', token, { name: `Sub ${tag}`, parent: folder });
    await must('POST', '/api/storage/documents', token, { filename: `notes-${tag}.txt`, content_b64: Buffer.from(`hello ${tag}`).toString('base64'), folder });
    await must('POST', '/api/storage/documents', token, { filename: `loose-${tag}.md`, content_b64: Buffer.from(`# ${tag}`).toString('base64') });
  };
  await seedRecords(userA.access_token, orgA, 'a');
  await seedRecords(userB.access_token, orgB, 'b');
  const connector = await must('POST', '/api/connectors', adminToken, { name: 'Fuzz local', category: 'storage', provider_type: 'local', organization_id: orgA });
  await must('POST', `/api/connectors/${connector.id}/import-config`, adminToken, { json_data: { root: 'connector-root' } });
  await must('POST', '/api/connectors', adminToken, { name: 'Fuzz hook', category: 'messaging', provider_type: 'webhook', organization_id: orgB });

  const otherPair = await login(OTHER_TENANT, ADMIN_EMAIL, ADMIN_PASSWORD);
  const otherOrg = (await must('POST', '/api/data/res.organization', otherPair.access_token, { name: 'Other Org', code: 'other-org' })).id as string;
  await seedRecords(otherPair.access_token, otherOrg, 'other');

  const views = await must('GET', '/api/presentation/views', adminToken);
  const fixtures: Fixtures = {
    admin: { token: adminToken, userId: claims(adminToken).sub, email: ADMIN_EMAIL, password: ADMIN_PASSWORD, org: null },
    userA: { token: userA.access_token, userId: userIds.userA, email: users.userA.email, password: users.userA.password, org: orgA },
    userB: { token: userB.access_token, userId: userIds.userB, email: users.userB.email, password: users.userB.password, org: orgB },
    otherAdmin: { token: otherPair.access_token, userId: claims(otherPair.access_token).sub, email: ADMIN_EMAIL, password: ADMIN_PASSWORD, org: null },
    orgA, orgB,
    ids: {},
    foreignIds: {},
    refreshToken: spare.refresh_token,
    adminSid: claims(adminToken).sid,
    viewIds: (views as { view_id: string }[]).map((v) => v.view_id),
    emails: [ADMIN_EMAIL, users.userA.email, users.userB.email],
  };

  const modelKeys = [...kernel.registry.models.keys()];
  const idsOf = async (token: string, model: string): Promise<string[]> => {
    const res = await call('GET', `/api/data/${model}?limit=40&fields=id&order=dbid%20desc`, token);
    return res.status === 200 ? (res.json.items as { id: string }[]).map((r) => r.id) : [];
  };
  const refreshIds = async () => {
    for (const m of modelKeys) {
      const fresh = await idsOf(fixtures.admin.token, m);
      fixtures.ids[m] = [...new Set([...fresh, ...(fixtures.ids[m] ?? [])])].slice(0, 80);
      if (!fixtures.foreignIds[m]) fixtures.foreignIds[m] = await idsOf(fixtures.otherAdmin.token, m);
    }
  };
  await refreshIds();

  // ---- the change probe on the fuzz tenant's database
  const probe = provider === 'sqlite'
    ? sqliteProbe(path.join(settings.DATA_DIR, 'tenants', `${FUZZ_TENANT}.db`))
    : await postgresProbe(PG_URL.replace(/\/[^/?]*(\?|$)/, `/${pgPrefix}${FUZZ_TENANT}$1`));

  const alive = async (token: string) => (await call('GET', '/api/base/ping', token)).status === 200;
  /**
   * Puts a fixture user back as the system: the fuzzer may have changed its email, password, role
   * or organization, deactivated or deleted it. An email taken meanwhile is replaced by a fresh one.
   */
  const repairUser = async (tenant: string, p: Principal, role: string) => {
    const system = systemPrincipal(tenant);
    const find = async (domain: unknown[]) =>
      (await kernel.dispatch<{ items: { id: string }[] }>('fw.search', { model: 'res.user', domain, fields: ['id'], limit: 1 }, system)).items[0]?.id;
    if (p.org && !(await kernel.dispatch<{ items: unknown[] }>('fw.search', { model: 'res.organization', domain: [['record_uuid', '=', p.org]], fields: ['id'], limit: 1 }, system)).items.length) {
      p.org = null; // its organization was deleted: the user goes on without one
    }
    const id = (await find([['record_uuid', '=', p.userId]])) ?? (await find([['email', '=', p.email]]));
    const values = () => ({ email: p.email, is_active: true, role, organization: p.org });
    if (id) {
      p.userId = id;
      await kernel.dispatch('fw.update', { model: 'res.user', id, values: values() }, system).catch(async () => {
        p.email = `fuzz-${rand()}@example.com`;
        await kernel.dispatch('fw.update', { model: 'res.user', id, values: values() }, system);
      });
      await kernel.dispatch('res.user.set_password', { id, password: p.password }, system);
    } else {
      const register = () => kernel.dispatch<{ id: string }>('res.user.register', { email: p.email, name: p.email.split('@')[0], password: p.password, role, organization: p.org }, system);
      p.userId = (await register().catch(() => {
        p.email = `fuzz-${rand()}@example.com`;
        return register();
      })).id;
    }
  };

  const harness: FuzzHarness = {
    server, kernel, provider, dataDir, sandbox, fixtures, probe,
    send,
    async ping() {
      const health = await call('GET', '/health');
      if (health.status !== 200) return `GET /health answered ${health.status}`;
      if (!(await alive(fixtures.admin.token))) {
        await harness.repairFixtures();
        if (!(await alive(fixtures.admin.token))) return 'GET /api/base/ping with a fresh admin token did not answer 200';
      }
      const g = await call('POST', '/graphql', undefined, { query: '{ __typename }' });
      if (g.status !== 200 || g.json?.data?.__typename !== 'Query') return `POST /graphql { __typename } answered ${g.status} ${JSON.stringify(g.json)}`;
      return null;
    },
    async repairFixtures() {
      const entries: [keyof Fixtures & ('admin' | 'userA' | 'userB'), string][] = [['admin', 'admin'], ['userA', 'user'], ['userB', 'user']];
      for (const [k, role] of entries) {
        const p = fixtures[k];
        if (await alive(p.token)) continue;
        await repairUser(FUZZ_TENANT, p, role);
        p.token = (await login(FUZZ_TENANT, p.email, p.password)).access_token;
      }
      if (!(await alive(fixtures.otherAdmin.token))) {
        await repairUser(OTHER_TENANT, fixtures.otherAdmin, 'admin');
        fixtures.otherAdmin.token = (await login(OTHER_TENANT, fixtures.otherAdmin.email, fixtures.otherAdmin.password)).access_token;
      }
      fixtures.adminSid = claims(fixtures.admin.token).sid;
      // a fresh refresh token each time: the fuzzer spends (or revokes) the previous one; the
      // admin's email or password may have changed while its session lived on
      const spare = await login(FUZZ_TENANT, fixtures.admin.email, fixtures.admin.password).catch(async () => {
        await repairUser(FUZZ_TENANT, fixtures.admin, 'admin');
        return login(FUZZ_TENANT, fixtures.admin.email, fixtures.admin.password);
      });
      fixtures.refreshToken = spare.refresh_token;
    },
    refreshIds,
    tenants: () => kernel.tenants.list(),
    async close() {
      process.chdir(previousCwd);
      await probe.close().catch(() => undefined);
      try {
        if (provider === 'postgresql') for (const t of await kernel.tenants.list()) await kernel.tenants.drop(t);
      } finally {
        await server.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  return harness;
}
