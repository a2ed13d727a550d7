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
import { buildClientSchema, getIntrospectionQuery, isNonNullType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, readSseBlocks, sleep, wsClient, wsSubscribe } from '../helpers/api.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestServer, type Provider, type Res, type TestServer } from '../helpers/server.ts';
import { argValue, countAll, graphqlProbes, LeakLog, restProbes, selection } from './matrix.ts';

const PROVIDERS: Provider[] = ['sqlite', 'postgresql'];
const MODULES = 'base,auth,presentation,connectors,storage';

describe.each(PROVIDERS)('tenant isolation matrix on %s', (provider) => {
  let t: TestServer;
  const A = `ta-${crypto.randomBytes(3).toString('hex')}`;
  const B = `tb-${crypto.randomBytes(3).toString('hex')}`;
  const MARK = `MARKB${crypto.randomBytes(6).toString('hex')}`;
  let tokenA = '';
  let tokenB = '';
  /** model key → ids that exist in B only */
  const bIds = new Map<string, string[]>();
  let bCounts: Record<string, number> = {};
  const log = new LeakLog([MARK]);
  const { needles: leakNeedles, leaks } = log;
  const check = log.check.bind(log);

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
  const leaked = (text: string): string | undefined => log.hit(text);

  /** A's request; a 401 (A's session ended by a logout or revoke command in the matrix) logs A in again and retries. */
  async function asA(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Res> {
    let res = await t.request(method, url, { token: tokenA, body, headers });
    if (res.status === 401) {
      tokenA = (await t.login(ADMIN_EMAIL, ADMIN_PASSWORD, A)).access_token;
      res = await t.request(method, url, { token: tokenA, body, headers });
    }
    return res;
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
    bCounts = await countAll(t, tokenB);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('REST: every route × every model × B\'s ids, with A\'s token, leaks nothing of B', async () => {
    await t.server.ready();
    const views = (await asA('GET', '/api/presentation/views')).body as Array<{ id?: string; view_id?: string; xml_id?: string }> | undefined;
    const viewIds = Array.isArray(views) ? views.map((v) => v.id ?? v.view_id ?? v.xml_id).filter(Boolean) as string[] : ['x'];
    const types = (await asA('GET', '/api/connectors/types')).body as Array<{ provider_type: string }>;
    const probes = restProbes(t, {
      viewIds, providerTypes: types.map((x) => x.provider_type), idOf,
      // an OAuth state and a refresh token naming B
      query: (id) => `&state=${encodeURIComponent(`${id}:${B}.x`)}&code=x`,
      body: () => ({ refresh_token: `${B}.x` }),
    });
    expect(probes.length).toBeGreaterThan(20);
    let control = 0;
    for (const p of probes) {
      check(p.label, await asA(p.method, p.url, p.body));
      if (p.read) {
        // the control: the same read with B's own token does find B's data (the matrix has teeth)
        const own = await t.request('GET', p.url, { token: tokenB });
        if (own.status === 200 && leaked(JSON.stringify(own.body))) control++;
      }
    }
    console.log(`[durability] ${provider}: REST matrix ${probes.length} requests, ${t.kernel.registry.models.size} models, ${t.kernel.registry.commands.size} commands; control: ${control} of the reads find B's data with B's token`);
    expect(control).toBeGreaterThan(t.kernel.registry.models.size);
    expect(leaks).toEqual([]);
  }, 600_000);

  it('GraphQL: every query and mutation with B\'s ids leaks nothing of B', async () => {
    const intro = await asA('POST', '/graphql', { query: getIntrospectionQuery() });
    expect(intro.status).toBe(200);
    let control = 0;
    const probes = graphqlProbes(t, buildClientSchema(intro.body.data), idOf);
    for (const { kind, query } of probes) {
      const res = await asA('POST', '/graphql', { query });
      check(`graphql ${query}`, res, JSON.stringify(res.body?.data ?? null));
      if (kind === 'query') {
        const own = await t.request('POST', '/graphql', { token: tokenB, body: { query } });
        if (leaked(JSON.stringify(own.body?.data ?? null))) control++;
      }
    }
    console.log(`[durability] ${provider}: GraphQL matrix ${probes.length} operations; control: ${control} queries find B's data with B's token`);
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
      log.cases++;
      const hit = leaked(JSON.stringify(s.inbox.items));
      if (hit) leaks.push(`subscription ${s.name} received ${hit}`);
      s.stop();
    }
    for (const [i, text] of sseTexts.entries()) {
      log.cases++;
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
    const after = await countAll(t, tokenB);
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
    console.log(`[durability] ${provider}: tenant isolation matrix size ${log.cases} cases, ${leakNeedles.length} B needles, ${leaks.length} leaks`);
    expect(leaks).toEqual([]);
  });
});
