/**
 * Durability §2 (issue 17): concurrent requests against one real kernel behind the real Fastify
 * app, on SQLite and on PostgreSQL.
 *
 * - 50 refreshes of one refresh token at once: exactly one new pair, the others 401
 *   TOKEN_INVALID (docs/security.md, "Concurrent refreshes": the losers that read the row before
 *   the winner retired it do not revoke the family, a copy that reads it afterwards does). A replay
 *   of the used token after the race is reuse: it revokes the whole family, so the winner's new
 *   refresh token and every access token of the family stop working.
 * - 20 PATCHes of one record carrying the same `revision`: exactly one 200, 19 × 409
 *   STALE_REVISION, stored revision + 1 with the winner's value (no lost update). Without a
 *   revision all 20 succeed and the revision grows by exactly 20.
 * - 12 new versions of one storage document uploaded at once: version numbers 1..13 without gap
 *   or duplicate, `version_count` 13, every version downloads its own bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, expectError, startTestServer, type Provider, type TestServer } from '../helpers/server.ts';

const PROVIDERS: Provider[] = ['sqlite', 'postgresql'];
const MODULES = 'base,auth,presentation,connectors,storage';

describe.each(PROVIDERS)('concurrency on %s', (provider) => {
  let t: TestServer;
  let admin = '';

  beforeAll(async () => {
    t = await startTestServer({ ACTIVE_MODULES: MODULES, PG_POOL_MAX: '10' }, { provider });
    admin = (await t.loginAdmin()).access_token;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('50 concurrent refreshes of one token: exactly one 200, 49 × 401; a later replay revokes the whole family', async () => {
    const first = await t.loginAdmin();
    const sid = decodeJwt(first.access_token).payload.sid;
    const results = await Promise.all(Array.from({ length: 50 }, () =>
      t.request('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 401, 'TOKEN_INVALID');
    const winner = ok[0].body as { access_token: string; refresh_token: string };
    expect(decodeJwt(winner.access_token).payload.sid).toBe(sid); // same family

    // exactly one new row was issued for the family: no forked token chain
    const rowsAfterRace = (await t.sessionRows()).filter((r) => r.family_id === sid);
    expect(rowsAfterRace).toHaveLength(2);
    expect(rowsAfterRace.filter((r) => r.revoked_reason === 'rotated')).toHaveLength(1);

    // the race itself may or may not have revoked the family (a loser that read the row after the
    // winner committed is reuse); a replay now certainly is reuse
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: first.refresh_token } }), 401, 'TOKEN_INVALID');
    const family = (await t.sessionRows()).filter((r) => r.family_id === sid);
    expect(family.every((r) => r.revoked === true)).toBe(true);
    expect(family.some((r) => r.revoked_reason === 'reuse_detected')).toBe(true);
    // the winner's refresh token is refused, and every access token of the family stops working
    expectError(await t.request('POST', '/api/auth/refresh', { body: { refresh_token: winner.refresh_token } }), 401, 'TOKEN_INVALID');
    expectError(await t.request('GET', '/api/auth/me', { token: winner.access_token }), 401, 'TOKEN_INVALID');
    expectError(await t.request('GET', '/api/auth/me', { token: first.access_token }), 401, 'TOKEN_INVALID');
    // another login of the same user is a different family and is untouched
    expect((await t.request('GET', '/api/auth/me', { token: admin })).status).toBe(200);
  });

  it('20 concurrent PATCHes with the same revision: one 200, 19 × 409 STALE_REVISION, no lost update', async () => {
    const id = await t.createOrg(admin, `org-${provider}-rev`);
    const before = (await t.request('GET', `/api/data/res.organization/${id}`, { token: admin })).body;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      t.request('PATCH', `/api/data/res.organization/${id}`, { token: admin, body: { name: `writer ${i}`, revision: before.revision } })));
    const ok = results.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
    expect(ok, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'STALE_REVISION');
    const after = (await t.request('GET', `/api/data/res.organization/${id}`, { token: admin })).body;
    expect(after.revision).toBe(before.revision + 1);
    expect(after.name).toBe(`writer ${ok[0].i}`);
    expect(ok[0].r.body).toMatchObject({ id, revision: before.revision + 1, name: `writer ${ok[0].i}` });
  });

  it('20 concurrent PATCHes without a revision: all succeed and the revision grows by exactly 20', async () => {
    const id = await t.createOrg(admin, `org-${provider}-lww`);
    const before = (await t.request('GET', `/api/data/res.organization/${id}`, { token: admin })).body;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      t.request('PATCH', `/api/data/res.organization/${id}`, { token: admin, body: { name: `lww ${i}` } })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const after = (await t.request('GET', `/api/data/res.organization/${id}`, { token: admin })).body;
    expect(after.revision).toBe(before.revision + 20);
    // every answer carries a distinct revision: each update saw the previous one
    const revisions = results.map((r) => r.body.revision as number).sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: 20 }, (_, i) => before.revision + 1 + i));
    // the stored value is the one of the write that got the last revision
    const last = results.find((r) => r.body.revision === after.revision)!;
    expect(after.name).toBe(last.body.name);
  });

  it('12 concurrent new versions of one document: version numbers 1..13 without gaps or duplicates, each downloadable', async () => {
    const N = 12;
    const content = (v: string) => Buffer.from(`durability ${provider} content ${v} ${'x'.repeat(64)}`);
    const created = await t.request('POST', '/api/storage/documents', {
      token: admin, body: { filename: 'doc.txt', content_b64: content('initial').toString('base64'), content_type: 'text/plain' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const doc = created.body.id as string;
    const results = await Promise.all(Array.from({ length: N }, (_, i) =>
      t.request('POST', `/api/storage/documents/${doc}/versions`, {
        token: admin,
        body: { filename: `v-${i}.txt`, content_b64: content(`upload ${i}`).toString('base64'), content_type: 'text/plain', change_note: `upload ${i}` },
      })));
    expect(results.map((r) => r.status), JSON.stringify(results.filter((r) => r.status !== 201).map((r) => r.body))).toEqual(Array(N).fill(201));

    const record = (await t.request('GET', `/api/storage/documents/${doc}`, { token: admin })).body;
    expect(record.version_count).toBe(N + 1);
    expect(record.current_version).toBe(N + 1);
    const versions = (await t.request('GET', `/api/storage/documents/${doc}/versions`, { token: admin })).body;
    const numbers = (versions.items as Array<{ version_number: number }>).map((v) => v.version_number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));

    // every version downloads its own content; together they are the initial one and the N uploads
    const seen = new Set<string>();
    for (const v of versions.items as Array<{ version_number: number; change_note?: string | null }>) {
      const res = await t.server.inject({ method: 'GET', url: `/api/storage/documents/${doc}/versions/${v.version_number}/download`, headers: { authorization: `Bearer ${admin}` } });
      expect(res.statusCode).toBe(200);
      const text = res.rawPayload.toString('utf8');
      if (v.version_number === 1) expect(text).toBe(content('initial').toString());
      else expect(text).toBe(content(v.change_note!).toString());
      seen.add(text);
    }
    expect(seen.size).toBe(N + 1);
  });
});
