/**
 * Errors that end a /graphql request before GraphQL runs (the bearer check, body parsing) answer
 * in GraphQL's shape, `{ errors: [{ message, extensions: { code } }] }`, with the HTTP status
 * kept (401 for tokens); REST routes keep `{ error: { code, message } }`. Anonymous requests
 * still reach public fields.
 */
import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, expectError, startTestServer, type Res, type TestServer, type TokenPair } from '../helpers/server.ts';

let t: TestServer;
let pair: TokenPair;

beforeAll(async () => {
  t = await startTestServer();
  pair = await t.loginAdmin();
});
afterAll(async () => {
  await t?.close();
});

const ME = '{ me { id email } }';
const post = (token: string | undefined, query = ME, headers: Record<string, string> = {}) =>
  t.request('POST', '/graphql', { token, body: { query }, headers });
const get = (token: string | undefined, query = ME) => t.request('GET', `/graphql?query=${encodeURIComponent(query)}`, { token });

/** A GraphQL error response: the status, the one error's code, no REST `error` key. */
function graphqlError(res: Res, status: number, code: string): { message: string; extensions: Record<string, unknown> } {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body, JSON.stringify(res.body)).not.toHaveProperty('error');
  expect(res.body.errors).toHaveLength(1);
  const err = res.body.errors[0];
  expect(err.extensions.code).toBe(code);
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  expect(res.body.data ?? null).toBeNull();
  return err;
}

/** A token for the admin's live session, signed with the server's key, expiring as asked. */
async function signed(exp: number, iat: number): Promise<string> {
  const claims = decodeJwt(pair.access_token).payload;
  return new jose.SignJWT({ tenant_id: claims.tenant_id, role: claims.role, sid: claims.sid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setJti(crypto.randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(t.jwtKey));
}

describe('anonymous requests', () => {
  it('reach public fields (login) without a token', async () => {
    const res = await post(undefined, 'mutation { login(email: "admin@example.com", password: "admin-pass-1") { access_token } }');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.login.access_token).toEqual(expect.any(String));
  });

  it('a field that needs a user answers 401 UNAUTHENTICATED as a field error (the request itself was allowed)', async () => {
    const res = await post(undefined);
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(res.body.errors[0].path).toEqual(['me']);
    expect(res.body.data).toEqual({ me: null });
  });

  it('a malformed Authorization header counts as no token (anonymous)', async () => {
    const res = await t.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(200);
    expect(res.body.data.__typename).toBe('Query');
  });
});

describe('a bad token on /graphql', () => {
  it('an invalid token is 401 TOKEN_INVALID in GraphQL\'s shape, on POST and GET', async () => {
    for (const res of [await post('not-a-jwt'), await get('not-a-jwt'), await post('not-a-jwt', '{ __typename }')]) {
      graphqlError(res, 401, 'TOKEN_INVALID');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('a refresh token used as a bearer token is 401 TOKEN_INVALID', async () => {
    graphqlError(await post(pair.refresh_token), 401, 'TOKEN_INVALID');
  });

  it('an expired token is 401 TOKEN_EXPIRED, on POST and GET', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await signed(now - 60, now - 3600);
    graphqlError(await post(expired), 401, 'TOKEN_EXPIRED');
    graphqlError(await get(expired), 401, 'TOKEN_EXPIRED');
    // control: the same claims, not expired, are accepted
    const fresh = await post(await signed(now + 600, now));
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body.data.me.email).toBe('admin@example.com');
  });

  it('a token revoked by logout is 401 with the same code as on REST', async () => {
    const own = await t.loginAdmin();
    expect((await post(own.access_token)).status).toBe(200);
    expect((await t.request('POST', '/api/auth/logout', { token: own.access_token })).status).toBe(200);
    const rest = await t.request('GET', '/api/auth/me', { token: own.access_token });
    expectError(rest, 401);
    graphqlError(await post(own.access_token), 401, rest.body.error.code);
    graphqlError(await get(own.access_token), 401, rest.body.error.code);
  });

  it('the media type follows the Accept header (application/graphql-response+json)', async () => {
    const res = await post('not-a-jwt', ME, { accept: 'application/graphql-response+json, application/json' });
    graphqlError(res, 401, 'TOKEN_INVALID');
    expect(res.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
  });

  it('a mutation with a bad token runs nothing', async () => {
    const count = async () => (await post(pair.access_token, '{ resOrganizationCount }')).body.data.resOrganizationCount;
    const before = await count();
    graphqlError(await post('nope', 'mutation { resOrganizationCreate(input: { name: "ghost" }) { id } }'), 401, 'TOKEN_INVALID');
    expect(await count()).toBe(before);
  });
});

describe('REST routes keep their envelope', () => {
  it('the same bad tokens on REST answer { error: { code, message } }', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectError(await t.request('GET', '/api/auth/me', { token: 'not-a-jwt' }), 401, 'TOKEN_INVALID');
    expectError(await t.request('GET', '/api/auth/me', { token: await signed(now - 60, now - 3600) }), 401, 'TOKEN_EXPIRED');
    expectError(await t.request('GET', '/api/data/res.country'), 401, 'UNAUTHENTICATED');
  });
});

describe('other errors before GraphQL runs', () => {
  it('a malformed JSON body on /graphql is 400 INVALID_JSON in GraphQL\'s shape', async () => {
    const res = await t.server.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: '{"query": ' });
    graphqlError({ status: res.statusCode, body: JSON.parse(res.body), headers: res.headers }, 400, 'INVALID_JSON');
  });

  it('a body over HTTP_BODY_LIMIT_BYTES on /graphql is 413 PAYLOAD_TOO_LARGE in GraphQL\'s shape', async () => {
    const res = await t.server.inject({
      method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: `{ __typename } # ${'x'.repeat(t.kernel.settings.HTTP_BODY_LIMIT_BYTES)}` }),
    });
    graphqlError({ status: res.statusCode, body: JSON.parse(res.body), headers: res.headers }, 413, 'PAYLOAD_TOO_LARGE');
  });
});
