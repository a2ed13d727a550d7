/**
 * The auth app's hook on `post.res.user.update` (src/apps/auth/index.ts): a deactivation revokes
 * the user's sessions; a change of role, organization or activity drops the user's cached
 * sessions (so the next request sees it) and makes open streams re-check. Any other change
 * leaves the cache alone: the user's next request is still answered without reading the
 * session. And the hook runs for every update command of res.user, not only the generic
 * fw.update: an app's own `res.user.update` command, which has no stored record before it,
 * goes through it untouched.
 * Real kernels and a real server on SQLite files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/apps/auth/services/sessions.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { anonymousPrincipal, systemPrincipal } from '../../src/kernel/env.ts';
import { countQueries } from '../helpers/api.ts';
import { bootTestKernel, fixtureApp, type TestKernel } from '../helpers/kernel.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, decodeJwt, rand, startTestServer, type TestServer } from '../helpers/server.ts';

/** The statements of `fn` that read or write the session table. */
async function sessionQueries(fn: () => Promise<unknown>): Promise<string[]> {
  const { queries } = await countQueries(fn);
  return queries.filter((q) => /ir_session/.test(q));
}

describe('which user changes drop the cached sessions', () => {
  let t: TestServer;
  let admin: string;

  beforeAll(async () => {
    // a cache window far longer than the test: only the hook can drop an entry
    t = await startTestServer({ AUTH_SESSION_CACHE_SECONDS: '600' });
    admin = (await t.loginAdmin()).access_token;
  });
  afterAll(async () => {
    await t?.close();
  });

  const me = (token: string) => t.request('GET', '/api/auth/me', { token });
  const patch = async (id: string, body: Record<string, unknown>) => {
    const res = await t.request('PATCH', `/api/data/res.user/${id}`, { token: admin, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('a change of name keeps the user\'s session cached: the next request reads no session; a change of role makes it read the session again', async () => {
    const email = `cache-${rand()}@example.com`;
    const user = await t.createUser(admin, { email, password: 'cache-pass-1' });
    const { access_token: token } = await t.login(email, 'cache-pass-1');
    expect((await me(token)).status).toBe(200);
    // warm: a second request reads no session
    expect(await sessionQueries(async () => expect((await me(token)).status).toBe(200))).toEqual([]);

    await patch(user.id as string, { name: 'Renamed' });
    expect(await sessionQueries(async () => expect((await me(token)).body.name).toBe('Renamed'))).toEqual([]);

    await patch(user.id as string, { role: 'qa' });
    const afterRole = await sessionQueries(async () => expect((await me(token)).body.role).toBe('qa'));
    expect(afterRole.length).toBeGreaterThan(0);
  });
});

describe('update commands of res.user other than fw.update', () => {
  let k: TestKernel;

  beforeAll(async () => {
    k = await bootTestKernel({
      apps: [fixtureApp('fixture_user_update', {
        commands: [{
          // a model command whose verb is "update": it runs the post.res.user.update hooks, with
          // no stored record before it (not a record command) and its JSON answer as the "after"
          name: 'res.user.update',
          model: 'res.user',
          op: 'update',
          internal: true,
          returns: 'json',
          handler: async () => ({ note: 'nothing stored' }),
        }],
      })],
    });
    await k.kernel.tenants.get('default');
  });
  afterAll(async () => {
    await k?.cleanup();
  });

  it('an app\'s own res.user.update command without a record before it passes the sessions hook and ends no session', async () => {
    const pair = await k.kernel.dispatch<TokenPair>('auth.login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, anonymousPrincipal('default'));
    const sid = decodeJwt(pair.access_token).payload.sid as string;

    expect(await k.kernel.dispatch('res.user.update', {}, systemPrincipal('default'))).toEqual({ note: 'nothing stored' });

    const db = await k.kernel.tenants.get('default');
    const rows = await delegateOf(db, k.kernel.registry.model('ir.session')).findMany({ where: { family_id: sid } });
    expect(rows.map((r) => [r.revoked, r.revoked_reason])).toEqual([[false, null]]);
  });
});
