/**
 * A request that fails on the server's side (500) is logged with what an operator needs to find
 * it: the error, the tenant (one database each) and the user, over REST and GraphQL alike; the
 * client sees INTERNAL_ERROR only.
 */
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let log = '';
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => { log += c.toString(); });
  t = await startTestServer({ LOG_LEVEL: 'warn' }, { logStream: stream });
});
afterAll(async () => {
  await t?.close();
});

describe('the error log', () => {
  it('a 500 names the tenant and the user besides the error; the answer says nothing of it', async () => {
    const login = await t.loginAdmin();
    const me = (await t.request('GET', '/api/auth/me', { token: login.access_token })).body.id as string;
    // a tenant database someone changed by hand
    const db = new Database(t.kernel.tenants.sqliteFile(t.kernel.settings.DEFAULT_TENANT));
    try {
      db.exec('ALTER TABLE res_country RENAME COLUMN name TO name_by_hand');
    } finally {
      db.close();
    }
    const res = await t.request('GET', '/api/data/res.country?limit=1', { token: login.access_token });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
    const failed = log.trim().split('\n').map((l) => JSON.parse(l) as { msg?: string; tenant?: string; user?: string; err?: { message?: string } })
      .filter((l) => l.msg === 'request failed');
    expect(failed).toEqual([expect.objectContaining({ tenant: t.kernel.settings.DEFAULT_TENANT, user: me, err: expect.objectContaining({ message: expect.stringContaining('name') }) })]);

    // over GraphQL the field fails as INTERNAL_ERROR, and the server logs its cause the same way
    const gql = await t.request('POST', '/graphql', { token: login.access_token, body: { query: '{ resCountries(limit: 1) { name } me { email } }' } });
    expect(gql.body.errors).toEqual([expect.objectContaining({ message: 'Internal server error', path: ['resCountries'], extensions: { code: 'INTERNAL_ERROR' } })]);
    expect(gql.body.data).toBeNull();
    const fields = log.trim().split('\n').map((l) => JSON.parse(l) as { msg?: string; tenant?: string; user?: string; path?: string; err?: { message?: string } })
      .filter((l) => l.msg === 'graphql field failed');
    expect(fields).toEqual([expect.objectContaining({ tenant: t.kernel.settings.DEFAULT_TENANT, user: me, path: 'resCountries', err: expect.objectContaining({ message: expect.stringContaining('name') }) })]);
    // a refusal of ours (401 here) is the client's to read, not the operator's
    await t.request('POST', '/graphql', { body: { query: '{ me { email } }' } });
    expect(log.split('\n').filter((l) => l.includes('graphql field failed'))).toHaveLength(1);
  });
});
