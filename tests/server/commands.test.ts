/**
 * fw.search named by a client over the command routes (`POST /api/command/fw.search`, GraphQL's
 * `command` mutation) reads a bounded page, as the list routes do (src/server/commands.ts): no
 * limit is the default page size (API_DEFAULT_PAGE_SIZE), over API_MAX_PAGE_SIZE is 400
 * PAGE_TOO_LARGE. It read every matching record before (250 countries for `limit: 100000`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicPayload } from '../../src/server/commands.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let token: string;

beforeAll(async () => {
  ts = await startTestServer({ API_DEFAULT_PAGE_SIZE: '20', API_MAX_PAGE_SIZE: '100' });
  token = (await ts.loginAdmin()).access_token;
});
afterAll(async () => {
  await ts?.close();
});

const gqlCommand = (payload: Record<string, unknown>) =>
  ts.request('POST', '/graphql', { token, body: { query: 'mutation($p: JSON) { command(name: "fw.search", payload: $p) }', variables: { p: payload } } });

describe('fw.search over the command routes', () => {
  it('without a limit reads the default page, and says so in its answer', async () => {
    const rest = await ts.request('POST', '/api/command/fw.search', { token, body: { model: 'res.country', fields: ['code'], count: true } });
    expect([rest.status, rest.body.items.length, rest.body.limit, rest.body.total]).toEqual([200, 20, 20, 250]);
    const gql = await gqlCommand({ model: 'res.country', fields: ['code'] });
    expect(gql.body.data.command.items).toHaveLength(20);
  });

  it('a limit over API_MAX_PAGE_SIZE is 400 PAGE_TOO_LARGE on both routes; within it, it is read as asked', async () => {
    expectError(await ts.request('POST', '/api/command/fw.search', { token, body: { model: 'res.country', limit: 100_000 } }), 400, 'PAGE_TOO_LARGE');
    const gql = await gqlCommand({ model: 'res.country', limit: 101 });
    expect(gql.body.errors[0].extensions.code).toBe('PAGE_TOO_LARGE');
    const page = await ts.request('POST', '/api/command/fw.search', { token, body: { model: 'res.country', limit: 100, offset: 200, fields: ['code'] } });
    expect(page.body.items).toHaveLength(50);
  });

  it('only fw.search is bounded, and what is no page size at all is left to the command (INVALID_PAGING)', async () => {
    const limits = { defaultLimit: 20, maxLimit: 100 };
    const payload = { model: 'res.country' };
    expect(publicPayload('fw.count', payload, limits)).toBe(payload);
    expect(publicPayload('fw.search', { ...payload, limit: 1e300 }, limits)).toEqual({ ...payload, limit: 1e300 });
    expectError(await ts.request('POST', '/api/command/fw.search', { token, body: { model: 'res.country', limit: 1e300 } }), 400, 'INVALID_PAGING');
  });
});
