/**
 * fast-check arbitraries for whole requests, derived from the spec (spec.ts): per REST operation
 * its path parameters, query parameters and body from the document's schemas (valid-looking values
 * mixed with hostile ones, missing and extra fields), per GraphQL root field an operation
 * (gql.ts); for all of them a credential, odd methods, content types and encodings.
 *
 * A generated request is abstract (ids, views and tokens are named, not spelled out) and
 * `materialize` turns it into the `FuzzRequest` sent, against the fixtures of the moment.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import { FUZZ_JWT_KEY, FUZZ_TENANT, OTHER_TENANT, type Fixtures, type FuzzRequest } from './harness.ts';
import { renderGql, type GqlPlan } from './gql.ts';
import type { FuzzSpec, JsonSchema, RestOp } from './spec.ts';
import {
  chance, deepJson, encodeParam, encodeURIComponentLenient, hostileValue, IdRef, idRef, Joined, nastyNumber, nastyString, NASTY_STRINGS, plainString, Raw, CYCLIC_LOOKING,
  toJsonText, toParamText, toPlain, type Resolver, type Value,
} from './values.ts';

// ---------------------------------------------------------------- credentials

export type AuthSpec =
  | { kind: 'admin' | 'userA' | 'userB' | 'foreign' | 'none' }
  | { kind: 'forged'; variant: 'expired' | 'alg-none' | 'wrong-key' | 'hs512' | 'tampered' | 'claim'; claim?: string; value?: Value }
  | { kind: 'garbage'; scheme: string; token: string };

const CLAIMS = ['sub', 'tenant_id', 'sid', 'role', 'jti', 'exp', 'iat'];

export const authArb = (level: 'public' | 'optional' | 'user'): fc.Arbitrary<AuthSpec> => fc.oneof(
  { weight: level === 'user' ? 10 : 3, arbitrary: fc.constant({ kind: 'admin' as const }) },
  { weight: level === 'user' ? 5 : 1, arbitrary: fc.constantFrom({ kind: 'userA' as const }, { kind: 'userB' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'foreign' as const }) },
  { weight: level === 'user' ? 1 : 6, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constantFrom('expired', 'alg-none', 'wrong-key', 'hs512', 'tampered').map((variant) => ({ kind: 'forged' as const, variant: variant as 'expired' })) },
  { weight: 1, arbitrary: fc.record({ claim: fc.constantFrom(...CLAIMS), value: hostileValue }).map(({ claim, value }) => ({ kind: 'forged' as const, variant: 'claim' as const, claim, value })) },
  {
    weight: 1,
    arbitrary: fc.record({
      scheme: fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', '', 'Bearer  ', 'Bearer\t'),
      token: fc.oneof(nastyString, fc.base64String({ maxLength: 200 }), fc.constantFrom('a.b.c', 'eyJhbGciOiJIUzI1NiJ9..', 'null', 'undefined', '...', 'e30.e30.e30')),
    }).map(({ scheme, token }) => ({ kind: 'garbage' as const, scheme, token })),
  },
);

function b64url(v: unknown): string {
  return Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url');
}

function forge(a: Extract<AuthSpec, { kind: 'forged' }>, f: Fixtures, r: Resolver): string {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    sub: f.admin.userId, tenant_id: FUZZ_TENANT, role: 'admin', sid: f.adminSid, jti: crypto.randomUUID(), iat: now, exp: now + 600,
  };
  // signed by hand (not with jose, which refuses odd claims such as a non-finite `iat`)
  const sign = (c: Record<string, unknown>, alg = 'HS256', key = FUZZ_JWT_KEY) => {
    const input = `${b64url({ alg, typ: 'JWT' })}.${b64url(c)}`;
    return `${input}.${crypto.createHmac(alg === 'HS512' ? 'sha512' : 'sha256', key).update(input).digest('base64url')}`;
  };
  switch (a.variant) {
    case 'expired': return sign({ ...claims, iat: now - 7200, exp: now - 3600 });
    case 'alg-none': return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
    case 'wrong-key': return sign(claims, 'HS256', 'another-key-of-at-least-thirty-two-bytes!');
    case 'hs512': return sign(claims, 'HS512');
    case 'tampered': {
      const [h, , s] = f.admin.token.split('.');
      return `${h}.${b64url({ ...claims, tenant_id: OTHER_TENANT, role: 'admin' })}.${s}`;
    }
    default: {
      // a correctly signed token naming a tenant that does not exist is refused (401) and creates nothing
      return sign({ ...claims, [a.claim!]: toPlain(a.value ?? null, r) });
    }
  }
}

/** The Authorization header value of a credential (undefined: none). */
export async function authHeader(a: AuthSpec, f: Fixtures, r: Resolver): Promise<string | undefined> {
  switch (a.kind) {
    case 'admin': return `Bearer ${f.admin.token}`;
    case 'userA': return `Bearer ${f.userA.token}`;
    case 'userB': return `Bearer ${f.userB.token}`;
    case 'foreign': return `Bearer ${f.otherAdmin.token}`;
    case 'none': return undefined;
    case 'forged': return `Bearer ${forge(a, f, r)}`;
    case 'garbage': return `${a.scheme}${a.scheme && !/\s$/.test(a.scheme) ? ' ' : ''}${a.token}`;
  }
}

/** The credentials of a well-formed request: a fixture user of the fuzz tenant (none on public routes). */
export const cleanAuthArb = (level: 'public' | 'optional' | 'user'): fc.Arbitrary<AuthSpec> => (level === 'public'
  ? fc.constant({ kind: 'none' as const })
  : fc.oneof({ weight: 2, arbitrary: fc.constant({ kind: 'admin' as const }) }, { weight: 1, arbitrary: fc.constantFrom({ kind: 'userA' as const }, { kind: 'userB' as const }) }));

export const authLabel = (a: AuthSpec): string => (a.kind === 'forged' ? `forged:${a.variant}${a.claim ? `:${a.claim}` : ''}` : a.kind);

// ---------------------------------------------------------------- values from schemas

/**
 * What values are for: the spec, the model of the route, and `clean` for well-formed requests
 * (typed values only, no extra fields, no odd operators), which reach the code behind validation.
 */
export interface Ctx { spec: FuzzSpec; model: string | null; clean?: boolean }

const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'like', 'not like', 'ilike', 'not ilike', 'startswith', 'istartswith', 'any'];
const ODD_OPERATORS = ['==', '=like', 'child_of', 'IN', ' = ', '', 'not  in', 'regexp', 'LIKE', '<>', 'between'];
/** Private field names (docs/api.md lists them; the document leaves them out). */
const PRIVATE_FIELDS = ['password_hash', 'refresh_token_hash', 'secret_value', 'oauth_state_hash', 'sibling_key'];

const slug = fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,8}){0,2}$/);
const isoDate = fc.oneof(
  fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '1970-01-01', '2024-01-01T00:00:00+14:00', 'now', '2024-06-01 10:00:00', '1e12'),
);
const base64 = (maxBytes: number) => fc.uint8Array({ maxLength: maxBytes }).map((b) => Buffer.from(b).toString('base64'));
const bigBase64 = fc.integer({ min: 200 * 1024, max: 300 * 1024 }).map((n) => Buffer.alloc(n, 7).toString('base64'));
const fileName = fc.oneof(
  fc.constantFrom('report.pdf', 'a.txt', '../../etc/passwd', '..', '.', '/', 'C:\\boot.ini', 'a/b/c.txt', '\u0000.txt', 'résumé.txt', '😀.png', 'x'.repeat(300), '.hidden', 'con.txt', 'a\r\nb.txt', ''),
  nastyString,
);

/** A value for a field, by its name first (the semantics the schema cannot say), then by its schema. */
export function valueArb(schema: JsonSchema | undefined, name: string, ctx: Ctx, depth = 2): fc.Arbitrary<Value> {
  const s = schema ?? {};
  const types = ([] as string[]).concat(s.type ?? []);
  const typed = typedArb(s, types, name, ctx, depth);
  return fc.oneof(
    { weight: 12, arbitrary: typed },
    { weight: types.includes('null') ? 1 : 0, arbitrary: fc.constant(null) },
    { weight: ctx.clean ? 0 : 2, arbitrary: hostileValue },
  );
}

function typedArb(s: JsonSchema, types: string[], name: string, ctx: Ctx, depth: number): fc.Arbitrary<Value> {
  const { spec } = ctx;
  switch (name) {
    case 'email': return fc.oneof(fc.emailAddress(), fc.constantFrom('admin@example.com', 'fuzz-a@example.com', 'a@b', '@', 'x@y.z', 'ADMIN@EXAMPLE.COM', ' admin@example.com', `${'a'.repeat(300)}@x.io`, 'é@ü.de'));
    case 'password': return fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('fuzz-admin-pass-1', 'short', '12345678', 'é'.repeat(36), 'é'.repeat(37), 'a'.repeat(72), 'a'.repeat(73), '\u0000'.repeat(9)));
    case 'code': return fc.oneof(slug, fc.constantFrom('default', 'fuzz-a', 'fuzz-b', 'A', '-a', 'a-', 'a--b', 'x'.repeat(64)));
    case 'content_b64': case 'file_content': return fc.oneof({ weight: 5, arbitrary: base64(64) }, { weight: 1, arbitrary: bigBase64 }, { weight: 2, arbitrary: nastyString }, { weight: 1, arbitrary: fc.constantFrom('data:text/plain;base64,aGk=', '====', 'aGk', 'a GV sbG8=', '!!!!') });
    case 'filename': case 'file_name': case 'original_filename': return fileName;
    case 'content_type': case 'file_mime': return fc.oneof(fc.constantFrom('text/plain', 'application/pdf', 'text/html', 'a/b', 'image/svg+xml', 'text/plain; charset=utf-8', `x/${'y'.repeat(200)}`), nastyString);
    case 'tenant': return fc.oneof(fc.constantFrom(FUZZ_TENANT, OTHER_TENANT, 'default', 'nope', 'UPPER', '../x', '', 'a'.repeat(41)), nastyString);
    case 'refresh_token': return fc.oneof(fc.constant(new IdRef('refresh', null, 0)), fc.base64String({ minLength: 43, maxLength: 44 }).map((x) => `${FUZZ_TENANT}.${x}`), fc.constantFrom(`${OTHER_TENANT}.abc`, 'nope.abc', '../x.abc', '.', 'fuzz.', '.abc'), nastyString);
    case 'state': return fc.oneof(fc.tuple(idRef('ir.connector'), fc.constantFrom(FUZZ_TENANT, OTHER_TENANT, 'nope', 'BAD'), fc.base64String({ maxLength: 44 })).map(([id, t, n]) => new Joined([id, `:${t}.${n}`])), nastyString, fc.constantFrom('a:b.c', ':.', 'x:nope.y', `00000000-0000-4000-8000-000000000000:${FUZZ_TENANT}.abc`));
    case 'provider_type': return fc.oneof(fc.constantFrom('local', 's3', 'smtp', 'webhook', 'LOCAL', 'ftp'), nastyString);
    case 'view_id': return fc.oneof({ weight: 3, arbitrary: fc.nat(500).map((i) => new IdRef('view', null, i)) }, { weight: 1, arbitrary: nastyString });
    case 'model': case 'owner_model': return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...spec.models) }, { weight: 1, arbitrary: nastyString });
    case 'groupby': case 'by': return fc.oneof(fc.array(fieldName(ctx), { maxLength: 3 }), hostileValue);
    case 'aggregates': return fc.oneof(fc.dictionary(fieldName(ctx), fc.oneof(fc.constantFrom('sum', 'avg', 'min', 'max', 'count'), nastyString), { maxKeys: 3 }), hostileValue);
    case 'filter': case 'domain': return domainArb(ctx, 2);
    case 'order': return orderArb(ctx);
    case 'fields': return fc.oneof({ weight: 4, arbitrary: fc.array(fieldName(ctx), { maxLength: 4 }) }, { weight: 1, arbitrary: hostileValue });
    case 'limit': case 'offset': case 'first': return fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 120 }) }, { weight: 2, arbitrary: nastyNumber }, { weight: 1, arbitrary: fc.constantFrom(499, 500, 501) });
    case 'values': return ctx.model ? objectArb(writeSchemaOf(ctx), ctx, depth - 1) : hostileValue;
    case 'payload': return commandPayloadArb(spec, ctx.clean);
    case 'json_data': case 'config': return fc.oneof(fc.dictionary(fc.constantFrom('root', 'url', 'secret', 's3', 'bucket', 'endpoint', 'host', 'port', 'password', 'a.b', '', '__proto__'), hostileValue, { maxKeys: 5 }), hostileValue);
    default: break;
  }
  if (s.enum?.length) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(s.enum as Value[])) }, { weight: 1, arbitrary: fc.constantFrom('', 'NEW', 'unknown', 'new ') });
  if (s.format === 'uuid' || s['x-reference'] || name === 'id' || name.endsWith('_id') || name === 'ids') {
    const target = s['x-reference'] ?? (name === 'id' || name === 'ids' ? ctx.model : null);
    return name === 'ids' ? fc.array(idRef(target), { maxLength: 4 }) : idRef(target);
  }
  if (s.format === 'date-time') return isoDate;
  const t = types.find((x) => x !== 'null');
  switch (t) {
    case 'integer': {
      const bounds = [s.minimum, s.maximum].filter((x): x is number => x !== undefined).flatMap((b) => [b - 1, b, b + 1]);
      return fc.oneof({ weight: 2, arbitrary: fc.integer({ min: -10, max: 1000 }) }, { weight: 2, arbitrary: nastyNumber }, { weight: bounds.length ? 1 : 0, arbitrary: fc.constantFrom(...(bounds.length ? bounds : [0])) });
    }
    case 'number': return fc.oneof(fc.double({ min: -2, max: 2, noNaN: true }), nastyNumber);
    case 'boolean': return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('true', 0, 1, 'yes') });
    case 'array': return fc.array(valueArb(s.items, name, ctx, depth - 1), { maxLength: 4 });
    case 'object': return depth > 0 && s.properties ? objectArb(s, ctx, depth - 1) : fc.dictionary(plainString, hostileValue, { maxKeys: 4 });
    case 'string': {
      const max = s.maxLength;
      const around = max ? fc.constantFrom(max - 1, max, max + 1, max * 2).chain((n) => fc.constantFrom('x', 'é', '😀', '\u0000').map((c) => c.repeat(Math.max(0, n)))) : null;
      return fc.oneof({ weight: 4, arbitrary: plainString }, { weight: 3, arbitrary: nastyString }, { weight: around ? 2 : 0, arbitrary: around ?? fc.constant('') });
    }
    default: return hostileValue;
  }
}

/** A command payload (`/api/command/{name}`, GraphQL `command(name, payload)`): the keys commands read, for some model. */
export function commandPayloadArb(spec: FuzzSpec, clean = false): fc.Arbitrary<Value> {
  return fc.constantFrom(...spec.models).chain((model) => {
    const ctx: Ctx = { spec, model, clean };
    const keys = ['id', 'ids', 'values', 'domain', 'fields', 'order', 'limit', 'offset', 'groupby', 'aggregates', 'email', 'password', 'refresh_token',
      'view_id', 'category', 'json_data', 'content_b64', 'filename', 'name', 'tenant'];
    return fc.record({
      model: fc.oneof({ weight: 6, arbitrary: fc.constant(model) }, { weight: clean ? 0 : 1, arbitrary: nastyString }),
      // each key now and then: a command takes a few of them and refuses the others
      picked: fc.tuple(...keys.map((k) => fc.tuple(chance(0.15), valueArb(undefined, k, ctx, 1)))),
      count: fc.tuple(chance(0.2), fc.boolean()),
      user_id: fc.tuple(chance(0.1), idRef('res.user')),
    }).map(({ model: m, picked, count, user_id }) => {
      const out: Record<string, Value> = { model: m };
      picked.forEach(([include, v], i) => { if (include) out[keys[i]] = v; });
      if (count[0]) out.count = count[1];
      if (user_id[0]) out.user_id = user_id[1];
      return out;
    });
  });
}

function writeSchemaOf(ctx: Ctx): JsonSchema {
  return ctx.model ? { type: 'object', properties: Object.fromEntries(Object.entries(ctx.spec.records[ctx.model]?.properties ?? {}).filter(([k]) => k !== 'id')) } : {};
}

/** An object from a schema: required fields mostly present, optional ones sometimes, extra fields now and then. */
export function objectArb(s: JsonSchema, ctx: Ctx, depth = 2): fc.Arbitrary<Value> {
  const props = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  const fields = props.map(([k, p]) => fc.tuple(fc.constant(k), chance(required.has(k) ? 0.92 : 0.4), valueArb(p, k, ctx, depth)));
  const extraKey = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ctx.spec.vocabulary, ...PRIVATE_FIELDS, 'id', 'revision', 'dbid', 'record_uuid', 'created_at_utc') }, { weight: 1, arbitrary: nastyString });
  return fc.tuple(fc.tuple(...fields), fc.array(fc.tuple(extraKey, hostileValue), { maxLength: 2 }), chance(ctx.clean ? 0 : 0.12))
    .map(([chosen, extras, withExtras]) => {
      const out: Record<string, Value> = {};
      for (const [k, include, v] of chosen) if (include) out[k] = v;
      if (withExtras) for (const [k, v] of extras) out[k] = v;
      return out;
    });
}

// ---------------------------------------------------------------- domains, order, fields

function fieldNames(ctx: Ctx): string[] {
  return Object.keys(ctx.model ? ctx.spec.records[ctx.model]?.properties ?? {} : {});
}

function fieldName(ctx: Ctx): fc.Arbitrary<string> {
  const names = fieldNames(ctx);
  const refs = Object.entries(ctx.model ? ctx.spec.records[ctx.model]?.properties ?? {} : {}).filter(([, p]) => p['x-reference']);
  const dotted = refs.flatMap(([k, p]) => Object.keys(ctx.spec.records[p['x-reference']!]?.properties ?? {}).map((t) => `${k}.${t}`));
  return fc.oneof(
    { weight: names.length ? 6 : 0, arbitrary: fc.constantFrom(...(names.length ? names : ['name'])) },
    { weight: dotted.length ? 2 : 0, arbitrary: fc.constantFrom(...(dotted.length ? dotted : ['x.y'])) },
    { weight: ctx.clean ? 0 : 1, arbitrary: fc.constantFrom(...PRIVATE_FIELDS, 'users.email', 'users.password_hash', 'organization.users.email', 'a.b.c.d.e', '.', 'name.', '.name') },
    { weight: ctx.clean ? 0 : 1, arbitrary: nastyString },
    // a clean value with no model to name fields of (an argument like exportLink's fields, whose
    // model is another argument): a plain name, so the arbitrary is never empty
    { weight: ctx.clean && !names.length && !dotted.length ? 1 : 0, arbitrary: fc.constant('name') },
  );
}

/** A domain on the model: terms with typed or hostile values, prefix operators, wrong shapes, `any` sub-domains. */
export function domainArb(ctx: Ctx, depth: number): fc.Arbitrary<Value> {
  const props = ctx.model ? ctx.spec.records[ctx.model]?.properties ?? {} : {};
  const term: fc.Arbitrary<Value> = fieldName(ctx).chain((field) => {
    const schema = props[field];
    const target = schema?.['x-reference'];
    const value = valueArb(schema, field, ctx, 1);
    return fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...OPERATORS.filter((o) => o !== 'any')), value).map(([op, v]) => [field, op, v] as Value) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom('in', 'not in'), fc.array(value, { maxLength: 5 })).map(([op, v]) => [field, op, v] as Value) },
      { weight: target && depth > 0 ? 1 : 0, arbitrary: target && depth > 0 ? domainArb({ ...ctx, model: target }, depth - 1).map((d) => [field, 'any', d] as Value) : fc.constant(null) },
      { weight: ctx.clean ? 0 : 1, arbitrary: fc.tuple(fc.constantFrom(...ODD_OPERATORS, ...NASTY_STRINGS.slice(0, 20)), hostileValue).map(([op, v]) => [field, op, v] as Value) },
      { weight: ctx.clean ? 0 : 1, arbitrary: fc.array(hostileValue, { maxLength: 5 }) },
    );
  });
  // a clean domain is terms side by side, or a prefix operator before its two (one for `!`) operands
  if (ctx.clean) {
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(term, { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('&', '|'), term, term).map((xs) => xs as Value) },
      { weight: 1, arbitrary: term.map((t) => ['!', t] as Value) },
    );
  }
  const element: fc.Arbitrary<Value> = fc.oneof(
    { weight: 6, arbitrary: term },
    { weight: 2, arbitrary: fc.constantFrom('&', '|', '!') },
    { weight: depth > 0 ? 1 : 0, arbitrary: depth > 0 ? fc.constant(null).chain(() => domainArb(ctx, depth - 1)) : fc.constant('&') },
    { weight: 1, arbitrary: hostileValue },
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.array(element, { maxLength: 5 }) },
    { weight: 1, arbitrary: hostileValue },
    { weight: 1, arbitrary: deepJson },
  );
}

export function orderArb(ctx: Ctx): fc.Arbitrary<Value> {
  const one = fc.tuple(fieldName(ctx), ctx.clean ? fc.constantFrom(' asc', ' desc') : fc.constantFrom(' asc', ' desc', '', ' ASC', ' up', ' asc desc', '  desc', ' asc nulls first')).map(([f, d]) => f + d);
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(one, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(',')) },
    { weight: ctx.clean ? 0 : 1, arbitrary: nastyString },
    { weight: ctx.clean ? 0 : 1, arbitrary: fc.constantFrom('name asc; DROP TABLE res_user', 'name asc,', ',', 'dbid', '(select 1)', 'name collate "C"') },
  );
}

// ---------------------------------------------------------------- bodies

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; value: Value; contentType: string | null; encoding: 'utf8' | 'invalid-utf8' | 'utf16' | 'bom' | 'truncated' | 'gzip-header'; }
  | { kind: 'form'; value: Value; contentType: string }
  | { kind: 'multipart'; boundary: string; text: string }
  | { kind: 'bytes'; bytes: Uint8Array; contentType: string | null }
  | { kind: 'text'; text: string; contentType: string | null };

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'application/json;charset=utf-16', 'application/json; foo=bar; charset', 'application/vnd.api+json', 'application/json, text/plain'];

export function bodyArb(schema: JsonSchema | null, ctx: Ctx, binary: boolean, command = false): fc.Arbitrary<BodySpec> {
  const value: fc.Arbitrary<Value> = fc.oneof(
    { weight: 12, arbitrary: command ? commandPayloadArb(ctx.spec) : schema ? objectArb(schema, ctx) : fc.dictionary(fc.constantFrom(...ctx.spec.vocabulary), hostileValue, { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.oneof(fc.array(hostileValue, { maxLength: 3 }), nastyString, nastyNumber, fc.constant(null), fc.boolean()) },
    { weight: 1, arbitrary: fc.oneof(deepJson, fc.constantFrom(...CYCLIC_LOOKING)) },
  );
  const json = fc.record({
    value,
    contentType: fc.oneof({ weight: 10, arbitrary: fc.constant('application/json') }, { weight: 3, arbitrary: fc.constantFrom(...JSON_TYPES) }, { weight: 1, arbitrary: fc.constant(null) }),
    encoding: fc.oneof({ weight: 14, arbitrary: fc.constant('utf8' as const) }, { weight: 1, arbitrary: fc.constantFrom('invalid-utf8', 'utf16', 'bom', 'truncated', 'gzip-header') }),
  }).map((b) => ({ kind: 'json' as const, ...b }));
  return fc.oneof(
    { weight: 20, arbitrary: json },
    { weight: binary ? 8 : 0, arbitrary: fc.record({ bytes: fc.oneof({ weight: 9, arbitrary: fc.uint8Array({ maxLength: 2048 }) }, { weight: 1, arbitrary: fc.integer({ min: 256 * 1024 - 2, max: 300 * 1024 }).map((n) => new Uint8Array(n).fill(120)) }), contentType: fc.constantFrom('application/octet-stream', 'text/plain', 'image/png', 'application/pdf', null, 'multipart/mixed', 'application/x-www-form-urlencoded') }).map((b) => ({ kind: 'bytes' as const, ...b })) },
    { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: fc.record({ value, contentType: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8') }).map((b) => ({ kind: 'form' as const, ...b })) },
    { weight: 1, arbitrary: fc.record({ boundary: fc.constantFrom('xyz', '', '"q"', 'a'.repeat(100)), text: fc.oneof(nastyString, fc.constant('--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--xyz--')) }).map((b) => ({ kind: 'multipart' as const, ...b })) },
    { weight: 1, arbitrary: fc.record({ text: nastyString, contentType: fc.constantFrom('text/plain', 'application/xml', 'text/html', 'application/graphql', null, '', 'application/json', '*/*', ';;;', 'text/plain; charset=utf-7') }).map((b) => ({ kind: 'text' as const, ...b })) },
  );
}

/** Keys whose values would reach the network or the file system outside the sandbox: made harmless. */
function neutralize(key: string, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (key === 'root' || key.endsWith('.root')) return v.replace(/^([/\\~]|[A-Za-z]:)+/, '').replace(/\.\.(?=[/\\]|$)/g, '__') || 'root';
  if (['url', 'endpoint'].includes(key) || key.endsWith('.url') || key.endsWith('.endpoint')) return `http://127.0.0.1:9/${encodeURIComponentLenient(v).slice(0, 200)}`;
  if (key === 'host' || key.endsWith('.host')) return '127.0.0.1';
  return v;
}

function harmless(v: Value): Value {
  if (Array.isArray(v)) return v.map(harmless);
  if (v && typeof v === 'object' && !(v instanceof IdRef) && !(v instanceof Raw)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, neutralize(k, harmless(x)) as Value]));
  }
  return v;
}

function invalidUtf8(text: string): Buffer {
  const buf = Buffer.from(text, 'utf8');
  // break the string contents: a lone continuation byte, an overlong NUL, a CESU-8 surrogate, 0xFF
  const junk = [Buffer.from([0x80]), Buffer.from([0xc0, 0x80]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff, 0xfe]), Buffer.from([0xc3, 0x28])];
  const i = buf.indexOf(0x22); // after the first quote: inside a string (or at the start)
  return Buffer.concat([buf.subarray(0, i + 1), junk[buf.length % junk.length], buf.subarray(i + 1)]);
}

export function renderBody(b: BodySpec, r: Resolver): { body?: string | Buffer; headers: Record<string, string> } {
  switch (b.kind) {
    case 'none': return { headers: {} };
    case 'json': {
      const text = toJsonText(harmless(b.value), r);
      const headers: Record<string, string> = b.contentType ? { 'content-type': b.contentType } : {};
      switch (b.encoding) {
        case 'invalid-utf8': return { body: invalidUtf8(text), headers };
        case 'utf16': return { body: Buffer.from(text, 'utf16le'), headers };
        case 'bom': return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), headers };
        case 'truncated': return { body: text.slice(0, Math.max(0, Math.floor(text.length / 2))), headers };
        case 'gzip-header': return { body: text, headers: { ...headers, 'content-encoding': ['gzip', 'deflate', 'br', 'identity, gzip', 'x-unknown'][text.length % 5] } };
        default: return { body: text, headers };
      }
    }
    case 'form': {
      const plain = toPlain(harmless(b.value), r);
      const pairs = plain && typeof plain === 'object' && !Array.isArray(plain) ? Object.entries(plain) : [['value', plain]];
      return { body: pairs.map(([k, v]) => `${encodeParam(String(k), 'normal')}=${encodeParam(typeof v === 'string' ? v : JSON.stringify(v) ?? '', 'normal')}`).join('&'), headers: { 'content-type': b.contentType } };
    }
    case 'multipart': return { body: b.text, headers: { 'content-type': `multipart/form-data${b.boundary ? `; boundary=${b.boundary}` : ''}` } };
    case 'bytes': return { body: Buffer.from(b.bytes), headers: b.contentType ? { 'content-type': b.contentType } : {} };
    case 'text': return { body: b.text, headers: b.contentType !== null ? { 'content-type': b.contentType } : {} };
  }
}

// ---------------------------------------------------------------- abstract requests

export interface AbstractRequest {
  target: string;
  method: string;
  /** Path pieces: literal text, or a value to encode. */
  path: Array<string | { value: Value; enc: 'normal' | 'raw' | 'latin1' | 'double' }>;
  query: Array<[string, Value]>;
  headers: Array<[string, string | Value]>;
  auth: AuthSpec;
  /** Send the token as `?access_token=` instead of the header (the SSE route reads it there). */
  tokenInQuery?: boolean;
  body: BodySpec;
  remoteAddress?: string;
  mayStream?: boolean;
  /** A GraphQL operation, rendered into the query string or body when the request is built. */
  gql?: GqlPlan;
  routeAuth?: 'public' | 'optional' | 'user';
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'LOCK', 'MKCOL', 'COPY', 'get', 'Post'];
export const methodArb = (own: string) => fc.oneof({ weight: 12, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });
export const remoteAddressArb = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('::ffff:10.0.0.1', 'unknown', '')) });

const headerArb = (op: RestOp | null): fc.Arbitrary<Array<[string, string | Value]>> => fc.array(fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constant('if-match'), fc.oneof(fc.nat(20).map((n) => `"${n}"`), fc.constantFrom('W/"1"', '*', '"a"', '"1.5"', '"-1"', '"99999999999999999999"', '""'), nastyString)) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('x-tenant'), fc.oneof(fc.constantFrom(FUZZ_TENANT, OTHER_TENANT, 'default', 'nope', 'UPPER', '../fuzz'), nastyString)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('accept'), fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'text/event-stream', 'application/graphql-response+json', '', 'image/*;q=0')) },
  { weight: op?.path.includes('download') ? 3 : 0, arbitrary: fc.tuple(fc.constant('range'), fc.oneof(fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=5-', 'bytes=0-1,2-3', 'bytes=9999999-', 'bytes=3-1', 'bytes=-0', 'items=0-1', 'bytes=', 'bytes=0-99999999999999999999'), nastyString)) },
  { weight: op?.path.includes('download') ? 1 : 0, arbitrary: fc.tuple(fc.constant('if-none-match'), fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"'), nastyString)) },
  { weight: op?.path.includes('events') ? 2 : 0, arbitrary: fc.tuple(fc.constant('last-event-id'), fc.oneof(fc.uuid(), nastyString)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x-forwarded-for', 'user-agent', 'origin', 'cookie', 'x-http-method-override', 'accept-language', 'accept-encoding', 'content-language'), nastyString) },
), { maxLength: 2 });

/** One REST operation's requests: mostly anything goes, one in four well formed (a valid token, typed values, a JSON body). */
export function restArb(op: RestOp, spec: FuzzSpec): fc.Arbitrary<AbstractRequest> {
  return fc.oneof({ weight: 3, arbitrary: restVariant(op, spec, false) }, { weight: 1, arbitrary: restVariant(op, spec, true) });
}

function restVariant(op: RestOp, spec: FuzzSpec, clean: boolean): fc.Arbitrary<AbstractRequest> {
  const ctx: Ctx = { spec, model: op.model, clean };
  const segments = op.path.split(/(\{\w+\})/).filter(Boolean);
  const pathArbs = segments.map((seg) => {
    const m = /^\{(\w+)\}$/.exec(seg);
    if (!m) return fc.constant(seg);
    const name = m[1];
    const value: fc.Arbitrary<Value> = name === 'id' ? (clean ? fc.nat(200).map((i) => new IdRef('own', op.model, i)) : idRef(op.model))
      : name === 'n' ? (clean ? fc.integer({ min: 1, max: 3 }) : fc.oneof(fc.integer({ min: -2, max: 5 }), nastyNumber, nastyString))
        : name === 'view_id' ? typedArb({}, [], 'view_id', ctx, 1)
          : name === 'provider_type' ? typedArb({}, [], 'provider_type', ctx, 1)
            : name === 'name' ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...spec.commands) }, { weight: clean ? 0 : 1, arbitrary: nastyString })
              : nastyString;
    return fc.record({ value, enc: fc.oneof({ weight: 10, arbitrary: fc.constant('normal' as const) }, { weight: clean ? 0 : 1, arbitrary: fc.constantFrom('raw' as const, 'latin1' as const, 'double' as const) }) });
  });
  const queryParams = op.params.filter((p) => p.in === 'query');
  // `fields` travels as a comma-separated list in a query string
  const paramValue = (p: { name: string; schema: JsonSchema }) => (p.name === 'fields'
    ? fc.oneof({ weight: 4, arbitrary: fc.tuple(fc.array(fieldName(ctx), { minLength: 1, maxLength: 4 }), fc.constantFrom(',', ', ', ',,')).map(([xs, sep]) => xs.join(sep)) }, { weight: clean ? 0 : 1, arbitrary: valueArb(p.schema, p.name, ctx) })
    : valueArb(p.schema, p.name, ctx));
  const query = fc.tuple(
    ...queryParams.map((p) => fc.tuple(chance(clean ? 0.35 : 0.5), paramValue(p), chance(clean ? 0 : 0.05))),
  ).map((chosen) => {
    const out: Array<[string, Value]> = [];
    chosen.forEach(([include, v, twice], i) => {
      if (include) out.push([queryParams[i].name, v]);
      if (include && twice) out.push([queryParams[i].name, v]); // the same parameter twice
    });
    return out;
  });
  const extraQuery = clean ? fc.constant(null) : fc.option(fc.tuple(fc.constantFrom(...spec.vocabulary, 'limit', 'filter', 'fields', 'order'), hostileValue), { freq: 8 });
  const needsBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
  const command = op.id === 'POST /api/command/{name}';
  const cleanBody = fc.record({
    value: command ? commandPayloadArb(spec, true) : op.body ? objectArb(op.body, ctx) : fc.constant({} as Value),
    contentType: fc.constant('application/json'),
    encoding: fc.constant('utf8' as const),
  }).map((b) => ({ kind: 'json' as const, ...b }));
  const body = needsBody ? (clean ? cleanBody : bodyArb(op.body, ctx, op.binaryBody, command))
    : clean ? fc.constant({ kind: 'none' as const }) : fc.oneof({ weight: 12, arbitrary: fc.constant({ kind: 'none' as const }) }, { weight: 1, arbitrary: bodyArb(null, ctx, false) });
  const isEvents = op.path === '/api/presentation/events';
  return fc.record({
    method: clean ? fc.constant(op.method) : methodArb(op.method),
    path: fc.tuple(...pathArbs),
    query,
    extraQuery,
    headers: clean ? fc.constant([] as Array<[string, string | Value]>) : headerArb(op),
    auth: clean ? cleanAuthArb(op.auth) : authArb(op.auth),
    tokenInQuery: fc.boolean(),
    body,
    remoteAddress: clean ? fc.constant(undefined) : remoteAddressArb,
  }).map((g) => ({
    target: op.id,
    method: g.method,
    path: g.path as AbstractRequest['path'],
    query: g.extraQuery ? [...g.query, g.extraQuery] : g.query,
    headers: g.headers,
    auth: g.auth,
    tokenInQuery: isEvents && g.tokenInQuery,
    body: g.body,
    remoteAddress: g.remoteAddress,
    mayStream: isEvents,
    routeAuth: op.auth,
  }));
}

/** Paths that are not in the document: unknown models and routes, odd segments. */
export function oddPathArb(spec: FuzzSpec): fc.Arbitrary<AbstractRequest> {
  const path = fc.oneof(
    fc.tuple(fc.constantFrom('/api/data/', '/api/res/', '/api/command/', '/api/storage/', '/api/connectors/', '/api/', '/', '/graphql/', '/api/data/res.user/'), nastyString)
      .map(([p, s]) => [p, { value: s, enc: 'normal' as const }]),
    fc.constantFrom('/api/data/res.user/../res.organization', '/api/data/res.user/%2e%2e', '//api//data//res.user', '/api/data/res.user?', '/api/data/res.user#x', '/API/DATA/RES.USER',
      '/api/data/res.user/', '/api/data/./res.user', '/api/openapi.json/x', '/health?x=%ZZ', '/api/data/res.user?limit=1&limit=2', '/api/ai/chat', '/api/qa/run', '/index.html', '/assets/../../package.json',
      '/api/data/ir.event/x/replay', `/api/data/${spec.models[0]}/count/extra`, '/api/base/ping/', '/%00', '/api/data/%00', '/api/data/res.user%00', '/api/storage/documents/x/versions/1e3/download')
      .map((p) => [p]),
  );
  return fc.record({ method: fc.constantFrom(...METHODS), path, auth: authArb('user'), body: bodyArb(null, { spec, model: null }, true), headers: headerArb(null) })
    .map((g) => ({ target: 'odd path', method: g.method, path: g.path as AbstractRequest['path'], query: [], headers: g.headers, auth: g.auth, body: g.body }));
}

// ---------------------------------------------------------------- materialize

const pick = <T>(xs: T[] | undefined, i: number): T | undefined => (xs && xs.length ? xs[i % xs.length] : undefined);
const uuidOf = (i: number) => {
  const h = crypto.createHash('sha256').update(String(i)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export function resolverFor(f: Fixtures, spec: FuzzSpec): Resolver {
  return {
    id(ref: IdRef) {
      const model = ref.model ?? pick(spec.models, ref.index)!;
      switch (ref.pool) {
        case 'own': return pick(f.ids[model], ref.index) ?? uuidOf(ref.index);
        case 'refresh': return f.refreshToken;
        case 'view': return pick(f.viewIds, ref.index) ?? 'none';
        case 'foreign': return pick(f.foreignIds[model], ref.index) ?? uuidOf(ref.index);
        case 'other-model': {
          const other = pick(spec.models, ref.index)!;
          return pick(f.ids[other], Math.floor(ref.index / spec.models.length)) ?? uuidOf(ref.index);
        }
        case 'upper': return (pick(f.ids[model], ref.index) ?? uuidOf(ref.index)).toUpperCase();
        case 'dbid': return ref.index % 40;
        case 'random': return uuidOf(ref.index);
        case 'garbage': return ref.garbage;
      }
    },
  };
}

export async function materialize(a: AbstractRequest, f: Fixtures, spec: FuzzSpec): Promise<FuzzRequest> {
  const r = resolverFor(f, spec);
  if (a.gql) a = { ...a, ...renderGql(a.gql, r) };
  const path = a.path.map((p) => (typeof p === 'string' ? p : encodeParam(toParamText(p.value, r), p.enc))).join('');
  const query = a.query.map(([k, v]) => `${encodeParam(k, 'normal')}=${encodeParam(toParamText(v, r), 'normal')}`);
  const headers: Record<string, string> = {};
  const { body, headers: bodyHeaders } = renderBody(a.body, r);
  Object.assign(headers, bodyHeaders);
  for (const [k, v] of a.headers) {
    // header values cannot carry control characters or code points above 0xFF
    headers[k] = (typeof v === 'string' ? v : toParamText(v, r)).replace(/[^\u0020-\u007e\u0080-\u00ff\t]/g, '?');
  }
  const auth = await authHeader(a.auth, f, r);
  if (auth !== undefined) {
    const safe = auth.replace(/[^\u0020-\u007e\u0080-\u00ff\t]/g, '?');
    if (a.tokenInQuery) query.push(`access_token=${encodeParam(safe.replace(/^\S+\s+/, ''), 'normal')}`);
    else headers.authorization = safe;
  }
  return {
    target: a.target,
    method: a.method,
    url: `${path}${query.length ? `${path.includes('?') ? '&' : '?'}${query.join('&')}` : ''}`,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(a.remoteAddress !== undefined ? { remoteAddress: a.remoteAddress } : {}),
    auth: authLabel(a.auth),
    mayStream: a.mayStream,
    ...(a.routeAuth ? { routeAuth: a.routeAuth } : {}),
  };
}
