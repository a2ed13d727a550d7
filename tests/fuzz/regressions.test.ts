/**
 * Every failure the fuzzer (tests/fuzz/fuzz.test.ts, bench/fuzz.ts) found, as a plain example:
 * the shrunk request, the rule it broke (runner.ts) and the answer it must get. A bug found and
 * not fixed at once goes in known-open.ts with an `it.fails` reproducer here, which turns red once
 * fixed, as a reminder to make it a plain test and drop its known-open entry (none is open now).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUZZ_JWT_KEY, FUZZ_TENANT, startFuzzServer, type FuzzHarness, type FuzzResponse } from './harness.ts';
import { storageProblems } from './integrity.ts';

let h: FuzzHarness;
const webClient = fs.existsSync(path.resolve('web/dist/index.html'));

beforeAll(async () => {
  h = await startFuzzServer();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const call = (method: string, url: string, o: { token?: string | null; headers?: Record<string, string>; body?: string } = {}) => {
  const token = o.token === undefined ? h.fixtures.admin.token : o.token;
  return h.send({
    target: 'regression', method, url, auth: 'admin',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
    ...(o.body !== undefined ? { body: o.body } : {}),
  });
};

/** The REST error envelope with this status and code. */
function refusedWith(res: FuzzResponse, status: number, code: string): void {
  expect(res.status, res.body).toBe(status);
  expect(res.json).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

const sign = async (claims: Record<string, unknown>) => {
  const crypto = await import('node:crypto');
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${crypto.createHmac('sha256', FUZZ_JWT_KEY).update(input).digest('base64url')}`;
};

describe('rule no-5xx', () => {
  it('a QUERY request without a Content-Type is 400 BAD_REQUEST, not 500 (src/server/errors.ts)', async () => {
    refusedWith(await call('QUERY', '/api/data/res.country'), 400, 'BAD_REQUEST');
    refusedWith(await call('QUERY', `/api/data/storage.document_version?filter=${encodeURIComponent('[]')}`, { token: null }), 400, 'BAD_REQUEST');
  });

  it('a list parameter given twice is 400 with the parameter\'s code, not 500 (src/server/routes/data.ts)', async () => {
    refusedWith(await call('GET', '/api/data/res.country?fields=name&fields=code'), 400, 'INVALID_FIELDS');
    refusedWith(await call('GET', '/api/res/organization?order=name%20asc&order=name%20desc'), 400, 'INVALID_ORDER');
    refusedWith(await call('GET', '/api/res/organization?order=&order=&fields=%7B%7D&fields=null'), 400, 'INVALID_FIELDS');
    refusedWith(await call('GET', '/api/res/organization?limit=1&limit=2'), 400, 'INVALID_PAGING');
    refusedWith(await call('GET', '/api/connectors?filter=%5B%5D&filter=%5B%5D'), 400, 'INVALID_FILTER');
    refusedWith(await call('GET', '/api/storage/documents?offset=1&offset=2'), 400, 'INVALID_PAGING');
    expect((await call('GET', '/api/data/res.country?fields=name,code&limit=2')).status).toBe(200);
  });

  it('a filter that is JSON but not a list is 400 INVALID_DOMAIN on routes that add their own terms, not 500 (src/server/routes/data.ts)', async () => {
    refusedWith(await call('GET', '/api/storage/documents?filter=0&offset=0', { token: h.fixtures.userA.token }), 400, 'INVALID_DOMAIN');
    refusedWith(await call('GET', '/api/connectors?filter=0&order=id%20asc&category=storage', { token: h.fixtures.userA.token }), 400, 'INVALID_DOMAIN');
    refusedWith(await call('GET', `/api/data/crm.lead?filter=${encodeURIComponent('{"name":"x"}')}`), 400, 'INVALID_DOMAIN');
  });

  it('an offset or limit beyond the safe integers is 400 INVALID_PAGING, not 500 (src/server/routes/data.ts, src/kernel/commands/crud.ts)', async () => {
    refusedWith(await call('GET', '/api/data/ir.menu?offset=1.7976931348623157e%2B308', { token: h.fixtures.userA.token }), 400, 'INVALID_PAGING');
    refusedWith(await call('POST', '/api/command/fw.search', { body: '{"model":"res.country","offset":1e300}' }), 400, 'INVALID_PAGING');
    refusedWith(await call('POST', '/api/command/fw.search', { body: '{"model":"res.country","limit":1e300}' }), 400, 'INVALID_PAGING');
  });

  it('OAuth on a provider without it is 409 CONNECTOR_NOT_SUPPORTED, not 501 (src/apps/connectors/errors.ts)', async () => {
    const hooks = await call('GET', `/api/connectors?filter=${encodeURIComponent('[["provider_type","=","webhook"]]')}`);
    const id = (hooks.json as { items: { id: string }[] }).items[0].id;
    refusedWith(await call('POST', `/api/data/ir.connector/${id}/oauth_start`, { body: '{}' }), 409, 'CONNECTOR_NOT_SUPPORTED');
    refusedWith(await call('POST', `/api/data/ir.connector/${id}/oauth_start`, { headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body: '' }), 409, 'CONNECTOR_NOT_SUPPORTED');
  });

  it.skipIf(!webClient)('the web client\'s files answer a failed If-Match with 412 and an unsatisfiable Range with 416, not 500 (src/server/errors.ts)', async () => {
    refusedWith(await call('GET', '/index.html', { token: h.fixtures.userA.token, headers: { 'content-type': 'application/octet-stream', 'if-match': '"0"' } }), 412, 'PRECONDITION_FAILED');
    refusedWith(await call('GET', '/index.html', { token: null, headers: { range: 'bytes=5-1' } }), 416, 'RANGE_NOT_SATISFIABLE');
    expect((await call('GET', '/index.html', { token: null, headers: { 'if-match': '*' } })).status).toBe(200);
  });
});

describe('rule no-5xx: input the layers behind the HTTP edge cannot hold (src/server/input.ts)', () => {
  it('JSON nested deeper than 64 levels is 400 INVALID_JSON (a connector config 3,000 deep was a 500: stack overflow)', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    refusedWith(await call('POST', '/api/connectors', { body: `{"name":"x","category":"messaging","provider_type":"webhook","config":${deep(3000)}}` }), 400, 'INVALID_JSON');
    refusedWith(await call('POST', '/api/data/res.organization/read_group', { body: `{"groupby":["name"],"filter":[${'['.repeat(5000)}${']'.repeat(5000)}]}` }), 400, 'INVALID_JSON');
    refusedWith(await call('GET', `/api/data/res.organization?filter=${encodeURIComponent(`[${'['.repeat(100)}${']'.repeat(100)}]`)}`), 400, 'INVALID_FILTER');
    // a term 5,000 deep overflowed JSON.stringify while the INVALID_DOMAIN message was built
    refusedWith(await call('GET', `/api/data/res.organization/count?filter=${encodeURIComponent(`[${'['.repeat(5000)}${']'.repeat(5000)}]`)}`), 400, 'INVALID_FILTER');
    // GraphQL answers in its own shape
    const g = await call('POST', '/graphql', { body: JSON.stringify({ query: 'mutation($p: JSON) { command(name: "fw.count", payload: $p) }', variables: { p: JSON.parse(`{"model":"res.country","x":${deep(200)}}`) } }) });
    expect(g.status).toBe(400);
    expect((g.json as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('INVALID_JSON');
    // 60 levels are fine
    expect((await call('POST', '/api/connectors', { body: `{"name":"y","category":"messaging","provider_type":"webhook","config":${deep(60)}}` })).status).toBe(201);
  });

  it('text with a NUL character is 400 BAD_REQUEST on both engines (PostgreSQL stores none: it was a 500 there)', async () => {
    refusedWith(await call('POST', '/api/data/res.organization', { body: '{"name":"a\\u0000b"}' }), 400, 'BAD_REQUEST');
    refusedWith(await call('POST', '/api/auth/login', { token: null, body: '{"email":"a\\u0000@x.io","password":"12345678"}' }), 400, 'BAD_REQUEST');
    refusedWith(await call('GET', `/api/data/res.organization?filter=${encodeURIComponent('[["name","=","a\\u0000"]]')}`), 400, 'BAD_REQUEST');
    refusedWith(await call('GET', '/api/data/res.organization?order=name%00'), 400, 'BAD_REQUEST');
  });
});

describe('rule error-envelope', () => {
  it('a malformed URL answers 400 with the error envelope, not Fastify\'s own body (src/server/index.ts)', async () => {
    refusedWith(await call('GET', '/api/data/ir.connector/%'), 400, 'BAD_REQUEST');
    refusedWith(await call('GET', '/graphql/%', { token: null }), 400, 'BAD_REQUEST');
  });
});

describe('rule bad-token-refused', () => {
  it('a signed token whose tenant is not a tenant key is 401 TOKEN_INVALID, not 400 INVALID_TENANT (src/apps/auth/services/sessions.ts)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: h.fixtures.admin.userId, role: 'admin', sid: h.fixtures.adminSid, jti: 'x', iat: now, exp: now + 600 };
    for (const tenant of ['../fuzz', 'UPPER', '', 'a'.repeat(41)]) {
      refusedWith(await call('GET', '/api/base/ping', { token: await sign({ ...claims, tenant_id: tenant }) }), 401, 'TOKEN_INVALID');
    }
    // the same claims with the real tenant are a valid token: only the tenant made the difference
    expect((await call('GET', '/api/base/ping', { token: await sign({ ...claims, tenant_id: FUZZ_TENANT }) })).status).toBe(200);
  });
});

describe('rule no-5xx and refusal-changes-nothing: bugs the fuzzer found in the layers behind the edge', () => {
  it('a domain nested past Prisma\'s recursion limit is 400 INVALID_DOMAIN, not 500 (src/kernel/data/domain.ts MAX_DOMAIN_DEPTH)', async () => {
    const negations = `[${'"!",'.repeat(130)}["name","=","x"]]`;
    refusedWith(await call('POST', '/api/data/res.organization/read_group', { body: `{"groupby":["name"],"filter":${negations}}` }), 400, 'INVALID_DOMAIN');
  });

  it('a domain nested past Prisma\'s recursion limit through GraphQL is refused, not a 500 (src/kernel/data/domain.ts MAX_DOMAIN_DEPTH)', async () => {
    const where = `${'{ NOT: '.repeat(130)}{ name: { eq: "x" } }${' }'.repeat(130)}`;
    const res = await call('POST', '/graphql', { body: JSON.stringify({ query: `mutation { resOrganizationUpdateMany(where: ${where}, input: { name: "y" }) { count } }` }) });
    expect(res.status).toBeLessThan(500);
  });

  it('an upload named with 100 CJK characters is stored, not a 500 (src/apps/storage: the key name is cut at 200 UTF-8 bytes; it was ENAMETOOLONG)', async () => {
    const res = await call('POST', '/api/storage/upload', { token: h.fixtures.userB.token, body: JSON.stringify({ filename: '漢'.repeat(100), content_b64: 'aGk=' }) });
    expect(res.status, res.body).toBe(201);
  });

  it('a GraphQL mutation answered 406 (an Accept yoga cannot serve) writes nothing (src/server/graphql/accept.ts decides before yoga executes)', async () => {
    const before = await h.probe.changes();
    const res = await call('POST', '/graphql', { headers: { accept: 'text/html' }, body: JSON.stringify({ query: `mutation { crmLeadCreate(input: { name: "via 406", organization: "${h.fixtures.orgA}" }) { id } }` }) });
    expect(res.status).toBe(406);
    expect(await h.probe.changes()).toEqual(before);
  });

  it('a batch of documents refused for one bad item leaves no stored file behind (src/apps/storage: an object\'s removal runs on rollback, env.onRollback)', async () => {
    const res = await call('POST', '/graphql', {
      token: h.fixtures.userB.token,
      body: JSON.stringify({ query: 'mutation { storageDocumentCreateMany(inputs: [{ content_b64: "aGk=", filename: "first.txt" }, { content_type: "text/plain" }]) { id } }' }),
    });
    expect(res.status).toBe(422);
    expect(await storageProblems(h)).toEqual([]);
  });

  it('a `like` value over 50,000 bytes is refused, not a 500 on SQLite (src/kernel/data/domain.ts MAX_PATTERN_LENGTH)', async () => {
    const res = await call('POST', '/api/data/res.country/read_group', { body: JSON.stringify({ groupby: ['code'], filter: [['name', 'like', '漢'.repeat(17_000)]] }) });
    expect(res.status, res.body).toBeLessThan(500);
  });

  it('a version number beyond the safe integers is 400 INVALID_PARAMETER, not 500 (src/apps/storage/routes.ts intParam)', async () => {
    const doc = h.fixtures.ids['storage.document'][0];
    refusedWith(await call('GET', `/api/storage/download/${doc}?version_number=9223372036854780000`), 400, 'INVALID_PARAMETER');
  });
});

describe('on PostgreSQL', () => {
  let pg: FuzzHarness;
  beforeAll(async () => {
    pg = await startFuzzServer({ provider: 'postgresql' });
  }, 120_000);
  afterAll(async () => {
    await pg?.close();
  });
  const send = (body: string, url = '/api/data/res.organization') => pg.send({
    target: 'regression', method: 'POST', url, auth: 'admin', body,
    headers: { authorization: `Bearer ${pg.fixtures.admin.token}`, 'content-type': 'application/json' },
  });

  it('rule no-5xx: text with a NUL character is 400 BAD_REQUEST, not 500 (src/server/input.ts)', async () => {
    refusedWith(await send('{"name":"a\\u0000b"}'), 400, 'BAD_REQUEST');
    refusedWith(await send('{"name":"x","category":"messaging","provider_type":"webhook","config":{"a":"\\u0000"}}', '/api/connectors'), 400, 'BAD_REQUEST');
    refusedWith(await send('{"groupby":["name"],"filter":[["name","=","a\\u0000"]]}', '/api/data/res.organization/read_group'), 400, 'BAD_REQUEST');
  });

  it('rule no-5xx: a DateTime outside years 1–9999 is refused, not a 500 (src/kernel/data/values.ts MIN_DATETIME/MAX_DATETIME)', async () => {
    for (const closedAt of ['0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z']) {
      const res = await send(JSON.stringify({ name: 'x', organization: pg.fixtures.orgA, closed_at: closedAt }), '/api/data/crm.lead');
      expect(res.status, res.body).toBeLessThan(500);
    }
  });

  it('rule no-5xx: a NUL in a GraphQL string literal is refused, not a 500 (src/kernel/data/values.ts refuses U+0000 in text and filters)', async () => {
    const res = await send(JSON.stringify({ query: '{ resOrganizations(where: { name: { eq: "a\\u0000" } }) { id } }' }), '/graphql');
    expect(res.status).toBeLessThan(500);
  });
});
