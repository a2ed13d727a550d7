/**
 * Refresh rules of SessionService.rotate and retry (src/apps/auth/services/sessions.ts) the other
 * refresh tests leave open: the message of each refusal (it reaches the client), the instant a
 * refresh token expires, the claim that lets exactly one of two simultaneous rotations win, a
 * refresh by a user who is no longer active or no longer exists, and the retry edge cases (a
 * retry of a rotation that was refused, a successor row that is gone, two retries at once).
 * One real kernel behind the real server (SQLite files); time is frozen with vitest's fake Date
 * where a rule is about an exact instant.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import { sha256 } from '../../src/apps/auth/services/sessions.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { anonymousPrincipal } from '../../src/kernel/env.ts';
import { FwError } from '../../src/kernel/errors.ts';
import { decodeJwt, expectError, rand, startTestServer, type Res, type TestServer, type TokenPair } from '../helpers/server.ts';

const KEY = 'k'.repeat(24) + '0123456789abcdef';
const PASSWORD = 'refresh-pass-1';
const REUSE = 'refresh token reuse detected; the session has been revoked';

let t: TestServer;
let admin: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const refresh = (refresh_token: string, retry_key?: string) =>
  t.request('POST', '/api/auth/refresh', { body: retry_key === undefined ? { refresh_token } : { refresh_token, retry_key } });
/** The same refresh through the command bus, as the REST route and GraphQL run it. */
const dispatchRefresh = (refresh_token: string, retry_key?: string) =>
  t.kernel.dispatch<TokenPair>('auth.refresh', retry_key === undefined ? { refresh_token } : { refresh_token, retry_key }, anonymousPrincipal('default'));

/** A refusal as the client sees it: 401 TOKEN_INVALID with this message. */
function refused(res: Res, message: string): void {
  expectError(res, 401, 'TOKEN_INVALID');
  expect(res.body.error.message).toBe(message);
}

const sidOf = (access: string) => decodeJwt(access).payload.sid as string;
/** The rows of one login, oldest first: their revoked_reason, or "live". */
const family = async (sid: string) => (await t.sessionRows()).filter((r) => r.family_id === sid).map((r) => (r.revoked ? r.revoked_reason : 'live'));
const delegate = async (model: string) => delegateOf(await t.kernel.tenants.get('default'), t.kernel.registry.model(model));

async function newUser(): Promise<{ id: string; email: string }> {
  const email = `refresh-${rand()}@example.com`;
  const user = await t.createUser(admin, { email, password: PASSWORD });
  return { id: user.id as string, email };
}

/** Sets is_active = false in the database only (a bulk edit, another tool): no hook revokes the sessions first. */
async function deactivateInDb(userId: string): Promise<void> {
  await (await delegate('res.user')).updateMany({ where: { record_uuid: userId }, data: { is_active: false } });
}

describe('refusal messages', () => {
  it('an unknown refresh token of a known tenant is TOKEN_INVALID "unknown refresh token"', async () => {
    const pair = await t.loginAdmin();
    const [tenant, secret] = pair.refresh_token.split('.');
    refused(await refresh(`${tenant}.${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`), 'unknown refresh token');
  });

  it('a rotated refresh token presented again is TOKEN_INVALID "refresh token reuse detected; the session has been revoked"', async () => {
    const pair = await t.loginAdmin();
    expect((await refresh(pair.refresh_token)).status).toBe(200);
    refused(await refresh(pair.refresh_token), REUSE);
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated', 'reuse_detected']);
  });
});

describe('expiry of a refresh token', () => {
  it('a refresh token is expired from the millisecond of its expires_at on ("refresh token expired"); a millisecond earlier it still rotates', async () => {
    const early = await t.loginAdmin();
    const onTime = await t.loginAdmin();
    const at = Date.now() + 3_600_000;
    const sessions = await delegate('ir.session');
    for (const p of [early, onTime]) {
      await sessions.updateMany({ where: { refresh_token_hash: sha256(p.refresh_token) }, data: { expires_at: new Date(at) } });
    }
    vi.useFakeTimers({ toFake: ['Date'], now: at - 1 });
    expect((await refresh(early.refresh_token)).status).toBe(200);
    vi.setSystemTime(at);
    refused(await refresh(onTime.refresh_token), 'refresh token expired');
    // refused before anything was claimed: the row is untouched
    expect(await family(sidOf(onTime.access_token))).toEqual(['live']);
  });
});

describe('two rotations of the same token at once', () => {
  it('exactly one gets the new pair; the other, which found the token still live, is TOKEN_INVALID "refresh token already used" and the login goes on', async () => {
    const pair = await t.loginAdmin();
    const results = await Promise.allSettled([dispatchRefresh(pair.refresh_token), dispatchRefresh(pair.refresh_token)]);
    const won = results.filter((r): r is PromiseFulfilledResult<TokenPair> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toBeInstanceOf(FwError);
    expect(lost[0].reason).toMatchObject({ code: 'TOKEN_INVALID', message: 'refresh token already used' });
    // the loser was not taken for reuse: the login keeps its one new live token, which works
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated', 'live']);
    expect((await refresh(won[0].value.refresh_token)).status).toBe(200);
  });
});

describe('a refresh by a user who is not active', () => {
  it('a user made inactive (in the database only) gets TOKEN_INVALID "the user is inactive", no new pair, and the rest of the login is revoked as user_inactive', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, PASSWORD);
    const sid = sidOf(pair.access_token);
    // a second live refresh token in the same login (issue() into an existing family)
    const { sessions } = await authServices(t.kernel);
    const client = await t.kernel.tenants.get('default');
    const second = await t.kernel.execute(client, anonymousPrincipal('default'), (env) => sessions.issue(env, { id: u.id, role: 'user' }, sid), false);
    await deactivateInDb(u.id);

    refused(await refresh(pair.refresh_token), 'the user is inactive');
    expect(await family(sid)).toEqual(['rotated', 'user_inactive']);
    refused(await refresh(second.refresh_token), 'the session has been revoked');
    refused(await t.request('GET', '/api/auth/me', { token: pair.access_token }), 'the session has ended');
  });

  it('deleting a user through the API ends its logins at once: access token "the session has ended", refresh "the session has been revoked" (user_deleted)', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, PASSWORD);
    // cached in this process: the delete must drop it, not wait for AUTH_SESSION_CACHE_SECONDS
    expect((await t.request('GET', '/api/auth/me', { token: pair.access_token })).status).toBe(200);
    const del = await t.request('DELETE', `/api/data/res.user/${u.id}`, { token: admin });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    refused(await t.request('GET', '/api/auth/me', { token: pair.access_token }), 'the session has ended');
    refused(await refresh(pair.refresh_token), 'the session has been revoked');
    expect(await family(sidOf(pair.access_token))).toEqual(['user_deleted']);
  });

  it('nobody deletes their own user: 409 SELF_DELETE "you cannot delete your own user; another admin can", and the session goes on', async () => {
    const pair = await t.loginAdmin();
    const me = (await t.request('GET', '/api/auth/me', { token: pair.access_token })).body.id as string;
    const del = await t.request('DELETE', `/api/data/res.user/${me}`, { token: pair.access_token });
    expectError(del, 409, 'SELF_DELETE');
    expect(del.body.error.message).toBe('you cannot delete your own user; another admin can');
    expect((await t.request('GET', `/api/data/res.user/${me}`, { token: pair.access_token })).status).toBe(200);
  });

  it('a user row removed behind the API (another tool) refuses its tokens with TOKEN_INVALID "the user is inactive"', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, PASSWORD);
    await (await delegate('res.user')).deleteMany({ where: { record_uuid: u.id } });
    refused(await t.request('GET', '/api/auth/me', { token: pair.access_token }), 'the user is inactive');
    refused(await refresh(pair.refresh_token), 'the user is inactive');
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated']);
  });
});

describe('retries: edge cases', () => {
  it('ending one login (logout) or all of another user\'s (revoke-all) leaves the retries of other logins alone', async () => {
    const pair = await t.loginAdmin();
    // the answer to this rotation is "lost": its retry must still work after the others end
    expect((await refresh(pair.refresh_token, KEY)).status).toBe(200);
    const other = await t.login((await newUser()).email, PASSWORD);
    expect((await t.request('POST', '/api/auth/logout', { token: other.access_token })).status).toBe(200);
    const third = await newUser();
    const thirds = await t.login(third.email, PASSWORD);
    expect((await t.request('POST', '/api/command/ir.session.revoke_all', { token: admin, body: { user_id: third.id } })).body).toEqual({ revoked: 1 });
    expectError(await t.request('GET', '/api/auth/me', { token: thirds.access_token }), 401, 'TOKEN_INVALID');
    const retried = await refresh(pair.refresh_token, KEY);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated', 'superseded', 'live']);
  });

  it('a rotation that claimed its token but never issued the successor (the process stopped between the two writes) is completed by its retry', async () => {
    const pair = await t.loginAdmin();
    const sid = sidOf(pair.access_token);
    // the claim as rotate() writes it, and nothing after it
    const sessions = await delegate('ir.session');
    const claimed = await sessions.updateMany({
      where: { refresh_token_hash: sha256(pair.refresh_token), revoked: false },
      data: { revoked: true, revoked_reason: 'rotated', revoked_at: new Date(), rotation_key_hash: sha256(KEY) },
    });
    expect(claimed.count).toBe(1);
    const retried = await refresh(pair.refresh_token, KEY);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(sidOf(retried.body.access_token)).toBe(sid);
    expect(await family(sid)).toEqual(['rotated', 'live']);
  });

  it('a rotation refused because the user is inactive ends the login: its retry is refused, even once the user is active again', async () => {
    const u = await newUser();
    const pair = await t.login(u.email, PASSWORD);
    await deactivateInDb(u.id);
    refused(await refresh(pair.refresh_token, KEY), 'the user is inactive');
    // the refusal revoked the login, so the refused rotation is no retry any more
    refused(await refresh(pair.refresh_token, KEY), REUSE);
    // reactivated within the retry window: the dead login stays dead (a retry used to issue a
    // successor into it, and the old access token worked again)
    await (await delegate('res.user')).updateMany({ where: { record_uuid: u.id }, data: { is_active: true } });
    refused(await refresh(pair.refresh_token, KEY), REUSE);
    expectError(await t.request('GET', '/api/auth/me', { token: pair.access_token }), 401, 'TOKEN_INVALID');
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated']);
  });

  it('a logout ends the retries of its login: a lost refresh retried after the logout issues nothing', async () => {
    const pair = await t.loginAdmin();
    const next = await refresh(pair.refresh_token, KEY);
    expect(next.status).toBe(200);
    expect((await t.request('POST', '/api/auth/logout', { token: next.body.access_token })).status).toBe(200);
    refused(await refresh(pair.refresh_token, KEY), REUSE);
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated', 'logout']);
  });

  it('a retry whose successor row is gone from the database is reuse ("refresh token reuse detected; …") and ends the login', async () => {
    const pair = await t.loginAdmin();
    const next = await refresh(pair.refresh_token, KEY);
    expect(next.status).toBe(200);
    const gone = await (await delegate('ir.session')).deleteMany({ where: { refresh_token_hash: sha256(next.body.refresh_token) } });
    expect(gone.count).toBe(1);
    refused(await refresh(pair.refresh_token, KEY), REUSE);
    refused(await t.request('GET', '/api/auth/me', { token: pair.access_token }), 'the session has ended');
  });

  it('two retries of one lost rotation at once: one gets a new pair, the other TOKEN_INVALID "this refresh was already retried"; the login goes on', async () => {
    const pair = await t.loginAdmin();
    expect((await refresh(pair.refresh_token, KEY)).status).toBe(200);
    const results = await Promise.allSettled([dispatchRefresh(pair.refresh_token, KEY), dispatchRefresh(pair.refresh_token, KEY)]);
    const won = results.filter((r): r is PromiseFulfilledResult<TokenPair> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toMatchObject({ code: 'TOKEN_INVALID', message: 'this refresh was already retried' });
    expect(await family(sidOf(pair.access_token))).toEqual(['rotated', 'superseded', 'live']);
    expect((await refresh(won[0].value.refresh_token)).status).toBe(200);
  });
});
