/**
 * GraphQL guards: maximum depth, maximum page size, introspection only when configured, and
 * masking of unexpected errors (only our own error classes keep their code and status). The
 * depth guard's every path is in depth.test.ts, the cost guard has its own file, cost.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, gqlError, gqlOk, startServerWithApps, type ApiServer } from '../helpers/api.ts';
import { fixtureApp } from '../helpers/kernel.ts';

/** A fixture command whose handler fails the way a bug or a driver would: a plain Error. */
const boomApp = fixtureApp('fixture', {
  commands: [{
    name: 'fixture.boom',
    description: 'Always fails unexpectedly (test fixture)',
    returns: 'json',
    handler: async () => {
      throw new Error('secret detail: postgres://app:hunter2@db.internal/prod');
    },
  }],
});

let guarded: ApiServer;
let guardedToken: string;
let open: ApiServer;
let openToken: string;

beforeAll(async () => {
  [guarded, open] = await Promise.all([
    startServerWithApps([boomApp], { GRAPHQL_MAX_DEPTH: '4', GRAPHQL_INTROSPECTION: 'false' }),
    startServerWithApps([boomApp]),
  ]);
  [guardedToken, openToken] = await Promise.all([guarded.adminToken(), open.adminToken()]);
});

afterAll(async () => {
  await Promise.all([guarded?.close(), open?.close()]);
});

describe('depth', () => {
  it('a query deeper than GRAPHQL_MAX_DEPTH is refused with 400 QUERY_TOO_DEEP before it runs (every path: depth.test.ts)', async () => {
    const res = await gql(guarded, '{ resOrganizations { users { organization { users { email } } } } }', {}, { token: guardedToken });
    const err = gqlError(res, 'QUERY_TOO_DEEP', 400);
    expect(res.body.data ?? null).toBeNull();
    expect(err.extensions?.details).toEqual({ depth: 5, limit: 4 });
    expect(err.message).toBe('query depth 5 exceeds the limit of 4 (GRAPHQL_MAX_DEPTH) at resOrganizations.users.organization.users.email: select fewer nested fields');
  });

  it('a query at GRAPHQL_MAX_DEPTH runs', async () => {
    const data = await gqlOk(guarded, '{ resOrganizations { users { organization { name } } } }', {}, { token: guardedToken });
    expect(data.resOrganizations[0].users[0].organization.name).toBe('Default Organization');
  });

  it('the default depth limit (10) lets ordinary nesting through', async () => {
    await gqlOk(open, '{ resOrganizations { users { organization { users { organization { name } } } } } }', {}, { token: openToken });
  });
});

describe('page size', () => {
  it('limit over 500 is PAGE_TOO_LARGE (400), like the REST layer', async () => {
    const err = gqlError(await gql(open, '{ resCountries(limit: 501) { id } }', {}, { token: openToken }), 'PAGE_TOO_LARGE', 400);
    expect(err.message).toMatch(/500/);
    expect(err.extensions?.details).toEqual({ max: 500 });
  });

  it('first over 500 on a connection is PAGE_TOO_LARGE (400)', async () => {
    gqlError(await gql(open, '{ resCountriesConnection(first: 501) { totalCount } }', {}, { token: openToken }), 'PAGE_TOO_LARGE', 400);
  });

  it('limit 500 is allowed; a negative limit is INVALID_PAGING (400)', async () => {
    const data = await gqlOk(open, '{ resCountries(limit: 500) { id } }', {}, { token: openToken });
    expect(data.resCountries.length).toBeGreaterThan(200);
    gqlError(await gql(open, '{ resCountries(limit: -1) { id } }', {}, { token: openToken }), 'INVALID_PAGING', 400);
    gqlError(await gql(open, '{ resCountries(offset: -1) { id } }', {}, { token: openToken }), 'INVALID_PAGING', 400);
  });
});

describe('introspection', () => {
  it('GRAPHQL_INTROSPECTION=false rejects __schema and __type', async () => {
    for (const q of ['{ __schema { queryType { name } } }', '{ __type(name: "ResOrganization") { name } }']) {
      const res = await gql(guarded, q, {}, { token: guardedToken });
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors?.[0].message).toMatch(/introspection has been disabled/);
    }
  });

  it('with introspection disabled ordinary operations (and __typename) still run', async () => {
    const data = await gqlOk(guarded, '{ resOrganizations { __typename id } }', {}, { token: guardedToken });
    expect(data.resOrganizations[0].__typename).toBe('ResOrganization');
  });

  it('GRAPHQL_INTROSPECTION=true (the default) answers __schema', async () => {
    const data = await gqlOk(open, '{ __schema { queryType { name } types { name } } }', {}, { token: openToken });
    expect(data.__schema.queryType.name).toBe('Query');
    const names = data.__schema.types.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['ResOrganization', 'ResUser', 'CrmLead', 'ResOrganizationWhere', 'StringFilter']));
  });
});

describe('error masking', () => {
  it('an unexpected error in a model command is masked as INTERNAL_ERROR (500) without its message', async () => {
    const res = await gql(open, 'mutation { fixtureBoom }', {}, { token: openToken });
    const err = gqlError(res, 'INTERNAL_ERROR', 500);
    expect(err.message).toBe('Internal server error');
    expect(JSON.stringify(res.body)).not.toMatch(/secret|hunter2|postgres:/);
  });

  it('the generic command() masks it the same way', async () => {
    const res = await gql(open, 'mutation { command(name: "fixture.boom", payload: {}) }', {}, { token: openToken });
    gqlError(res, 'INTERNAL_ERROR', 500);
    expect(JSON.stringify(res.body)).not.toMatch(/secret|hunter2/);
  });

  it('over REST the same failure is a 500 INTERNAL_ERROR envelope without its message', async () => {
    const res = await open.request('POST', '/api/command/fixture.boom', { token: openToken, body: {} });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
  });

  it('our own errors keep their code and status (not masked)', async () => {
    const res = await gql(open, 'mutation { command(name: "fw.read_one", payload: { model: "res.organization", id: "00000000-0000-4000-8000-000000000000" }) }', {}, { token: openToken });
    const err = gqlError(res, 'RECORD_NOT_FOUND', 404);
    expect(err.message).toMatch(/not found/);
  });
});
