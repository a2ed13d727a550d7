/**
 * What the isolation matrices share (tests/durability/tenant-matrix.test.ts across tenants,
 * organization-matrix.test.ts across organizations of one tenant): every REST route of the built
 * server expanded over models, commands and views with the other side's ids, and every GraphQL
 * root field called with them. A leak is a 2xx answer containing one of the other side's ids or
 * markers; the callers count cases and collect leaks.
 */
import crypto from 'node:crypto';
import {
  getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLField, type GraphQLInputType, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import { modelNames } from '../../src/kernel/registry/names.ts';
import type { Res, TestServer } from '../helpers/server.ts';

interface Route { method: string; url: string }

/** Every route of a built Fastify server, from its route tree (`printRoutes({ commonPrefix: false })`). */
export function routesOf(tree: string): Route[] {
  const out: Route[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─ ]*)(\S.*?) \(([A-Z, ]+)\)\s*$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4 - 1; // the root line is `└── / (…)`
    const parent = depth === 0 ? '' : stack[depth - 1];
    const seg = m[2];
    const full = depth === 0 ? seg : parent.endsWith('/') || seg.startsWith('/') ? parent + seg : `${parent}/${seg}`;
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of m[3].split(',').map((s) => s.trim())) out.push({ method, url: full });
  }
  return out;
}

/** One probe of the REST matrix. */
export interface RestProbe { method: string; url: string; body: unknown; label: string; read: boolean }

/**
 * Every route × method of the server, `:model` as every model, `:id` as the other side's id of
 * that model (`idOf`), `:command` every command of the model, `:name` every command, `:view_id`
 * every view; list reads get a filter on the id, writes a body naming it. `query` and `body` add
 * what the caller's matrix needs (a foreign refresh token, an OAuth state). Streams are left out.
 */
export function restProbes(t: TestServer, o: {
  viewIds: string[]; providerTypes: string[]; idOf: (model: string) => string;
  query?: (id: string) => string; body?: (id: string, model: string | undefined) => Record<string, unknown>;
}): RestProbe[] {
  const routes = routesOf(t.server.printRoutes({ commonPrefix: false }))
    .filter((r) => !['HEAD', 'OPTIONS'].includes(r.method) && r.url !== '*' && r.url !== '/*');
  const models = [...t.kernel.registry.models.values()];
  const commands = [...t.kernel.registry.commands.keys()];
  const out: RestProbe[] = [];
  for (const r of routes) {
    // logout ends the caller's own session only; the event stream is checked by the matrices' stream case
    if (r.url === '/api/auth/logout' || r.url === '/api/presentation/events') continue;
    const params = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
    let variants: Array<Record<string, string>> = [{}];
    for (const p of params) {
      const next: Array<Record<string, string>> = [];
      for (const v of variants) {
        const model = v.model ?? routeModel(r.url);
        let values: string[];
        switch (p) {
          case 'model': values = models.map((m) => m.key); break;
          case 'id': values = [model ? o.idOf(model) : crypto.randomUUID()]; break;
          case 'command': values = commands.filter((c) => model && c.startsWith(`${model}.`)).map((c) => c.slice(model!.length + 1)); break;
          case 'name': values = commands; break;
          case 'n': values = ['1', '2']; break;
          case 'view_id': values = o.viewIds; break;
          case 'provider_type': values = o.providerTypes; break;
          default: values = ['x'];
        }
        for (const val of values) next.push({ ...v, [p]: val });
      }
      variants = next;
    }
    for (const v of variants) {
      const model = v.model ?? routeModel(r.url) ?? (v.name ? t.kernel.registry.commands.get(v.name)?.model : undefined);
      const id = model ? o.idOf(model) : crypto.randomUUID();
      let url = r.url.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(v[p]));
      const read = r.method === 'GET';
      if (read && !params.includes('id')) {
        url += `?filter=${encodeURIComponent(JSON.stringify([['id', '=', id]]))}&version_number=1${o.query?.(id) ?? ''}`;
      }
      const body = read || r.method === 'DELETE' ? undefined
        : { id, model, filter: [['id', '=', id]], domain: [['id', '=', id]], groupby: ['record_uuid'], ...o.body?.(id, model) };
      out.push({ method: r.method, url, body, label: `${r.method} ${url}`, read });
    }
  }
  return out;
}

/** The model a route without `:model` serves, for its `:id`. */
function routeModel(url: string): string | undefined {
  if (url.startsWith('/api/connectors')) return 'ir.connector';
  if (url.startsWith('/api/storage')) return 'storage.document';
  const res = /^\/api\/res\/(\w+)/.exec(url);
  return res ? `res.${res[1]}` : undefined;
}

/** Every Query and Mutation root field (but logout) as a document: ids as `idOf` of the field's model, every scalar selected 3 levels deep. */
export function graphqlProbes(t: TestServer, schema: GraphQLSchema, idOf: (model: string) => string): Array<{ kind: 'query' | 'mutation'; query: string }> {
  const models = [...t.kernel.registry.models.keys()].map((k) => ({ key: k, n: modelNames(k) }))
    .sort((a, b) => b.n.one.length - a.n.one.length);
  const modelOfField = (name: string) => models.find((m) => name.startsWith(m.n.one))?.key;
  const out: Array<{ kind: 'query' | 'mutation'; query: string }> = [];
  for (const [kind, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      if (field.name === 'logout') continue;
      out.push({ kind, query: `${kind} { ${fieldCall(schema, field, idOf(modelOfField(field.name) ?? ''))} }` });
    }
  }
  return out;
}

/** `name(args) { selection }` of a root field, with `id` for its id arguments. */
export function fieldCall(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>, id: string): string {
  const args = field.args.map((a) => {
    const v = argValue(schema, a.name, a.type, id, isNonNullType(a.type));
    return v === undefined ? null : `${a.name}: ${v}`;
  }).filter(Boolean);
  const sel = selection(field.type, 3);
  return `${field.name}${args.length ? `(${args.join(', ')})` : ''}${sel ? ` ${sel}` : ''}`;
}

/** A GraphQL literal for an argument: B's id for ids, a where on B's id, required ones by type. */
export function argValue(schema: GraphQLSchema, name: string, type: GraphQLInputType, bId: string, required: boolean, depth = 0): string | undefined {
  const named = getNamedType(type);
  // B's id where the operation looks a record up; other ids get a fresh UUID, so that a create in A
  // never stores B's id as a value (A's own data would then contain it: a false leak)
  const idArg = name === 'id' || name === 'ids';
  if (idArg || named.name === 'ID') {
    const v = idArg ? bId : crypto.randomUUID();
    return isListType(isNonNullType(type) ? type.ofType : type) ? `["${v}"]` : `"${v}"`;
  }
  if (name === 'where' && isInputObjectType(named) && named.getFields().id) return `{ id: { eq: "${bId}" } }`;
  if (!required || depth > 3) return undefined;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return '[]';
  if (isScalarType(named)) {
    if (named.name === 'Int' || named.name === 'Float') return '1';
    if (named.name === 'Boolean') return 'false';
    if (named.name === 'JSON') return '{}';
    return '"probe"';
  }
  if (isEnumType(named)) return named.getValues()[0]?.name;
  if (isInputObjectType(named)) {
    const parts = Object.values(named.getFields()).map((f) => {
      const v = argValue(schema, f.name, f.type, bId, isNonNullType(f.type), depth + 1);
      return v === undefined ? null : `${f.name}: ${v}`;
    }).filter(Boolean);
    return `{ ${parts.join(', ')} }`;
  }
  return undefined;
}

/** Every argument-free scalar of an output type, objects followed `depth` levels. */
export function selection(type: GraphQLOutputType, depth: number): string {
  const named = getNamedType(type);
  if (!isObjectType(named)) return '';
  const parts: string[] = ['__typename'];
  for (const f of Object.values((named as GraphQLObjectType).getFields()) as Array<GraphQLField<unknown, unknown>>) {
    if (f.args.some((a) => isNonNullType(a.type))) continue;
    const n = getNamedType(f.type);
    if (isScalarType(n) || isEnumType(n)) parts.push(f.name);
    else if (depth > 0 && isObjectType(n)) {
      const s = selection(f.type, depth - 1);
      if (s) parts.push(`${f.name} ${s}`);
    }
  }
  return `{ ${parts.join(' ')} }`;
}

/** The count of every model a token may count (`GET /api/data/<model>/count`): the survivors check. */
export async function countAll(t: TestServer, token: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of t.kernel.registry.models.values()) {
    const r = await t.request('GET', `/api/data/${m.key}/count`, { token });
    if (r.status === 200) out[m.key] = r.body.count;
  }
  return out;
}

/** The other side's needles (ids, markers), the cases checked and the leaks found. */
export class LeakLog {
  readonly needles: string[];
  readonly leaks: string[] = [];
  cases = 0;
  constructor(needles: string[]) { this.needles = needles; }
  /** The first needle `text` contains. */
  hit(text: string): string | undefined { return this.needles.find((n) => text.includes(n)); }
  /** One case: a 2xx answer containing a needle is a leak. */
  check(label: string, res: Res, text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body)): void {
    this.cases++;
    if (res.status < 200 || res.status >= 300) return;
    const hit = this.hit(text ?? '');
    if (hit) this.leaks.push(`${label} → ${res.status} contains ${hit}: ${text.slice(0, 300)}`);
  }
}
