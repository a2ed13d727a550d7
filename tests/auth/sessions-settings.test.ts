/**
 * The two settings SessionService reads when it is built (src/apps/auth/services/sessions.ts):
 * AUTH_SESSION_CACHE_SECONDS, how long a verified session is trusted without a database read,
 * and AUTH_REFRESH_RETRY_SECONDS, how long a rotation may be retried with its retry key.
 *
 * Each test boots its own server (real kernel, SQLite files) inside the test: the service is
 * built at boot, so a fault in its constructor fails the test itself instead of a beforeAll
 * (which vitest reports as skipped tests, not as failures). Exact instants use vitest's fake Date.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { decodeJwt, expectError, startTestServer, type TestServer } from '../helpers/server.ts';

const KEY = 'r'.repeat(24) + '0123456789abcdef';
const REUSE = 'refresh token reuse detected; the session has been revoked';

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

async function withServer(settings: Record<string, string>, fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer(settings);
  try {
    await fn(t);
  } finally {
    vi.useRealTimers();
    await t.close();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('AUTH_SESSION_CACHE_SECONDS', () => {
  it('a verified session is trusted for AUTH_SESSION_CACHE_SECONDS (2 s here): a revocation made elsewhere shows after that, not before', async () => {
    await withServer({ AUTH_SESSION_CACHE_SECONDS: '2' }, async (t) => {
      const pair = await t.loginAdmin();
      const sid = decodeJwt(pair.access_token).payload.sid as string;
      const { sessions } = await authServices(t.kernel);
      // the entry is cached after `before` and by `cached`
      const before = Date.now();
      await sessions.authenticate(pair.access_token);
      const cached = Date.now();
      // another process ends the login: rows only, this process's cache is not told
      const db = await t.kernel.tenants.get('default');
      await delegateOf(db, t.kernel.registry.model('ir.session')).updateMany({ where: { family_id: sid }, data: { revoked: true, revoked_reason: 'logout' } });

      await sleepUntil(before + 1300);
      await expect(sessions.authenticate(pair.access_token)).resolves.toMatchObject({ sid });
      await sleepUntil(cached + 2200);
      await expect(sessions.authenticate(pair.access_token)).rejects.toMatchObject({ code: 'TOKEN_INVALID', message: 'the session has ended' });
    });
  });
});

describe('AUTH_REFRESH_RETRY_SECONDS', () => {
  it('a retry exactly AUTH_REFRESH_RETRY_SECONDS (60 s by default) after the rotation is still a retry; one millisecond later it is reuse', async () => {
    await withServer({}, async (t) => {
      const refresh = (refresh_token: string) => t.request('POST', '/api/auth/refresh', { body: { refresh_token, retry_key: KEY } });
      const onTime = await t.loginAdmin();
      const late = await t.loginAdmin();
      const rotatedAt = Date.now();
      vi.useFakeTimers({ toFake: ['Date'], now: rotatedAt });
      expect((await refresh(onTime.refresh_token)).status).toBe(200);
      expect((await refresh(late.refresh_token)).status).toBe(200);

      vi.setSystemTime(rotatedAt + 60_000);
      const retried = await refresh(onTime.refresh_token);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(decodeJwt(retried.body.access_token).payload.sid).toBe(decodeJwt(onTime.access_token).payload.sid);

      vi.setSystemTime(rotatedAt + 60_001);
      const reuse = await refresh(late.refresh_token);
      expectError(reuse, 401, 'TOKEN_INVALID');
      expect(reuse.body.error.message).toBe(REUSE);
    });
  });

  it('AUTH_REFRESH_RETRY_SECONDS=0 turns retries off: the same refresh with its retry key is reuse, even within the same millisecond', async () => {
    await withServer({ AUTH_REFRESH_RETRY_SECONDS: '0' }, async (t) => {
      const refresh = (refresh_token: string) => t.request('POST', '/api/auth/refresh', { body: { refresh_token, retry_key: KEY } });
      const pair = await t.loginAdmin();
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      expect((await refresh(pair.refresh_token)).status).toBe(200);
      const again = await refresh(pair.refresh_token);
      expectError(again, 401, 'TOKEN_INVALID');
      expect(again.body.error.message).toBe(REUSE);
      const sid = decodeJwt(pair.access_token).payload.sid;
      expect((await t.sessionRows()).filter((r) => r.family_id === sid).map((r) => r.revoked_reason)).toEqual(['rotated', 'reuse_detected']);
    });
  });
});
