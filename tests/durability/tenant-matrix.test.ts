/**
 * Durability §3 (issue 17): the tenant isolation matrix, on SQLite and PostgreSQL.
 *
 * Two tenants, A and B, on one server. B is filled with records whose names carry a marker
 * string (organization, user, lead, folder, storage document with versions, connector), and the
 * ids of every record of every model that exist only in B are collected. Then every entry point
 * is called with an admin token of A (the strongest principal A has) aimed at B's ids and data:
 *
 * - REST: the route list is read from the built Fastify server (`printRoutes`), so a new route is
 *   in the matrix without editing this file. `:model` becomes every registry model, `:id` a
 *   B-only id (of that model, or of the model the route serves), `:command` every command of the
 *   model, `:name` every registered command, `:n` version 1, `:view_id` every view, other
 *   params a plausible value; list routes get a filter on B's id.
 * - GraphQL: generated from introspection: every Query and Mutation field, with B's id for `id`
 *   arguments, a `where` on B's id, required arguments filled by type, every scalar of the result
 *   selected (3 levels deep).
 * - Subscriptions: every Subscription field, subscribed over graphql-ws as A while B's records
 *   change: A receives nothing of B.
 * - SSE: A's `/api/presentation/events` stream (also with B's Last-Event-ID) while B emits a
 *   reload event: nothing of B.
 *
 * A leak is a 2xx answer (for GraphQL: its `data`) containing one of B's ids or markers. At the
 * end B's records are all still there (A's deletes did not reach them).
 */
import crypto from 'node:crypto';
import {
  buildClientSchema, getIntrospectionQuery, getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType,
  isObjectType, isScalarType, type GraphQLField, type GraphQLInputType, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelNames } from '../../src/kernel/registry/names.ts';
import { listen, readSseBlocks, sleep, wsClient, wsSubscribe } from '../helpers/api.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer, type Provider, type Res, type TestServer } from '../helpers/server.ts';

const PROVIDERS: Provider[] = ['sqlite', 'postgresql'];
const MODULES = 'base,auth,presentation,connectors,storage';

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

describe.each(PROVIDERS)('tenant isolation matrix on %s', (provider) => {
  let t: TestServer;
  const A = `ta-${crypto.randomBytes(3).toString('hex')}`;
  const B = `tb-${crypto.randomBytes(3).toString('hex')}`;
  const MARK = `MARKB${crypto.randomBytes(6).toString('hex')}`;
  let tokenA = '';
  let tokenB = '';
  /** model key → ids that exist in B only */
  const bIds = new Map<string, string[]>();
  const leakNeedles: string[] = [MARK];
  let bCounts: Record<string, number> = {};
  const leaks: string[] = [];
  let cases = 0;

  const countAll = async (token: string): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const m of t.kernel.registry.models.values()) {
      const r = await t.request('GET', `/api/data/${m.key}/count`, { token });
      if (r.status === 200) out[m.key] = r.body.count;
    }
    return out;
  };
  const idsOf = async (token: string, model: string): Promise<string[]> => {
    const out: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const r = await t.request('GET', `/api/data/${model}?limit=100&offset=${offset}`, { token });
      if (r.status !== 200) return out;
      out.push(...(r.body.items as Array<{ id: string }>).map((x) => x.id));
      if (r.body.items.length < 100) return out;
    }
  };
  const idOf = (model: string): string => bIds.get(model)?.[0] ?? crypto.randomUUID();
  const leaked = (text: string): string | undefined => leakNeedles.find((n) => text.includes(n));

  /** A's request; a 401 (A's session ended by a logout or revoke command in the matrix) logs A in again and retries. */
  async function asA(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Res> {
    let res = await t.request(method, url, { token: tokenA, body, headers });
    if (res.status === 401) {
      tokenA = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, A)).access_token;
      res = await t.request(method, url, { token: tokenA, body, headers });
    }
    return res;
  }
  function check(label: string, res: Res, text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body)): void {
    cases++;
    if (res.status >= 200 && res.status < 300) {
      const hit = leaked(text ?? '');
      if (hit) leaks.push(`${label} → ${res.status} contains ${hit}: ${text.slice(0, 300)}`);
    }
  }

  beforeAll(async () => {
    t = await startTestServer({ ACTIVE_MODULES: MODULES, ACTIVE_DOMAINS: 'crm', PG_POOL_MAX: '10' }, { provider });
    await t.provisionTenant(A);
    await t.provisionTenant(B);
    tokenA = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, A)).access_token;
    tokenB = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, B)).access_token;

    // B's data, every one with the marker
    const org = await t.createOrg(tokenB, `${MARK} organization`);
    await t.request('PATCH', `/api/data/res.organization/${org}`, { token: tokenB, body: { code: `${MARK.toLowerCase()}-org` } });
    await t.createUser(tokenB, { email: `${MARK.toLowerCase()}@b.example.com`, name: `${MARK} user`, password: 'user-pass-1', organization: org });
    const lead = await t.request('POST', '/api/data/crm.lead', { token: tokenB, body: { name: `${MARK} lead`, organization: org } });
    expect(lead.status, JSON.stringify(lead.body)).toBe(201);
    const folder = await t.request('POST', '/api/data/storage.folder', { token: tokenB, body: { name: `${MARK} folder` } });
    expect(folder.status, JSON.stringify(folder.body)).toBe(201);
    const doc = await t.request('POST', '/api/storage/documents', {
      token: tokenB, body: { filename: `${MARK}.txt`, name: `${MARK} document`, content_b64: Buffer.from(`${MARK} content v1`).toString('base64'), content_type: 'text/plain' },
    });
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    const v2 = await t.request('POST', `/api/storage/documents/${doc.body.id}/versions`, {
      token: tokenB, body: { filename: `${MARK}-2.txt`, content_b64: Buffer.from(`${MARK} content v2`).toString('base64'), change_note: `${MARK} note` },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    const conn = await t.request('POST', '/api/connectors', { token: tokenB, body: { name: `${MARK} connector`, category: 'messaging', provider_type: 'webhook' } });
    expect(conn.status, JSON.stringify(conn.body)).toBe(201);
    // the outbox of B (field_changed → reload) is delivered, so B has ir.event rows too
    await t.kernel.worker.drain(B);

    // ids that exist only in B, per model; the markers' records first
    const firsts: Record<string, string> = {
      'res.organization': org, 'crm.lead': lead.body.id, 'storage.folder': folder.body.id,
      'storage.document': doc.body.id, 'ir.connector': conn.body.id,
    };
    for (const m of t.kernel.registry.models.values()) {
      const inA = new Set(await idsOf(tokenA, m.key));
      const only = (await idsOf(tokenB, m.key)).filter((id) => !inA.has(id));
      if (firsts[m.key]) only.sort((x) => (x === firsts[m.key] ? -1 : 1));
      bIds.set(m.key, only);
      leakNeedles.push(...only);
    }
    bCounts = await countAll(tokenB);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('REST: every route × every model × B\'s ids, with A\'s token, leaks nothing of B', async () => {
    await t.server.ready();
    const routes = routesOf(t.server.printRoutes({ commonPrefix: false }))
      .filter((r) => !['HEAD', 'OPTIONS'].includes(r.method) && r.url !== '*' && r.url !== '/*');
    expect(routes.length).toBeGreaterThan(20);
    const models = [...t.kernel.registry.models.values()];
    const commands = [...t.kernel.registry.commands.keys()];
    const views = (await asA('GET', '/api/presentation/views')).body as Array<{ id?: string; view_id?: string; xml_id?: string }> | undefined;
    const viewIds = Array.isArray(views) ? views.map((v) => v.id ?? v.view_id ?? v.xml_id).filter(Boolean) as string[] : ['x'];
    const types = (await asA('GET', '/api/connectors/types')).body as Array<{ provider_type: string }>;

    /** the model a route without `:model` serves, for its `:id` */
    const routeModel = (url: string): string | undefined => {
      if (url.startsWith('/api/connectors')) return 'ir.connector';
      if (url.startsWith('/api/storage')) return 'storage.document';
      const res = /^\/api\/res\/(\w+)/.exec(url);
      if (res) return `res.${res[1]}`;
      return undefined;
    };
    let size = 0;
    let control = 0;
    for (const r of routes) {
      if (r.url === '/api/auth/logout') continue; // ends A's own session only; covered by asA's re-login anyway
      const expand: Array<Record<string, string>> = [{}];
      const params = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
      let variants: Array<Record<string, string>> = expand;
      for (const p of params) {
        const next: Array<Record<string, string>> = [];
        for (const v of variants) {
          const model = v.model ?? routeModel(r.url);
          let values: string[];
          switch (p) {
            case 'model': values = models.map((m) => m.key); break;
            case 'id': values = [model ? idOf(model) : crypto.randomUUID()]; break;
            case 'command': values = commands.filter((c) => model && c.startsWith(`${model}.`)).map((c) => c.slice(model!.length + 1)); break;
            case 'name': values = commands; break;
            case 'n': values = ['1', '2']; break;
            case 'view_id': values = viewIds; break;
            case 'provider_type': values = types.map((x) => x.provider_type); break;
            default: values = ['x'];
          }
          for (const val of values) next.push({ ...v, [p]: val });
        }
        variants = next;
      }
      for (const v of variants) {
        const model = v.model ?? routeModel(r.url) ?? (v.name && t.kernel.registry.commands.get(v.name)?.model);
        const bId = model ? idOf(model as string) : crypto.randomUUID();
        let url = r.url.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(v[p]));
        if (r.method === 'GET' && !params.includes('id')) {
          const filter = encodeURIComponent(JSON.stringify([['id', '=', bId]]));
          url += `?filter=${filter}&version_number=1&state=${encodeURIComponent(`${bId}:${B}.x`)}&code=x`;
        }
        const body = r.method === 'GET' || r.method === 'DELETE' ? undefined
          : { id: bId, model, filter: [['id', '=', bId]], domain: [['id', '=', bId]], groupby: ['record_uuid'], refresh_token: `${B}.x` };
        const label = `${r.method} ${url}`;
        if (r.url === '/api/presentation/events') continue; // a stream: checked below
        check(label, await asA(r.method, url, body));
        size++;
        if (r.method === 'GET') {
          // the control: the same read with B's own token does find B's data (the matrix has teeth)
          const own = await t.request('GET', url, { token: tokenB });
          if (own.status === 200 && leaked(JSON.stringify(own.body))) control++;
        }
      }
    }
    console.log(`[durability] ${provider}: REST matrix ${size} requests over ${routes.length} route×method entries, ${models.length} models, ${commands.length} commands; control: ${control} of the reads find B's data with B's token`);
    expect(control).toBeGreaterThan(models.length);
    expect(leaks).toEqual([]);
  }, 600_000);

  it('GraphQL: every query and mutation with B\'s ids leaks nothing of B', async () => {
    const intro = await asA('POST', '/graphql', { query: getIntrospectionQuery() });
    expect(intro.status).toBe(200);
    const schema = buildClientSchema(intro.body.data);
    const models = [...t.kernel.registry.models.keys()].map((k) => ({ key: k, n: modelNames(k) }))
      .sort((a, b) => b.n.one.length - a.n.one.length);
    const modelOfField = (name: string) => models.find((m) => name.startsWith(m.n.one))?.key;
    let size = 0;
    let control = 0;
    for (const [kind, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
      if (!root) continue;
      for (const field of Object.values(root.getFields())) {
        if (field.name === 'logout') continue;
        const bId = idOf(modelOfField(field.name) ?? '');
        const args = field.args.map((a) => {
          const v = argValue(schema, a.name, a.type, bId, isNonNullType(a.type));
          return v === undefined ? null : `${a.name}: ${v}`;
        }).filter(Boolean);
        const sel = selection(field.type, 3);
        const q = `${kind} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${sel ? ` ${sel}` : ''} }`;
        const res = await asA('POST', '/graphql', { query: q });
        check(`graphql ${q}`, res, JSON.stringify(res.body?.data ?? null));
        size++;
        if (kind === 'query') {
          const own = await t.request('POST', '/graphql', { token: tokenB, body: { query: q } });
          if (leaked(JSON.stringify(own.body?.data ?? null))) control++;
        }
      }
    }
    console.log(`[durability] ${provider}: GraphQL matrix ${size} operations; control: ${control} queries find B's data with B's token`);
    expect(control).toBeGreaterThan(10);
    expect(leaks).toEqual([]);
  }, 300_000);

  it('subscriptions and the SSE stream: A hears nothing while B\'s records change', async () => {
    const base = await listen(t);
    const intro = await asA('POST', '/graphql', { query: getIntrospectionQuery() });
    const schema = buildClientSchema(intro.body.data);
    const sub = schema.getSubscriptionType();
    const client = wsClient(base, tokenA);
    const subs: Array<{ name: string; inbox: ReturnType<typeof wsSubscribe>['inbox']; stop: () => void }> = [];
    for (const field of Object.values(sub?.getFields() ?? {})) {
      const args = field.args.map((a) => {
        const v = argValue(schema, a.name, a.type, idOf(''), isNonNullType(a.type));
        return v === undefined ? null : `${a.name}: ${v}`;
      }).filter(Boolean);
      const sel = selection(field.type, 3);
      const q = `subscription { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${sel ? ` ${sel}` : ''} }`;
      subs.push({ name: field.name, ...wsSubscribe(client, q) });
    }
    // SSE as A, once fresh and once claiming B's last event id
    const sseTexts: string[] = [];
    const ctrls: AbortController[] = [];
    const bEvent = (await t.request('GET', `/api/data/ir.event?limit=1`, { token: tokenB })).body?.items?.[0]?.id ?? crypto.randomUUID();
    for (const headers of [{}, { 'last-event-id': String(bEvent) }] as Array<Record<string, string>>) {
      const ctrl = new AbortController();
      ctrls.push(ctrl);
      const res = await fetch(`${base}/api/presentation/events?access_token=${tokenA}`, { signal: ctrl.signal, headers });
      expect(res.status).toBe(200);
      const i = sseTexts.push('') - 1;
      void readSseBlocks(res.body!, (b) => { sseTexts[i] += `${b}\n\n`; }).catch(() => {});
    }
    await sleep(500); // the subscriptions are set up (no B change may happen before)

    // B changes: every record with a B id that a plain update can touch, a new lead, a reload event
    await t.request('PATCH', `/api/data/crm.lead/${idOf('crm.lead')}`, { token: tokenB, body: { name: `${MARK} lead changed` } });
    await t.request('POST', '/api/data/crm.lead', { token: tokenB, body: { name: `${MARK} lead 2` } });
    await t.request('PATCH', `/api/data/res.organization/${idOf('res.organization')}`, { token: tokenB, body: { name: `${MARK} org changed`, code: `${MARK.toLowerCase()}-org2` } });
    await t.request('PATCH', `/api/data/storage.folder/${idOf('storage.folder')}`, { token: tokenB, body: { name: `${MARK} folder changed` } });
    await t.kernel.worker.drain(B);
    // the same changes in A must arrive (proves the streams work), then B's are surely processed
    await t.request('PATCH', `/api/data/res.organization/${(await t.request('GET', '/api/data/res.organization?limit=1', { token: tokenA })).body.items[0].id}`, { token: tokenA, body: { code: `a-${crypto.randomBytes(3).toString('hex')}` } });
    await t.kernel.worker.drain(A);
    const orgSub = subs.find((s) => s.name === 'resOrganizationChanged');
    if (orgSub) await orgSub.inbox.waitFor(() => true, 'A\'s own organization change', 10_000);
    await sleep(300);
    for (const s of subs) {
      cases++;
      const hit = leaked(JSON.stringify(s.inbox.items));
      if (hit) leaks.push(`subscription ${s.name} received ${hit}`);
      s.stop();
    }
    for (const [i, text] of sseTexts.entries()) {
      cases++;
      const hit = leaked(text);
      if (hit) leaks.push(`SSE #${i} received ${hit}`);
    }
    for (const c of ctrls) c.abort();
    await client.dispose();
    console.log(`[durability] ${provider}: ${subs.length} subscriptions and ${sseTexts.length} SSE streams`);
    expect(leaks).toEqual([]);
  }, 120_000);

  it('OpenAPI and views contain nothing of B, B\'s records all survived, and the matrix size', async () => {
    for (const url of ['/api/openapi.json', '/api/presentation/views', '/api/presentation/bootstrap', '/api/base/bootstrap']) {
      check(`GET ${url}`, await asA('GET', url));
    }
    const after = await countAll(tokenB);
    for (const [model, n] of Object.entries(bCounts)) {
      if (model === 'ir.event' || model === 'ir.session' || model === 'crm.lead' || model === 'ir.module') continue; // B's own activity adds rows
      expect(after[model], model).toBeGreaterThanOrEqual(n);
    }
    for (const [model, ids] of bIds) {
      const id = ids[0];
      if (!id || model === 'ir.session') continue;
      const r = await t.request('GET', `/api/data/${model}/${id}`, { token: tokenB });
      expect(r.status, `${model} ${id} in B after the matrix`).toBe(200);
    }
    console.log(`[durability] ${provider}: tenant isolation matrix size ${cases} cases, ${leakNeedles.length} B needles, ${leaks.length} leaks`);
    expect(leaks).toEqual([]);
  });
});

/** A GraphQL literal for an argument: B's id for ids, a where on B's id, required ones by type. */
function argValue(schema: GraphQLSchema, name: string, type: GraphQLInputType, bId: string, required: boolean, depth = 0): string | undefined {
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
function selection(type: GraphQLOutputType, depth: number): string {
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
