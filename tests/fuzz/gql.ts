/**
 * GraphQL operations derived from the introspected schema: for a root field, its arguments
 * (inline literals or variables, values built from the argument's input type — enums, input
 * objects, lists, scalars — mixed with hostile and wrongly typed ones) and a selection set built
 * from the field's output type; plus documents no client should send (garbage, depth, aliases,
 * fragment cycles, several operations) and the transports (POST JSON, GET, batching, odd accepts).
 */
import fc from 'fast-check';
import {
  getNamedType, isEnumType, isInputObjectType, isInterfaceType, isLeafType, isListType, isNonNullType, isObjectType, isScalarType, isUnionType,
  type GraphQLInputType, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import type { GqlRoot, FuzzSpec } from './spec.ts';
import { authArb, cleanAuthArb, remoteAddressArb, type AbstractRequest, type BodySpec, type Ctx, valueArb } from './requests.ts';
import { chance, hostileValue, IdRef, idRef, Joined, nastyNumber, nastyString, Raw, toJsonText, toPlain, type Resolver, type Value } from './values.ts';

/** A GraphQL literal: enum names and raw text verbatim, strings quoted, objects with bare keys. */
export function printLiteral(v: Value, r: Resolver): string {
  if (v === null) return 'null';
  if (v instanceof Raw) return v.text;
  if (v instanceof IdRef) {
    const id = r.id(v);
    return typeof id === 'number' ? String(id) : JSON.stringify(id);
  }
  if (v instanceof Joined) return JSON.stringify(toPlain(v, r));
  if (Array.isArray(v)) return `[${v.map((x) => printLiteral(x, r)).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(k) ? k : JSON.stringify(k)}: ${printLiteral(x, r)}`).join(', ')}}`;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return JSON.stringify(v);
}

const inputCache = new WeakMap<FuzzSpec, Map<string, fc.Arbitrary<Value>>>();

/** A value of a GraphQL input type (enum values as `Raw` names, so they print bare and serialise as strings). */
function inputArb(type: GraphQLInputType, name: string, ctx: Ctx, model: string | null, depth: number): fc.Arbitrary<Value> {
  if (isNonNullType(type)) return inputArb(type.ofType, name, ctx, model, depth);
  let cache = inputCache.get(ctx.spec);
  if (!cache) inputCache.set(ctx.spec, (cache = new Map()));
  const key = `${String(type)}|${name}|${model}|${ctx.model}|${depth}|${ctx.clean ? 'clean' : ''}`;
  let arb = cache.get(key);
  if (!arb) cache.set(key, (arb = buildInputArb(type, name, ctx, model, depth)));
  return arb;
}

function buildInputArb(type: GraphQLInputType, name: string, ctx: Ctx, model: string | null, depth: number): fc.Arbitrary<Value> {
  const hostile = fc.oneof(hostileValue, nastyNumber as fc.Arbitrary<Value>, fc.constant(null));
  let typed: fc.Arbitrary<Value>;
  if (isListType(type)) {
    typed = depth > 0 ? fc.array(inputArb(type.ofType, name, ctx, model, depth - 1), { maxLength: 3 }) : fc.constant([]);
  } else if (isEnumType(type)) {
    typed = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...type.getValues().map((v) => new Raw(v.name))) }, { weight: ctx.clean ? 0 : 1, arbitrary: fc.constantFrom(new Raw('NOPE'), new Raw('asc'), '"ASC"') });
  } else if (isInputObjectType(type)) {
    if (depth <= 0) return fc.constant({});
    const fields = Object.values(type.getFields());
    const each = fields.map((f) => fc.tuple(fc.constant(f.name), chance(isNonNullType(f.type) ? 0.9 : 0.3), fc.constant(null).chain(() => inputArb(f.type, f.name, ctx, model, depth - 1))));
    typed = fc.tuple(fc.tuple(...each), ctx.clean ? fc.constant(null) : fc.option(fc.tuple(nastyString, hostileValue), { freq: 10 }))
      .map(([chosen, extra]) => {
        const out: Record<string, Value> = {};
        for (const [k, include, v] of chosen) if (include) out[k] = v;
        if (extra) out[extra[0]] = extra[1];
        return out;
      });
  } else if (isScalarType(type)) {
    switch (type.name) {
      case 'ID': typed = ctx.clean ? fc.nat(200).map((i) => new IdRef('own', model, i)) : idRef(model); break;
      case 'Int': typed = ctx.clean ? fc.integer({ min: 0, max: 60 }) : fc.oneof(fc.integer({ min: -3, max: 600 }), fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 1e21), nastyNumber as fc.Arbitrary<Value>); break;
      case 'Float': typed = ctx.clean ? fc.double({ min: 0, max: 1, noNaN: true }) : fc.oneof(fc.double({ min: -2, max: 2, noNaN: true }), nastyNumber as fc.Arbitrary<Value>); break;
      case 'Boolean': typed = fc.boolean(); break;
      case 'DateTime': typed = valueArb({ type: 'string', format: 'date-time' }, name, ctx, 1); break;
      case 'JSON': typed = valueArb(undefined, name, ctx, 1); break;
      case 'File': typed = fc.constantFrom(null, 'file', {} as Value); break;
      default: typed = valueArb({ type: 'string' }, name, ctx, 1);
    }
  } else {
    typed = hostileValue;
  }
  return fc.oneof({ weight: 8, arbitrary: typed }, { weight: ctx.clean ? 0 : 1, arbitrary: hostile });
}

/** A selection set for an output type (empty for leaves), at most `depth` levels deep. */
function selectionArb(type: GraphQLOutputType, depth: number): fc.Arbitrary<string> {
  const named = getNamedType(type);
  if (isLeafType(named)) return fc.constant('');
  if (isUnionType(named) || isInterfaceType(named)) {
    const concrete = isUnionType(named) ? named.getTypes() : [];
    return fc.constantFrom(...(concrete.length ? concrete : [null])).chain((t) => (t ? selectionArb(t, depth).map((s) => `{ __typename ... on ${t.name} ${s || '{ __typename }'} }`) : fc.constant('{ __typename }')));
  }
  if (!isObjectType(named)) return fc.constant('{ __typename }');
  const fields = Object.values(named.getFields()).filter((f) => f.args.every((a) => !isNonNullType(a.type)));
  const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
  const objects = depth > 0 ? fields.filter((f) => !isLeafType(getNamedType(f.type))) : [];
  const leafSel = leaves.length ? fc.subarray(leaves.map((f) => f.name), { minLength: 1, maxLength: Math.min(5, leaves.length) }) : fc.constant(['__typename']);
  const objSel = objects.length ? fc.option(fc.constantFrom(...objects).chain((f) => selectionArb(f.type, depth - 1).map((s) => `${f.name} ${s}`)), { freq: 3 }) : fc.constant(null);
  return fc.tuple(leafSel, objSel, fc.boolean()).map(([ls, o, typename]) => `{ ${[...ls, ...(o ? [o] : []), ...(typename ? ['__typename'] : [])].join(' ')} }`);
}

/** The model a root field is about: `resOrganizations` → res.organization (for ids in its arguments). */
function modelOfField(name: string, spec: FuzzSpec): string | null {
  let best: string | null = null;
  for (const m of spec.models) {
    const camel = m.split(/[._]/).map((p, i) => (i === 0 ? p : p[0].toUpperCase() + p.slice(1))).join('');
    if (name.startsWith(camel) && (!best || camel.length > best.length)) best = m;
  }
  return best;
}

export interface GqlBody {
  query: string;
  variables?: Record<string, Value>;
  operationName?: string;
  /** Variables of type File: sent as multipart parts (GraphQL multipart request spec). */
  files?: string[];
}

/** The file part of a multipart operation: its size, name and type, and how its `map` is spelt. */
export interface FileSpec { size: number; filename: string; contentType: string; map: 'ok' | 'bad-path' | 'missing-part' | 'no-map' | 'not-json' | 'two-files' }

/** How a generated operation goes on the wire; rendered when the request is built (ids resolved then). */
export interface GqlPlan { body: GqlBody; mode: string; method: string; file?: FileSpec }

const fileSpecArb: fc.Arbitrary<FileSpec> = fc.record({
  // the fuzz server's STORAGE_MAX_UPLOAD_BYTES is 256 KiB: some files are over it
  size: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 4096 }) }, { weight: 1, arbitrary: fc.integer({ min: 256 * 1024 - 2, max: 300 * 1024 }) }),
  filename: fc.oneof(fc.constantFrom('a.txt', 'report.pdf', '../../x.txt', '', 'résumé.txt', '\u0000.bin', '😀.png', 'x'.repeat(300)), nastyString),
  contentType: fc.constantFrom('text/plain', 'application/octet-stream', 'image/png', '', 'a/b', 'text/html; charset=utf-8'),
  map: fc.oneof({ weight: 8, arbitrary: fc.constant('ok' as const) }, { weight: 1, arbitrary: fc.constantFrom('bad-path' as const, 'missing-part' as const, 'no-map' as const, 'not-json' as const, 'two-files' as const) }),
});

const header = (name: string, value: string): [string, string] => [name, value];

const ACCEPTS = ['application/json', 'application/graphql-response+json', '*/*', 'application/graphql-response+json, application/json', 'text/html', 'multipart/mixed', 'text/event-stream', ''];

/** Puts an operation on the wire: mostly POST JSON, sometimes GET, batched, raw application/graphql or broken. */
function transportArb(op: fc.Arbitrary<GqlBody>, target: string, root: GqlRoot['root'] | null, clean = false): fc.Arbitrary<AbstractRequest> {
  return fc.record({
    op,
    mode: clean ? fc.constant('post') : fc.oneof({ weight: 14, arbitrary: fc.constant('post') }, { weight: 2, arbitrary: fc.constant('get') }, { weight: 1, arbitrary: fc.constantFrom('batch', 'graphql-type', 'variables-string', 'form', 'no-content-type', 'method', 'multipart') }),
    multipart: fc.boolean(),
    file: fileSpecArb,
    accept: clean ? fc.constant(null) : fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constantFrom(...ACCEPTS) }),
    auth: clean ? cleanAuthArb('optional') : authArb('optional'),
    method: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
    remoteAddress: clean ? fc.constant(undefined) : remoteAddressArb,
  }).map((g) => ({ ...g, mode: g.op.files?.length && g.multipart ? 'multipart' : g.mode })).map((g) => ({
    target,
    method: g.mode === 'get' ? 'GET' : g.mode === 'method' ? g.method : 'POST',
    path: ['/graphql'],
    query: [],
    // a multipart upload carries the CSRF header, as the clients that send them do (else 403 before it is read)
    headers: [...(g.accept !== null ? [header('accept', g.accept)] : []), ...(g.mode === 'multipart' ? [header('x-graphql-csrf', '1')] : [])],
    auth: g.auth,
    body: { kind: 'none' },
    remoteAddress: g.remoteAddress,
    // a subscription may answer with a stream that stays open: that is correct, not a hang
    mayStream: root === 'subscription' || (root === null && /subscription/.test(g.op.query)),
    routeAuth: 'optional',
    gql: { body: g.op, mode: g.mode, method: g.method, ...(g.mode === 'multipart' ? { file: g.file } : {}) },
  } as AbstractRequest));
}

/** A GraphQL multipart request (operations, map, file parts), well formed or not as the plan says. */
function multipartBody(plan: GqlPlan, operations: string): BodySpec {
  const f = plan.file ?? { size: 3, filename: 'a.txt', contentType: 'text/plain', map: 'ok' };
  const names = plan.body.files?.length ? plan.body.files : ['file'];
  const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
  const part = (headers: string, content: Buffer | string) => Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
  const map = f.map === 'bad-path' ? { 0: ['variables.nope.deeper'] } : f.map === 'two-files' ? { 0: [`variables.${names[0]}`], 1: [`variables.${names[0]}`] } : { 0: [`variables.${names[0]}`] };
  const parts = [part('Content-Disposition: form-data; name="operations"', operations)];
  if (f.map !== 'no-map') parts.push(part('Content-Disposition: form-data; name="map"', f.map === 'not-json' ? '{"0":' : JSON.stringify(map)));
  const filename = f.filename.replace(/["\r\n]/g, '_');
  if (f.map !== 'missing-part') parts.push(part(`Content-Disposition: form-data; name="0"; filename="${filename}"${f.contentType ? `\r\nContent-Type: ${f.contentType}` : ''}`, Buffer.alloc(f.size, 97)));
  if (f.map === 'two-files') parts.push(part('Content-Disposition: form-data; name="1"; filename="b.txt"', 'second'));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { kind: 'bytes', bytes: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The query string and body of a planned operation. */
export function renderGql(plan: GqlPlan, r: Resolver): { query: Array<[string, Value]>; body: BodySpec } {
  const { query, variables } = resolveLiterals(plan.body, r);
  const op: Record<string, Value> = { query, ...(variables ? { variables } : {}), ...(plan.body.operationName !== undefined ? { operationName: plan.body.operationName } : {}) };
  const json = (v: Value, contentType: string | null = 'application/json'): BodySpec => ({ kind: 'json', value: v, contentType, encoding: 'utf8' });
  switch (plan.mode) {
    case 'get': return { query: Object.entries(op), body: { kind: 'none' } };
    case 'batch': return { query: [], body: json([op, op]) };
    case 'graphql-type': return { query: [], body: { kind: 'text', text: query, contentType: 'application/graphql' } };
    case 'variables-string': return { query: [], body: json({ ...op, variables: toJsonText(variables ?? {}, r) }) };
    case 'form': return { query: [], body: { kind: 'form', value: op, contentType: 'application/x-www-form-urlencoded' } };
    case 'no-content-type': return { query: [], body: json(op, null) };
    case 'multipart': return { query: [], body: multipartBody(plan, toJsonText(op, r)) };
    default: return { query: [], body: json(op) };
  }
}

/** Requests for one root field: mostly anything goes, one in four well formed (a valid token, typed arguments). */
export function gqlFieldArb(root: GqlRoot, spec: FuzzSpec): fc.Arbitrary<AbstractRequest> {
  return fc.oneof({ weight: 3, arbitrary: gqlFieldVariant(root, spec, false) }, { weight: 1, arbitrary: gqlFieldVariant(root, spec, true) });
}

function gqlFieldVariant(root: GqlRoot, spec: FuzzSpec, clean: boolean): fc.Arbitrary<AbstractRequest> {
  const model = modelOfField(root.name, spec);
  const ctx: Ctx = { spec, model, clean };
  const args = root.field.args.map((a) => fc.record({
    name: fc.constant(a.name),
    type: fc.oneof({ weight: 8, arbitrary: fc.constant(String(a.type)) }, { weight: clean ? 0 : 1, arbitrary: fc.constantFrom('String', 'Int!', '[ID!]', 'JSON', 'Boolean', String(getNamedType(a.type))) }),
    mode: fc.oneof({ weight: isNonNullType(a.type) ? 0 : 3, arbitrary: fc.constant('omit' as const) }, { weight: 4, arbitrary: fc.constant('literal' as const) }, { weight: 3, arbitrary: fc.constant('variable' as const) }, { weight: isNonNullType(a.type) ? 1 : 0, arbitrary: fc.constant('omit' as const) }),
    value: inputArb(a.type, a.name, ctx, a.name === 'id' ? model : null, 3),
  }));
  const op = fc.record({
    args: fc.tuple(...args),
    selection: selectionArb(root.field.type, 1),
    alias: fc.option(fc.constantFrom('a', 'x1', '_'), { freq: 5 }),
    extraArg: clean ? fc.constant(null) : fc.option(fc.tuple(fc.constantFrom('where', 'limit', 'id', 'bogus', 'input'), fc.constant('1')), { freq: 12 }),
    named: fc.boolean(),
  });
  const keyword = root.root;
  const fileArgs = root.field.args.filter((a) => getNamedType(a.type).name === 'File').map((a) => a.name);
  return transportArb(op.map((o) => ({ o })).map(({ o }) => {
    const defs: string[] = [];
    const vars: Record<string, Value> = {};
    const inline: string[] = [];
    const files: string[] = [];
    o.args.forEach((a) => {
      if (fileArgs.includes(a.name) && a.mode !== 'omit') {
        // a file travels as a multipart part; the variable is null in `operations`
        defs.push(`$${a.name}: ${a.type}`);
        vars[a.name] = null;
        inline.push(`${a.name}: $${a.name}`);
        files.push(a.name);
        return;
      }
      if (a.mode === 'omit') return;
      if (a.mode === 'variable') {
        defs.push(`$${a.name}: ${a.type}`);
        vars[a.name] = a.value;
        inline.push(`${a.name}: $${a.name}`);
      } else {
        inline.push(`${a.name}: ${LITERAL_MARK}${JSON.stringify(a.name)}`);
        vars[`${LITERAL_MARK}${a.name}`] = a.value;
      }
    });
    if (o.extraArg) inline.push(`${o.extraArg[0]}: ${o.extraArg[1]}`);
    const call = `${o.alias ? `${o.alias}: ` : ''}${root.name}${inline.length ? `(${inline.join(', ')})` : ''} ${o.selection}`;
    const query = `${keyword}${o.named ? ' Fz' : ''}${defs.length ? `(${defs.join(', ')})` : ''} { ${call} }`;
    return { query, variables: vars, ...(o.named ? { operationName: 'Fz' } : {}), ...(files.length ? { files } : {}) };
  }), root.id, root.root, clean);
}

/** Inline literals are resolved (ids) when the request is built: the query holds a mark, the value waits in `variables`. */
export const LITERAL_MARK = '§lit:';

/** Enum values are `Raw` names in literals; in variables they are strings. */
function asVariable(v: Value): Value {
  if (v instanceof Raw && /^[_A-Za-z][_0-9A-Za-z]*$/.test(v.text)) return v.text;
  if (Array.isArray(v)) return v.map(asVariable);
  if (v && typeof v === 'object' && !(v instanceof Raw) && !(v instanceof IdRef) && !(v instanceof Joined)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asVariable(x)]));
  return v;
}

/** Replaces the literal marks of a generated body with printed literals; drops them from the variables. */
export function resolveLiterals(body: GqlBody, r: Resolver): { query: string; variables?: Record<string, Value> } {
  const vars: Record<string, Value> = { ...(body.variables ?? {}) };
  const query = body.query.replace(new RegExp(`${LITERAL_MARK}("(?:[^"\\\\]|\\\\.)*")`, 'g'), (_m, name: string) => {
    const key = `${LITERAL_MARK}${JSON.parse(name)}`;
    const v = vars[key];
    delete vars[key];
    return printLiteral(v ?? null, r);
  });
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(vars)) out[k] = asVariable(v);
  return { query, ...(body.variables && Object.keys(out).length ? { variables: out } : {}) };
}

/** Documents no client should send. */
export function oddGqlArb(spec: FuzzSpec, schema: GraphQLSchema): fc.Arbitrary<AbstractRequest> {
  const lists = spec.gqlRoots.filter((r) => r.root === 'query' && r.field.args.some((a) => a.name === 'limit')).map((r) => r.name);
  const list = fc.constantFrom(...(lists.length ? lists : ['resCountries']));
  const mutationNames = Object.keys(schema.getMutationType()?.getFields() ?? {});
  const doc: fc.Arbitrary<GqlBody> = fc.oneof(
    nastyString.map((query) => ({ query })),
    fc.constantFrom('{', '}', 'query', '{ }', 'query {}', '{ __typename', '{ __typename } }', 'fragment F on Query { __typename }', '#', '"""', '{ a: __typename a: __schema { queryType { name } } }',
      'query A { __typename } query B { __typename }', 'query A { __typename }', '{ __type(name: "") { name } }', '{ __type(name: "\\u0000") { name } }',
      '{ __schema { types { name fields(includeDeprecated: true) { name args { name type { name ofType { name ofType { name ofType { name } } } } } } } } }',
      '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }', '{ ...A } fragment A on Query { ...A }',
      '{ __typename @skip(if: $nope) }', '{ __typename @include(if: "yes") }', '{ __typename @bogus }', 'query ($a: Int = "x") { __typename }',
      'subscription { __typename }', 'subscription A { clientReload } subscription B { clientReload }', 'mutation { __typename }', `mutation { ${mutationNames[0] ?? 'command'} }`,
      '{ me { id } }', 'query { resCountries(limit: 10, limit: 20) { id } }', 'query { resCountries(limit: 1.5) { id } }', 'query { resCountries(limit: "1") { id } }',
      'query { resCountries(where: { AND: [{ AND: [{ AND: [{ AND: [] }] }] }] }) { id } }', 'query { resCountries(orderBy: [{ name: asc }, { name: desc }]) { id } }',
      'query { resCountriesConnection(first: 1, after: "not-a-cursor") { edges { node { id } } } }', 'query { resCountriesConnection(first: -1) { edges { cursor } } }',
      'query { resCountriesConnection(first: 2, after: "eyJvZmZzZXQiOi0xfQ==") { edges { cursor } } }', 'query { resCountriesConnection(after: "\\u0000") { edges { cursor } } }').map((query) => ({ query })),
    fc.integer({ min: 8, max: 200 }).map((n) => ({ query: `{ ${'resOrganizations { users { organization { '.repeat(Math.ceil(n / 3))}id${' } } }'.repeat(Math.ceil(n / 3))} }` })),
    fc.integer({ min: 50, max: 5000 }).map((n) => ({ query: `{ ${'__typename '.repeat(n)}}` })),
    fc.tuple(list, fc.integer({ min: 2, max: 1200 }), fc.integer({ min: 1, max: 500 })).map(([f, n, limit]) => ({ query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${f}(limit: ${limit}) { id }`).join(' ')} }` })),
    fc.integer({ min: 100, max: 20_000 }).map((n) => ({ query: `{ __typename(${'a: '.repeat(1)}${'['.repeat(n)}${']'.repeat(n)}) }` })),
    fc.integer({ min: 100, max: 20_000 }).map((n) => ({ query: `query { resCountries(where: ${'{ AND: ['.repeat(n / 10)}{}${'] }'.repeat(n / 10)}) { id } }` })),
    fc.record({ query: fc.constantFrom('query($w: ResCountryWhere) { resCountries(where: $w) { id } }', 'query($l: Int) { resCountries(limit: $l) { id } }', 'query($x: JSON) { __typename }'), variables: fc.dictionary(fc.constantFrom('w', 'l', 'x', '__proto__'), hostileValue, { maxKeys: 2 }) }),
    fc.record({ query: fc.constant('{ __typename }'), variables: hostileValue as fc.Arbitrary<Record<string, Value>>, operationName: fc.oneof(nastyString, fc.constant(null) as fc.Arbitrary<unknown> as fc.Arbitrary<string>) }),
  );
  return transportArb(doc, 'gql odd document', null);
}
