/**
 * Saved filters (`ir.filter`, issue 29 §2): a person saves a view's search under a name, private
 * or shared with the organization they work in. Records follow the access rules like any other:
 * one's own and the organization's shared ones are listed, only the owner changes or deletes one,
 * the owner and organization are the caller's whatever the request says, a search holds only
 * what a view's search holds, and one default per person and action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let orgA = '';
let orgB = '';
const ann = { id: '', token: '' };
const bob = { id: '', token: '' };
const cat = { id: '', token: '' };

const save = (token: string, body: Record<string, unknown>) =>
  t.request('POST', '/api/data/ir.filter', { token, body: { action_key: 'crm.leads', search: { q: 'acme' }, ...body } });
const names = async (token: string, action = 'crm.leads') => {
  const res = await t.request('GET', `/api/data/ir.filter?filter=${encodeURIComponent(JSON.stringify([['action_key', '=', action]]))}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items as Array<{ name: string }>).map((i) => i.name).sort();
};

beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
  orgA = await t.createOrg(admin, 'Filters Alpha');
  orgB = await t.createOrg(admin, 'Filters Beta');
  for (const [who, email, organization] of [[ann, 'ann@filters.example.com', orgA], [bob, 'bob@filters.example.com', orgA], [cat, 'cat@filters.example.com', orgB]] as const) {
    who.id = (await t.createUser(admin, { email, password: 'filters-pass-1', organization })).id;
    who.token = (await t.login(email, 'filters-pass-1')).access_token;
  }
});
afterAll(async () => {
  await t?.close();
});

describe('saved filters', () => {
  it('belong to whoever saves them, in the organization they work in, whatever the request names', async () => {
    const res = await save(ann.token, { name: 'Acme leads' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.user).toBe(ann.id);
    expect(res.body.organization).toBe(orgA);
    expect(res.body.shared).toBe(false);
    const forged = await save(ann.token, { name: 'As Bob', user: bob.id });
    expect(forged.status).toBe(403);
    expect(await names(ann.token)).toEqual(['Acme leads']);
  });

  it('GraphQL\'s create input leaves the owner and organization out, as the server fills them (default_principal)', async () => {
    const query = 'mutation($i: IrFilterCreateInput!) { irFilterCreate(input: $i) { id user { id } organization { id } } }';
    const res = await t.request('POST', '/graphql', { token: ann.token, body: { query, variables: { i: { name: 'From GraphQL', action_key: 'crm.graphql', search: { filter: ['Open'] } } } } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.irFilterCreate.user.id).toBe(ann.id);
    expect(res.body.data.irFilterCreate.organization.id).toBe(orgA);
    const sdl = await t.request('POST', '/graphql', { token: ann.token, body: { query: '{ __type(name: "IrFilterCreateInput") { inputFields { name type { kind } } } }' } });
    const kinds = Object.fromEntries(sdl.body.data.__type.inputFields.map((f: { name: string; type: { kind: string } }) => [f.name, f.type.kind]));
    expect(kinds).toMatchObject({ name: 'NON_NULL', action_key: 'NON_NULL', user: expect.not.stringMatching('NON_NULL'), organization: expect.not.stringMatching('NON_NULL') });
  });

  it('a private one is listed for its owner only; a shared one for everyone of its organization and nobody else', async () => {
    expect((await save(ann.token, { name: 'Team pipeline', shared: true, search: { filter: ['Won'], group_by: 'stage' } })).status).toBe(201);
    expect(await names(ann.token)).toEqual(['Acme leads', 'Team pipeline']);
    expect(await names(bob.token)).toEqual(['Team pipeline']);
    expect(await names(cat.token)).toEqual([]);
  });

  it('only the owner changes or deletes one, shared or not', async () => {
    const shared = (await t.request('GET', `/api/data/ir.filter?filter=${encodeURIComponent(JSON.stringify([['name', '=', 'Team pipeline']]))}`, { token: bob.token })).body.items[0];
    expect(shared).toBeTruthy();
    const rename = await t.request('PATCH', `/api/data/ir.filter/${shared.id}`, { token: bob.token, body: { name: 'Mine now' } });
    expect([403, 404]).toContain(rename.status);
    const del = await t.request('DELETE', `/api/data/ir.filter/${shared.id}`, { token: bob.token });
    expect([403, 404]).toContain(del.status);
    expect(await names(ann.token)).toEqual(['Acme leads', 'Team pipeline']);
    const own = await t.request('PATCH', `/api/data/ir.filter/${shared.id}`, { token: ann.token, body: { name: 'Team pipeline (won)' } });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it('a search holding anything a view search does not is 422 INVALID_SAVED_SEARCH, and nothing is stored', async () => {
    for (const search of [['q'], 'acme', { q: 3 }, { filter: 'Won' }, { archived: 'yes' }, { where: { name: 'x' } }]) {
      expectError(await save(ann.token, { name: 'Bad', search }), 422, 'INVALID_SAVED_SEARCH');
    }
    expect(await names(ann.token)).not.toContain('Bad');
    const first = (await save(ann.token, { name: 'Good' })).body;
    expectError(await t.request('PATCH', `/api/data/ir.filter/${first.id}`, { token: ann.token, body: { search: { order: ['name'] } } }), 422, 'INVALID_SAVED_SEARCH');
  });

  it('a new default of a person and action replaces their previous default, and leaves other people and actions alone', async () => {
    const one = (await save(ann.token, { name: 'Default one', is_default: true, action_key: 'crm.defaults' })).body;
    const other = (await save(ann.token, { name: 'Other action', is_default: true, action_key: 'crm.elsewhere' })).body;
    const bobs = (await save(bob.token, { name: 'Bob default', is_default: true, action_key: 'crm.defaults' })).body;
    const two = (await save(ann.token, { name: 'Default two', is_default: true, action_key: 'crm.defaults' })).body;
    const isDefault = async (id: string, token = ann.token) => (await t.request('GET', `/api/data/ir.filter/${id}`, { token })).body.is_default;
    expect(await isDefault(one.id)).toBe(false);
    expect(await isDefault(two.id)).toBe(true);
    expect(await isDefault(other.id)).toBe(true);
    expect(await isDefault(bobs.id, bob.token)).toBe(true);
    // making the first the default again through an update moves it back
    expect((await t.request('PATCH', `/api/data/ir.filter/${one.id}`, { token: ann.token, body: { is_default: true } })).status).toBe(200);
    expect(await isDefault(two.id)).toBe(false);
  });
});
