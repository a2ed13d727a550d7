/**
 * GraphQL mutations compiled from the registry: CRUD with optimistic locking, batch operations,
 * model commands as mutations (and non-mutating ones as queries), the auth mutations and the
 * generic `command(name, payload)`. Every one dispatches through the command bus, so access
 * control and validation answer with our stable error codes and HTTP statuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateOrganizationDocument,
  DeleteOrganizationDocument,
  LoginDocument,
  LogoutDocument,
  MeDocument,
  OrganizationDocument,
  RefreshDocument,
  UpdateOrganizationDocument,
} from '../../generated/gql/graphql.ts';
import { adminToken, gql, gqlError, gqlOk } from '../helpers/api.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let token: string;

const createOrg = async (name: string, extra: Record<string, unknown> = {}) =>
  (await gqlOk(ts, CreateOrganizationDocument, { input: { name, ...extra } }, { token })).resOrganizationCreate;

beforeAll(async () => {
  ts = await startTestServer();
  token = await adminToken(ts);
});

afterAll(async () => {
  await ts?.close();
});

describe('CRUD mutations', () => {
  it('resOrganizationCreate creates a record at revision 1 (defaults and hooks applied)', async () => {
    const o = await createOrg('Create Me Inc');
    expect(o).toMatchObject({ name: 'Create Me Inc', code: 'create-me-inc', revision: 1 });
    const read = await gqlOk(ts, OrganizationDocument, { id: o.id }, { token });
    expect(read.resOrganization).toMatchObject({ id: o.id, is_active: true, country: null });
  });

  it('resOrganizationUpdate with the current revision applies and bumps the revision', async () => {
    const o = await createOrg('Update Me');
    const u = await gqlOk(ts, UpdateOrganizationDocument, { id: o.id, input: { code: 'updated-slug' }, revision: 1 }, { token });
    expect(u.resOrganizationUpdate).toEqual({ id: o.id, code: 'updated-slug', revision: 2 });
    const again = await gqlOk(ts, UpdateOrganizationDocument, { id: o.id, input: { code: 'updated-slug-2' } }, { token });
    expect(again.resOrganizationUpdate.revision).toBe(3);
  });

  it('resOrganizationUpdate with a stale revision fails with STALE_REVISION and HTTP 409, changing nothing', async () => {
    const o = await createOrg('Stale Me');
    await gqlOk(ts, UpdateOrganizationDocument, { id: o.id, input: { name: 'Stale Me 2' }, revision: 1 }, { token });
    const res = await gql(ts, UpdateOrganizationDocument, { id: o.id, input: { name: 'Lost update' }, revision: 1 }, { token });
    // yoga turns extensions.http.status into the response status (and keeps it out of the body)
    const err = gqlError(res, 'STALE_REVISION', 409);
    expect(err.extensions?.details).toMatchObject({ expected: 1, actual: 2 });
    expect(err.path).toEqual(['resOrganizationUpdate']);
    const read = await gqlOk(ts, OrganizationDocument, { id: o.id }, { token });
    expect(read.resOrganization).toMatchObject({ name: 'Stale Me 2', revision: 2 });
  });

  it('resOrganizationDelete deletes; the record is gone and a second delete is RECORD_NOT_FOUND (404)', async () => {
    const o = await createOrg('Delete Me');
    const d = await gqlOk(ts, DeleteOrganizationDocument, { id: o.id }, { token });
    expect(d.resOrganizationDelete).toEqual({ id: o.id, deleted: true });
    expect((await gqlOk(ts, OrganizationDocument, { id: o.id }, { token })).resOrganization).toBeNull();
    gqlError(await gql(ts, DeleteOrganizationDocument, { id: o.id }, { token }), 'RECORD_NOT_FOUND', 404);
  });

  it('resOrganizationUpdate of an unknown id is RECORD_NOT_FOUND (404)', async () => {
    const res = await gql(ts, UpdateOrganizationDocument, { id: '00000000-0000-4000-8000-000000000000', input: { name: 'x' } }, { token });
    gqlError(res, 'RECORD_NOT_FOUND', 404);
  });

  it('a create that breaks field rules is VALIDATION_FAILED (422) with per-field details', async () => {
    const res = await gql(ts, CreateOrganizationDocument, { input: { name: 'x'.repeat(201) } }, { token });
    const err = gqlError(res, 'VALIDATION_FAILED', 422);
    expect(err.extensions?.details?.errors).toEqual([expect.objectContaining({ field: 'name', code: 'TOO_LONG' })]);
  });

  it('a create that repeats a unique value is UNIQUE_VIOLATION (409)', async () => {
    const res = await gql(ts, 'mutation { resCountryCreate(input: { name: "Another France", code: "FR" }) { id } }', {}, { token });
    gqlError(res, 'UNIQUE_VIOLATION', 409);
  });

  it('a variable of the wrong type or with an unknown field is a 400 naming the problem, never a masked 500', async () => {
    const wrongType = await gql(ts, CreateOrganizationDocument, { input: { name: 42 } }, { token });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors?.[0].message).toMatch(/String cannot represent a non string value: 42/);
    const unknown = await gql(ts, CreateOrganizationDocument, { input: { name: 'x', bogus: true } }, { token });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0].message).toMatch(/Field "bogus" is not defined/);
    expect(unknown.body.data ?? null).toBeNull();
  });
});

describe('batch mutations', () => {
  it('resOrganizationCreateMany creates every input and returns the records in order', async () => {
    const data = await gqlOk(ts, 'mutation($i: [ResOrganizationCreateInput!]!) { resOrganizationCreateMany(inputs: $i) { name code } }',
      { i: [{ name: 'Batch A', code: 'batch-a' }, { name: 'Batch B', code: 'batch-b' }, { name: 'Batch C', code: 'batch-c' }] }, { token });
    expect(data.resOrganizationCreateMany).toEqual([
      { name: 'Batch A', code: 'batch-a' }, { name: 'Batch B', code: 'batch-b' }, { name: 'Batch C', code: 'batch-c' },
    ]);
  });

  it('createMany is all-or-nothing: one invalid input creates none', async () => {
    const res = await gql(ts, 'mutation($i: [ResOrganizationCreateInput!]!) { resOrganizationCreateMany(inputs: $i) { id } }',
      { i: [{ name: 'Atomic A', code: 'atomic-a' }, { name: 'y'.repeat(300) }] }, { token });
    gqlError(res, 'VALIDATION_FAILED', 422);
    const count = await gqlOk(ts, '{ resOrganizationCount(where: { code: { eq: "atomic-a" } }) }', {}, { token });
    expect(count.resOrganizationCount).toBe(0);
  });

  it('resOrganizationUpdateMany(where, input) changes every match and returns the count and the ids it changed', async () => {
    const data = await gqlOk(ts, 'mutation { resOrganizationUpdateMany(where: { code: { startsWith: "batch-" } }, input: { is_active: false }) { count ids } }', {}, { token });
    expect(data.resOrganizationUpdateMany.count).toBe(3);
    const matching = await gqlOk(ts, 'query { resOrganizations(where: { code: { startsWith: "batch-" } }) { id } }', {}, { token });
    expect([...data.resOrganizationUpdateMany.ids].sort()).toEqual(matching.resOrganizations.map((r: { id: string }) => r.id).sort());
    const left = await gqlOk(ts, '{ resOrganizations(where: { code: { startsWith: "batch-" } }) { is_active revision } }', {}, { token });
    expect(left.resOrganizations).toEqual(Array(3).fill({ is_active: false, revision: 2 }));
  });

  it('resOrganizationDeleteMany(where) deletes every match and returns the count', async () => {
    const data = await gqlOk(ts, 'mutation { resOrganizationDeleteMany(where: { code: { in: ["batch-a", "batch-b"] } }) { count } }', {}, { token });
    expect(data.resOrganizationDeleteMany).toEqual({ count: 2 });
    const left = await gqlOk(ts, '{ resOrganizations(where: { code: { startsWith: "batch-" } }) { code } }', {}, { token });
    expect(left.resOrganizations).toEqual([{ code: 'batch-c' }]);
  });

  it('a batch with a where that matches nothing is a count of 0', async () => {
    const data = await gqlOk(ts, 'mutation { resOrganizationDeleteMany(where: { code: { eq: "no-such-code" } }) { count } }', {}, { token });
    expect(data.resOrganizationDeleteMany.count).toBe(0);
  });
});

describe('model commands and auth', () => {
  it('resUserRegister (the res.user create command) creates a user who can log in; the hash is never exposed', async () => {
    const data = await gqlOk(ts, 'mutation { resUserRegister(email: "New.User@Example.com", name: "New User", password: "new-user-pass") { id email name role is_active } }', {}, { token });
    expect(data.resUserRegister).toMatchObject({ email: 'new.user@example.com', name: 'New User', role: 'user', is_active: true });
    const login = await gqlOk(ts, LoginDocument, { email: 'new.user@example.com', password: 'new-user-pass' });
    expect(login.login).toMatchObject({ token_type: 'bearer' });
    const introspect = await gqlOk(ts, '{ __type(name: "ResUser") { fields { name } } }', {}, { token });
    expect(introspect.__type.fields.map((f: { name: string }) => f.name)).not.toContain('password_hash');
  });

  it('resUserCreate goes through the register command as well', async () => {
    const data = await gqlOk(ts, 'mutation { resUserCreate(input: { email: "via-create@example.com", name: "Via Create", password: "via-create-pass" }) { email } }', {}, { token });
    expect(data.resUserCreate).toEqual({ email: 'via-create@example.com' });
    await gqlOk(ts, LoginDocument, { email: 'via-create@example.com', password: 'via-create-pass' });
  });

  it('resOrganizationDeactivate(id) runs the model command and returns the record', async () => {
    const o = await createOrg('Deactivate Me');
    const data = await gqlOk(ts, 'mutation($id: ID!) { resOrganizationDeactivate(id: $id) { id is_active revision } }', { id: o.id }, { token });
    expect(data.resOrganizationDeactivate).toEqual({ id: o.id, is_active: false, revision: 2 });
  });

  it('resOrganizationChangeCountry(id, country) validates its input and moves the organization', async () => {
    const o = await createOrg('Mover');
    const fr = (await gqlOk(ts, '{ resCountries(where: { code: { eq: "FR" } }) { id } }', {}, { token })).resCountries[0].id;
    const data = await gqlOk(ts, 'mutation($id: ID!, $c: ID!) { resOrganizationChangeCountry(id: $id, country: $c) { country { code } } }', { id: o.id, c: fr }, { token });
    expect(data.resOrganizationChangeCountry).toEqual({ country: { code: 'FR' } });
    const bad = await gql(ts, 'mutation($id: ID!) { resOrganizationChangeCountry(id: $id, country: "not-a-uuid") { id } }', { id: o.id }, { token });
    gqlError(bad, 'VALIDATION_FAILED', 422);
  });

  it('crmLeadMarkWon(id) closes the lead as won', async () => {
    const l = await gqlOk(ts, 'mutation { crmLeadCreate(input: { name: "Big deal", expected_revenue: 5000 }) { id stage } }', {}, { token });
    expect(l.crmLeadCreate.stage).toBe('new');
    const data = await gqlOk(ts, 'mutation($id: ID!) { crmLeadMarkWon(id: $id) { stage probability closed_at } }', { id: l.crmLeadCreate.id }, { token });
    expect(data.crmLeadMarkWon).toMatchObject({ stage: 'won', probability: 1 });
    expect(Date.parse(data.crmLeadMarkWon.closed_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a record command on an unknown id is RECORD_NOT_FOUND (404)', async () => {
    const res = await gql(ts, 'mutation { crmLeadMarkWon(id: "00000000-0000-4000-8000-000000000000") { id } }', {}, { token });
    gqlError(res, 'RECORD_NOT_FOUND', 404);
  });

  it('`me` is a query (non-mutating command) answering the current user as the typed Me', async () => {
    const data = await gqlOk(ts, MeDocument, {}, { token });
    const rest = (await ts.request('GET', '/api/auth/me', { token })).body;
    expect(data.me).toEqual(rest);
    expect(data.me).toEqual({
      id: expect.any(String), name: 'Administrator', email: ADMIN_EMAIL, tenant_id: 'default', role: 'admin', is_active: true,
      organization: { id: expect.any(String), name: 'Default Organization', code: expect.any(String) },
      default_organization: rest.organization.id, organizations: [rest.organization],
      lang: 'en', tz: null, theme: 'system',
    });
    const introspect = await gqlOk(ts, '{ __schema { queryType { fields { name type { name kind } } } } }', {}, { token });
    const me = introspect.__schema.queryType.fields.find((f: { name: string }) => f.name === 'me');
    expect(me.type).toEqual({ name: 'Me', kind: 'OBJECT' });
    const asMutation = await gql(ts, 'mutation { me { id } }', {}, { token });
    expect(asMutation.body.errors?.[0].message).toMatch(/Cannot query field "me" on type "Mutation"/);
  });

  it('login, refresh and logout are mutations: refresh rotates, logout revokes the session', async () => {
    const pair = (await gqlOk(ts, LoginDocument, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).login!;
    expect(pair).toEqual({ access_token: expect.any(String), refresh_token: expect.stringMatching(/^default\./), token_type: 'bearer', expires_in: 1800 });
    const rotated = (await gqlOk(ts, RefreshDocument, { refreshToken: pair.refresh_token })).refresh!;
    expect(rotated).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 1800 });
    expect(rotated.refresh_token).not.toBe(pair.refresh_token);
    // the rotated access token works
    expect((await gqlOk(ts, MeDocument, {}, { token: rotated.access_token })).me?.email).toBe(ADMIN_EMAIL);
    // the old refresh token is spent
    gqlError(await gql(ts, RefreshDocument, { refreshToken: pair.refresh_token }), 'TOKEN_INVALID', 401);

    const fresh = (await gqlOk(ts, LoginDocument, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).login!;
    expect((await gqlOk(ts, LogoutDocument, {}, { token: fresh.access_token })).logout).toEqual({ revoked: true });
    const after = await ts.request('GET', '/api/auth/me', { token: fresh.access_token });
    expect(after.status).toBe(401);
    gqlError(await gql(ts, RefreshDocument, { refreshToken: fresh.refresh_token }), 'TOKEN_INVALID', 401);
  });

  it('login with a wrong password is AUTHENTICATION_FAILED (401)', async () => {
    gqlError(await gql(ts, LoginDocument, { email: ADMIN_EMAIL, password: 'wrong-password' }), 'AUTHENTICATION_FAILED', 401);
  });

  it('command(name, payload) dispatches any command through the bus', async () => {
    const count = await gqlOk(ts, 'mutation { command(name: "fw.count", payload: { model: "res.country", domain: [["code", "in", ["FR", "DE"]]] }) }', {}, { token });
    expect(count.command).toEqual({ count: 2 });
    const created = await gqlOk(ts, 'mutation($p: JSON) { command(name: "fw.create", payload: $p) }',
      { p: { model: 'crm.lead', values: { name: 'From command', expected_revenue: 7 } } }, { token });
    expect(created.command).toMatchObject({ name: 'From command', expected_revenue: 7, stage: 'new', revision: 1 });
    const won = await gqlOk(ts, 'mutation($p: JSON) { command(name: "crm.lead.mark_won", payload: $p) }', { p: { id: (created.command as { id: string }).id } }, { token });
    expect(won.command).toMatchObject({ stage: 'won' });
  });

  it('command() with an unknown name is UNKNOWN_COMMAND (404), with bad input VALIDATION_FAILED (422)', async () => {
    gqlError(await gql(ts, 'mutation { command(name: "no.such.command", payload: {}) }', {}, { token }), 'UNKNOWN_COMMAND', 404);
    const bad = await gql(ts, 'mutation { command(name: "fw.create", payload: { model: "res.organization", values: { bogus: 1 } }) }', {}, { token });
    const err = gqlError(bad, 'VALIDATION_FAILED', 422);
    expect(err.extensions?.details?.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'bogus', code: 'UNKNOWN_FIELD' })]));
  });
});

describe('access through GraphQL', () => {
  let userToken: string;
  beforeAll(async () => {
    await ts.createUser(token, { email: 'plain@example.com', password: 'plain-user-pass', role: 'user' });
    userToken = (await ts.login('plain@example.com', 'plain-user-pass')).access_token;
  });

  it('an operation without a token is UNAUTHENTICATED (401); login is the public exception', async () => {
    gqlError(await gql(ts, '{ resOrganizations { id } }'), 'UNAUTHENTICATED', 401);
    gqlError(await gql(ts, 'mutation { command(name: "fw.count", payload: { model: "res.country" }) }'), 'UNAUTHENTICATED', 401);
  });

  it('an invalid bearer token on /graphql is refused with 401 before GraphQL runs', async () => {
    const res = await gql(ts, '{ me { id } }', {}, { token: 'not-a-jwt' });
    // GraphQL's error shape, the status kept (more cases in auth-errors.test.ts)
    gqlError(res, 'TOKEN_INVALID', 401);
    expect(res.body.data ?? null).toBeNull();
  });

  it('a role without the right is ACCESS_DENIED (403) for mutations and batch mutations', async () => {
    gqlError(await gql(ts, CreateOrganizationDocument, { input: { name: 'Not allowed' } }, { token: userToken }), 'ACCESS_DENIED', 403);
    gqlError(await gql(ts, 'mutation { resOrganizationDeleteMany(where: {}) { count } }', {}, { token: userToken }), 'ACCESS_DENIED', 403);
    gqlError(await gql(ts, 'mutation { command(name: "fw.delete_many", payload: { model: "res.country" }) }', {}, { token: userToken }), 'ACCESS_DENIED', 403);
  });

  it('record rules apply to GraphQL reads: a user sees only their organization', async () => {
    await createOrg('Someone Else');
    const data = await gqlOk(ts, '{ resOrganizations { code } resOrganizationCount }', {}, { token: userToken });
    expect(data.resOrganizations).toEqual([{ code: 'default' }]);
    expect(data.resOrganizationCount).toBe(1);
  });

  it('mutations no role may run are left out of the schema', async () => {
    const res = await gql(ts, 'mutation { irEventCreate(input: {}) { id } }', {}, { token });
    expect(res.body.errors?.[0].message).toMatch(/Cannot query field "irEventCreate"/);
  });
});
