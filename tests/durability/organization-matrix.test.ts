/**
 * The isolation matrix inside one tenant (issue 25 §4): organizations A, B and C; C is filled by
 * an administrator of C with records whose names carry a marker — a lead with a chatter message,
 * a folder, a document with two versions, a connector with a parameter — and a plain user of C.
 * C's ids are collected per model from what they belong to (the organization, the lead, the
 * document, the connector), as the tenant's admin reads them. Then every REST route and every
 * GraphQL query and mutation (tests/durability/matrix.ts), the subscriptions and the event stream
 * are called by four users' principals aimed at C's ids:
 *
 * - `one`: a user of A only;
 * - `two`: a user of A (default) and B (membership), working in A;
 * - `switched`: the same user working in B (`X-Fw-Organization`);
 * - `grouped`: a user of A with another role (`qa`) and a group given on top (`base.user`), so
 *   what groups add to a principal (the names access compares) opens nothing of C either.
 *
 * A leak is a 2xx answer (GraphQL: its `data`) containing one of C's ids or the marker. The
 * dependants (chatter, versions, connector parameters) are in the needles, so a rule that does not
 * follow its parent shows as a leak. At the end every record of C is still there.
 */
import crypto from 'node:crypto';
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, readSseBlocks, sleep, wsClient, wsSubscribe } from '../helpers/api.ts';
import { startTestServer, type Provider, type Res, type TestServer } from '../helpers/server.ts';
import { countAll, fieldCall, graphqlProbes, LeakLog, restProbes } from './matrix.ts';

const PROVIDERS: Provider[] = ['sqlite', 'postgresql'];
const MODULES = 'base,auth,presentation,connectors,storage';

interface Prober { name: string; email: string; password: string; organization?: string; token: string }

describe.each(PROVIDERS)('organization isolation matrix on %s', (provider) => {
  let t: TestServer;
  const MARK = `MARKC${crypto.randomBytes(6).toString('hex')}`;
  const org = { a: '', b: '', c: '' };
  let codeB = '';
  let tokenC = '';
  let adminC = '';
  let admin = '';
  const cIds = new Map<string, string[]>();
  const log = new LeakLog([MARK]);
  const { needles, leaks } = log;
  const check = log.check.bind(log);
  let cCounts: Record<string, number> = {};
  const probers: Prober[] = [];

  const idOf = (model: string): string => cIds.get(model)?.[0] ?? crypto.randomUUID();
  const leaked = (text: string): string | undefined => log.hit(text);
  const headersOf = (p: Prober) => (p.organization ? { 'x-fw-organization': p.organization } : undefined);

  /** The prober's request; a 401 (its session ended by a revoke command of the matrix) logs it in again. */
  async function as(p: Prober, method: string, url: string, body?: unknown): Promise<Res> {
    let res = await t.request(method, url, { token: p.token, body, headers: headersOf(p) });
    if (res.status === 401) {
      p.token = (await t.login(p.email, p.password)).access_token;
      res = await t.request(method, url, { token: p.token, body, headers: headersOf(p) });
    }
    return res;
  }

  beforeAll(async () => {
    t = await startTestServer({ ACTIVE_MODULES: MODULES, ACTIVE_DOMAINS: 'crm', PG_POOL_MAX: '10' }, { provider });
    admin = (await t.loginAdmin()).access_token;
    org.a = await t.createOrg(admin, 'Matrix A');
    org.b = await t.createOrg(admin, 'Matrix B');
    org.c = await t.createOrg(admin, `${MARK} organization`);
    codeB = (await t.request('GET', `/api/data/res.organization/${org.b}`, { token: admin })).body.code;
    const mk = async (email: string, values: Record<string, unknown>) => (await t.createUser(admin, { email, password: 'matrix-pass-1', ...values })).id as string;
    await mk(`${MARK.toLowerCase()}-admin@c.example.com`, { name: `${MARK} admin`, role: 'admin', organization: org.c });
    await mk(`${MARK.toLowerCase()}@c.example.com`, { name: `${MARK} user`, organization: org.c });
    await mk('one@a.example.com', { organization: org.a });
    const grouped = await mk('grouped@a.example.com', { organization: org.a, role: 'qa' });
    expect((await t.request('PATCH', `/api/data/res.user/${grouped}`, { token: admin, body: { groups: ['base.user'] } })).status).toBe(200);
    const two = await mk('two@ab.example.com', { organization: org.a });
    expect((await t.request('POST', '/api/data/res.user.membership', { token: admin, body: { user: two, organization: org.b } })).status).toBe(201);
    adminC = (await t.login(`${MARK.toLowerCase()}-admin@c.example.com`, 'matrix-pass-1')).access_token;
    tokenC = (await t.login(`${MARK.toLowerCase()}@c.example.com`, 'matrix-pass-1')).access_token;
    for (const [name, email, organization] of [['one', 'one@a.example.com'], ['two', 'two@ab.example.com'], ['switched', 'two@ab.example.com', codeB], ['grouped', 'grouped@a.example.com']] as const) {
      probers.push({ name, email, password: 'matrix-pass-1', organization, token: (await t.login(email, 'matrix-pass-1')).access_token });
    }

    // C's data, made in C by C's admin (a new lead's organization defaults to C)
    const lead = await t.request('POST', '/api/data/crm.lead', { token: adminC, body: { name: `${MARK} lead` } });
    expect(lead.body.organization).toBe(org.c);
    const message = await t.request('POST', '/api/command/ir.message.post', { token: tokenC, body: { res_model: 'crm.lead', res_id: lead.body.id, body: `${MARK} comment` } });
    expect(message.status, JSON.stringify(message.body)).toBe(200);
    const folder = await t.request('POST', '/api/data/storage.folder', { token: tokenC, body: { name: `${MARK} folder` } });
    expect(folder.status, JSON.stringify(folder.body)).toBe(201);
    const doc = await t.request('POST', '/api/storage/documents', {
      token: tokenC, body: { filename: `${MARK}.txt`, name: `${MARK} document`, content_b64: Buffer.from(`${MARK} content v1`).toString('base64'), content_type: 'text/plain' },
    });
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    const v2 = await t.request('POST', `/api/storage/documents/${doc.body.id}/versions`, {
      token: tokenC, body: { filename: `${MARK}-2.txt`, content_b64: Buffer.from(`${MARK} content v2`).toString('base64'), change_note: `${MARK} note` },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    const conn = await t.request('POST', '/api/connectors', { token: adminC, body: { name: `${MARK} connector`, category: 'messaging', provider_type: 'webhook', config: { url: `https://${MARK.toLowerCase()}.example.com/hook` } } });
    expect(conn.status, JSON.stringify(conn.body)).toBe(201);
    // its configuration as parameters (ir.connector.param rows), the dependants of the connector
    const imported = await t.request('POST', `/api/connectors/${conn.body.id}/import-config`, { token: adminC, body: { json_data: { url: `https://${MARK.toLowerCase()}.example.com/params` } } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    // saved filters of C: one shared with C's organization, one private
    const filters: string[] = [];
    for (const shared of [true, false]) {
      const saved = await t.request('POST', '/api/data/ir.filter', { token: tokenC, body: { name: `${MARK} filter`, action_key: 'crm.action_leads', search: { q: MARK }, shared } });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
      filters.push(saved.body.id);
    }
    await t.kernel.worker.drain(t.kernel.settings.DEFAULT_TENANT);

    // C's records, found by what they belong to (never by what the probers happen to see, so a
    // broken rule shows as a leak instead of shrinking the needles): read as the tenant's admin
    const where = async (model: string, domain: unknown[]) =>
      ((await t.request('GET', `/api/data/${model}?limit=100&filter=${encodeURIComponent(JSON.stringify(domain))}`, { token: admin })).body.items as Array<{ id: string }>).map((x) => x.id);
    const cUsers = await where('res.user', [['organization', '=', org.c]]);
    cIds.set('res.organization', [org.c]);
    cIds.set('res.user', cUsers);
    cIds.set('ir.session', await where('ir.session', [['user_id', 'in', cUsers]]));
    cIds.set('crm.lead', [lead.body.id]);
    cIds.set('ir.message', await where('ir.message', [['res_id', '=', lead.body.id]]));
    cIds.set('storage.folder', [folder.body.id]);
    cIds.set('storage.document', [doc.body.id]);
    cIds.set('storage.document_version', await where('storage.document_version', [['document_id', '=', doc.body.id]]));
    cIds.set('ir.connector', [conn.body.id]);
    cIds.set('ir.connector.param', await where('ir.connector.param', [['connector_id', '=', conn.body.id]]));
    cIds.set('ir.filter', filters);
    for (const ids of cIds.values()) needles.push(...ids);
    cCounts = await countAll(t, tokenC);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('C\'s side is really there: its user reads the lead, the chatter message, both versions (the matrix has teeth)', async () => {
    console.log('[durability] C needles per model', JSON.stringify(Object.fromEntries([...cIds].map(([k, v]) => [k, v.length]))));
    expect(cIds.get('crm.lead')?.length).toBeGreaterThan(0);
    expect(cIds.get('ir.message')?.length).toBeGreaterThan(0);
    expect(cIds.get('storage.document_version')?.length).toBe(2);
    expect(cIds.get('ir.connector.param')?.length).toBeGreaterThan(0);
    const own = await t.request('GET', `/api/data/ir.message/${idOf('ir.message')}`, { token: tokenC });
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).toContain(MARK);
  });

  it('REST: every route × every model × C\'s ids, as a user of A, of A and B, of A and B working in B, and of A with another role and a group, leaks nothing of C', async () => {
    await t.server.ready();
    const views = (await t.request('GET', '/api/presentation/views', { token: admin })).body as Array<{ id?: string }> | undefined;
    const viewIds = Array.isArray(views) ? views.map((v) => v.id).filter((v): v is string => !!v) : ['x'];
    const types = (await t.request('GET', '/api/connectors/types', { token: admin })).body as Array<{ provider_type: string }>;
    const probes = restProbes(t, { viewIds, providerTypes: types.map((x) => x.provider_type), idOf });
    let control = 0;
    for (const p of probers) {
      for (const probe of probes) check(`${p.name}: ${probe.label}`, await as(p, probe.method, probe.url, probe.body));
    }
    for (const probe of probes.filter((x) => x.read)) {
      const own = await t.request('GET', probe.url, { token: tokenC });
      if (own.status === 200 && leaked(JSON.stringify(own.body))) control++;
    }
    console.log(`[durability] ${provider}: organization REST matrix ${probes.length} requests × ${probers.length} principals; control: ${control} reads find C's data as C's user`);
    expect(control).toBeGreaterThan(5);
    expect(leaks).toEqual([]);
  }, 600_000);

  it('GraphQL: every query and mutation with C\'s ids, as each principal, leaks nothing of C', async () => {
    const intro = await t.request('POST', '/graphql', { token: tokenC, body: { query: getIntrospectionQuery() } });
    expect(intro.status).toBe(200);
    const probes = graphqlProbes(t, buildClientSchema(intro.body.data), idOf);
    let control = 0;
    for (const p of probers) {
      for (const { query } of probes) {
        const res = await as(p, 'POST', '/graphql', { query });
        check(`${p.name}: graphql ${query}`, res, JSON.stringify(res.body?.data ?? null));
      }
    }
    for (const { kind, query } of probes) {
      if (kind !== 'query') continue;
      const own = await t.request('POST', '/graphql', { token: tokenC, body: { query } });
      if (leaked(JSON.stringify(own.body?.data ?? null))) control++;
    }
    console.log(`[durability] ${provider}: organization GraphQL matrix ${probes.length} operations × ${probers.length} principals; control: ${control} queries find C's data as C's user`);
    expect(control).toBeGreaterThan(5);
    expect(leaks).toEqual([]);
  }, 600_000);

  it('subscriptions and the event stream: no principal hears C\'s changes (chatter and delete notices included)', async () => {
    const base = await listen(t);
    const intro = await t.request('POST', '/graphql', { token: tokenC, body: { query: getIntrospectionQuery() } });
    const schema = buildClientSchema(intro.body.data);
    const heard: Array<{ label: string; items: () => unknown }> = [];
    const stops: Array<() => void | Promise<void>> = [];
    for (const p of probers) {
      // the organization a socket works in is a connection parameter, as X-Fw-Organization is on HTTP
      const client = wsClient(base, p.token, p.organization ? { organization: p.organization } : {});
      stops.push(() => client.dispose());
      for (const field of Object.values(schema.getSubscriptionType()?.getFields() ?? {})) {
        const s = wsSubscribe(client, `subscription { ${fieldCall(schema, field, idOf(''))} }`);
        heard.push({ label: `${p.name}: ${field.name}`, items: () => s.inbox.items });
        stops.push(s.stop);
      }
      const ctrl = new AbortController();
      const res = await fetch(`${base}/api/presentation/events?access_token=${p.token}${p.organization ? `&organization=${p.organization}` : ''}`, { signal: ctrl.signal });
      expect(res.status).toBe(200);
      let text = '';
      void readSseBlocks(res.body!, (b) => { text += `${b}\n\n`; }).catch(() => {});
      heard.push({ label: `${p.name}: SSE`, items: () => text });
      stops.push(() => ctrl.abort());
    }
    await sleep(500);
    const lead = idOf('crm.lead');
    await t.request('PATCH', `/api/data/crm.lead/${lead}`, { token: tokenC, body: { name: `${MARK} lead changed` } });
    await t.request('POST', '/api/command/ir.message.post', { token: tokenC, body: { res_model: 'crm.lead', res_id: lead, body: `${MARK} second comment` } });
    const gone = await t.request('POST', '/api/data/crm.lead', { token: tokenC, body: { name: `${MARK} short-lived` } });
    await t.request('DELETE', `/api/data/crm.lead/${gone.body.id}`, { token: adminC });
    needles.push(gone.body.id);
    await t.request('PATCH', `/api/data/storage.folder/${idOf('storage.folder')}`, { token: tokenC, body: { name: `${MARK} folder changed` } });
    await t.kernel.worker.drain(t.kernel.settings.DEFAULT_TENANT);
    await sleep(800);
    for (const h of heard) {
      log.cases++;
      const hit = leaked(JSON.stringify(h.items()));
      if (hit) leaks.push(`${h.label} received ${hit}`);
    }
    for (const stop of stops) await stop();
    console.log(`[durability] ${provider}: ${heard.length} subscriptions and streams over ${probers.length} principals`);
    expect(leaks).toEqual([]);
  }, 120_000);

  it('C\'s records all survived the matrix, and the matrix size', async () => {
    const after = await countAll(t, tokenC);
    for (const [model, n] of Object.entries(cCounts)) {
      if (model === 'ir.session' || model === 'crm.lead' || model === 'ir.message') continue; // C's own activity adds rows
      expect(after[model], model).toBeGreaterThanOrEqual(n);
    }
    console.log(`[durability] ${provider}: organization isolation matrix size ${log.cases} cases, ${needles.length} C needles, ${leaks.length} leaks`);
    expect(leaks).toEqual([]);
  });
});
