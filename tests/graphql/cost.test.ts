/**
 * The GraphQL cost guard (src/server/graphql/cost.ts): the cost of an operation is the number of
 * values it can return, every list counted at its `limit`/`first` (literal, variable or the
 * default page size), lists without a size argument at GRAPHQL_COST_LIST_SIZE; nested lists
 * multiply, aliases and fragments add up. A refusal is 400 QUERY_TOO_COSTLY with the cost and
 * the limit, over HTTP (POST and GET) and graphql-ws, and nothing runs.
 *
 * The `tight` server has GRAPHQL_MAX_COST=5000 so the exact costs below can be asserted; the
 * `open` server has the defaults (50000, page size 50, at most 500). Both lift the document
 * bounds (tokens, fields, aliases: bounds.test.ts), which would otherwise refuse the large
 * documents here before the cost guard sees them.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, gqlError, gqlOk, startServerWithApps, wsClient, wsSubscribe, type ApiServer } from '../helpers/api.ts';

const UNBOUNDED = { GRAPHQL_MAX_TOKENS: '100000', GRAPHQL_MAX_FIELDS: '100000', GRAPHQL_MAX_ALIASES: '10000' };

let tight: ApiServer;
let tightToken: string;
let open: ApiServer;
let openToken: string;

beforeAll(async () => {
  [tight, open] = await Promise.all([
    startServerWithApps([], { GRAPHQL_MAX_COST: '5000', ...UNBOUNDED }),
    startServerWithApps([], UNBOUNDED),
  ]);
  [tightToken, openToken] = await Promise.all([tight.adminToken(), open.adminToken()]);
});

afterAll(async () => {
  await Promise.all([tight?.close(), open?.close()]);
});

/** The refusal: 400, no data, code QUERY_TOO_COSTLY, details and message with cost and limit. */
function refused(res: Awaited<ReturnType<typeof gql>>, cost: number, limit: number): void {
  const err = gqlError(res, 'QUERY_TOO_COSTLY', 400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(err.extensions?.details).toEqual({ cost, limit });
  expect(err.message).toContain(`query cost ${cost} exceeds the limit of ${limit}`);
  expect(err.message).not.toMatch(/Syntax Error/);
}

const aliases = (n: number, field: (i: number) => string): string => Array.from({ length: n }, (_, i) => field(i)).join(' ');

describe('the issue\'s case and a web client page (default limits)', () => {
  it('999 aliases of a 500-row list are refused with QUERY_TOO_COSTLY, stating cost and limit', async () => {
    const q = `{ ${aliases(999, (i) => `a${i}: resCountries(limit: 500) { id name code }`)} }`;
    // each alias: 500 rows × (the row + 3 fields)
    refused(await gql(open, q, {}, { token: openToken }), 999 * 500 * 4, 50000);
  });

  it('the same refusal with Accept: application/json (no GraphQL-over-HTTP media type) is still 400', async () => {
    const q = `{ ${aliases(999, (i) => `a${i}: resCountries(limit: 500) { id }`)} }`;
    refused(await gql(open, q, {}, { token: openToken, headers: { accept: 'application/json' } }), 999 * 500 * 2, 50000);
  });

  it('a web-client style page (one list of 500 with nested references, limit as a variable) runs', async () => {
    const q = `query Rows($where: ResUserWhere, $orderBy: [ResUserOrderBy!], $limit: Int, $offset: Int) {
      rows: resUsers(where: $where, orderBy: $orderBy, limit: $limit, offset: $offset) {
        id dbid name email role is_active revision created_at_utc updated_at_utc organization { id name code country { id name code } }
      }
    }`;
    const data = await gqlOk(open, q, { limit: 500, offset: 0, orderBy: [{ name: 'asc' }] }, { token: openToken });
    expect(data.rows.length).toBeGreaterThan(0);
    expect(data.rows[0].organization.name).toBe('Default Organization');
  });

  it('a single list of 500 countries with every field runs', async () => {
    const data = await gqlOk(open, '{ resCountries(limit: 500) { id name code } }', {}, { token: openToken });
    expect(data.resCountries.length).toBeGreaterThan(200);
  });

  it('the schema explorer\'s introspection query is not counted', async () => {
    const data = await gqlOk(tight, getIntrospectionQuery(), {}, { token: tightToken });
    expect(data.__schema.queryType.name).toBe('Query');
  });

  it('HTTP GET is refused the same way', async () => {
    const q = `{ ${aliases(20, (i) => `a${i}: resCountries(limit: 500) { id }`)} }`;
    const res = await tight.request('GET', `/graphql?query=${encodeURIComponent(q)}`, { token: tightToken });
    refused(res as Awaited<ReturnType<typeof gql>>, 20 * 500 * 2, 5000);
  });
});

describe('how the cost is computed (GRAPHQL_MAX_COST=5000)', () => {
  it('limit multiplies: 4 aliases of 500 rows × 3 values are refused, of 100 rows they run', async () => {
    refused(await gql(tight, `{ ${aliases(4, (i) => `a${i}: resCountries(limit: 500) { id name }`)} }`, {}, { token: tightToken }), 4 * 500 * 3, 5000);
    const data = await gqlOk(tight, `{ ${aliases(4, (i) => `a${i}: resCountries(limit: 100) { id name }`)} }`, {}, { token: tightToken });
    expect(data.a3).toHaveLength(100);
  });

  it('an absent limit counts as the default page size (50)', async () => {
    // 40 aliases × 50 × 3 = 6000
    refused(await gql(tight, `{ ${aliases(40, (i) => `a${i}: resCountries { id name }`)} }`, {}, { token: tightToken }), 40 * 50 * 3, 5000);
    await gqlOk(tight, `{ ${aliases(30, (i) => `a${i}: resCountries { id name }`)} }`, {}, { token: tightToken });
  });

  it('a limit above API_MAX_PAGE_SIZE counts as 500, then the resolver refuses it with PAGE_TOO_LARGE', async () => {
    gqlError(await gql(tight, '{ resCountries(limit: 100000) { id } }', {}, { token: tightToken }), 'PAGE_TOO_LARGE', 400);
  });

  it('nested lists multiply: 500 organizations are fine, with their users (10 assumed each) they are not', async () => {
    await gqlOk(tight, '{ resOrganizations(limit: 500) { id name } }', {}, { token: tightToken });
    // 500 × (1 + id + users: 10 × (1 + id))
    refused(await gql(tight, '{ resOrganizations(limit: 500) { id users { id } } }', {}, { token: tightToken }), 500 * (1 + 1 + 10 * 2), 5000);
    // one level deeper multiplies again: 10 × 500 × …
    refused(await gql(tight, '{ resOrganizations(limit: 50) { users { organization { users { id } } } } }', {}, { token: tightToken }), 50 * (1 + 10 * (1 + 1 + 10 * 2)), 5000);
  });

  it('a connection\'s first sizes its edges', async () => {
    // 1 + 500 × (edge + node + id + name)
    const one = 1 + 500 * 4;
    refused(await gql(tight, `{ ${aliases(3, (i) => `c${i}: resCountriesConnection(first: 500) { edges { node { id name } } }`)} }`, {}, { token: tightToken }), 3 * one, 5000);
    const data = await gqlOk(tight, `{ ${aliases(3, (i) => `c${i}: resCountriesConnection(first: 20) { edges { node { id name } } totalCount }`)} }`, {}, { token: tightToken });
    expect(data.c0.edges).toHaveLength(20);
  });

  it('variables for limit and first are counted, and so are their defaults', async () => {
    const q = `query($n: Int) { ${aliases(4, (i) => `a${i}: resCountries(limit: $n) { id name }`)} }`;
    refused(await gql(tight, q, { n: 500 }, { token: tightToken }), 4 * 500 * 3, 5000);
    const data = await gqlOk(tight, q, { n: 10 }, { token: tightToken });
    expect(data.a0).toHaveLength(10);
    // the same document again: the verdict follows the variables, not a cached validation
    refused(await gql(tight, q, { n: 450 }, { token: tightToken }), 4 * 450 * 3, 5000);
    const withDefault = `query($n: Int = 500) { ${aliases(4, (i) => `a${i}: resCountries(limit: $n) { id name }`)} }`;
    refused(await gql(tight, withDefault, {}, { token: tightToken }), 4 * 500 * 3, 5000);
    const first = `query($f: Int!) { ${aliases(3, (i) => `c${i}: resCountriesConnection(first: $f) { edges { node { id name } } }`)} }`;
    refused(await gql(tight, first, { f: 500 }, { token: tightToken }), 3 * (1 + 500 * 4), 5000);
  });

  it('variables longer than the memo keeps (4 KiB of JSON) are weighed on every request, with the same verdicts', async () => {
    // a filter no name matches makes the JSON long; the verdict still follows $n
    const q = `query($n: Int, $pad: String) { ${aliases(4, (i) => `a${i}: resCountries(limit: $n, where: { name: { notContains: $pad } }) { id name }`)} }`;
    const pad = 'x'.repeat(5000);
    for (let i = 0; i < 2; i++) {
      refused(await gql(tight, q, { n: 500, pad }, { token: tightToken }), 4 * 500 * 3, 5000);
      expect((await gqlOk(tight, q, { n: 10, pad }, { token: tightToken })).a0).toHaveLength(10);
    }
  });

  it('fragments count like the fields they spread, inline fragments too', async () => {
    const inline = `{ ${aliases(3, (i) => `a${i}: resCountries(limit: 500) { id name code }`)} }`;
    const spread = `query { ${aliases(3, (i) => `a${i}: resCountries(limit: 500) { ...C }`)} } fragment C on ResCountry { id ...N } fragment N on ResCountry { name code }`;
    const inlined = `{ ${aliases(3, (i) => `a${i}: resCountries(limit: 500) { ... on ResCountry { id name } ... { code } }`)} }`;
    for (const q of [inline, spread, inlined]) refused(await gql(tight, q, {}, { token: tightToken }), 3 * 500 * 4, 5000);
    const small = `query { ${aliases(3, (i) => `a${i}: resCountries(limit: 100) { ...C }`)} } fragment C on ResCountry { id name code }`;
    await gqlOk(tight, small, {}, { token: tightToken });
  });

  it('a fragment spread many times in nested fragments adds up to its expanded size', async () => {
    // F3 = 2 × F2 = 4 × F1 = 8 × (id name): a spread of F3 under one 500-row list costs 500 × (1 + 16)
    const q = `{ resCountries(limit: 500) { ...F3 } }
      fragment F1 on ResCountry { id name }
      fragment F2 on ResCountry { a: id b: name ...F1 ...F1 }
      fragment F3 on ResCountry { ...F2 ...F2 }`;
    refused(await gql(tight, q, {}, { token: tightToken }), 500 * (1 + 2 * (2 + 2 * 2)), 5000);
  });

  it('@skip and @include are honoured', async () => {
    const big = aliases(3, (i) => `b${i}: resCountries(limit: 500) @include(if: $big) { id name code }`);
    const skipped = aliases(3, (i) => `s${i}: resCountries(limit: 500) @skip(if: true) { id name code }`);
    const q = `query($big: Boolean!) { small: resCountries(limit: 10) { id } ${big} ${skipped} }`;
    const data = await gqlOk(tight, q, { big: false }, { token: tightToken });
    expect(data.small).toHaveLength(10);
    refused(await gql(tight, q, { big: true }, { token: tightToken }), 10 * 2 + 3 * 500 * 4, 5000);
  });

  it('a refused mutation runs nothing', async () => {
    const before = (await gqlOk(tight, '{ resOrganizationCount }', {}, { token: tightToken })).resOrganizationCount;
    const q = `mutation { ${aliases(200, (i) => `o${i}: resOrganizationCreate(input: { name: "costly ${i}" }) { id users { id name email } }`)} }`;
    refused(await gql(tight, q, {}, { token: tightToken }), 200 * (1 + 1 + 10 * 4), 5000);
    expect((await gqlOk(tight, '{ resOrganizationCount }', {}, { token: tightToken })).resOrganizationCount).toBe(before);
  });
});

describe('over graphql-ws', () => {
  let base: string;
  beforeAll(async () => {
    base = await tight.server.listen({ port: 0, host: '127.0.0.1' });
  });

  async function firstError(query: string): Promise<{ message: string; extensions?: { code?: string; details?: unknown } }> {
    const client = wsClient(base, tightToken);
    try {
      const s = wsSubscribe(client, query);
      const got = await s.inbox.waitFor((m) => m.errors !== undefined, 'the cost error');
      expect(got.data ?? null).toBeNull();
      return got.errors![0] as { message: string; extensions?: { code?: string; details?: unknown } };
    } finally {
      await client.dispose();
    }
  }

  it('a query over the limit ends with QUERY_TOO_COSTLY and its cost', async () => {
    const err = await firstError(`{ ${aliases(4, (i) => `a${i}: resCountries(limit: 500) { id name }`)} }`);
    expect(err.extensions?.code).toBe('QUERY_TOO_COSTLY');
    expect(err.extensions?.details).toEqual({ cost: 4 * 500 * 3, limit: 5000 });
    expect(err.message).toContain('query cost 6000 exceeds the limit of 5000');
  });

  it('a subscription whose every event would cost more than the limit is refused', async () => {
    const err = await firstError('subscription { resOrganizationChanged { record { users { organization { users { organization { users { organization { users { id } } } } } } } } } }');
    expect(err.extensions?.code).toBe('QUERY_TOO_COSTLY');
    expect(err.extensions?.details).toEqual({ cost: 22222, limit: 5000 });
  });

  it('a cheap query over the same socket runs', async () => {
    const client = wsClient(base, tightToken);
    try {
      const s = wsSubscribe(client, `{ ${aliases(3, (i) => `a${i}: resCountries(limit: 10) { id name }`)} }`);
      const got = await s.inbox.waitFor((m) => m.data !== undefined || m.errors !== undefined, 'the result');
      expect(got.errors).toBeUndefined();
      expect((got.data as Record<string, unknown[]>).a2).toHaveLength(10);
    } finally {
      await client.dispose();
    }
  });
});
