/**
 * The REST compatibility layer: the spec's base paths, the generic record routes of every model
 * (list with filter/order/paging/fields, create, read, replace, patch, delete, count, read_group,
 * record commands), the command bus over HTTP and the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let token: string;
const country: Record<string, string> = {};
let acme: string;
let globex: string;

const q = (params: Record<string, unknown>) => new URLSearchParams(
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
).toString();

const post = async (url: string, body: unknown, t = token) => ts.request('POST', url, { token: t, body });

beforeAll(async () => {
  ts = await startTestServer();
  token = await adminToken(ts);
  const list = await ts.request('GET', `/api/data/res.country?${q({ filter: [['code', 'in', ['FR', 'DE', 'US']]] })}`, { token });
  for (const c of list.body.items) country[c.code] = c.id;
  acme = (await post('/api/data/res.organization', { name: 'Acme', code: 'acme', country: country.FR })).body.id;
  globex = (await post('/api/data/res.organization', { name: 'Globex', code: 'globex', country: country.US })).body.id;
  const leads = [
    { name: 'Alpha', stage: 'new', expected_revenue: 100, organization: acme },
    { name: 'Bravo', stage: 'qualified', expected_revenue: 300, organization: acme },
    { name: 'Charlie', stage: 'qualified', expected_revenue: 200, organization: globex },
    { name: 'Delta', stage: 'won', expected_revenue: 900, organization: globex },
    { name: 'Echo', stage: 'lost', expected_revenue: 50, organization: globex },
  ];
  for (const l of leads) expect((await post('/api/data/crm.lead', l)).status).toBe(201);
});

afterAll(async () => {
  await ts?.close();
});

describe('base paths', () => {
  it('GET /health is public and answers ok', async () => {
    const res = await ts.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /api/base/ping needs a token and answers pong with the tenant', async () => {
    expectError(await ts.request('GET', '/api/base/ping'), 401, 'UNAUTHENTICATED');
    const res = await ts.request('GET', '/api/base/ping', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pong: true, tenant_id: 'default' });
  });

  it('GET /api/res/country lists the seeded ISO countries in the list envelope', async () => {
    const res = await ts.request('GET', '/api/res/country?limit=3&order=code%20asc', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 3, offset: 0 });
    expect(res.body.total).toBeGreaterThanOrEqual(249);
    expect(res.body.items.map((c: { code: string }) => c.code)).toEqual(['AD', 'AE', 'AF']);
    expect(res.body.items[0]).toEqual({
      id: expect.any(String), dbid: expect.any(Number), name: 'Andorra', code: 'AD', code3: 'AND', numeric: '020',
      created_at_utc: expect.any(String), updated_at_utc: expect.any(String), revision: 1,
    });
  });

  it('GET and POST /api/res/organization list and create organizations', async () => {
    const created = await post('/api/res/organization', { name: 'Via Res Path', country: country.DE });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Via Res Path', code: 'via-res-path', country: country.DE, is_active: true, revision: 1 });
    const list = await ts.request('GET', `/api/res/organization?${q({ filter: [['code', '=', 'via-res-path']] })}`, { token });
    expect(list.body).toMatchObject({ total: 1, items: [{ id: created.body.id }] });
  });

  it('GET and POST /api/res/user register users (hashing the password, never returning it)', async () => {
    const created = await post('/api/res/user', { email: 'Res.Path@Example.com', name: 'Res Path', password: 'res-path-pass', organization: acme });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'res.path@example.com', role: 'user', organization: acme });
    expect(created.body).not.toHaveProperty('password_hash');
    expect(created.body).not.toHaveProperty('password');
    await ts.login('res.path@example.com', 'res-path-pass');
    const list = await ts.request('GET', `/api/res/user?${q({ filter: [['email', '=', 'res.path@example.com']] })}`, { token });
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).not.toHaveProperty('password_hash');
  });
});

describe('GET /api/data/{model}: filter, order, paging, fields', () => {
  const names = (res: { body: { items: Array<{ name: string }> } }) => res.body.items.map((i) => i.name);

  it('answers { items, total, limit, offset } with the default limit of 50', async () => {
    const res = await ts.request('GET', '/api/data/crm.lead', { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'limit', 'offset', 'total']);
    expect(res.body).toMatchObject({ total: 5, limit: 50, offset: 0 });
    // the model's default_order: expected_revenue desc
    expect(names(res)).toEqual(['Delta', 'Bravo', 'Charlie', 'Alpha', 'Echo']);
  });

  it('filter is a JSON domain: terms are ANDed, & | ! are prefix operators, dotted paths follow references', async () => {
    const and = await ts.request('GET', `/api/data/crm.lead?${q({ filter: [['stage', '=', 'qualified'], ['expected_revenue', '>', 250]] })}`, { token });
    expect(names(and)).toEqual(['Bravo']);
    const or = await ts.request('GET', `/api/data/crm.lead?${q({ filter: ['|', ['stage', '=', 'won'], ['stage', '=', 'lost']] })}`, { token });
    expect(names(or)).toEqual(['Delta', 'Echo']);
    const not = await ts.request('GET', `/api/data/crm.lead?${q({ filter: ['!', ['stage', 'in', ['won', 'lost']]] })}`, { token });
    expect(names(not)).toEqual(['Bravo', 'Charlie', 'Alpha']);
    const dotted = await ts.request('GET', `/api/data/crm.lead?${q({ filter: [['organization.code', '=', 'acme']] })}`, { token });
    expect(names(dotted)).toEqual(['Bravo', 'Alpha']);
    const like = await ts.request('GET', `/api/data/crm.lead?${q({ filter: [['name', 'ilike', 'LT']] })}`, { token });
    expect(names(like)).toEqual(['Delta']);
    expect(like.body.total).toBe(1);
  });

  it('order takes "<field> asc|desc" terms, several separated by commas', async () => {
    const res = await ts.request('GET', `/api/data/crm.lead?${q({ order: 'stage asc, expected_revenue desc' })}`, { token });
    // stages in declaration order (new, qualified, won, lost), not alphabetical
    expect(names(res)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
  });

  it('limit and offset page; total counts every match', async () => {
    const res = await ts.request('GET', `/api/data/crm.lead?${q({ order: 'name asc', limit: '2', offset: '2' })}`, { token });
    expect(res.body).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(names(res)).toEqual(['Charlie', 'Delta']);
    const past = await ts.request('GET', `/api/data/crm.lead?${q({ limit: '10', offset: '10' })}`, { token });
    expect(past.body).toMatchObject({ items: [], total: 5, offset: 10 });
  });

  it('fields restricts each item to id and the named fields', async () => {
    const res = await ts.request('GET', `/api/data/crm.lead?${q({ fields: 'name,stage', order: 'name asc', limit: '1' })}`, { token });
    expect(res.body.items).toEqual([{ id: expect.any(String), name: 'Alpha', stage: 'new' }]);
  });
});

describe('record routes', () => {
  it('POST /api/data/{model} creates (201) a record with id, dbid, timestamps and revision; a reference is the target id', async () => {
    const res = await post('/api/data/crm.lead', { name: 'Created', email: 'c@lead.test', organization: acme, country: country.FR });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), dbid: expect.any(Number), revision: 1,
      name: 'Created', email: 'c@lead.test', stage: 'new', expected_revenue: 0, organization: acme, country: country.FR,
    });
    expect(Date.parse(res.body.created_at_utc)).not.toBeNaN();
    expect(res.body.updated_at_utc).toBe(res.body.created_at_utc);
  });

  it('GET /api/data/{model}/{id} reads one record (optionally only some fields)', async () => {
    const created = (await post('/api/data/crm.lead', { name: 'Read Me', expected_revenue: 5 })).body;
    const res = await ts.request('GET', `/api/data/crm.lead/${created.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    const upper = await ts.request('GET', `/api/data/crm.lead/${created.id.toUpperCase()}?fields=name`, { token });
    expect(upper.body).toEqual({ id: created.id, name: 'Read Me' });
  });

  it('PATCH changes only the given fields and bumps the revision', async () => {
    const created = (await post('/api/data/crm.lead', { name: 'Patch Me', email: 'keep@lead.test', expected_revenue: 10, probability: 0.3 })).body;
    const res = await ts.request('PATCH', `/api/data/crm.lead/${created.id}`, { token, body: { expected_revenue: 20 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Patch Me', email: 'keep@lead.test', expected_revenue: 20, probability: 0.3, revision: 2 });
  });

  it('PATCH with nothing to write ({}, or only the id and read-only values as read) answers the record unchanged: same revision and updated_at', async () => {
    const created = (await post('/api/data/crm.lead', { name: 'Leave Me' })).body;
    const empty = await ts.request('PATCH', `/api/data/crm.lead/${created.id}`, { token, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ id: created.id, name: 'Leave Me', revision: 1, updated_at_utc: created.updated_at_utc });
    const echoes = await ts.request('PATCH', `/api/data/crm.lead/${created.id}`, { token, body: { id: created.id, dbid: created.dbid, created_at_utc: created.created_at_utc } });
    expect(echoes.body).toMatchObject({ revision: 1, updated_at_utc: created.updated_at_utc });
    expect((await ts.request('GET', `/api/data/crm.lead/${created.id}`, { token })).body).toMatchObject({ revision: 1, updated_at_utc: created.updated_at_utc });
  });

  it('PUT replaces: writable fields not sent go back to their default or null, except the organization a record was created in (its default is whoever creates it)', async () => {
    const created = (await post('/api/data/crm.lead', {
      name: 'Put Me', email: 'gone@lead.test', stage: 'qualified', expected_revenue: 10, probability: 0.3, notes: 'n', organization: acme,
    })).body;
    const res = await ts.request('PUT', `/api/data/crm.lead/${created.id}`, { token, body: { name: 'Put Again', expected_revenue: 11 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id, name: 'Put Again', expected_revenue: 11, revision: 2,
      stage: 'new', email: null, probability: null, notes: null, organization: acme, closed_at: null,
    });
    // sent, it is written like any other field
    const moved = await ts.request('PUT', `/api/data/crm.lead/${created.id}`, { token, body: { name: 'Put Again', organization: null } });
    expect(moved.body, JSON.stringify(moved.body)).toMatchObject({ name: 'Put Again', organization: null, expected_revenue: 0 });
  });

  it('a record read with GET is sent back with PUT or PATCH, one field changed: its id and the fields the caller may not write holding their stored value are no change', async () => {
    const read = (await ts.request('GET', `/api/data/crm.lead/${(await post('/api/data/crm.lead', { name: 'Round', organization: acme })).body.id}`, { token })).body;
    expect(read).toMatchObject({ id: expect.any(String), dbid: expect.any(Number), created_at_utc: expect.any(String), revision: 1 });
    const put = await ts.request('PUT', `/api/data/crm.lead/${read.id}`, { token, body: { ...read, name: 'Round 2' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ id: read.id, name: 'Round 2', revision: 2, created_at_utc: read.created_at_utc, organization: acme });
    // an instant in another notation is the same value
    const again = (await ts.request('GET', `/api/data/crm.lead/${read.id}`, { token })).body;
    const patched = await ts.request('PATCH', `/api/data/crm.lead/${read.id}`, { token, body: { ...again, created_at_utc: again.created_at_utc.replace('Z', '+00:00'), name: 'Round 3' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // the copy sent back is stale now: its revision says so first
    expectError(await ts.request('PUT', `/api/data/crm.lead/${read.id}`, { token, body: { ...read, name: 'lost' } }), 409, 'STALE_REVISION');
    // a real change of such a field is still refused, and nothing is written
    const fresh = (await ts.request('GET', `/api/data/crm.lead/${read.id}`, { token })).body;
    const changed = await ts.request('PUT', `/api/data/crm.lead/${read.id}`, { token, body: { ...fresh, name: 'lost', dbid: fresh.dbid + 1000 } });
    expectError(changed, 422, 'VALIDATION_FAILED');
    expect(changed.body.error.details.errors).toEqual([expect.objectContaining({ field: 'dbid', code: 'READONLY_FIELD' })]);
    const other = await ts.request('PATCH', `/api/data/crm.lead/${read.id}`, { token, body: { id: put.body.organization, name: 'lost' } });
    expectError(other, 422, 'ID_MISMATCH');
    expect((await ts.request('GET', `/api/data/crm.lead/${read.id}`, { token })).body).toMatchObject({ name: 'Round 3', revision: 3 });
  });

  it('PUT works on models with private fields (res.user keeps its password)', async () => {
    const user = (await post('/api/data/res.user', { email: 'put-user@example.com', name: 'Put User', password: 'put-user-pass', organization: acme })).body;
    const res = await ts.request('PUT', `/api/data/res.user/${user.id}`, { token, body: { email: 'put-user@example.com', name: 'Put User Renamed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'Put User Renamed', organization: null, role: 'user', is_active: true });
    expect(res.body).not.toHaveProperty('password_hash');
    await ts.login('put-user@example.com', 'put-user-pass');
  });

  it('PUT on res.organization replaces its fields (the slug must be sent: it has no default)', async () => {
    const o = (await post('/api/data/res.organization', { name: 'Put Org', country: country.DE })).body;
    const res = await ts.request('PUT', `/api/data/res.organization/${o.id}`, { token, body: { name: 'Put Org 2', code: 'put-org-2' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'Put Org 2', code: 'put-org-2', country: null, is_active: true });
  });

  it('a revision in the body (PATCH or PUT) or an If-Match header guards against lost updates (409 STALE_REVISION)', async () => {
    const l = (await post('/api/data/crm.lead', { name: 'Locked' })).body;
    const url = `/api/data/crm.lead/${l.id}`;
    expect((await ts.request('PATCH', url, { token, body: { name: 'Locked 2', revision: 1 } })).body.revision).toBe(2);
    const staleBody = await ts.request('PATCH', url, { token, body: { name: 'lost', revision: 1 } });
    expectError(staleBody, 409, 'STALE_REVISION');
    expect(staleBody.body.error.details).toMatchObject({ expected: 1, actual: 2 });
    expectError(await ts.request('PUT', url, { token, body: { name: 'lost', revision: 1 } }), 409, 'STALE_REVISION');
    expectError(await ts.request('PATCH', url, { token, body: { name: 'lost' }, headers: { 'if-match': '"1"' } }), 409, 'STALE_REVISION');
    const ok = await ts.request('PATCH', url, { token, body: { name: 'Locked 3' }, headers: { 'if-match': '"2"' } });
    expect(ok.status).toBe(200);
    const weak = await ts.request('PUT', url, { token, body: { name: 'Locked 4' }, headers: { 'if-match': 'W/"3"' } });
    expect(weak.body).toMatchObject({ name: 'Locked 4', revision: 4 });
    expect((await ts.request('GET', url, { token })).body.name).toBe('Locked 4');
  });

  it('DELETE removes the record; reading it afterwards is 404 RECORD_NOT_FOUND', async () => {
    const l = (await post('/api/data/crm.lead', { name: 'Delete Me' })).body;
    const res = await ts.request('DELETE', `/api/data/crm.lead/${l.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: l.id, deleted: true });
    expectError(await ts.request('GET', `/api/data/crm.lead/${l.id}`, { token }), 404, 'RECORD_NOT_FOUND');
  });

  it('GET /api/data/{model}/count?filter= answers { count }', async () => {
    const res = await ts.request('GET', `/api/data/crm.lead/count?${q({ filter: [['organization', '=', globex]] })}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 3 });
    expect((await ts.request('GET', '/api/data/res.organization/count', { token })).body.count).toBeGreaterThanOrEqual(3);
  });

  it('POST /api/data/{model}/read_group answers { groups } with count and <field>_<aggregate>, stages in declaration order', async () => {
    const res = await post('/api/data/crm.lead/read_group', {
      groupby: ['stage'], filter: [['name', 'in', ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']]], aggregates: { expected_revenue: 'sum' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      groups: [
        { stage: 'new', count: 1, expected_revenue_sum: 100 },
        { stage: 'qualified', count: 2, expected_revenue_sum: 500 },
        { stage: 'won', count: 1, expected_revenue_sum: 900 },
        { stage: 'lost', count: 1, expected_revenue_sum: 50 },
      ],
    });
    const two = await post('/api/data/crm.lead/read_group', {
      groupby: ['organization', 'stage'], filter: [['organization', '=', globex]], aggregates: { expected_revenue: 'max' },
    });
    expect(two.body.groups).toEqual([
      { organization: globex, stage: 'qualified', count: 1, expected_revenue_max: 200 },
      { organization: globex, stage: 'won', count: 1, expected_revenue_max: 900 },
      { organization: globex, stage: 'lost', count: 1, expected_revenue_max: 50 },
    ]);
  });

  it('POST /api/data/{model}/{id}/{command} runs a record command', async () => {
    const o = (await post('/api/data/res.organization', { name: 'Command Target' })).body;
    const off = await post(`/api/data/res.organization/${o.id}/deactivate`, {});
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: o.id, is_active: false, revision: 2 });
    const moved = await post(`/api/data/res.organization/${o.id}/change_country`, { country: country.US });
    expect(moved.body).toMatchObject({ country: country.US, revision: 3 });
    const l = (await post('/api/data/crm.lead', { name: 'Win Me' })).body;
    const won = await post(`/api/data/crm.lead/${l.id}/mark_won`, undefined);
    expect(won.body).toMatchObject({ stage: 'won', probability: 1 });
  });

  it('POST /api/command/{name} is the command bus over HTTP', async () => {
    const count = await post('/api/command/fw.count', { model: 'res.organization', domain: [['code', '=', 'acme']] });
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: 1 });
    const me = await post('/api/command/auth.me', {});
    expect(me.body).toMatchObject({ email: 'admin@example.com', role: 'admin' });
    const l = (await post('/api/data/crm.lead', { name: 'Bus Lead' })).body;
    expect((await post('/api/command/crm.lead.mark_won', { id: l.id })).body).toMatchObject({ stage: 'won' });
  });
});

describe('OpenAPI', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await ts.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('GET /api/openapi.json is public and an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/health'].get.security).toEqual([]);
  });

  it('describes the generic routes of every model of the registry', () => {
    for (const m of ts.kernel.registry.models.values()) {
      const base = `/api/data/${m.key}`;
      expect(Object.keys(doc.paths[base] ?? {}).sort(), base).toEqual(['get', 'post']);
      expect(Object.keys(doc.paths[`${base}/{id}`] ?? {}).sort(), base).toEqual(['delete', 'get', 'patch', 'put']);
      expect(doc.paths[`${base}/count`]?.get, base).toBeDefined();
      expect(doc.paths[`${base}/read_group`]?.post, base).toBeDefined();
      expect(doc.components.schemas[m.names.typeName], m.key).toMatchObject({ type: 'object' });
    }
    expect(doc.paths['/api/data/res.organization/{id}/deactivate'].post).toBeDefined();
    expect(doc.paths['/api/data/crm.lead/{id}/mark_won'].post).toBeDefined();
    expect(doc.paths['/api/command/{name}'].post).toBeDefined();
    expect(doc.paths['/api/auth/login'].post).toBeDefined();
  });

  it('documents the record convention, the list envelope with its page limits, and the error envelope', () => {
    const org = doc.components.schemas.ResOrganization;
    expect(org.required).toEqual(expect.arrayContaining(['id', 'dbid', 'created_at_utc', 'updated_at_utc', 'revision', 'name']));
    expect(org.properties.country).toMatchObject({ format: 'uuid', 'x-reference': 'res.country' });
    expect(doc.components.schemas.ResUser.properties).not.toHaveProperty('password_hash');
    const list = doc.paths['/api/data/res.organization'].get.responses[200].content['application/json'].schema;
    expect(list.properties.limit).toMatchObject({ default: 50, maximum: 500 });
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
    expect(doc.paths['/api/data/res.organization'].post.responses).toHaveProperty('201');
    expect(doc.paths['/api/data/res.organization/{id}'].patch.responses).toHaveProperty('409');
  });

  it('every $ref resolves and every operationId is unique', () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref') refs.push(x as string);
          else walk(x);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of new Set(refs)) {
      expect(r).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[r.split('/').at(-1)!], r).toBeDefined();
    }
    const ids = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((op: any) => op.operationId)).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
