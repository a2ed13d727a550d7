/**
 * Who may read the API's descriptions (src/server/exposure.ts): with NODE_ENV=production,
 * anonymous callers are refused GraphQL introspection (401 INTROSPECTION_UNAUTHENTICATED), the
 * GraphiQL page (404 GRAPHIQL_DISABLED) and the OpenAPI document (401 OPENAPI_UNAUTHENTICATED),
 * while signed-in callers introspect (the web client reads the mutation names that way) and read
 * the OpenAPI document. In development all three stay public, as before. GRAPHQL_INTROSPECTION,
 * GRAPHIQL and OPENAPI_DOCUMENT choose otherwise.
 */
import crypto from 'node:crypto';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/kernel/settings.ts';
import { exposureAllows, exposureOf, switchOf } from '../../src/server/exposure.ts';
import { GRAPHIQL_VERSION } from '../../src/server/graphql/graphiql.ts';
import { gql, gqlError, gqlOk, startServerWithApps, wsClient, wsSubscribe, type ApiServer, type GqlBody } from '../helpers/api.ts';
import type { Res } from '../helpers/server.ts';

const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET_KEY: crypto.randomBytes(32).toString('base64url') };

let prod: ApiServer;
let dev: ApiServer;
let custom: ApiServer;
let prodToken: string;
let customToken: string;
let prodBase: string;
let customBase: string;

beforeAll(async () => {
  [prod, dev, custom] = await Promise.all([
    startServerWithApps([], PRODUCTION),
    startServerWithApps([]),
    startServerWithApps([], { ...PRODUCTION, GRAPHQL_INTROSPECTION: 'off', GRAPHIQL: 'on', OPENAPI_DOCUMENT: 'off' }),
  ]);
  [prodToken, customToken] = await Promise.all([prod.adminToken(), custom.adminToken()]);
  [prodBase, customBase] = await Promise.all([prod.server.listen({ port: 0, host: '127.0.0.1' }), custom.server.listen({ port: 0, host: '127.0.0.1' })]);
});

afterAll(async () => {
  await Promise.all([prod?.close(), dev?.close(), custom?.close()]);
});

const SCHEMA = '{ __schema { queryType { name } } }';
/** The web client's own introspection (web/src/model/access.ts), sent signed in. */
const MUTATION_FIELDS = 'query MutationFields { __type(name: "Mutation") { fields { name } } }';
const FULL = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });

const graphiqlPage = (ts: ApiServer, token?: string) => ts.request('GET', '/graphql', { token, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });

function refusedIntrospection(res: Res<GqlBody>, code: string, status: number): void {
  const err = gqlError(res, code, status);
  expect(res.body.data ?? null).toBeNull();
  expect(err.extensions?.details).toEqual({ setting: 'GRAPHQL_INTROSPECTION' });
}

describe('NODE_ENV=production with the defaults', () => {
  it('an anonymous caller is refused introspection: 401 INTROSPECTION_UNAUTHENTICATED, over POST and GET, in fragments too', async () => {
    for (const q of [SCHEMA, '{ __type(name: "ResUser") { name } }', FULL, 'query { ...F } fragment F on Query { __schema { types { name } } }']) {
      refusedIntrospection(await gql(prod, q), 'INTROSPECTION_UNAUTHENTICATED', 401);
    }
    const res = await prod.request<GqlBody>('GET', `/graphql?query=${encodeURIComponent(SCHEMA)}`);
    refusedIntrospection(res, 'INTROSPECTION_UNAUTHENTICATED', 401);
    expect(res.body.errors![0].message).toMatch(/needs a signed-in caller .*GRAPHQL_INTROSPECTION=authenticated/);
  });

  it('…while what an anonymous caller may do still runs (__typename is not introspection)', async () => {
    expect((await gqlOk(prod, '{ __typename }')).__typename).toBe('Query');
  });

  it('an anonymous caller gets no "Did you mean" names: mistyped fields, arguments, types, input fields and enum values', async () => {
    const mistakes: Array<[string, Record<string, unknown>?]> = [
      ['{ resOrganisations { id } }'],
      ['{ resOrganizations(wher: {}) { id } }'],
      ['query { ... on Quer { __typename } }'],
      ['query ($w: ResOrganizationWher) { __typename }'],
      // a variable's input field: a coercion error of the execution, not of validation
      ['query ($w: ResOrganizationWhere) { resOrganizations(where: $w) { id } }', { w: { nam: { equals: 'x' } } }],
    ];
    for (const [q, variables] of mistakes) {
      const anon = await gql(prod, q, variables);
      const messages = anon.body.errors!.map((e) => e.message);
      expect(messages.length, q).toBeGreaterThan(0);
      for (const m of messages) expect(m, q).not.toMatch(/Did you mean/);
      // a signed-in caller, who may introspect, still gets the hint
      const signed = await gql(prod, q, variables, { token: prodToken });
      expect(signed.body.errors!.map((e) => e.message).join('\n'), q).toMatch(/Did you mean/);
      // and the hint is not what the anonymous caller's error was cut from in the cache
      expect((await gql(prod, q, variables)).body.errors!.map((e) => e.message)).toEqual(messages);
    }
  });

  it('a signed-in caller introspects: the full query and the web client\'s MutationFields', async () => {
    expect((await gqlOk(prod, FULL, {}, { token: prodToken })).__schema.types.length).toBeGreaterThan(50);
    const fields = (await gqlOk(prod, MUTATION_FIELDS, {}, { token: prodToken })).__type.fields.map((f: { name: string }) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['resOrganizationCreate', 'login']));
  });

  it('…over graphql-ws too (which is signed in by construction)', async () => {
    const client = wsClient(prodBase, prodToken);
    try {
      const s = wsSubscribe(client, SCHEMA);
      expect((await s.inbox.waitFor((m) => m.data !== undefined, 'the schema')).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    } finally {
      await client.dispose();
    }
  });

  it('the GraphiQL page is off: 404 GRAPHIQL_DISABLED, with or without a token, and its assets are not served', async () => {
    for (const token of [undefined, prodToken]) {
      const res = await graphiqlPage(prod, token);
      expect(res.status).toBe(404);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'GRAPHIQL_DISABLED', details: { setting: 'GRAPHIQL' } });
    }
    expect((await prod.request('GET', `/graphql/graphiql/${GRAPHIQL_VERSION}/graphiql.js`)).status).toBe(404);
  });

  it('the OpenAPI document: 401 OPENAPI_UNAUTHENTICATED anonymously, 200 signed in, 401 TOKEN_INVALID with a bad token', async () => {
    const anon = await prod.request('GET', '/api/openapi.json');
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe('OPENAPI_UNAUTHENTICATED');
    expect(anon.body.error.message).toMatch(/signed-in callers only .*OPENAPI_DOCUMENT=authenticated/);
    const signed = await prod.request('GET', '/api/openapi.json', { token: prodToken });
    expect(signed.status).toBe(200);
    expect(signed.body.openapi).toBe('3.1.0');
    expect((await prod.request('GET', '/api/openapi.json', { token: 'not-a-token' })).body.error.code).toBe('TOKEN_INVALID');
  });
});

describe('development (NODE_ENV unset): as before', () => {
  it('anonymous introspection runs', async () => {
    expect((await gqlOk(dev, SCHEMA)).__schema.queryType.name).toBe('Query');
    expect((await gqlOk(dev, FULL)).__schema.types.length).toBeGreaterThan(50);
  });

  it('the GraphiQL page and its assets are served without a token', async () => {
    const res = await graphiqlPage(dev);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect((await dev.request('GET', `/graphql/graphiql/${GRAPHIQL_VERSION}/favicon.ico`)).status).toBe(200);
  });

  it('the OpenAPI document is public', async () => {
    const res = await dev.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
  });
});

describe('the settings choose otherwise (production, GRAPHQL_INTROSPECTION=off, GRAPHIQL=on, OPENAPI_DOCUMENT=off)', () => {
  it('introspection off: 403 INTROSPECTION_DISABLED even signed in, over HTTP and graphql-ws; ordinary operations run', async () => {
    refusedIntrospection(await gql(custom, MUTATION_FIELDS, {}, { token: customToken }), 'INTROSPECTION_DISABLED', 403);
    refusedIntrospection(await gql(custom, SCHEMA), 'INTROSPECTION_DISABLED', 403);
    expect((await gqlOk(custom, '{ resOrganizations { __typename name } }', {}, { token: customToken })).resOrganizations[0].__typename).toBe('ResOrganization');
    const client = wsClient(customBase, customToken);
    try {
      const s = wsSubscribe(client, SCHEMA);
      const got = await s.inbox.waitFor((m) => m.errors !== undefined, 'the refusal');
      expect(got.errors![0]).toMatchObject({ extensions: { code: 'INTROSPECTION_DISABLED' } });
    } finally {
      await client.dispose();
    }
  });

  it('GRAPHIQL=on serves the page in production', async () => {
    expect((await graphiqlPage(custom)).status).toBe(200);
  });

  it('OPENAPI_DOCUMENT=off: 404 OPENAPI_DISABLED even signed in', async () => {
    const res = await custom.request('GET', '/api/openapi.json', { token: customToken });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'OPENAPI_DISABLED', details: { setting: 'OPENAPI_DOCUMENT' } });
  });
});

describe('reading the settings', () => {
  const production = loadSettings({ NODE_ENV: 'production' });
  const development = loadSettings({});

  it('auto follows NODE_ENV; public, authenticated and off are taken as they are (any case)', () => {
    expect(exposureOf(production, 'X', 'auto')).toBe('authenticated');
    expect(exposureOf(development, 'X', 'auto')).toBe('public');
    for (const v of ['public', 'authenticated', 'off'] as const) {
      expect(exposureOf(production, 'X', v)).toBe(v);
      expect(exposureOf(development, 'X', v.toUpperCase())).toBe(v);
    }
    expect(switchOf(production, 'GRAPHIQL', 'auto')).toBe(false);
    expect(switchOf(development, 'GRAPHIQL', 'auto')).toBe(true);
    expect(switchOf(production, 'GRAPHIQL', 'on')).toBe(true);
    expect(switchOf(development, 'GRAPHIQL', 'off')).toBe(false);
  });

  it('GRAPHQL_INTROSPECTION keeps its old values: true is public, false is off', () => {
    const legacy = { true: 'public', false: 'off' } as const;
    expect(exposureOf(production, 'GRAPHQL_INTROSPECTION', 'true', legacy)).toBe('public');
    expect(exposureOf(development, 'GRAPHQL_INTROSPECTION', 'false', legacy)).toBe('off');
  });

  it('any other value stops the boot, naming the setting and the values it takes', () => {
    expect(() => exposureOf(production, 'OPENAPI_DOCUMENT', 'yes')).toThrow(expect.objectContaining({ code: 'BOOT_ERROR', message: 'setting OPENAPI_DOCUMENT="yes" must be one of auto, public, authenticated, off' }));
    expect(() => switchOf(production, 'GRAPHIQL', 'true')).toThrow(expect.objectContaining({ code: 'BOOT_ERROR', message: 'setting GRAPHIQL="true" must be one of auto, on, off' }));
  });

  it('signed-in means any principal that is not anonymous', () => {
    const anonymous = { kind: 'anonymous', user_id: null, tenant_id: 't', role: 'anonymous', organization_id: null } as const;
    const user = { kind: 'user', user_id: 'u', tenant_id: 't', role: 'user', organization_id: null } as const;
    expect(exposureAllows('authenticated', anonymous)).toBe('anonymous');
    expect(exposureAllows('authenticated', user)).toBe('allowed');
    expect(exposureAllows('public', anonymous)).toBe('allowed');
    expect(exposureAllows('off', user)).toBe('off');
  });
});
