/**
 * The direct path of /graphql (src/server/graphql/direct.ts): a POST with one JSON object is run
 * through yoga's GraphQL pipeline without its Fetch bridge. The rule: it answers exactly what
 * yoga's entry answers. Each request below is sent twice to one server, once as it is (the direct
 * path takes it) and once with an Origin listed in CORS_ORIGINS (which sends it through yoga's
 * entry, since only that one adds CORS headers), and the two answers must have the same status,
 * content type and body: successes, parse, validation and variable errors, the guards' refusals,
 * command errors, anonymous callers, every Accept form.
 */
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directParams } from '../../src/server/graphql/direct.ts';
import { startServerWithApps, type ApiServer } from '../helpers/api.ts';

const ALLOWED = 'https://allowed.example';
/**
 * graphql-js and graphql-jit word some errors differently (jit leaves out `locations`), and a
 * document is compiled from its second use: one server never compiles, the other at once, so
 * both executors are compared and a pair of requests never straddles the two.
 */
const servers: Record<'interpreted' | 'compiled', { ts: ApiServer; token: string }> = {} as never;
let ts: ApiServer;
let token: string;

beforeAll(async () => {
  for (const [name, uses] of [['interpreted', '0'], ['compiled', '1']] as const) {
    const server = await startServerWithApps([], { CORS_ORIGINS: ALLOWED, GRAPHQL_MAX_DEPTH: '4', GRAPHQL_JIT_MIN_USES: uses });
    const adminToken = await server.adminToken();
    for (const org of ['Direct A', 'Direct B', 'Direct C']) {
      const r = await server.request('POST', '/api/data/res.organization', { token: adminToken, body: { name: org } });
      expect(r.status).toBe(201);
    }
    servers[name] = { ts: server, token: adminToken };
  }
  ({ ts, token } = servers.compiled);
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(servers)) await s.ts.close();
});

type Req = { label: string; body: unknown; accept?: string; anonymous?: boolean };

const LIST = 'query L($limit: Int, $where: ResOrganizationWhere) { resOrganizations(limit: $limit, where: $where, orderBy: [{ name: asc }]) { name code country { name } } }';
const REQUESTS: Req[] = [
  { label: 'a list', body: { query: '{ resOrganizations(limit: 5) { name code } }' } },
  { label: 'variables and operationName', body: { query: LIST, operationName: 'L', variables: { limit: 2, where: { name: { contains: 'Direct' } } } } },
  { label: 'null members and extensions', body: { query: LIST, operationName: null, variables: null, extensions: {} } },
  { label: 'a parse error', body: { query: '{ resOrganizations( }' } },
  { label: 'a validation error', body: { query: '{ resOrganizations { nope } }' } },
  { label: 'a variable of the wrong type', body: { query: LIST, variables: { limit: 'many' } } },
  { label: 'an unknown operation name', body: { query: LIST, operationName: 'Other' } },
  { label: 'two operations without a name', body: { query: 'query A { __typename } query B { __typename }' } },
  { label: 'the depth guard', body: { query: '{ resOrganizations { country { organizations { country { organizations { name } } } } } }' } },
  { label: 'the cost guard', body: { query: '{ a: resOrganizations(limit: 500) { name } b: resOrganizations(limit: 500) { name } c: resOrganizations(limit: 500) { name } }' } },
  { label: 'a command error (validation)', body: { query: 'mutation { resOrganizationCreate(input: { name: "" }) { name } }' } },
  { label: 'a record that does not exist', body: { query: '{ resOrganization(id: "00000000-0000-4000-8000-000000000000") { name } }' } },
  { label: 'an anonymous list (authentication required)', body: { query: '{ resOrganizations { name } }' }, anonymous: true },
  { label: 'an anonymous introspection', body: { query: '{ __schema { queryType { name } } }' }, anonymous: true },
  { label: 'an anonymous long document', body: { query: `{ ${'__typename '.repeat(300)}}` }, anonymous: true },
  { label: 'a login with a malformed email', body: { query: 'mutation { login(email: 1, password: "x") { access_token } }' }, anonymous: true },
];
const ACCEPTS = [undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json', 'text/event-stream, application/json'];

async function send(r: Req, accept: string | undefined, origin?: string) {
  const res = await ts.server.inject({
    method: 'POST', url: '/graphql',
    headers: {
      'content-type': 'application/json',
      ...(accept === undefined ? {} : { accept }),
      ...(origin ? { origin } : {}),
      ...(r.anonymous ? {} : { authorization: `Bearer ${token}` }),
    },
    payload: JSON.stringify(r.body),
  });
  return { status: res.statusCode, type: res.headers['content-type'], body: res.body, cors: res.headers['access-control-allow-origin'] };
}

describe('the direct path of /graphql answers what yoga\'s entry answers', () => {
  it.each(['interpreted', 'compiled'] as const)('for every request and Accept form: the same status, content type and body (%s)', async (executor) => {
    ({ ts, token } = servers[executor]);
    const statuses = new Set<number>();
    for (const r of REQUESTS) {
      for (const accept of ACCEPTS) {
        const at = `${r.label}, Accept ${JSON.stringify(accept)}`;
        const direct = await send(r, accept);
        const viaYoga = await send(r, accept, ALLOWED);
        // the Origin sends the second through yoga's entry: it alone carries the CORS header
        expect(viaYoga.cors, at).toBe(ALLOWED);
        expect(direct.cors, at).toBeUndefined();
        expect({ status: direct.status, type: direct.type, body: direct.body }, at).toEqual({ status: viaYoga.status, type: viaYoga.type, body: viaYoga.body });
        statuses.add(direct.status);
      }
    }
    // the corpus reaches successes, request errors and authentication refusals
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400, 401, 422]));
  });

  it('a mutation runs once per request on the direct path, and answers as through yoga', async () => {
    ({ ts, token } = servers.compiled);
    const create = (name: string) => ({ label: name, body: { query: `mutation { resOrganizationCreate(input: { name: "${name}" }) { name is_active } }` } });
    const direct = await send(create('Direct once'), 'application/json');
    const viaYoga = await send(create('Direct twice'), 'application/json', ALLOWED);
    expect(direct.status).toBe(200);
    expect(JSON.parse(direct.body).data.resOrganizationCreate.name).toBe('Direct once');
    expect(direct.body.replace('once', 'twice')).toBe(viaYoga.body);
    const list = await ts.request('GET', '/api/data/res.organization?limit=100&fields=name', { token });
    const names = (list.body.items as Array<{ name: string }>).map((o) => o.name);
    expect(names.filter((n) => n === 'Direct once')).toHaveLength(1);
  });

  it('an Origin not in CORS_ORIGINS is answered on the direct path without CORS headers, as yoga does', async () => {
    ({ ts, token } = servers.compiled);
    const r = REQUESTS[0]!;
    const other = await send(r, undefined, 'https://other.example');
    expect(other.status).toBe(200);
    expect(other.cors).toBeUndefined();
    expect(other.body).toBe((await send(r, undefined)).body);
  });
});

describe('which requests take the direct path', () => {
  const allowed = new Set([ALLOWED]);
  const req = (body: unknown, headers: Record<string, string> = {}, method = 'POST') =>
    ({ method, headers: { 'content-type': 'application/json', ...headers }, body }) as unknown as Pick<FastifyRequest, 'method' | 'headers' | 'body'>;

  it('one JSON object with yoga\'s parameters, a regular Accept, no listed Origin: taken, with yoga\'s response type', () => {
    expect(directParams(req({ query: '{ a }' }), allowed)).toEqual({ params: { query: '{ a }' }, type: 'application/json' });
    expect(directParams(req({ query: '{ a }', variables: { x: 1 }, operationName: 'A', extensions: { e: 1 } }, { accept: 'application/graphql-response+json' }), allowed))
      .toEqual({ params: { query: '{ a }', variables: { x: 1 }, operationName: 'A', extensions: { e: 1 } }, type: 'application/graphql-response+json' });
    expect(directParams(req({ query: '{ a }', variables: null, operationName: null, other: null }, { 'content-type': 'application/json; charset=utf-8', origin: 'https://other.example' }), allowed))
      .toEqual({ params: { query: '{ a }' }, type: 'application/json' });
  });

  it('everything else goes through yoga\'s entry', () => {
    const refused: Array<[string, ReturnType<typeof req>]> = [
      ['GET', req({ query: '{ a }' }, {}, 'GET')],
      ['multipart', req({ query: '{ a }' }, { 'content-type': 'multipart/form-data; boundary=x' })],
      ['application/graphql+json', req({ query: '{ a }' }, { 'content-type': 'application/graphql+json' })],
      ['a listed Origin', req({ query: '{ a }' }, { origin: ALLOWED })],
      ['a batch', req([{ query: '{ a }' }])],
      ['no body', req(undefined)],
      ['a query that is not a string', req({ query: 1 })],
      ['no query', req({ variables: {} })],
      ['variables that are not an object', req({ query: '{ a }', variables: '{}' })],
      ['extensions that are not an object', req({ query: '{ a }', extensions: [] })],
      ['an operationName that is not a string', req({ query: '{ a }', operationName: 1 })],
      ['an unknown parameter', req({ query: '{ a }', other: 1 })],
      ['a subscription', req({ query: 'subscription { s }' })],
      ['the word anywhere (a field, a comment)', req({ query: '{ subscriptions }' })],
      ['an Accept of streams only', req({ query: '{ a }' }, { accept: 'text/event-stream' })],
      ['an Accept yoga refuses', req({ query: '{ a }' }, { accept: 'text/html' })],
    ];
    for (const [label, r] of refused) expect(directParams(r, allowed), label).toBeNull();
  });
});
