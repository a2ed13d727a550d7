/**
 * Cross-origin access to /graphql: yoga reflected any Origin with credentials allowed; now no
 * CORS header at all unless CORS_ORIGINS lists the origin, and never credentials. A "simple"
 * POST (form, multipart or text body: what a page of another site can send without a preflight)
 * must carry the x-graphql-csrf header (src/server/graphql/csrf.ts), or it is refused with 403
 * CSRF_HEADER_REQUIRED before anything runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerWithApps, type ApiServer } from '../helpers/api.ts';

let ts: ApiServer;
let listed: ApiServer;
beforeAll(async () => {
  ts = await startServerWithApps([]);
  listed = await startServerWithApps([], { CORS_ORIGINS: 'https://app.example.com, https://other.example.com/' });
});
afterAll(async () => {
  await ts?.close();
  await listed?.close();
});

const EVIL = 'https://evil.example.net';

const corsHeaders = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([k]) => k.startsWith('access-control-')));

describe('CORS', () => {
  it('without CORS_ORIGINS no Origin is reflected and no credentials are allowed (request and preflight)', async () => {
    const post = await ts.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers: { origin: EVIL } });
    expect(post.status).toBe(200);
    expect(corsHeaders(post.headers)).toEqual({});
    const preflight = await ts.server.inject({ method: 'OPTIONS', url: '/graphql', headers: { origin: EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    expect(corsHeaders(preflight.headers)).toEqual({});
  });

  it('with CORS_ORIGINS a listed origin is answered with itself, never with credentials; another is not reflected', async () => {
    for (const origin of ['https://app.example.com', 'https://other.example.com']) {
      const res = await listed.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers: { origin } });
      expect(res.headers['access-control-allow-origin'], origin).toBe(origin);
      expect(res.headers['access-control-allow-credentials'], origin).toBeUndefined();
      const preflight = await listed.server.inject({ method: 'OPTIONS', url: '/graphql', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(origin);
      expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/authorization/);
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    }
    const evil = await listed.request('POST', '/graphql', { body: { query: '{ __typename }' }, headers: { origin: EVIL } });
    expect(corsHeaders(evil.headers)).toEqual({});
    const preflight = await listed.server.inject({ method: 'OPTIONS', url: '/graphql', headers: { origin: EVIL, 'access-control-request-method': 'POST' } });
    expect(corsHeaders(preflight.headers)).toEqual({});
  });
});

describe('CSRF prevention', () => {
  const boundary = 'fwcsrfboundary';
  const multipart = (name: string) => [
    `--${boundary}`, 'Content-Disposition: form-data; name="operations"', '',
    JSON.stringify({ query: `mutation { resOrganizationCreate(input: { name: ${JSON.stringify(name)} }) { id name } }` }),
    `--${boundary}`, 'Content-Disposition: form-data; name="map"', '', '{}', `--${boundary}--`, '',
  ].join('\r\n');
  const orgNamed = async (name: string) => {
    const token = await ts.adminToken();
    const res = await ts.request('POST', '/graphql', { token, body: { query: `{ resOrganizationCount(where: { name: { eq: ${JSON.stringify(name)} } }) }` } });
    return res.body.data.resOrganizationCount as number;
  };

  it('a simple multipart POST without the header is refused with 403 CSRF_HEADER_REQUIRED and creates nothing', async () => {
    const token = await ts.adminToken();
    const res = await ts.server.inject({
      method: 'POST', url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, origin: EVIL },
      payload: multipart('csrf refused'),
    });
    expect(res.statusCode).toBe(403);
    const body = JSON.parse(res.body);
    expect(body.errors[0].extensions.code).toBe('CSRF_HEADER_REQUIRED');
    expect(body.errors[0].message).toMatch(/x-graphql-csrf/);
    expect(await orgNamed('csrf refused')).toBe(0);
  });

  it('the same multipart POST with x-graphql-csrf runs', async () => {
    const token = await ts.adminToken();
    const res = await ts.server.inject({
      method: 'POST', url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-graphql-csrf': '1' },
      payload: multipart('csrf accepted'),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body).data.resOrganizationCreate.name).toBe('csrf accepted');
  });

  it('text/plain and content-type-less POSTs need the header too (a form body is refused as an unsupported type); JSON needs none, nor GET', async () => {
    const form = await ts.server.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `query=${encodeURIComponent('{ __typename }')}` });
    expect(form.statusCode).toBe(415);
    for (const [type, payload] of [['text/plain', JSON.stringify({ query: '{ __typename }' })], [undefined, '']] as const) {
      const res = await ts.server.inject({ method: 'POST', url: '/graphql', headers: type ? { 'content-type': type } : {}, payload });
      expect(res.statusCode, String(type)).toBe(403);
      expect(JSON.parse(res.body).errors[0].extensions.code, String(type)).toBe('CSRF_HEADER_REQUIRED');
    }
    const json = await ts.request('POST', '/graphql', { body: { query: '{ __typename }' } });
    expect(json.status).toBe(200);
    const viaGet = await ts.server.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent('{ __typename }')}`, headers: { accept: 'application/json' } });
    expect(viaGet.statusCode).toBe(200);
  });
});
