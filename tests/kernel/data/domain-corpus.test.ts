/**
 * One query semantics on every path (issue 16 §1): each domain of the corpus
 * (tests/kernel/data/domain-corpus.ts) must select exactly the records written there, on SQLite
 * and on PostgreSQL, through
 *   - REST `GET /api/data/<model>?filter=` (items and total) and `GET /api/data/<model>/count`
 *     (the compiled SQL reader, outside a transaction),
 *   - `fw.count` dispatched in process (the same reader),
 *   - a command that runs in a transaction and reads (`fw.search`, `fw.count`, `fw.read_group`
 *     dispatched inside it go through Prisma),
 *   - REST `read_group` grouped by name (Prisma's groupBy, its own path),
 *   - GraphQL `where` on the list, count and groupBy queries (whereToDomain → the same domain).
 * Every operator a type does not support is a 400 INVALID_DOMAIN naming the field and operator
 * on each of those paths, and not offered by GraphQL's filter input for that type.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../../src/kernel/data/delegate.ts';
import type { Env, Principal } from '../../../src/kernel/env.ts';
import { onQuery } from '../../../src/kernel/db/clients.ts';
import { buildServer } from '../../../src/server/index.ts';
import {
  ADMIN_EMAIL, ADMIN_PASSWORD, adminPrincipal, bootTestKernel, expectFwError, fixtureApp, PG_URL, PROVIDERS, userPrincipal,
  withPgClient, type TestKernel,
} from '../../helpers/kernel.ts';
import {
  ALICE_CORPUS, LEAD_CORPUS, LEADS, ORG_CORPUS, ORGS, REFUSED, UNKNOWN_OPERATORS, USER_PASSWORD, USERS, type CorpusEntry,
} from './domain-corpus.ts';

type Model = 'crm.lead' | 'res.organization' | 'ir.action';
type Row = { name: string };
interface ProbeResult { names: string[]; total: number; count: number; groups: Array<{ name: string; count: number }>; viaPrisma: boolean }

/** Reads inside a transaction: the command runs in one, so everything it dispatches reads through Prisma. */
const probeApp = fixtureApp('corpusprobe', {
  commands: [{
    name: 'corpusprobe.read',
    description: 'Reads a domain inside a transaction (test fixture)',
    transaction: true,
    mutates: false,
    returns: 'json',
    async handler(env: Env, payload: Record<string, unknown>) {
      const { model, domain } = payload as { model: string; domain: unknown };
      const search = await env.dispatch<{ items: Row[]; total: number }>('fw.search', { model, domain, fields: ['name'], limit: 500, count: true });
      const count = await env.dispatch<{ count: number }>('fw.count', { model, domain });
      const grouped = await env.dispatch<{ groups: Array<Row & { count: number }> }>('fw.read_group', { model, groupby: ['name'], domain });
      return {
        names: search.items.map((r) => r.name), total: search.total, count: count.count,
        groups: grouped.groups.map((g) => ({ name: g.name, count: g.count })), viaPrisma: env.reader === undefined,
      } satisfies ProbeResult;
    },
  }],
});

const GQL: Record<Model, { many: string; count: string; groupBy: string; where: string }> = {
  'crm.lead': { many: 'crmLeads', count: 'crmLeadCount', groupBy: 'crmLeadGroupBy', where: 'CrmLeadWhere' },
  'res.organization': { many: 'resOrganizations', count: 'resOrganizationCount', groupBy: 'resOrganizationGroupBy', where: 'ResOrganizationWhere' },
  'ir.action': { many: 'irActions', count: 'irActionCount', groupBy: 'irActionGroupBy', where: 'IrActionWhere' },
};

/** A domain operator as a GraphQL filter (for the refusal checks). */
const GQL_OP: Record<string, Record<string, unknown>> = {
  '=': { eq: 'x' }, '!=': { ne: 'x' }, in: { in: ['x'] }, 'not in': { notIn: ['x'] },
  '<': { lt: 'x' }, '<=': { lte: 'x' }, '>': { gt: 'x' }, '>=': { gte: 'x' },
  like: { contains: 'x' }, ilike: { contains: 'x', mode: 'insensitive' }, 'not like': { notContains: 'x' },
  'not ilike': { notContains: 'x', mode: 'insensitive' }, startswith: { startsWith: 'x' }, istartswith: { startsWith: 'x', mode: 'insensitive' },
};

const sorted = (names: readonly string[]) => [...names].sort();
const label = (e: CorpusEntry) => JSON.stringify(e.domain);

describe.each(PROVIDERS)('the domain corpus on %s: every path selects the expected records', (provider) => {
  let tk: TestKernel;
  let server: FastifyInstance;
  let codepointText = true;
  const ids: Record<string, string> = {};
  /** Who reads: the admin (no record rules) or Alice (role user of North). */
  const as: Record<'admin' | 'alice', { token: string; principal: Principal }> = {} as never;
  let who: 'admin' | 'alice' = 'admin';
  const dispatch = <T,>(command: string, payload: Record<string, unknown>) => tk.kernel.dispatch<T>(command, payload, as[who].principal);
  const login = async (email: string, password: string) => {
    const res = await server.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
    expect(res.statusCode, res.body).toBe(200);
    return JSON.parse(res.body).access_token as string;
  };

  /** '@lead:Zeta' → the id ('@LEAD:…' upper case), in any JSON value. */
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string' && /^@(lead|org|country|user):/i.test(v)) {
      const id = ids[v.slice(1).replace(/^LEAD:/, 'lead:')];
      if (!id) throw new Error(`no record for ${v}`);
      return v.startsWith('@LEAD:') ? id.toUpperCase() : id;
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };

  const http = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await server.inject({ method, url, headers: { authorization: `Bearer ${as[who].token}` }, ...(body !== undefined ? { payload: body as object } : {}) });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  const filterQuery = (domain: unknown) => `filter=${encodeURIComponent(JSON.stringify(domain))}`;
  const gql = async (model: Model, where: unknown) => {
    const q = GQL[model];
    const query = `query($where: ${q.where}) { list: ${q.many}(where: $where, limit: 100) { name } count: ${q.count}(where: $where) groups: ${q.groupBy}(by: [name], where: $where) { key count } }`;
    return http('POST', '/graphql', { query, variables: { where } });
  };

  beforeAll(async () => {
    tk = await bootTestKernel({ provider, apps: [probeApp] });
    server = await buildServer(tk.kernel);
    const tenant = tk.kernel.settings.DEFAULT_TENANT;
    await tk.kernel.tenants.get(tenant);
    as.admin = { token: await login(ADMIN_EMAIL, ADMIN_PASSWORD), principal: adminPrincipal(tenant) };

    for (const code of ['FR', 'DE']) {
      ids[`country:${code}`] = (await dispatch<{ items: Array<{ id: string }> }>('fw.search', { model: 'res.country', domain: [['code', '=', code]] })).items[0].id;
    }
    for (const o of ORGS) {
      const values = { ...o, country: o.country ? ids[`country:${o.country}`] : null };
      ids[`org:${o.name}`] = (await dispatch<{ id: string }>('fw.create', { model: 'res.organization', values })).id;
    }
    // an organization without a code, as rows written before codes were required are: the API
    // fills a code in on create and refuses null on update, so this row is written directly
    const client = await tk.kernel.tenants.get(tenant);
    await delegateOf(client, tk.kernel.registry.model('res.organization')).update({ where: { record_uuid: ids['org:Empty'] }, data: { code: null } });
    for (const u of USERS) {
      const organization = u.organization ? ids[`org:${u.organization}`] : null;
      const { id } = await dispatch<{ id: string }>('res.user.register', { email: u.email, name: u.name, password: USER_PASSWORD, organization });
      // registering fills in the caller's organization when none is given
      if (!organization) await dispatch('fw.update', { model: 'res.user', id, values: { organization: null } });
      ids[`user:${u.key}`] = id;
    }
    as.alice = {
      token: await login('alice@north.test', USER_PASSWORD),
      principal: userPrincipal(tenant, { user_id: ids['user:alice'], organization_id: ids['org:North'] }),
    };
    for (const l of LEADS) {
      const values = {
        ...l, organization: l.organization ? ids[`org:${l.organization}`] : null, country: l.country ? ids[`country:${l.country}`] : null,
        salesperson: l.salesperson ? ids[`user:${l.salesperson}`] : null,
      };
      ids[`lead:${l.name}`] = (await dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values })).id;
    }
    // text comparisons are expected in code point order: SQLite's, and PostgreSQL's under a C collation
    if (provider === 'postgresql') {
      const db = `${tk.pgPrefix}${tenant.replaceAll('-', '_')}`;
      const collation = await withPgClient(PG_URL, async (c) =>
        (await c.query('SELECT datcollate FROM pg_database WHERE datname = $1', [db])).rows[0]?.datcollate as string | undefined);
      codepointText = collation === undefined || /^(C|POSIX|C\.UTF-?8)$/i.test(collation);
    }
  });
  afterAll(async () => {
    await server?.close();
    await tk?.cleanup();
  });

  it('the seeded data is what the corpus describes', async () => {
    who = 'admin';
    const leads = await dispatch<{ items: Array<Record<string, unknown>> }>('fw.search', { model: 'crm.lead', order: 'dbid asc', fields: ['name', 'email', 'notes', 'closed_at'] });
    expect(leads.items.map((l) => [l.name, l.email, l.notes, l.closed_at])).toEqual(LEADS.map((l) => [l.name, l.email, l.notes, l.closed_at]));
    const orgs = await dispatch<{ items: Array<Row & { code: string | null; is_active: boolean }> }>('fw.search', { model: 'res.organization', fields: ['name', 'code', 'is_active'] });
    expect(orgs.items.map((o) => [o.name, o.code, o.is_active]).sort()).toEqual(
      [['Default Organization', 'default', true], ...ORGS.map((o) => [o.name, o.code, o.is_active])].sort());
  });

  it('the transaction probe reads through Prisma, the plain reads through the compiled SQL', async () => {
    who = 'admin';
    const seen: string[] = [];
    const off = onQuery((e) => seen.push(e.query));
    try {
      const probe = await dispatch<ProbeResult>('corpusprobe.read', { model: 'crm.lead', domain: [['stage', '=', 'won']] });
      expect(probe.viaPrisma).toBe(true);
      expect(seen.some((q) => q.includes('"t0"'))).toBe(false);
      seen.length = 0;
      await dispatch('fw.count', { model: 'crm.lead', domain: [['stage', '=', 'won']] });
      expect(seen.some((q) => q.includes('"t0"'))).toBe(true);
    } finally {
      off();
    }
  });

  type Case = [string, Model, CorpusEntry, 'admin' | 'alice'];
  const cases: Case[] = [
    ...LEAD_CORPUS.map((e): Case => [`crm.lead ${label(e)}`, 'crm.lead', e, 'admin']),
    ...ORG_CORPUS.map((e): Case => [`res.organization ${label(e)}`, 'res.organization', e, 'admin']),
    ...ALICE_CORPUS.map((e): Case => [`crm.lead as Alice (record rules) ${label(e)}`, 'crm.lead', e, 'alice']),
  ];

  it.each(cases)('%s', async (_label, model, entry, reader) => {
    if (entry.codepoint && !codepointText) return;
    who = reader;
    const want = sorted(Array.isArray(entry.expect) ? entry.expect : (entry.expect as { sqlite: readonly string[]; postgresql: readonly string[] })[provider]);
    const domain = fill(entry.domain);

    const list = await http('GET', `/api/data/${model}?${filterQuery(domain)}&fields=name&limit=500`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(sorted(list.body.items.map((r: Row) => r.name)), 'REST list').toEqual(want);
    expect(list.body.total, 'REST list total').toBe(want.length);

    const restCount = await http('GET', `/api/data/${model}/count?${filterQuery(domain)}`);
    expect(restCount.body, 'REST count').toEqual({ count: want.length });
    expect(await dispatch('fw.count', { model, domain }), 'fw.count').toEqual({ count: want.length });

    const probe = await dispatch<ProbeResult>('corpusprobe.read', { model, domain });
    expect(sorted(probe.names), 'fw.search in a transaction').toEqual(want);
    expect([probe.total, probe.count], 'total and fw.count in a transaction').toEqual([want.length, want.length]);
    expect(sorted(probe.groups.map((g) => g.name)), 'fw.read_group in a transaction').toEqual(want);

    const groups = await http('POST', `/api/data/${model}/read_group`, { groupby: ['name'], filter: domain });
    expect(groups.status, JSON.stringify(groups.body)).toBe(200);
    expect(sorted(groups.body.groups.map((g: Row) => g.name)), 'REST read_group').toEqual(want);
    expect(groups.body.groups.every((g: { count: number }) => g.count === 1)).toBe(true);

    if (entry.gql) {
      const res = await gql(model, fill(entry.gql));
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      expect(sorted(res.body.data.list.map((r: Row) => r.name)), 'GraphQL where').toEqual(want);
      expect(res.body.data.count, 'GraphQL count').toBe(want.length);
      expect(sorted(res.body.data.groups.map((g: { key: Row }) => g.key.name)), 'GraphQL groupBy').toEqual(want);
    }
  });

  const refusals = REFUSED.flatMap((r) => r.ops.map((op): [string, typeof r, string] => [`${r.model} ${r.field} (${r.type}) "${op}"`, r, op]));

  it.each(refusals)('%s is 400 INVALID_DOMAIN naming field and operator on every path', async (_label, r, op) => {
    who = 'admin';
    const value = op === 'any' ? [] : op.includes('like') || op.includes('startswith') ? 'x' : op.endsWith('in') ? [r.value] : r.value;
    const domain = fill([[r.field, op, value]]);
    const check = (body: { error?: { code: string; details?: Record<string, unknown> } }, where: string) => {
      expect(body.error?.code, `${where}: ${JSON.stringify(body)}`).toBe('INVALID_DOMAIN');
      expect(body.error?.details, where).toMatchObject({ field: r.field, operator: op });
    };
    const list = await http('GET', `/api/data/${r.model}?${filterQuery(domain)}`);
    expect(list.status).toBe(400);
    check(list.body, 'REST list');
    const count = await http('GET', `/api/data/${r.model}/count?${filterQuery(domain)}`);
    expect(count.status).toBe(400);
    check(count.body, 'REST count');
    const groups = await http('POST', `/api/data/${r.model}/read_group`, { groupby: ['name'], filter: domain });
    expect(groups.status).toBe(400);
    check(groups.body, 'REST read_group');
    const err = await expectFwError(dispatch('fw.count', { model: r.model, domain }), 400, 'INVALID_DOMAIN');
    expect(err.details).toMatchObject({ field: r.field, operator: op });
    const inTx = await expectFwError(dispatch('corpusprobe.read', { model: r.model, domain }), 400, 'INVALID_DOMAIN');
    expect(inTx.details).toMatchObject({ field: r.field, operator: op });
    // GraphQL's filter input for the type does not offer the operator: refused before it runs
    if (GQL_OP[op]) {
      const path = r.field.split('.').map((p) => (p === 'record_uuid' ? 'id' : p));
      const where = path.reduceRight<Record<string, unknown>>((inner, p, i) => (i === path.length - 1 ? { [p]: GQL_OP[op] } : { [p]: { is: inner } }), {});
      const res = await gql(r.model, where);
      // graphql-js refuses the variable while coercing it (no extensions code), before any resolver
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.data, JSON.stringify(res.body)).toBeUndefined();
      expect(res.body.errors?.[0]?.message, JSON.stringify(res.body)).toMatch(/is not defined by type "\w+(Filter|Where)"/);
    }
  });

  it.each(UNKNOWN_OPERATORS)('the unknown operator %j is 400 INVALID_DOMAIN on every path', async (op) => {
    who = 'admin';
    const domain = [['name', op, 'x']];
    for (const res of [
      await http('GET', `/api/data/crm.lead?${filterQuery(domain)}`),
      await http('GET', `/api/data/crm.lead/count?${filterQuery(domain)}`),
      await http('POST', '/api/data/crm.lead/read_group', { groupby: ['name'], filter: domain }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_DOMAIN', details: { field: 'name', operator: op } });
    }
    await expectFwError(dispatch('corpusprobe.read', { model: 'crm.lead', domain }), 400, 'INVALID_DOMAIN');
  });
});
