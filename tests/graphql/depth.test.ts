/**
 * The GraphQL depth guard (src/server/graphql/depth.ts): an operation whose selection is more than
 * GRAPHQL_MAX_DEPTH fields deep is refused before anything runs, with 400 QUERY_TOO_DEEP, the
 * depth and the limit, on every path a query takes: POST (either Accept), GET, SSE and
 * graphql-ws (queries and subscriptions). Fragments add no level of their own, `@skip`/`@include`
 * are honoured and introspection is not counted, so a schema explorer always loads.
 *
 * The server here has GRAPHQL_MAX_DEPTH=4.
 */
import { getIntrospectionQuery, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationDepth } from '../../src/server/graphql/depth.ts';
import { gql, gqlError, gqlOk, sseSubscribe, startServerWithApps, wsClient, wsSubscribe, type ApiServer, type GqlBody } from '../helpers/api.ts';
import type { Res } from '../helpers/server.ts';

let ts: ApiServer;
let token: string;
let base: string;

beforeAll(async () => {
  ts = await startServerWithApps([], { GRAPHQL_MAX_DEPTH: '4' });
  token = await ts.adminToken();
  base = await ts.server.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await ts?.close();
});

const DEEP = '{ resOrganizations { users { organization { users { email } } } } }';
const DEEP_MESSAGE = 'query depth 5 exceeds the limit of 4 (GRAPHQL_MAX_DEPTH) at resOrganizations.users.organization.users.email: select fewer nested fields';

/** The refusal: 400, no data, one error with code QUERY_TOO_DEEP and `{ depth, limit }`. */
function refused(res: Res<GqlBody>, depth: number): NonNullable<GqlBody['errors']>[number] {
  const err = gqlError(res, 'QUERY_TOO_DEEP', 400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(err.extensions?.details).toEqual({ depth, limit: 4 });
  expect(err.message).toContain(`query depth ${depth} exceeds the limit of 4 (GRAPHQL_MAX_DEPTH)`);
  expect(err.message).not.toMatch(/Syntax Error/);
  return err;
}

describe('over HTTP', () => {
  it('POST: 400 QUERY_TOO_DEEP stating depth, limit and the deepest path, with its location', async () => {
    const res = await gql(ts, DEEP, {}, { token });
    const err = refused(res, 5);
    expect(err.message).toBe(DEEP_MESSAGE);
    expect((err as { locations?: unknown }).locations).toEqual([{ line: 1, column: DEEP.indexOf('email') + 1 }]);
  });

  it('POST with Accept: application/json or application/graphql-response+json: 400 both', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const res = await gql(ts, DEEP, {}, { token, headers: { accept } });
      refused(res, 5);
      expect(res.headers['content-type']).toContain(accept);
    }
  });

  it('GET: the same refusal', async () => {
    const res = await ts.request<GqlBody>('GET', `/graphql?query=${encodeURIComponent(DEEP)}`, { token });
    expect(refused(res, 5).message).toBe(DEEP_MESSAGE);
  });

  it('anonymous requests are refused the same way (the guard runs before any resolver)', async () => {
    refused(await gql(ts, DEEP), 5);
  });

  it('a query at the limit runs', async () => {
    const data = await gqlOk(ts, '{ resOrganizations { users { organization { name } } } }', {}, { token });
    expect(data.resOrganizations[0].users[0].organization.name).toBe('Default Organization');
  });

  it('a refused mutation runs nothing', async () => {
    const before = (await gqlOk(ts, '{ resOrganizationCount }', {}, { token })).resOrganizationCount;
    const res = await gql(ts, 'mutation { resOrganizationCreate(input: { name: "Too Deep", code: "too-deep" }) { users { organization { users { organization { id } } } } } }', {}, { token });
    refused(res, 6);
    expect((await gqlOk(ts, '{ resOrganizationCount }', {}, { token })).resOrganizationCount).toBe(before);
  });
});

describe('what counts', () => {
  it('aliases name the path; fragments and inline fragments add no level of their own', async () => {
    const q = `query { orgs: resOrganizations { ...OrgUsers } }
      fragment OrgUsers on ResOrganization { members: users { ... on ResUser { organization { ...Deeper } } } }
      fragment Deeper on ResOrganization { users { email } }`;
    const err = refused(await gql(ts, q, {}, { token }), 5);
    expect(err.message).toContain(' at orgs.members.organization.users.email:');
    // the same shape one level shallower runs
    await gqlOk(ts, `query { orgs: resOrganizations { ...OrgUsers } }
      fragment OrgUsers on ResOrganization { members: users { ... on ResUser { organization { ...Name } } } }
      fragment Name on ResOrganization { name }`, {}, { token });
  });

  it('@skip and @include are honoured, with the variables sent', async () => {
    const q = 'query($deep: Boolean!) { resOrganizations { name users @include(if: $deep) { organization { users { email } } } } }';
    await gqlOk(ts, q, { deep: false }, { token });
    refused(await gql(ts, q, { deep: true }, { token }), 5);
    // the same document weighed again with other variables: its depth is not kept between runs
    await gqlOk(ts, q, { deep: false }, { token });
    refused(await gql(ts, q, { deep: true }, { token }), 5);
    refused(await gql(ts, '{ resOrganizations { users @skip(if: false) { organization { users { email } } } } }', {}, { token }), 5);
  });

  it('only the operation that runs is measured (operationName)', async () => {
    const doc = `query Shallow { resOrganizations { name } } query Deep ${DEEP}`;
    const ok = await ts.request<GqlBody>('POST', '/graphql', { token, body: { query: doc, operationName: 'Shallow' } });
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    refused(await ts.request<GqlBody>('POST', '/graphql', { token, body: { query: doc, operationName: 'Deep' } }), 5);
    // each operation of the document keeps its own depth, in either order
    expect((await ts.request<GqlBody>('POST', '/graphql', { token, body: { query: doc, operationName: 'Shallow' } })).status).toBe(200);
    refused(await ts.request<GqlBody>('POST', '/graphql', { token, body: { query: doc, operationName: 'Deep' } }), 5);
  });

  it('the schema explorer\'s introspection query runs: __schema and __type are not counted', async () => {
    const full = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    expect(operationDepth(parse(full), {}, null).depth).toBe(0);
    const data = await gqlOk(ts, full, {}, { token });
    expect(data.__schema.queryType.name).toBe('Query');
    // anonymous, as GraphiQL without a token header sends it
    expect((await gqlOk(ts, full)).__schema.types.length).toBeGreaterThan(50);
    await gqlOk(ts, '{ __type(name: "ResOrganization") { fields { type { ofType { ofType { ofType { name } } } } } } }', {}, { token });
  });

  it('operationDepth: fields count, __typename too, and a fragment cycle does not loop', () => {
    expect(operationDepth(parse('{ a { b { c } } }'), {}, null)).toMatchObject({ depth: 3, path: ['a', 'b', 'c'] });
    expect(operationDepth(parse('{ a { __typename } }'), {}, null).depth).toBe(2);
    expect(operationDepth(parse('{ a { ...F } } fragment F on T { b { ...F } }'), {}, null).depth).toBe(2);
    expect(operationDepth(parse('query A { a } query B { a { b } }'), {}, null).depth).toBe(0); // ambiguous: GraphQL refuses it
  });
});

describe('over graphql-ws', () => {
  async function firstError(query: string): Promise<{ message: string; extensions?: { code?: string; details?: unknown } }> {
    const client = wsClient(base, token);
    try {
      const s = wsSubscribe(client, query);
      const got = await s.inbox.waitFor((m) => m.errors !== undefined, 'the depth error');
      expect(got.data ?? null).toBeNull();
      return got.errors![0] as { message: string; extensions?: { code?: string; details?: unknown } };
    } finally {
      await client.dispose();
    }
  }

  it('a query over the limit ends with QUERY_TOO_DEEP', async () => {
    const err = await firstError(DEEP);
    expect(err.extensions?.code).toBe('QUERY_TOO_DEEP');
    expect(err.extensions?.details).toEqual({ depth: 5, limit: 4 });
    expect(err.message).toBe(DEEP_MESSAGE);
  });

  it('a subscription over the limit is refused before it subscribes', async () => {
    const err = await firstError('subscription { resOrganizationChanged { record { users { organization { id } } } } }');
    expect(err.extensions?.code).toBe('QUERY_TOO_DEEP');
    expect(err.extensions?.details).toEqual({ depth: 5, limit: 4 });
    expect(err.message).toContain('at resOrganizationChanged.record.users.organization.id');
  });

  it('a subscription at the limit subscribes', async () => {
    const client = wsClient(base, token);
    try {
      const s = wsSubscribe(client, 'subscription { resOrganizationChanged { record { users { id } } } }');
      // nothing arrives until a change: the subscription is open rather than refused
      await new Promise((r) => setTimeout(r, 300));
      expect(s.inbox.items).toEqual([]);
      expect(s.inbox.done).toBe(false);
      s.stop();
    } finally {
      await client.dispose();
    }
  });
});

describe('over SSE', () => {
  it('a subscription over the limit is refused with QUERY_TOO_DEEP', async () => {
    const s = await sseSubscribe(base, 'subscription { resOrganizationChanged { record { users { organization { id } } } } }', token);
    try {
      const got = await s.inbox.waitFor((m) => m.errors !== undefined, 'the depth error');
      const err = got.errors![0] as { extensions?: { code?: string; details?: unknown } };
      expect(err.extensions?.code).toBe('QUERY_TOO_DEEP');
      expect(err.extensions?.details).toEqual({ depth: 5, limit: 4 });
    } finally {
      s.stop();
    }
  });
});
