/**
 * The two caches of SessionService.authenticate (src/apps/auth/services/sessions.ts): verified
 * access tokens (a token's signature is checked once, its expiry on every use) and verified
 * sessions (trusted for AUTH_SESSION_CACHE_SECONDS unless this process drops them). Dropping is
 * scoped: revoking a user's sessions drops that user's entries in that tenant only.
 *
 * One real kernel behind the real server (SQLite files), with a second tenant holding the same
 * user (same record_uuid), as a system import that keeps ids creates it. Each test builds a
 * SessionService of its own on that kernel, so its caches hold only what the test put there.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import { SessionService } from '../../src/apps/auth/services/sessions.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { anonymousPrincipal, systemPrincipal } from '../../src/kernel/env.ts';
import { decodeJwt, rand, startTestServer, type TestServer, type TokenPair } from '../helpers/server.ts';

const PASSWORD = 'cache-pass-1';

let t: TestServer;
let admin: string;
beforeAll(async () => {
  // a cache window far longer than the tests: an entry leaves the cache only when dropped
  t = await startTestServer({ AUTH_SESSION_CACHE_SECONDS: '600' });
  admin = (await t.loginAdmin()).access_token;
  await t.provisionTenant('other');
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A session service of its own on the test kernel: empty caches. */
const freshService = async () => new SessionService(t.kernel, (await authServices(t.kernel)).sessions.jwt);

async function newUser(): Promise<{ id: string; email: string }> {
  const email = `cache-${rand()}@example.com`;
  const user = await t.createUser(admin, { email, password: PASSWORD });
  return { id: user.id as string, email };
}

/** The same user (same record_uuid) in tenant "other", and a login of it there. */
async function loginInOther(u: { id: string; email: string }): Promise<TokenPair> {
  await t.kernel.dispatch('fw.create', { model: 'res.user', record_uuid: u.id, values: { email: u.email, name: 'Copied user' } }, systemPrincipal('other'));
  const { sessions } = await authServices(t.kernel);
  const client = await t.kernel.tenants.get('other');
  return t.kernel.execute(client, anonymousPrincipal('other'), (env) => sessions.issue(env, { id: u.id, role: 'user' }), false);
}

/** Ends sessions the way another server process does: rows only, no cache here is told. */
async function revokeElsewhere(tenant: string, where: Record<string, unknown>): Promise<void> {
  const db = await t.kernel.tenants.get(tenant);
  const r = await delegateOf(db, t.kernel.registry.model('ir.session')).updateMany({
    where: { ...where, revoked: false }, data: { revoked: true, revoked_reason: 'logout', revoked_at: new Date() },
  });
  expect(r.count).toBeGreaterThan(0);
}

describe('verified access tokens', () => {
  it('a token verified once is not verified again while unexpired: one signature check for repeated use', async () => {
    const s = await freshService();
    const a = await t.loginAdmin();
    const b = await t.loginAdmin();
    const decode = vi.spyOn(s.jwt, 'decode');
    for (let i = 0; i < 3; i++) await s.authenticate(a.access_token);
    expect(decode).toHaveBeenCalledTimes(1);
    await s.authenticate(b.access_token);
    expect(decode).toHaveBeenCalledTimes(2);
  });

  it('a verified token is TOKEN_EXPIRED from the second of its exp on, however recently it was verified; a millisecond earlier it is accepted', async () => {
    const s = await freshService();
    const pair = await t.loginAdmin();
    const { exp, sid } = decodeJwt(pair.access_token).payload as { exp: number; sid: string };
    await s.authenticate(pair.access_token);
    vi.useFakeTimers({ toFake: ['Date'], now: exp * 1000 - 1 });
    await expect(s.authenticate(pair.access_token)).resolves.toMatchObject({ sid });
    vi.setSystemTime(exp * 1000);
    await expect(s.authenticate(pair.access_token)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });
});

describe('dropping cached sessions', () => {
  it('revoking a user\'s sessions drops only that user\'s cached sessions in that tenant: another user\'s, and the same user id\'s in another tenant, stay trusted for the cache window', async () => {
    const u = await newUser();
    const v = await newUser();
    const mine = await t.login(u.email, PASSWORD);
    const otherUser = await t.login(v.email, PASSWORD);
    const otherTenant = await loginInOther(u);
    const s = await freshService();
    for (const p of [mine, otherUser, otherTenant]) await s.authenticate(p.access_token);

    // ended elsewhere, unseen here: only a dropped cache entry would show it
    await revokeElsewhere('default', { user_id: v.id });
    await revokeElsewhere('other', { user_id: u.id });
    expect(await s.revokeAllForUser(await t.kernel.tenants.get('default'), 'default', u.id, 'revoke_all')).toBe(1);

    await expect(s.authenticate(mine.access_token)).rejects.toMatchObject({ code: 'TOKEN_INVALID', message: 'the session has ended' });
    await expect(s.authenticate(otherUser.access_token)).resolves.toMatchObject({ user_id: v.id, tenant_id: 'default' });
    await expect(s.authenticate(otherTenant.access_token)).resolves.toMatchObject({ user_id: u.id, tenant_id: 'other' });
  });
});
