/**
 * The GraphQL document bounds (src/server/graphql/bounds.ts): a document with more tokens,
 * fields, aliases or directives than its setting allows is refused while it is parsed, before
 * validation or compilation look at it, with 400 and its own code (QUERY_TOO_MANY_TOKENS, _FIELDS,
 * _ALIASES, _DIRECTIVES) and `{ count, limit }`, over POST (either Accept), GET, SSE and
 * graphql-ws. Fragments count every time they are spread. The web client's documents and the
 * schema explorer's introspection query pass the defaults.
 *
 * Anonymous callers' documents are held to GRAPHQL_ANONYMOUS_MAX_TOKENS (250) tokens.
 *
 * The `tight` server has GRAPHQL_MAX_TOKENS=60, _FIELDS=8, _ALIASES=3, _DIRECTIVES=2; the `open`
 * one has the defaults (1000, 300, 15, 50; 250 tokens for anonymous callers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSchema, getIntrospectionQuery, getNamedType, isListType, isNonNullType, isObjectType, Lexer, Source, TokenKind,
  type GraphQLField, type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/kernel/settings.ts';
import { boundedParse, documentCounts, type DocumentLimits } from '../../src/server/graphql/bounds.ts';
import { graphqlSchemaOf, graphqlSettings } from '../../src/server/graphql/index.ts';
import { rowsDocument, selection, type FieldInfo, type ModelInfo, type ModelNames } from '../../web/src/model/records.ts';
import { gql, gqlError, gqlOk, sseSubscribe, startServerWithApps, wsClient, wsSubscribe, type ApiServer, type GqlBody } from '../helpers/api.ts';
import type { Res } from '../helpers/server.ts';
import { parse } from 'graphql';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let tight: ApiServer;
let open: ApiServer;
let tightToken: string;
let openToken: string;
let tightBase: string;

beforeAll(async () => {
  [tight, open] = await Promise.all([
    startServerWithApps([], { GRAPHQL_MAX_TOKENS: '60', GRAPHQL_MAX_FIELDS: '8', GRAPHQL_MAX_ALIASES: '3', GRAPHQL_MAX_DIRECTIVES: '2' }),
    startServerWithApps([]),
  ]);
  [tightToken, openToken] = await Promise.all([tight.adminToken(), open.adminToken()]);
  tightBase = await tight.server.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await Promise.all([tight?.close(), open?.close()]);
});

/** Tokens as graphql-js's parser counts them (no comments). */
function tokens(doc: string): number {
  const lexer = new Lexer(new Source(doc));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

/** The refusal: 400, no data, one error with the code and the details. */
function refused(res: Res<GqlBody>, code: string, details: Record<string, number>): void {
  const err = gqlError(res, code, 400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(err.extensions?.details).toEqual(details);
  expect(err.message).not.toMatch(/Syntax Error/);
}

/** The finding: 10,000 aliases of `me { email }` (259 KB with its alias names). */
const FINDING = `{ ${Array.from({ length: 10_000 }, (_, i) => `alias_${String(i).padStart(6, '0')}: me { email }`).join(' ')} }`;

/** A document of exactly `n` tokens (n ≥ 21) with 2 fields, no alias and no directive, and a comment. */
const withTokens = (n: number) => `# a comment is not a token\n{ resOrganizations(where: { name: { in: [${Array.from({ length: n - 20 }, (_, i) => `"o${i}"`).join(', ')}] } }) { id } }`;
const withFields = (n: number) => `{ me { ${Array(n - 1).fill('email').join(' ')} } }`;
const withAliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { email }`).join(' ')} }`;
const DIRECTIVES_2 = '{ me { email @include(if: true) name @skip(if: false) } }';
const DIRECTIVES_3 = '{ me { email @include(if: true) name @skip(if: false) id @include(if: true) } }';

describe('the finding', () => {
  it('10,000 aliases of me { email } from an anonymous caller: 400 QUERY_TOO_MANY_TOKENS at the anonymous limit, nothing else looked at it', async () => {
    expect(FINDING.length).toBeGreaterThan(259_000);
    const res = await gql(open, FINDING);
    refused(res, 'QUERY_TOO_MANY_TOKENS', { limit: 250 });
    expect(res.body.errors![0].message).toBe('the document has more than 250 tokens, over the limit of 250 for anonymous callers (GRAPHQL_ANONYMOUS_MAX_TOKENS): sign in, or send a smaller document');
  });

  it('…and from a signed-in caller at the general limit', async () => {
    const res = await gql(open, FINDING, {}, { token: openToken });
    refused(res, 'QUERY_TOO_MANY_TOKENS', { limit: 1000 });
    expect(res.body.errors![0].message).toBe('the document has more than 1000 tokens, over the limit of 1000 (GRAPHQL_MAX_TOKENS): send a smaller document');
  });

  it('with the token limit lifted, its 10,000 aliases are refused by the alias limit, its 20,000 fields first by the field limit', () => {
    const lifted: DocumentLimits = { maxTokens: 1_000_000, maxFields: 1_000_000, maxAliases: 15, maxDirectives: 50 };
    expect(() => boundedParse(FINDING, lifted)).toThrow(expect.objectContaining({ code: 'QUERY_TOO_MANY_ALIASES', status: 400, details: { count: 10_000, limit: 15 } }));
    expect(() => boundedParse(FINDING, { ...lifted, maxFields: 500 })).toThrow(expect.objectContaining({ code: 'QUERY_TOO_MANY_FIELDS', details: { count: 20_000, limit: 500 } }));
  });
});

describe('each limit at its boundary (POST)', () => {
  it('tokens: 60 run, 61 are refused with the limit (comments do not count)', async () => {
    expect(tokens(withTokens(60))).toBe(60);
    expect((await gqlOk(tight, withTokens(60), {}, { token: tightToken })).resOrganizations).toEqual([]);
    expect(tokens(withTokens(61))).toBe(61);
    refused(await gql(tight, withTokens(61), {}, { token: tightToken }), 'QUERY_TOO_MANY_TOKENS', { limit: 60 });
  });

  it('anonymous callers: 250 tokens are parsed, 251 refused (POST and GET), also when a signed-in caller sent the same document before', async () => {
    const at = withTokens(250);
    const over = withTokens(251);
    expect(tokens(over)).toBe(251);
    // at the limit the document is parsed and runs: resOrganizations needs a token
    gqlError(await gql(open, at), 'UNAUTHENTICATED', 401);
    expect((await gqlOk(open, over, {}, { token: openToken })).resOrganizations).toEqual([]); // now in yoga's parse cache
    refused(await gql(open, over), 'QUERY_TOO_MANY_TOKENS', { limit: 250 });
    refused(await open.request<GqlBody>('GET', `/graphql?query=${encodeURIComponent(over)}`), 'QUERY_TOO_MANY_TOKENS', { limit: 250 });
    // the lower of the two limits applies: the tight server allows 60 to everyone
    refused(await gql(tight, withTokens(61)), 'QUERY_TOO_MANY_TOKENS', { limit: 60 });
  });

  it('fields: 8 run, 9 are refused with count and limit', async () => {
    expect(documentCounts(parse(withFields(8)))).toEqual({ fields: 8, aliases: 0, directives: 0 });
    expect((await gqlOk(tight, withFields(8), {}, { token: tightToken })).me.email).toBe('admin@example.com');
    refused(await gql(tight, withFields(9), {}, { token: tightToken }), 'QUERY_TOO_MANY_FIELDS', { count: 9, limit: 8 });
  });

  it('aliases: 3 run, 4 are refused with count and limit', async () => {
    const data = await gqlOk(tight, withAliases(3), {}, { token: tightToken });
    expect(Object.keys(data)).toEqual(['a0', 'a1', 'a2']);
    refused(await gql(tight, withAliases(4), {}, { token: tightToken }), 'QUERY_TOO_MANY_ALIASES', { count: 4, limit: 3 });
  });

  it('directives: 2 run, 3 are refused with count and limit', async () => {
    expect((await gqlOk(tight, DIRECTIVES_2, {}, { token: tightToken })).me).toEqual({ email: 'admin@example.com', name: 'Administrator' });
    refused(await gql(tight, DIRECTIVES_3, {}, { token: tightToken }), 'QUERY_TOO_MANY_DIRECTIVES', { count: 3, limit: 2 });
  });

  it('a fragment counts every time it is spread', async () => {
    await gqlOk(tight, '{ me { ...F ...F } } fragment F on Me { email name id }', {}, { token: tightToken }); // 1 + 3 + 3
    refused(await gql(tight, '{ me { ...F ...F ...F } } fragment F on Me { email name id }', {}, { token: tightToken }), 'QUERY_TOO_MANY_FIELDS', { count: 10, limit: 8 });
    refused(await gql(tight, '{ me { ...F ...F } } fragment F on Me { a: email b: name }', {}, { token: tightToken }), 'QUERY_TOO_MANY_ALIASES', { count: 4, limit: 3 });
  });

  it('a fragment "bomb" (each level spreads the next twice) is refused by its expanded size without being expanded', async () => {
    const levels = 40;
    const doc = `{ me { ...F0 } } ${Array.from({ length: levels - 1 }, (_, i) => `fragment F${i} on Me { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F${levels - 1} on Me { email }`;
    expect(tokens(doc)).toBeLessThan(1000);
    refused(await gql(open, doc, {}, { token: openToken }), 'QUERY_TOO_MANY_FIELDS', { count: 1 + 2 ** (levels - 1), limit: 300 });
  });

  it('the refusal is 400 whatever the Accept header, also for anonymous callers', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const res = await gql(tight, withAliases(4), {}, { headers: { accept } });
      refused(res, 'QUERY_TOO_MANY_ALIASES', { count: 4, limit: 3 });
      expect(res.headers['content-type']).toContain(accept);
    }
  });

  it('a refused mutation writes nothing', async () => {
    const count = async () => (await gqlOk(open, '{ resOrganizationCount }', {}, { token: openToken })).resOrganizationCount;
    const before = await count();
    const doc = `mutation { ${Array.from({ length: 16 }, (_, i) => `m${i}: resOrganizationCreate(input: { name: "Bound ${i}" }) { id }`).join(' ')} }`;
    refused(await gql(open, doc, {}, { token: openToken }), 'QUERY_TOO_MANY_ALIASES', { count: 16, limit: 15 });
    expect(await count()).toBe(before);
  });

  it('validation stops at 20 errors: 245 unused variables get 20 and a last one saying validation stopped', async () => {
    const doc = `query Q(${Array.from({ length: 245 }, (_, i) => `$v${i}: Int`).join(' ')}) { __typename }`;
    const res = await gql(open, doc, {}, { token: openToken });
    expect(res.body.errors).toHaveLength(21);
    expect(res.body.errors![0].message).toBe('Variable "$v0" is never used in operation "Q".');
    expect(res.body.errors![20].message).toBe('Too many validation errors, error limit reached. Validation aborted.');
  });

  it('a syntax error stays graphql\'s own', async () => {
    const res = await gql(tight, '{ me { email ', {}, { token: tightToken });
    expect(res.body.errors?.[0].message).toMatch(/^Syntax Error/);
    expect(res.body.errors?.[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('GET, SSE and graphql-ws are bounded alike', () => {
  it('GET: each bound refuses with its code', async () => {
    const get = (doc: string) => tight.request<GqlBody>('GET', `/graphql?query=${encodeURIComponent(doc)}`, { token: tightToken });
    refused(await get(withTokens(61)), 'QUERY_TOO_MANY_TOKENS', { limit: 60 });
    refused(await get(withFields(9)), 'QUERY_TOO_MANY_FIELDS', { count: 9, limit: 8 });
    refused(await get(withAliases(4)), 'QUERY_TOO_MANY_ALIASES', { count: 4, limit: 3 });
    refused(await get(DIRECTIVES_3), 'QUERY_TOO_MANY_DIRECTIVES', { count: 3, limit: 2 });
    expect((await get(withAliases(3))).status).toBe(200);
  });

  it('SSE: a subscription over a bound is refused with its code', async () => {
    const res = await fetch(`${tightBase}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${tightToken}` },
      body: JSON.stringify({ query: 'subscription { a: resOrganizationChanged { id } b: resOrganizationChanged { id } c: resOrganizationChanged { id } d: resOrganizationChanged { id } }' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('"code":"QUERY_TOO_MANY_ALIASES"');
    // one at the limit opens its stream
    const ok = await sseSubscribe(tightBase, 'subscription { a: resOrganizationChanged { id } }', tightToken);
    expect(ok.status).toBe(200);
    ok.stop();
  });

  async function wsRefusal(doc: string): Promise<{ message: string; extensions?: { code?: string; details?: unknown } }> {
    const client = wsClient(tightBase, tightToken);
    try {
      const s = wsSubscribe(client, doc);
      const err = await s.inbox.ended();
      expect(s.inbox.items).toEqual([]);
      expect(Array.isArray(err), String(err)).toBe(true);
      return (err as Array<{ message: string; extensions?: { code?: string; details?: unknown } }>)[0]!;
    } finally {
      await client.dispose();
    }
  }

  it('graphql-ws: queries and subscriptions over a bound get their error; the socket stays open for the next operation', async () => {
    expect((await wsRefusal(withTokens(61))).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_TOKENS', details: { limit: 60 } });
    expect((await wsRefusal(withFields(9))).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_FIELDS', details: { count: 9, limit: 8 } });
    expect((await wsRefusal(withAliases(4))).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_ALIASES', details: { count: 4, limit: 3 } });
    expect((await wsRefusal(DIRECTIVES_3)).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_DIRECTIVES', details: { count: 3, limit: 2 } });
    const sub = 'subscription { a: resOrganizationChanged { id } b: resOrganizationChanged { id } c: resOrganizationChanged { id } d: resOrganizationChanged { id } }';
    expect((await wsRefusal(sub)).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_ALIASES' });

    const client = wsClient(tightBase, tightToken);
    try {
      const bad = wsSubscribe(client, withAliases(4));
      await bad.inbox.ended();
      const good = wsSubscribe(client, withAliases(3));
      const got = await good.inbox.waitFor((m) => m.data !== undefined, 'the answer on the same socket');
      expect(Object.keys(got.data!)).toEqual(['a0', 'a1', 'a2']);
    } finally {
      await client.dispose();
    }
  });

  it('graphql-ws: a message larger than HTTP_BODY_LIMIT_BYTES closes the socket (1009) before it is parsed, even unauthenticated', async () => {
    const ws = new WebSocket(`${tightBase.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(1024 * 1024) } }));
    expect(await closed).toBe(1009);
  });
});

/** The names the web client gets from the bootstrap, here read off the schema: the list query and its inputs. */
function modelsOf(schema: GraphQLSchema): Map<string, { info: ModelInfo; type: GraphQLObjectType }> {
  const out = new Map<string, { info: ModelInfo; type: GraphQLObjectType }>();
  for (const q of Object.values(schema.getQueryType()!.getFields())) {
    const where = q.args.find((a) => a.name === 'where');
    const orderBy = q.args.find((a) => a.name === 'orderBy');
    const type = getNamedType(q.type);
    if (!where || !orderBy || !isListType(isNonNullType(q.type) ? q.type.ofType : q.type) || !isObjectType(type) || !type.getFields().revision) continue;
    const names = { typeName: type.name, many: q.name, whereInput: getNamedType(where.type).name, orderByInput: getNamedType(orderBy.type).name } as ModelNames;
    const recordName = type.getFields().name ? 'name' : 'id';
    out.set(type.name, { info: { key: type.name, description: type.name, record_name: recordName, name_search_fields: [], names }, type });
  }
  return out;
}

/** A field as a render plan gives it: an object is a Reference, a list of objects a One2Many. */
function fieldInfo(f: GraphQLField<unknown, unknown>): FieldInfo | null {
  if (f.args.length) return null;
  const named = getNamedType(f.type);
  const list = isListType(isNonNullType(f.type) ? f.type.ofType : f.type);
  if (!isObjectType(named)) return { name: f.name, label: f.name, type: 'char' };
  return { name: f.name, label: f.name, type: list ? 'one2many' : 'reference', relation: named.name };
}

/**
 * The largest list document the web client can build for each model (`rowsDocument` and
 * `selection` of web/src/model/records.ts): every field as a column, every One2Many with every
 * column of its target. A form's document (`oneDocument`) selects the same plus `revision`.
 */
function largestClientDocuments(schema: GraphQLSchema): string[] {
  const models = modelsOf(schema);
  const infos = new Map([...models.values()].map((m) => [m.info.key, m.info]));
  return [...models.values()].map(({ info, type }) => {
    const fields = Object.values(type.getFields()).map(fieldInfo).filter((f): f is FieldInfo => !!f);
    const nested: Record<string, FieldInfo[]> = {};
    for (const f of fields) {
      const target = f.type === 'one2many' ? models.get(f.relation!) : undefined;
      if (target) nested[f.name] = Object.values(target.type.getFields()).map(fieldInfo).filter((g): g is FieldInfo => !!g && g.type !== 'one2many');
    }
    return rowsDocument(info, selection(fields, infos, nested));
  });
}

describe('what must keep passing the defaults', () => {
  const defaults = graphqlSettings(loadSettings({}));
  const limits: DocumentLimits = { maxTokens: defaults.GRAPHQL_MAX_TOKENS, maxFields: defaults.GRAPHQL_MAX_FIELDS, maxAliases: defaults.GRAPHQL_MAX_ALIASES, maxDirectives: defaults.GRAPHQL_MAX_DIRECTIVES };

  it('the defaults are 1000 tokens (250 for anonymous callers), 300 fields, 15 aliases, 50 directives', () => {
    expect(limits).toEqual({ maxTokens: 1000, maxFields: 300, maxAliases: 15, maxDirectives: 50 });
    expect(defaults.GRAPHQL_ANONYMOUS_MAX_TOKENS).toBe(250);
  });

  it('what an anonymous API client sends (the login and refresh mutations) and the explorer\'s introspection query fit the anonymous limit', () => {
    // the web client signs in through /api/auth (the refresh cookie): it sends no anonymous GraphQL document
    const src = fs.readFileSync(path.join(ROOT, 'web/src/gql/gql.ts'), 'utf8');
    const docs = [...src.match(/type Documents = \{([\s\S]*?)\n\};/)![1]!.matchAll(/^\s+("(?:[^"\\]|\\.)*"): typeof/gm)].map((m) => JSON.parse(m[1]!) as string);
    expect(docs.filter((d) => /mutation (Login|Refresh)\b/.test(d))).toEqual([]);
    const anonymous = [
      'mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { access_token refresh_token token_type expires_in } }',
      'mutation Refresh($token: String!, $key: String) { refresh(refresh_token: $token, retry_key: $key) { access_token refresh_token token_type expires_in } }',
    ];
    for (const d of anonymous) expect(tokens(d)).toBeLessThan(defaults.GRAPHQL_ANONYMOUS_MAX_TOKENS / 4);
    const full = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true });
    expect(tokens(full)).toBeLessThan(defaults.GRAPHQL_ANONYMOUS_MAX_TOKENS);
  });

  // 3×, not 4×: the view plan query selects every plan type's fields (app view types added a fifth): 88 of the 300 fields
  it('every fixed document of the web client (web/src/gql) parses within the defaults, with at least 3× room', () => {
    const src = fs.readFileSync(path.join(ROOT, 'web/src/gql/gql.ts'), 'utf8');
    const docs = [...src.match(/type Documents = \{([\s\S]*?)\n\};/)![1]!.matchAll(/^\s+("(?:[^"\\]|\\.)*"): typeof/gm)].map((m) => JSON.parse(m[1]!) as string);
    expect(docs.length).toBeGreaterThan(20);
    const third = { maxTokens: limits.maxTokens / 3, maxFields: limits.maxFields / 3, maxAliases: limits.maxAliases / 3, maxDirectives: limits.maxDirectives / 3 };
    for (const doc of docs) expect(() => boundedParse(doc, third), doc).not.toThrow();
  });

  it('the largest list and form documents the web client can build, for every model of every feature, parse within the defaults, with at least 2× room', () => {
    const schema = buildSchema(fs.readFileSync(path.join(ROOT, 'generated/schema.features.graphql'), 'utf8'));
    const docs = largestClientDocuments(schema);
    expect(docs.length).toBeGreaterThan(20);
    const half = { maxTokens: limits.maxTokens / 2, maxFields: limits.maxFields / 2, maxAliases: limits.maxAliases / 2, maxDirectives: limits.maxDirectives / 2 };
    for (const doc of docs) expect(() => boundedParse(doc, half), doc).not.toThrow();
  });

  it('…and run on a server with the defaults (every model it serves)', async () => {
    const docs = largestClientDocuments(graphqlSchemaOf(open.kernel));
    expect(docs.length).toBeGreaterThan(5);
    for (const doc of docs) await gqlOk(open, doc, { limit: 1 }, { token: openToken });
  });

  it('the schema explorer\'s introspection query (every option) runs', async () => {
    const full = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true });
    expect(documentCounts(parse(full)).fields).toBeLessThan(limits.maxFields);
    expect((await gqlOk(open, full, {}, { token: openToken })).__schema.queryType.name).toBe('Query');
  });
});

describe('documentCounts', () => {
  it('counts fields and aliases of every operation, directives everywhere, fragments per spread, unused fragments once', () => {
    const doc = parse(`query A($x: Boolean = true @deprecated) @a { me { a: email ...F ... on Me @b { id } } }
      query B { me { ...F } }
      fragment F on Me @c { name @include(if: true) }
      fragment Unused on Me { x: id }`);
    expect(documentCounts(doc)).toEqual({ fields: 2 + 1 + 1 + 2 + 1, aliases: 2, directives: 1 + 1 + 1 + 2 + 2 });
  });

  it('a fragment cycle or an unknown fragment counts nothing more (validation refuses them)', () => {
    expect(documentCounts(parse('{ me { ...A } } fragment A on Me { id ...B } fragment B on Me { name ...A }'))).toEqual({ fields: 3, aliases: 0, directives: 0 });
    expect(documentCounts(parse('{ me { ...Nope } }'))).toEqual({ fields: 1, aliases: 0, directives: 0 });
  });
});
