/**
 * The GraphQL-driven export download: `exportLink` (a command on the bus) answers a short-lived,
 * single-use URL that GET serves without a bearer header, with the same file as the REST export,
 * as the user is at download time. Expired, tampered, reused, other-tenant and revoked-session
 * links are refused with 401 and a stable code.
 */
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../../helpers/server.ts';

let ts: TestServer;
let admin: string;

const gql = (query: string, variables: Record<string, unknown>, token = admin, tenant?: string) =>
  ts.request('POST', '/graphql', { token, body: { query, variables }, headers: tenant ? { 'x-tenant': tenant } : {} });
const LINK = 'mutation($model: String!, $fields: JSON, $where: JSON, $order: String, $format: String) { exportLink(model: $model, fields: $fields, where: $where, order: $order, format: $format) { url expires_at } }';
const PARAMS = { model: 'crm.lead', fields: ['name', 'stage'], where: { name: { contains: 'Link' } }, order: 'name asc' };
const link = async (token = admin, params: Record<string, unknown> = PARAMS) => {
  const res = await gql(LINK, params, token);
  expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
  return res.body.data.exportLink as { url: string; expires_at: string };
};
const download = (url: string, headers: Record<string, string> = {}) => ts.server.inject({ method: 'GET', url, headers });
const refusal = (res: { statusCode: number; body: string }, code: string) => {
  expect(res.statusCode, res.body).toBe(401);
  expect(JSON.parse(res.body).error.code).toBe(code);
};

beforeAll(async () => {
  ts = await startTestServer();
  admin = await adminToken(ts);
  for (const name of ['Link Beta', 'Link Alpha', 'Other']) {
    expect((await ts.request('POST', '/api/data/crm.lead', { token: admin, body: { name, stage: 'new' } })).status).toBe(201);
  }
});

afterAll(async () => {
  await ts?.close();
});

describe('exportLink', () => {
  it('answers a URL valid for EXPORT_LINK_TTL_SECONDS; GET without a bearer header streams the same CSV as the REST export', async () => {
    const { url, expires_at } = await link();
    expect(url).toMatch(/^\/api\/export\/download\?token=[\w-]+\.[\w-]+\.[\w-]+$/);
    const ttl = (Date.parse(expires_at) - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(300);
    const res = await download(url);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rest = await ts.server.inject({ method: 'POST', url: '/api/export/crm.lead', headers: { authorization: `Bearer ${admin}` }, payload: { fields: PARAMS.fields, where: PARAMS.where, order: PARAMS.order } });
    expect(res.body).toBe(rest.body);
    expect(res.body).toContain('Link Alpha');
    expect(res.body).not.toContain('Other');
  });

  it('checks the parameters when it issues the link: an unknown field is the mutation\'s error', async () => {
    const res = await gql(LINK, { ...PARAMS, fields: ['nope'] });
    expect(res.body.errors[0].extensions.code).toBe('EXPORT_UNKNOWN_FIELD');
  });

  it('a link works once: the second GET is 401 EXPORT_LINK_USED', async () => {
    const { url } = await link();
    expect((await download(url)).statusCode).toBe(200);
    refusal(await download(url), 'EXPORT_LINK_USED');
  });

  it('a tampered link (parameters changed, signature kept) is 401 EXPORT_LINK_INVALID', async () => {
    const { url } = await link();
    const [head, payload, sig] = url.split('token=')[1].split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims.data.where = {};
    const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    refusal(await download(`/api/export/download?token=${forged}`), 'EXPORT_LINK_INVALID');
    refusal(await download('/api/export/download'), 'EXPORT_LINK_INVALID');
  });

  it('an expired link is 401 EXPORT_LINK_EXPIRED', async () => {
    const { url } = await link();
    const claims = jose.decodeJwt(url.split('token=')[1]);
    const old = Math.floor(Date.now() / 1000) - 600;
    const expired = await new jose.SignJWT({ ...claims, exp: old + 300, iat: old })
      .setProtectedHeader({ alg: 'HS256', typ: 'fw-link+jwt' }).sign(new TextEncoder().encode(ts.jwtKey));
    refusal(await download(`/api/export/download?token=${expired}`), 'EXPORT_LINK_EXPIRED');
  });

  it('a link of one tenant is refused on another (401 EXPORT_LINK_INVALID)', async () => {
    await ts.provisionTenant('other');
    const { url } = await link();
    refusal(await download(url, { 'x-tenant': 'other' }), 'EXPORT_LINK_INVALID');
  });

  it('a link of a session that was revoked (logout) since is 401 EXPORT_LINK_INVALID', async () => {
    const pair = await ts.loginAdmin();
    const { url } = await link(pair.access_token);
    const out = await gql('mutation { logout { revoked } }', {}, pair.access_token);
    expect(out.body.data.logout.revoked).toBe(true);
    refusal(await download(url), 'EXPORT_LINK_INVALID');
  });

  it('a link is not an access token, nor an access token a link', async () => {
    const { url } = await link();
    const token = url.split('token=')[1];
    expectError(await ts.request('GET', '/api/data/crm.lead', { token }), 401);
    refusal(await download(`/api/export/download?token=${admin}`), 'EXPORT_LINK_INVALID');
  });

  it('an anonymous caller gets no link', async () => {
    const res = await ts.request('POST', '/graphql', { body: { query: LINK, variables: PARAMS } });
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
