/**
 * Malformed GraphQL-over-HTTP parameters are 400 BAD_REQUEST in yoga's words
 * (src/server/graphql/params.ts), never a 500 nor a 200: JSON that does not parse in a GET's
 * `variables` or `extensions`, and a request without a query (a POST body of `{}` included, which
 * yoga answered as "invalid JSON" with the parser's SyntaxError attached).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseBadParams } from '../../src/server/graphql/params.ts';
import { startServerWithApps, type ApiServer } from '../helpers/api.ts';

let ts: ApiServer;
let token: string;

beforeAll(async () => {
  ts = await startServerWithApps([], { NODE_ENV: 'production', JWT_SECRET_KEY: crypto.randomBytes(32).toString('base64url') });
  token = await ts.adminToken();
}, 60_000);

afterAll(async () => {
  await ts?.close();
});

const JSON_ACCEPT = { accept: 'application/graphql-response+json, application/json' };
const get = (qs: string, signedIn: boolean) => ts.request('GET', `/graphql?${qs}`, { token: signedIn ? token : undefined, headers: JSON_ACCEPT });

function badRequest(res: { status: number; body: { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } }, message: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors![0]!.message).toMatch(message);
  expect(res.body.errors![0]!.extensions?.code).toBe('BAD_REQUEST');
  // nothing of the parser's own error leaves the server
  expect(JSON.stringify(res.body)).not.toMatch(/SyntaxError|originalError|Internal server error/);
}

describe('GraphQL request parameters', () => {
  for (const signedIn of [false, true]) {
    const who = signedIn ? 'signed in' : 'anonymous';
    it(`GET with variables or extensions that are not JSON is 400 BAD_REQUEST, not a 500 (${who})`, async () => {
      badRequest(await get('query=%7B__typename%7D&variables=notjson', signedIn), /"variables" param must be JSON/);
      badRequest(await get('query=%7B__typename%7D&extensions=%7Bnope', signedIn), /"extensions" param must be JSON/);
    });

    it(`a request without a query is 400 "Must provide query string.", POST {} included (${who})`, async () => {
      for (const body of [{}, { variables: {} }, { query: '' }, { operationName: 'X' }]) {
        badRequest(await ts.request('POST', '/graphql', { token: signedIn ? token : undefined, body }), /^Must provide query string\.$/);
      }
      badRequest(await get('variables=%7B%7D', signedIn), /^Must provide query string\.$/);
      // an empty body sent as JSON is no body (src/server/json-body.ts): no query either
      badRequest(await ts.request('POST', '/graphql', { token: signedIn ? token : undefined, body: '', headers: { 'content-type': 'application/json' } }), /^Must provide query string\.$/);
    });
  }

  it('well-formed requests are answered as before, over GET and POST', async () => {
    const viaGet = await get('query=%7B__typename%7D&variables=%7B%7D&extensions=%7B%7D', false);
    expect([viaGet.status, viaGet.body]).toEqual([200, { data: { __typename: 'Query' } }]);
    const viaPost = await ts.request('POST', '/graphql', { body: { query: '{ __typename }', variables: {} } });
    expect([viaPost.status, viaPost.body]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  it('a persisted-query request (extensions.persistedQuery, no text) is left to yoga, and a browser\'s GET to the explorer page', () => {
    const persisted = { persistedQuery: { version: 1, sha256Hash: 'abc' } };
    expect(() => refuseBadParams({ method: 'POST', headers: { 'content-type': 'application/json' }, query: {}, body: { extensions: persisted } }, true)).not.toThrow();
    expect(() => refuseBadParams({ method: 'GET', headers: {}, query: { extensions: JSON.stringify(persisted) }, body: undefined }, true)).not.toThrow();
    expect(() => refuseBadParams({ method: 'GET', headers: { accept: 'text/html' }, query: {}, body: undefined }, false)).not.toThrow();
  });
});
