/**
 * Several instances (issue 27 §6): three real `fw serve` processes on one PostgreSQL server and
 * one Redis, on 127.0.0.1, set up as docs/operations.md says (same keys, one DATABASE_URL, one
 * REDIS_URL, shared storage), each with a data folder of its own as on separate machines:
 *
 * - A and B upload to the S3 default backend (STORAGE_DEFAULT_BACKEND_KIND=s3, s3rver); C keeps
 *   the local default in the folder all three share (STORAGE_LOCAL_ROOT) and has the S3 settings
 *   to read the bucket;
 * - every instance runs its event worker with a short lease (EVENT_LEASE_SECONDS=2) and sweep
 *   (EVENT_SWEEP_INTERVAL_MS=250), and a small connection budget (PG_MAX_CONNECTIONS_PER_PROCESS=4,
 *   PG_CONNECTION_WAIT_MS=500) so it can be exhausted on purpose.
 *
 * The servers are shared by the cases, which run in order: the last one kills C with SIGKILL.
 * Everything is stopped and the run's databases dropped in afterAll, whatever failed.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { wsClient, wsSubscribe } from '../helpers/api.ts';
import { S3_KEY, S3_SECRET, startS3, type S3Sink } from '../connectors/helpers.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, cluster, sleep, type Cluster, type Instance } from './cluster.ts';

const LEASE_S = 2;
const SWEEP_MS = 250;
/** What the issue asks of a revocation on another instance. */
const REVOKED_WITHIN_MS = 1_000;
/**
 * Scheduling and the drain itself on a shared, loaded CI machine, on top of a bound (a drain of
 * 15 deliveries took 1.5 s at a load average of 12 on 2 vCPU). Without the sweep nothing would be
 * delivered at all until an unrelated write: the 30 s give-up is far from any of these bounds.
 */
const SLACK_MS = 4_000;

let s3: S3Sink | undefined;
let c: Cluster | undefined;
let A: Instance;
let B: Instance;
let C: Instance;
let db: pg.Client;
let admin: string;

const login = async (on: Instance, email = ADMIN_EMAIL, password = ADMIN_PASSWORD) => {
  const r = await on.request('POST', '/api/auth/login', { body: { email, password } });
  expect(r.status, `login on ${on.name}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body as { access_token: string; refresh_token: string };
};
const me = (on: Instance, token: string) => on.request('GET', '/api/auth/me', { token });
const sidOf = (access: string): string => JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString('utf8')).sid;
const family = async (sid: string) => (await db.query<{ dbid: number; revoked_reason: string | null }>(
  'SELECT dbid, revoked_reason FROM ir_session WHERE family_id = $1 ORDER BY dbid', [sid])).rows.map((r) => r.revoked_reason ?? 'live');
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

beforeAll(async () => {
  s3 = await startS3('fw-multi-instance');
  c = cluster({
    EVENT_LEASE_SECONDS: String(LEASE_S), EVENT_SWEEP_INTERVAL_MS: String(SWEEP_MS), EVENT_POLL_INTERVAL_MS: '100',
    PG_MAX_CONNECTIONS_PER_PROCESS: '4', PG_CONNECTION_WAIT_MS: '500',
    STORAGE_S3_BUCKET: s3.bucket, STORAGE_S3_ENDPOINT: s3.endpoint, STORAGE_S3_ACCESS_KEY_ID: S3_KEY, STORAGE_S3_SECRET_ACCESS_KEY: S3_SECRET, STORAGE_S3_PREFIX: 'fw/',
  });
  const shared = path.join(c.root, 'shared-files');
  // A first: it creates, migrates and seeds the tenant; the others open it as it is
  A = await c.start('a', { STORAGE_DEFAULT_BACKEND_KIND: 's3', STORAGE_LOCAL_ROOT: shared });
  [B, C] = await Promise.all([
    c.start('b', { STORAGE_DEFAULT_BACKEND_KIND: 's3', STORAGE_LOCAL_ROOT: shared }),
    c.start('c', { STORAGE_LOCAL_ROOT: shared }),
  ]);
  db = await c.db();
  admin = (await login(A)).access_token;
}, 180_000);

afterAll(async () => {
  try {
    // SIGKILL ends a paused process too
    await c?.stop();
  } finally {
    await s3?.close();
  }
}, 60_000);

describe('several fw processes on one PostgreSQL and one Redis', () => {
  it(`a logout on A refuses the access token on B within ${REVOKED_WITHIN_MS} ms though B had it cached (100 trials, printed)`, async () => {
    const u = await A.request('POST', '/api/data/res.user', { token: admin, body: { name: 'Walker', email: 'walker@example.com', password: 'walker-pass-1' } });
    expect(u.status, JSON.stringify(u.body)).toBe(201);
    const took: number[] = [];
    for (let i = 0; i < 100; i++) {
      const { access_token: token } = await login(B, 'walker@example.com', 'walker-pass-1');
      expect((await me(B, token)).status).toBe(200); // B has the session cached now
      const since = Date.now();
      expect((await A.request('POST', '/api/auth/logout', { token })).status).toBe(200);
      let refused = Infinity;
      while (Date.now() - since < 3_000) {
        if ((await me(B, token)).status === 401) { refused = Date.now() - since; break; }
        await sleep(5);
      }
      took.push(refused);
    }
    took.sort((x, y) => x - y);
    console.log(`[multi-instance] logout on A → refused on B over ${took.length} trials: p50 ${quantile(took, 0.5)} ms, p99 ${quantile(took, 0.99)} ms, max ${took.at(-1)} ms`);
    expect(took.at(-1)).toBeLessThan(REVOKED_WITHIN_MS);
  }, 90_000);

  it('one refresh token sent to A and B at once is rotated once: one 200, the others 401 TOKEN_INVALID, and no other token of the login stays live', async () => {
    for (let round = 0; round < 3; round++) {
      const pair = await login(A);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? B : A).request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } })));
      const ok = results.filter((r) => r.status === 200);
      expect(ok, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('TOKEN_INVALID');
      }
      // a loser that read the row after the winner rotated it is reuse, which revokes the login
      // (the winner's pair too): either way at most the winner's token is live
      const rows = await family(sidOf(pair.access_token));
      expect(rows.filter((r) => r === 'live').length).toBeLessThanOrEqual(1);
      expect(rows.filter((r) => r === 'rotated')).toHaveLength(1);
    }
  });

  it('retries of one lost rotation sent with its retry key to A and B at once leave exactly one live token, usable on both instances, and no reuse', async () => {
    const KEY = `retry-${crypto.randomBytes(12).toString('hex')}`;
    const pair = await login(B);
    expect((await A.request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token, retry_key: KEY } })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? A : B).request('POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token, retry_key: KEY } })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expect([r.status, r.body.error.code]).toEqual([401, 'TOKEN_INVALID']);
    const rows = await family(sidOf(pair.access_token));
    expect(rows).not.toContain('reuse_detected');
    expect(rows.filter((r) => r === 'live')).toHaveLength(1);
    const usable = [];
    for (const r of ok) {
      if ((await me(A, r.body.access_token)).status === 200 && (await me(B, r.body.access_token)).status === 200) usable.push(r);
    }
    expect(usable).toHaveLength(1);
    expect((await B.request('POST', '/api/auth/refresh', { body: { refresh_token: usable[0]!.body.refresh_token } })).status).toBe(200);
  });

  it('graphql-ws subscribers on B and C receive a record created on A, and the client reload its event chain publishes', async () => {
    const clients = [wsClient(B.base, admin), wsClient(C.base, admin)];
    try {
      const changes = clients.map((cl) => wsSubscribe(cl, 'subscription { resOrganizationChanged { op id } }'));
      const reloads = clients.map((cl) => wsSubscribe(cl, 'subscription { clientReload }'));
      // the subscriptions are registered once a change made on their own instance arrives
      await expect.poll(async () => {
        await B.request('POST', '/api/data/res.organization', { token: admin, body: { name: `Warm ${crypto.randomBytes(3).toString('hex')}` } });
        await C.request('POST', '/api/data/res.organization', { token: admin, body: { name: `Warm ${crypto.randomBytes(3).toString('hex')}` } });
        return changes.every((s) => s.inbox.items.length > 0);
      }, { timeout: 20_000, interval: 300 }).toBe(true);

      const created = await A.request('POST', '/api/data/res.organization', { token: admin, body: { name: 'Made on A', code: `made-on-a-${crypto.randomBytes(3).toString('hex')}` } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      for (const s of changes) await s.inbox.waitFor((m) => m.data?.resOrganizationChanged?.id === id && m.data.resOrganizationChanged.op === 'create', `the create of ${id}`, 10_000);

      // a code change on A: its field_changed event is delivered by a worker (any instance's),
      // whose handler emits web.client.reload, published to the tenant's clients everywhere
      const slug = `moved-${crypto.randomBytes(3).toString('hex')}`;
      expect((await A.request('PATCH', `/api/data/res.organization/${id}`, { token: admin, body: { code: slug } })).status).toBe(200);
      for (const s of reloads) await s.inbox.waitFor((m) => JSON.stringify(m.data?.clientReload ?? {}).includes(slug), `the reload for ${slug}`, 15_000);
      for (const s of [...changes, ...reloads]) s.stop();
    } finally {
      for (const cl of clients) await cl.dispose();
    }
  }, 60_000);

  it('a file uploaded on A (S3 default backend) downloads on B and C; one uploaded on C (the shared local folder) downloads on A and B', async () => {
    const upload = async (on: Instance, bytes: Buffer, filename: string) => {
      const r = await on.request('POST', `/api/storage/documents?filename=${filename}`, { token: admin, raw: bytes });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body as { id: string; storage_backend: string; storage_key: string };
    };
    const onS3 = crypto.randomBytes(150_000);
    const d1 = await upload(A, onS3, 'on-a.bin');
    expect(d1.storage_backend).toBe('object_store_a');
    const local = crypto.randomBytes(90_000);
    const d2 = await upload(C, local, 'on-c.bin');
    expect(d2.storage_backend).toBe('local');
    for (const [doc, bytes, readers] of [[d1, onS3, [B, C]], [d2, local, [A, B]]] as const) {
      for (const on of readers) {
        const r = await on.request('GET', `/api/storage/documents/${doc.id}/download`, { token: admin });
        expect(r.status, `${on.name}: ${String(r.body).slice(0, 200)}`).toBe(200);
        expect(Buffer.compare(r.body as Buffer, bytes), `bytes of ${doc.id} on ${on.name}`).toBe(0);
      }
    }
  });

  it('a connection budget exhausted on purpose answers 503 DATABASE_BUSY with Retry-After, never 500, while another instance serves; everything answers once the pressure ends', async () => {
    const before = (await A.request('GET', '/api/data/res.organization?limit=1', { token: admin })).status;
    expect(before).toBe(200);
    // the test's own connection locks the table A's requests read: each holds one of A's 4
    // connections waiting for it, the rest wait PG_CONNECTION_WAIT_MS (500 ms) for one
    await db.query('BEGIN');
    await db.query('LOCK TABLE res_organization IN ACCESS EXCLUSIVE MODE');
    let locked = true;
    try {
      // distinct reads (offsets): identical ones would share one query of the read cache
      const burst = Array.from({ length: 12 }, (_, i) => A.request('GET', `/api/data/res.organization?limit=5&offset=${i}`, { token: admin }));
      await sleep(1_500);
      // another instance is not held up by A's budget
      expect((await B.request('GET', '/api/data/res.country?limit=3', { token: admin })).status).toBe(200);
      await db.query('ROLLBACK');
      locked = false;
      const results = await Promise.all(burst);
      const statuses = results.map((r) => r.status);
      console.log(`[multi-instance] 12 requests on A, its connections held by a lock: ${JSON.stringify(results.map((r) => (r.status === 503 ? `503 ${r.body.error.details?.reason}` : r.status)))}`);
      expect(statuses.every((s) => s === 200 || s === 503), JSON.stringify(statuses)).toBe(true);
      const busy = results.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
      for (const r of busy) {
        expect(r.body.error.code).toBe('DATABASE_BUSY');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    } finally {
      if (locked) await db.query('ROLLBACK');
    }
    const after = await Promise.all(Array.from({ length: 8 }, (_, i) => A.request('GET', `/api/data/res.organization?limit=4&offset=${i}`, { token: admin })));
    expect(after.map((r) => r.status)).toEqual(Array(8).fill(200));
  }, 60_000);

  it(`after kill -9 of C mid-delivery, the survivors deliver what C committed within one sweep, and what it had claimed after its ${LEASE_S} s lease, within one sweep more`, async () => {
    type Row = { dbid: number; status: string; locked_until: Date | null; delivered_at: Date | null };
    const rows = async () => (await db.query<Row>('SELECT dbid, status, locked_until, delivered_at FROM ir_event ORDER BY dbid')).rows;
    const token = (await login(C)).access_token;
    const org = await C.request('POST', '/api/data/res.organization', { token, body: { name: 'Moving Org', code: 'moving-0' } });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    await expect.poll(async () => (await rows()).every((r) => r.status === 'done'), { timeout: 15_000 }).toBe(true);
    const known = new Set((await rows()).map((r) => r.dbid));

    // A and B paused while C takes a burst of changes: what C claims is C's alone
    A.child.kill('SIGSTOP');
    B.child.kill('SIGSTOP');
    let paused = true;
    try {
      let n = 0;
      let stop = false;
      const writers = Array.from({ length: 4 }, async () => {
        while (!stop) {
          const i = ++n;
          await C.request('PATCH', `/api/data/res.organization/${org.body.id}`, { token, body: { code: `moving-${i}` } }).catch(() => undefined);
        }
      });
      // kill C as soon as it holds claimed deliveries (and has committed some more). Deliveries
      // are quick, so C is frozen first (SIGSTOP takes effect at once) and the rows read again:
      // only a C still holding claims while frozen is killed, else it resumes and we look again
      const holds = (mine: Row[]) => mine.some((r) => r.status === 'processing') && mine.some((r) => r.status === 'pending');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const mine = (await rows()).filter((r) => !known.has(r.dbid));
        if (holds(mine) && n > 20) {
          C.child.kill('SIGSTOP');
          await sleep(100); // what C had already sent reaches PostgreSQL
          if (holds((await rows()).filter((r) => !known.has(r.dbid)))) break;
          C.child.kill('SIGCONT');
        }
        if (Date.now() > deadline) throw new Error(`C never held claimed and pending deliveries at once: ${JSON.stringify(mine.map((r) => r.status))}`);
        await sleep(5);
      }
      await C.kill9();
      const killed = Date.now();
      stop = true;
      await Promise.all(writers);

      const left = (await rows()).filter((r) => !known.has(r.dbid) && r.status !== 'done');
      const leased = left.filter((r) => r.status === 'processing');
      expect(leased.length).toBeGreaterThan(0);
      expect(left.some((r) => r.status === 'pending')).toBe(true);
      const leaseEnd = new Map(leased.map((r) => [r.dbid, r.locked_until!]));

      A.child.kill('SIGCONT');
      B.child.kill('SIGCONT');
      paused = false;
      const resumed = Date.now();
      let allDone = 0;
      let pendingDone = 0;
      for (;;) {
        const now = (await rows()).filter((r) => !known.has(r.dbid));
        const open = now.filter((r) => r.status !== 'done');
        if (!pendingDone && now.filter((r) => left.some((l) => l.dbid === r.dbid && l.status === 'pending')).every((r) => r.status === 'done')) pendingDone = Date.now();
        if (open.length === 0) { allDone = Date.now(); break; }
        expect(open.every((r) => r.status === 'pending' || r.status === 'processing'), JSON.stringify(open)).toBe(true);
        if (Date.now() - killed > 30_000) throw new Error(`undelivered 30 s after the kill: ${JSON.stringify(open)}`);
        await sleep(50);
      }
      const final = new Map((await rows()).map((r) => [r.dbid, r]));
      // a lease is honoured: nothing C had claimed is delivered before its lease has run out
      for (const [dbid, until] of leaseEnd) expect(final.get(dbid)!.delivered_at!.getTime()).toBeGreaterThanOrEqual(until.getTime());
      const lastLease = Math.max(...[...leaseEnd.values()].map((d) => d.getTime()));
      console.log(`[multi-instance] kill -9 of C with ${leased.length} claimed and ${left.length - leased.length} pending deliveries: pending done ${pendingDone - resumed} ms after the survivors resumed, all done ${allDone - killed} ms after the kill (lease ${LEASE_S} s, sweep ${SWEEP_MS} ms)`);
      expect(pendingDone - resumed).toBeLessThan(SWEEP_MS + SLACK_MS);
      expect(allDone - killed).toBeLessThan(LEASE_S * 1000 + SWEEP_MS + SLACK_MS);
      expect(lastLease - killed).toBeLessThanOrEqual(LEASE_S * 1000);

      // every code change C committed reached web.client.reload (the chain went on on A and B)
      const committed = (await db.query<{ code: string }>("SELECT payload->>'new_value' AS code FROM ir_event WHERE name = 'res.organization.field_changed' AND payload->>'field' = 'code'")).rows.map((r) => r.code);
      const reloaded = new Set((await db.query<{ slug: string }>("SELECT payload->>'new_slug' AS slug FROM ir_event WHERE name = 'web.client.reload'")).rows.map((r) => r.slug));
      for (const code of committed) expect(reloaded.has(code), `web.client.reload for ${code}`).toBe(true);
    } finally {
      if (paused) {
        A.child.kill('SIGCONT');
        B.child.kill('SIGCONT');
      }
    }
  }, 90_000);
});
