/**
 * SessionService.watch (src/apps/auth/services/sessions.ts), the session watcher behind open
 * streams (graphql-ws, SSE): which principals it watches, which streams a revocation re-checks
 * (that session's or that user's, in that tenant only), what a re-check ends a stream for, that
 * `onEnd` comes once and never after stop(), and the expiry timer. tests/auth/stream-revocation
 * drives the transports end to end; here the watcher is driven directly.
 *
 * One real kernel (SQLite files) with a second tenant holding the same user (same record_uuid),
 * as a system import that keeps ids creates it. Each test watches with a SessionService of its
 * own on that kernel (empty caches: every re-check reads the database); principals come from the
 * kernel's own service, as the transports get them.
 */
import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import { SessionService } from '../../src/apps/auth/services/sessions.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { anonymousPrincipal, systemPrincipal, type Principal } from '../../src/kernel/env.ts';
import { FwError } from '../../src/kernel/errors.ts';
import { decodeJwt, rand, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

const PASSWORD = 'watch-pass-1';
const ENDED = 'the session has ended';

let t: TestServer;
let admin: string;
beforeAll(async () => {
  // a cache window (and so a periodic re-check) far longer than the tests: only what a test does re-checks a stream
  t = await startTestServer({ AUTH_SESSION_CACHE_SECONDS: '600' });
  admin = (await t.loginAdmin()).access_token;
  await t.provisionTenant('other');
});
const stops: Array<() => void> = [];
afterEach(() => {
  vi.useRealTimers();
  for (const stop of stops.splice(0)) stop();
});
afterAll(async () => {
  await t?.close();
});

interface User { id: string; email: string }
const sidOf = (access: string) => decodeJwt(access).payload.sid as string;
const kernelSessions = async () => (await authServices(t.kernel)).sessions;
/** A session service of its own on the test kernel: empty caches, only the test's watchers. */
const freshService = async () => new SessionService(t.kernel, (await kernelSessions()).jwt);
const db = (tenant = 'default') => t.kernel.tenants.get(tenant);
/** Lets re-checks already under way finish (each is a few database reads). */
const settle = () => new Promise((r) => setTimeout(r, 300));
/** vi.waitFor with room for a loaded machine. */
const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

async function newUser(organization?: string): Promise<User> {
  const email = `watch-${rand()}@example.com`;
  const user = await t.createUser(admin, { email, password: PASSWORD, ...(organization ? { organization } : {}) });
  return { id: user.id as string, email };
}
const login = (u: User) => t.login(u.email, PASSWORD);

/** The same user (same record_uuid) in tenant "other". */
async function copyToOther(u: User): Promise<void> {
  await t.kernel.dispatch('fw.create', { model: 'res.user', record_uuid: u.id, values: { email: u.email, name: 'Copied user' } }, systemPrincipal('other'));
}

/** A login of `u` in `tenant`, into `familyId` when given (SessionService.issue). */
async function issue(tenant: string, u: User, familyId?: string): Promise<TokenPair> {
  const sessions = await kernelSessions();
  return t.kernel.execute(await db(tenant), anonymousPrincipal(tenant), (env) => sessions.issue(env, { id: u.id, role: 'user' }, familyId), false);
}

/** Ends sessions the way another server process does: rows only, no cache or watcher here is told. */
async function revokeElsewhere(tenant: string, where: Record<string, unknown>): Promise<void> {
  const r = await delegateOf(await db(tenant), t.kernel.registry.model('ir.session')).updateMany({
    where: { ...where, revoked: false }, data: { revoked: true, revoked_reason: 'logout', revoked_at: new Date() },
  });
  expect(r.count).toBeGreaterThan(0);
}

/** Watches `token` as `principal`; `reasons` collects every onEnd call. */
function watch(s: SessionService, token: string, principal: Principal): { reasons: string[]; stop: () => void } {
  const reasons: string[] = [];
  const stop = s.watch(token, principal, (reason) => reasons.push(reason));
  stops.push(stop);
  return { reasons, stop };
}

/** A token of the session of `token`, signed with the server's key, expiring at `exp` (seconds). */
function tokenExpiringAt(token: string, exp: number): Promise<string> {
  const c = decodeJwt(token).payload;
  return new jose.SignJWT({ tenant_id: c.tenant_id, role: c.role, sid: c.sid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(c.sub)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(t.jwtKey));
}

describe('what is watched', () => {
  it('only a user principal with a session is watched: one without sid or user, or of another kind, is never ended, even when its session is revoked', async () => {
    const u = await newUser();
    const pair = await login(u);
    const p = await (await kernelSessions()).authenticate(pair.access_token);
    const s = await freshService();
    const unwatched: Principal[] = [
      { ...p, sid: undefined },
      { ...p, user_id: null },
      { ...p, kind: 'system' },
      { ...p, kind: 'anonymous' },
      systemPrincipal('default'),
      anonymousPrincipal('default'),
    ];
    const quiet = unwatched.map((principal) => watch(s, pair.access_token, principal));
    const watched = watch(s, pair.access_token, p);

    expect(await s.revokeAllForUser(await db(), 'default', u.id, 'revoke_all')).toBe(1);
    await s.revokeFamily(await db(), 'default', p.sid!, 'logout');
    await waitFor(() => expect(watched.reasons).toEqual([ENDED]));
    await settle();
    expect(quiet.map((w) => w.reasons)).toEqual(unwatched.map(() => []));
  });
});

describe('which streams a revocation re-checks', () => {
  it('revoking one session (logout) re-checks only that session\'s streams in that tenant: not another login of the user, not the same session id in another tenant', async () => {
    const u = await newUser();
    await copyToOther(u);
    const mine = await login(u);
    const sid = sidOf(mine.access_token);
    const otherLogin = await login(u);
    const otherTenant = await issue('other', u, sid);
    const kernel = await kernelSessions();
    const principals = await Promise.all([mine, otherLogin, otherTenant].map((pair) => kernel.authenticate(pair.access_token)));
    expect(principals.map((p) => [p.tenant_id, p.sid])).toEqual([['default', sid], ['default', sidOf(otherLogin.access_token)], ['other', sid]]);
    // the two others were ended elsewhere: a re-check would end their streams at once
    await revokeElsewhere('default', { family_id: sidOf(otherLogin.access_token) });
    await revokeElsewhere('other', { family_id: sid });

    const s = await freshService();
    const [a, b, c] = [mine, otherLogin, otherTenant].map((pair, i) => watch(s, pair.access_token, principals[i]));
    expect(await s.revokeFamily(await db(), 'default', sid, 'logout')).toBe(1);
    await waitFor(() => expect(a.reasons).toEqual([ENDED]));
    await settle();
    expect(b.reasons).toEqual([]);
    expect(c.reasons).toEqual([]);
  });

  it('revoking a user\'s sessions re-checks only that user\'s streams in that tenant: not another user\'s, not the same user id\'s in another tenant', async () => {
    const u = await newUser();
    const v = await newUser();
    await copyToOther(u);
    const mine = await login(u);
    const otherUser = await login(v);
    const otherTenant = await issue('other', u);
    const kernel = await kernelSessions();
    const principals = await Promise.all([mine, otherUser, otherTenant].map((pair) => kernel.authenticate(pair.access_token)));
    await revokeElsewhere('default', { user_id: v.id });
    await revokeElsewhere('other', { user_id: u.id });

    const s = await freshService();
    const [a, b, c] = [mine, otherUser, otherTenant].map((pair, i) => watch(s, pair.access_token, principals[i]));
    expect(await s.revokeAllForUser(await db(), 'default', u.id, 'revoke_all')).toBe(1);
    await waitFor(() => expect(a.reasons).toEqual([ENDED]));
    await settle();
    expect(b.reasons).toEqual([]);
    expect(c.reasons).toEqual([]);
  });
});

describe('what a re-check ends a stream for', () => {
  it('a re-check that finds role and organization unchanged leaves the stream open; one that finds another role or organization ends it: "the user\'s role, groups or organization changed"', async () => {
    const users = delegateOf(await db(), t.kernel.registry.model('res.user'));
    const org = await t.createOrg(admin, `Watch ${rand()}`);
    const kernel = await kernelSessions();
    const s = await freshService();

    const u = await newUser(org);
    const pair = await login(u);
    const stream = watch(s, pair.access_token, await kernel.authenticate(pair.access_token));
    s.forgetUser('default', u.id);
    // the re-check above started first; once this read is done, so is it
    await s.authenticate(pair.access_token);
    await settle();
    expect(stream.reasons).toEqual([]);

    await users.updateMany({ where: { record_uuid: u.id }, data: { role: 'qa' } });
    s.forgetUser('default', u.id);
    await waitFor(() => expect(stream.reasons).toEqual(['the user\'s role, groups or organization changed']));

    const v = await newUser(org);
    const vPair = await login(v);
    const vStream = watch(s, vPair.access_token, await kernel.authenticate(vPair.access_token));
    const elsewhere = await t.createOrg(admin, `Elsewhere ${rand()}`);
    await users.updateMany({ where: { record_uuid: v.id }, data: { organization: elsewhere } });
    s.forgetUser('default', v.id);
    await waitFor(() => expect(vStream.reasons).toEqual(['the user\'s role, groups or organization changed']));
  });

  it('a re-check that fails on the database (not a refused token) leaves the stream open; the next re-check decides', async () => {
    await t.provisionTenant('hiccup');
    const u = await newUser();
    await t.kernel.dispatch('fw.create', { model: 'res.user', record_uuid: u.id, values: { email: u.email, name: 'Hiccup user' } }, systemPrincipal('hiccup'));
    const pair = await issue('hiccup', u);
    const s = await freshService();
    const watched = watch(s, pair.access_token, await (await kernelSessions()).authenticate(pair.access_token));

    const hiccup = await db('hiccup');
    await hiccup.$executeRaw`ALTER TABLE ir_session RENAME TO ir_session_away`;
    try {
      s.forgetUser('hiccup', u.id);
      // the same read the re-check makes: it fails, and not with a token refusal
      const err = await s.authenticate(pair.access_token).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(FwError);
      await settle();
      expect(watched.reasons).toEqual([]);
    } finally {
      await hiccup.$executeRaw`ALTER TABLE ir_session_away RENAME TO ir_session`;
    }

    await revokeElsewhere('hiccup', { user_id: u.id });
    s.forgetUser('hiccup', u.id);
    await waitFor(() => expect(watched.reasons).toEqual([ENDED]));
  });
});

describe('onEnd', () => {
  it('is called once, however many re-checks find the session ended', async () => {
    const u = await newUser();
    const pair = await login(u);
    const s = await freshService();
    const stream = watch(s, pair.access_token, await (await kernelSessions()).authenticate(pair.access_token));
    await revokeElsewhere('default', { user_id: u.id });
    // three re-checks under way at once, all of which will find the session ended
    s.forgetUser('default', u.id);
    s.forgetUser('default', u.id);
    s.forgetSession('default', sidOf(pair.access_token));
    await expect(s.authenticate(pair.access_token)).rejects.toMatchObject({ message: ENDED });
    await settle();
    expect(stream.reasons).toEqual([ENDED]);
  });

  it('is not called after stop(), even by a re-check that was already under way', async () => {
    const u = await newUser();
    const pair = await login(u);
    const s = await freshService();
    const stream = watch(s, pair.access_token, await (await kernelSessions()).authenticate(pair.access_token));
    await revokeElsewhere('default', { user_id: u.id });
    s.forgetUser('default', u.id);
    stream.stop();
    await expect(s.authenticate(pair.access_token)).rejects.toMatchObject({ message: ENDED });
    await settle();
    expect(stream.reasons).toEqual([]);
  });
});

describe('expiry', () => {
  it('a stream ends at its access token\'s exp, with "the access token has expired"', async () => {
    const pair = await login(await newUser());
    const now = Date.now();
    const exp = Math.floor(now / 1000) + 5;
    const token = await tokenExpiringAt(pair.access_token, exp);
    const principal = await (await kernelSessions()).authenticate(token);
    const s = await freshService();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now });
    const stream = watch(s, token, principal);
    vi.advanceTimersByTime(exp * 1000 - now - 1);
    expect(stream.reasons).toEqual([]);
    // the timer's delay is rounded up to a whole second: it fires within a second of exp
    vi.advanceTimersByTime(1000);
    expect(stream.reasons).toEqual(['the access token has expired']);
  });

  it('a token valid for longer than a timer can wait (2^31 − 1 ms, about 24.8 days) does not end its stream early', async () => {
    const pair = await login(await newUser());
    const token = await tokenExpiringAt(pair.access_token, Math.floor(Date.now() / 1000) + 30 * 86_400);
    const principal = await (await kernelSessions()).authenticate(token);
    const stream = watch(await freshService(), token, principal);
    await settle();
    expect(stream.reasons).toEqual([]);
  });
});
