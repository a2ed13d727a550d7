/**
 * Long-lived streams check their token when they open; afterwards they must not outlive their
 * session. For each transport — a graphql-ws subscription, a GraphQL subscription over SSE
 * (POST /graphql, Accept: text/event-stream) and the presentation app's event stream
 * (GET /api/presentation/events) — an open stream ends (and so stops delivering) after:
 *
 * - a logout of its session, a revoke-all of the user's sessions, the user's deactivation,
 *   the access token's expiry (no request needed: a timer at `exp`);
 * - a change of the user's role or organization (the stream runs with the principal it opened
 *   with; the same token reconnects and gets the new scope).
 *
 * The in-process server runs with a long session cache (AUTH_SESSION_CACHE_SECONDS=600), so a
 * stream that ends within the test's deadline was ended by the revocation itself, not by the
 * periodic re-check. The last block revokes a session the way another server process does
 * (database rows only, no cache drop here): the periodic re-check, every
 * AUTH_SESSION_CACHE_SECONDS (1 there), ends the stream.
 *
 * A bystander's stream of the same tenant stays open and keeps receiving throughout.
 */
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { Inbox, listen, readSseBlocks, sseSubscribe, wsClient, wsSubscribe } from '../helpers/api.ts';
import { decodeJwt, rand, startTestServer, type TestServer } from '../helpers/server.ts';

type Payload = { reason?: string };

interface Stream {
  /** clientReload / web.client.reload payloads received, in order */
  inbox: Inbox<Payload>;
  stop(): void;
}

interface Env {
  ts: TestServer;
  base: string;
}

/** What reconnecting with a token gives: a stream, or a refusal. */
type Opened = { ok: true; stream: Stream } | { ok: false; refusal: string };

/** Every stream a test opened, stopped in afterAll whatever happened. */
const opened: Array<() => void> = [];

/**
 * Waits until a freshly opened subscription delivers: publishes probe reloads until one arrives
 * (the server subscribes asynchronously after the request), or the stream ends (refused).
 */
async function probe(env: Env, inbox: Inbox<Payload>, ended: () => boolean): Promise<boolean> {
  const id = `probe-${rand()}`;
  const deadline = Date.now() + 8000;
  while (Date.now() < deadline) {
    if (ended()) return false;
    await env.ts.kernel.publish('default', 'client.reload', { reason: id });
    try {
      await inbox.waitFor((p) => p.reason === id, 'a probe', 100);
      return true;
    } catch { /* not subscribed yet, or ended */ }
  }
  throw new Error('the subscription neither delivered nor ended');
}

/** graphql-ws and yoga's SSE deliver `{ data: { clientReload } }`: keep the payloads only. */
function payloads(source: Inbox<{ data?: { clientReload: Payload } }>): { inbox: Inbox<Payload>; stop(): void } {
  const inbox = new Inbox<Payload>();
  const pump = setInterval(() => {
    while (inbox.items.length < source.items.length) inbox.push(source.items[inbox.items.length].data!.clientReload);
    if (source.done && !inbox.done) inbox.fail(source.error);
  }, 5);
  return { inbox, stop: () => clearInterval(pump) };
}

const TRANSPORTS: Record<string, (env: Env, token: string) => Promise<Opened>> = {
  async 'graphql-ws'(env, token) {
    const client = wsClient(env.base, token);
    const s = wsSubscribe<{ clientReload: Payload }>(client, 'subscription { clientReload }');
    const p = payloads(s.inbox);
    const stop = () => { p.stop(); s.stop(); void client.dispose(); };
    opened.push(stop);
    if (!(await probe(env, p.inbox, () => s.inbox.done))) {
      stop();
      return { ok: false, refusal: `closed: ${String((s.inbox.error as { code?: number })?.code ?? s.inbox.error)}` };
    }
    return { ok: true, stream: { inbox: p.inbox, stop } };
  },

  async 'GraphQL over SSE'(env, token) {
    const s = await sseSubscribe<{ clientReload: Payload }>(env.base, 'subscription { clientReload }', token);
    opened.push(s.stop);
    if (s.status !== 200) {
      s.stop();
      return { ok: false, refusal: `HTTP ${s.status}` };
    }
    const p = payloads(s.inbox);
    const stop = () => { p.stop(); s.stop(); };
    opened.push(stop);
    if (!(await probe(env, p.inbox, () => s.inbox.done))) throw new Error('the SSE subscription ended before delivering');
    return { ok: true, stream: { inbox: p.inbox, stop } };
  },

  async 'GET /api/presentation/events'({ base }, token) {
    const ctrl = new AbortController();
    opened.push(() => ctrl.abort());
    const res = await fetch(`${base}/api/presentation/events?access_token=${encodeURIComponent(token)}`, { signal: ctrl.signal });
    if (res.status !== 200) {
      ctrl.abort();
      return { ok: false, refusal: `HTTP ${res.status}` };
    }
    const inbox = new Inbox<Payload>();
    let connected!: () => void;
    const ready = new Promise<void>((r) => { connected = r; });
    void readSseBlocks(res.body!, (block) => {
      if (block.startsWith(': connected')) connected();
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
      if (/^event: web\.client\.reload$/m.test(block) && data) inbox.push(JSON.parse(data));
    }).then(() => inbox.finish(), () => inbox.finish());
    // the route subscribes to the tenant's topic before it answers, so `: connected` means listening
    await ready;
    return { ok: true, stream: { inbox, stop: () => ctrl.abort() } };
  },
};

async function open(env: Env, transport: string, token: string): Promise<Stream> {
  const o = await TRANSPORTS[transport](env, token);
  if (!o.ok) throw new Error(`${transport} refused: ${o.refusal}`);
  return o.stream;
}

/** What a stream received, readiness probes left out. */
const reasons = (s: Stream) => s.inbox.items.map((p) => p.reason).filter((r) => !r?.startsWith('probe-'));

/** Publishes a reload for the tenant and waits until `stream` has it. */
async function roundTrip(env: Env, stream: Stream, reason: string): Promise<void> {
  await env.ts.kernel.publish('default', 'client.reload', { reason });
  await stream.inbox.waitFor((p) => p.reason === reason, `the "${reason}" reload`);
}

/** An access token of the same session as `token`, expiring in `seconds` (signed with the server's key). */
async function expiringToken(token: string, seconds: number, jwtKey: string): Promise<string> {
  const { payload } = decodeJwt(token);
  const now = Math.floor(Date.now() / 1000);
  return new jose.SignJWT({ tenant_id: payload.tenant_id, role: payload.role, sid: payload.sid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(payload.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + seconds)
    .setJti(crypto.randomUUID())
    .sign(new TextEncoder().encode(jwtKey));
}

interface Case {
  /** what ends the session (or changes its scope), given the user's id and token */
  act(env: Env, admin: string, user: { id: string; token: string }): Promise<void>;
  /** the same token may open a stream again afterwards (scope changes) or is refused */
  reconnects: boolean;
  /** a stream opened with this token instead of the login's (expiry) */
  token?: (token: string, jwtKey: string) => Promise<string>;
}

const CASES: Record<string, Case> = {
  'logout': {
    reconnects: false,
    async act({ ts }, _admin, u) {
      expect((await ts.request('POST', '/api/auth/logout', { token: u.token })).status).toBe(200);
    },
  },
  'revoke-all by an admin': {
    reconnects: false,
    async act({ ts }, admin, u) {
      const res = await ts.request('POST', '/api/command/ir.session.revoke_all', { token: admin, body: { user_id: u.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  },
  'the user\'s deactivation': {
    reconnects: false,
    async act({ ts }, admin, u) {
      expect((await ts.request('POST', `/api/data/res.user/${u.id}/deactivate`, { token: admin })).status).toBe(200);
    },
  },
  'the access token\'s expiry': {
    reconnects: false,
    token: (t, key) => expiringToken(t, 5, key),
    async act() { /* nothing: the clock does it */ },
  },
  'a change of organization': {
    reconnects: true,
    async act({ ts }, admin, u) {
      const org = await ts.createOrg(admin, `Elsewhere ${rand()}`);
      expect((await ts.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { organization: org } })).status).toBe(200);
    },
  },
  'a change of role': {
    reconnects: true,
    async act({ ts }, admin, u) {
      expect((await ts.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { role: 'qa' } })).status).toBe(200);
    },
  },
};

describe('open streams end with their session (in-process revocations)', () => {
  const env = {} as Env;
  let admin: string;
  let org: string;
  const bystanders: Record<string, Stream> = {};

  beforeAll(async () => {
    // a cache window far longer than any wait below: only the revocation itself can end a stream in time
    env.ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation', AUTH_SESSION_CACHE_SECONDS: '600' });
    env.base = await listen(env.ts);
    admin = (await env.ts.loginAdmin()).access_token;
    org = await env.ts.createOrg(admin, 'Streams');
    const email = `bystander-${rand()}@example.com`;
    await env.ts.createUser(admin, { email, password: 'bystander-1', organization: org });
    const token = (await env.ts.login(email, 'bystander-1')).access_token;
    for (const transport of Object.keys(TRANSPORTS)) bystanders[transport] = await open(env, transport, token);
  });
  afterAll(async () => {
    for (const stop of opened.splice(0)) stop();
    await env.ts?.close();
  });

  for (const transport of Object.keys(TRANSPORTS)) {
    describe(transport, () => {
      for (const [what, c] of Object.entries(CASES)) {
        it(`${what} ends the stream; the bystander's stream goes on${c.reconnects ? '; the same token reconnects' : '; the token cannot reconnect'}`, async () => {
          const email = `streamer-${rand()}@example.com`;
          const user = await env.ts.createUser(admin, { email, password: 'streamer-1', organization: org });
          const login = (await env.ts.login(email, 'streamer-1')).access_token;
          const token = c.token ? await c.token(login, env.ts.jwtKey) : login;
          const stream = await open(env, transport, token);
          const tag = rand();
          await roundTrip(env, stream, `before-${tag}`);

          await c.act(env, admin, { id: user.id as string, token });
          await stream.inbox.ended(8000);
          stream.stop();

          // nothing more reaches it; the bystander still gets everything
          await roundTrip(env, bystanders[transport], `after-${tag}`);
          expect(reasons(stream)).toEqual([`before-${tag}`]);

          const again = await TRANSPORTS[transport](env, token);
          if (again.ok) again.stream.stop();
          expect(again.ok, again.ok ? 'reconnected' : again.refusal).toBe(c.reconnects);
          if (!again.ok) expect(again.refusal).toMatch(transport === 'graphql-ws' ? /closed: 4403/ : /HTTP 401/);
        });
      }
    });
  }
});

describe('open streams end when another process revokes the session (periodic re-check)', () => {
  const env = {} as Env;
  let admin: string;

  beforeAll(async () => {
    env.ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation', AUTH_SESSION_CACHE_SECONDS: '1' });
    env.base = await listen(env.ts);
    admin = (await env.ts.loginAdmin()).access_token;
  });
  afterAll(async () => {
    for (const stop of opened.splice(0)) stop();
    await env.ts?.close();
  });

  for (const transport of Object.keys(TRANSPORTS)) {
    it(`${transport}: a session revoked in the database only (as another server process does) ends the stream`, async () => {
      const email = `remote-${rand()}@example.com`;
      const user = await env.ts.createUser(admin, { email, password: 'remote-pass-1' });
      const token = (await env.ts.login(email, 'remote-pass-1')).access_token;
      const stream = await open(env, transport, token);
      await roundTrip(env, stream, `remote-before-${transport}`);

      // another process's logout: the rows change, this process's cache is not told
      const db = await env.ts.kernel.tenants.get('default');
      const { count } = await delegateOf(db, env.ts.kernel.registry.model('ir.session'))
        .updateMany({ where: { user_id: user.id, revoked: false }, data: { revoked: true, revoked_reason: 'logout', revoked_at: new Date() } });
      expect(count).toBe(1);

      await stream.inbox.ended(10_000);
      stream.stop();
      expect(reasons(stream)).toEqual([`remote-before-${transport}`]);
    });
  }
});
