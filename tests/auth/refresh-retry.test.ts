/**
 * A refresh whose answer was lost (the page that sent it was unloaded) may be sent again with the
 * retry key it carried: within AUTH_REFRESH_RETRY_SECONDS, while the unseen successor is unused,
 * that is the same rotation repeated, not reuse. Everything else that presents a rotated token is
 * still reuse and revokes the login. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { decodeJwt, expectError, startTestServer, type TestServer } from '../helpers/server.ts';

const KEY = 'a'.repeat(24) + '0123456789abcdef';
const OTHER_KEY = 'b'.repeat(24) + '0123456789abcdef';

for (const provider of ['sqlite', 'postgresql'] as const) {
  describe(`refresh retries (${provider})`, () => {
    let t: TestServer;
    beforeAll(async () => { t = await startTestServer({ PG_POOL_MAX: '10' }, { provider }); });
    afterAll(async () => { await t?.close(); });

    const refresh = (refresh_token: string, retry_key?: string) =>
      t.request('POST', '/api/auth/refresh', { body: retry_key === undefined ? { refresh_token } : { refresh_token, retry_key } });
    const family = async (sid: string) => (await t.sessionRows()).filter((r) => r.family_id === sid)
      .sort((a, b) => Number(a.dbid) - Number(b.dbid)).map((r) => r.revoked_reason ?? 'live');
    const sidOf = (access: string) => decodeJwt(access).payload.sid as string;

    it('the same refresh sent again with its retry key gets a new pair of the same login; the unseen one is superseded', async () => {
      const login = await t.loginAdmin();
      const lost = await refresh(login.refresh_token, KEY);
      expect(lost.status).toBe(200);
      const again = await refresh(login.refresh_token, KEY);
      expect(again.status).toBe(200);
      expect(again.body.refresh_token).not.toBe(lost.body.refresh_token);
      expect(sidOf(again.body.access_token)).toBe(sidOf(login.access_token));
      expect(await family(sidOf(login.access_token))).toEqual(['rotated', 'superseded', 'live']);
      // the retried pair is a working session; the superseded refresh token is not
      expect((await t.request('GET', '/api/auth/me', { token: again.body.access_token })).status).toBe(200);
      expect((await refresh(again.body.refresh_token)).status).toBe(200);
      expectError(await refresh(lost.body.refresh_token), 401, 'TOKEN_INVALID');
    });

    it('a rotated token presented without the retry key is reuse and revokes the login', async () => {
      const login = await t.loginAdmin();
      expect((await refresh(login.refresh_token, KEY)).status).toBe(200);
      expectError(await refresh(login.refresh_token), 401, 'TOKEN_INVALID');
      expect(await family(sidOf(login.access_token))).toEqual(['rotated', 'reuse_detected']);
    });

    it('a rotated token presented with another retry key is reuse', async () => {
      const login = await t.loginAdmin();
      expect((await refresh(login.refresh_token, KEY)).status).toBe(200);
      expectError(await refresh(login.refresh_token, OTHER_KEY), 401, 'TOKEN_INVALID');
      expect(await family(sidOf(login.access_token))).toEqual(['rotated', 'reuse_detected']);
    });

    it('a rotation sent without a retry key cannot be retried', async () => {
      const login = await t.loginAdmin();
      expect((await refresh(login.refresh_token)).status).toBe(200);
      expectError(await refresh(login.refresh_token, KEY), 401, 'TOKEN_INVALID');
      expect(await family(sidOf(login.access_token))).toEqual(['rotated', 'reuse_detected']);
    });

    it('once the new refresh token was used, the old one is reuse even with the key (the answer was not lost)', async () => {
      const login = await t.loginAdmin();
      const next = await refresh(login.refresh_token, KEY);
      expect((await refresh(next.body.refresh_token, OTHER_KEY)).status).toBe(200);
      expectError(await refresh(login.refresh_token, KEY), 401, 'TOKEN_INVALID');
      expect(await family(sidOf(login.access_token))).toEqual(['rotated', 'rotated', 'reuse_detected']);
    });

    it('a retry later than AUTH_REFRESH_RETRY_SECONDS after the rotation is reuse', async () => {
      const login = await t.loginAdmin();
      expect((await refresh(login.refresh_token, KEY)).status).toBe(200);
      const db = await t.kernel.tenants.get('default');
      await delegateOf(db, t.kernel.registry.model('ir.session')).updateMany({
        where: { family_id: sidOf(login.access_token), revoked_reason: 'rotated' },
        data: { revoked_at: new Date(Date.now() - 61_000) }, // the default window is 60 s
      });
      expectError(await refresh(login.refresh_token, KEY), 401, 'TOKEN_INVALID');
      expect(await family(sidOf(login.access_token))).toEqual(['rotated', 'reuse_detected']);
    });

    it('concurrent retries of one lost rotation leave exactly one live token in the login, and no reuse', async () => {
      const login = await t.loginAdmin();
      expect((await refresh(login.refresh_token, KEY)).status).toBe(200);
      const results = await Promise.all(Array.from({ length: 8 }, () => refresh(login.refresh_token, KEY)));
      // a retry that raced another for the same successor is refused; one that came after
      // another had finished supersedes that one's pair (it is the newest answer to the same request)
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const r of results.filter((x) => x.status !== 200)) expectError(r, 401, 'TOKEN_INVALID');
      const rows = await family(sidOf(login.access_token));
      expect(rows.filter((r) => r === 'live')).toHaveLength(1);
      expect(rows).not.toContain('reuse_detected');
      expect(rows.filter((r) => r === 'superseded')).toHaveLength(ok.length);
      // the one live token belongs to one of the answers, and refreshing with it works
      const usable = [];
      for (const r of ok) if ((await t.request('GET', '/api/auth/me', { token: r.body.access_token })).status === 200 && (await refresh(r.body.refresh_token)).status === 200) usable.push(r);
      expect(usable).toHaveLength(1);
    });

    it('a retry key shorter than 16 characters is refused with 422 and rotates nothing', async () => {
      const login = await t.loginAdmin();
      expectError(await refresh(login.refresh_token, 'short'), 422, 'VALIDATION_FAILED');
      expect(await family(sidOf(login.access_token))).toEqual(['live']);
      expect((await refresh(login.refresh_token)).status).toBe(200);
    });

    it('GraphQL refresh takes the retry key too', async () => {
      const login = await t.loginAdmin();
      const doc = 'mutation($r: String!, $k: String) { refresh(refresh_token: $r, retry_key: $k) { refresh_token } }';
      const gql = (k: string) => t.request('POST', '/graphql', { body: { query: doc, variables: { r: login.refresh_token, k } } });
      const first = await gql(KEY);
      expect(first.body.data.refresh.refresh_token).toBeTruthy();
      const again = await gql(KEY);
      expect(again.body.errors).toBeUndefined();
      expect(again.body.data.refresh.refresh_token).not.toBe(first.body.data.refresh.refresh_token);
    });
  });
}

describe('AUTH_REFRESH_RETRY_SECONDS=0', () => {
  let t: TestServer;
  beforeAll(async () => { t = await startTestServer({ AUTH_REFRESH_RETRY_SECONDS: '0' }); });
  afterAll(async () => { await t?.close(); });

  it('turns retries off: the same refresh with its key is reuse', async () => {
    const login = await t.loginAdmin();
    expect((await t.request('POST', '/api/auth/refresh', { body: { refresh_token: login.refresh_token, retry_key: KEY } })).status).toBe(200);
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: login.refresh_token, retry_key: KEY } }), 401, 'TOKEN_INVALID');
    const rows = (await t.sessionRows()).filter((r) => r.family_id === decodeJwt(login.access_token).payload.sid);
    expect(rows.map((r) => r.revoked_reason).sort()).toEqual(['reuse_detected', 'rotated']);
  });
});
