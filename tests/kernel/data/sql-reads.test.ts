/**
 * Reads outside a transaction (search, count, read by id) run as SQL compiled by
 * src/kernel/data/sql; inside a transaction they go through Prisma. Both read the same `where`
 * built from a domain, so for every operator and relation path the two must return the same
 * records, in the same order, with the same values. This test runs each domain both ways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onQuery } from '../../../src/kernel/db/clients.ts';
import type { Principal } from '../../../src/kernel/env.ts';
import { adminPrincipal, bootTestKernel, expectFwError, PROVIDERS, userPrincipal, type TestKernel } from '../../helpers/kernel.ts';

type Row = Record<string, unknown> & { id: string };
type Page = { items: Row[]; total?: number };

const LEAD_DOMAINS: unknown[][] = [
  [],
  [['name', '=', 'Acme 50%']],
  [['email', '=', null]],
  [['email', '!=', null]],
  [['probability', '!=', 0.5]],
  [['probability', '>=', 0.25], ['probability', '<', 0.9]],
  [['expected_revenue', '>', 100]],
  [['expected_revenue', '<=', 100]],
  [['stage', 'in', ['won', 'lost']]],
  [['stage', 'in', []]],
  [['stage', 'not in', []]],
  [['stage', 'not in', ['new']]],
  [['email', 'not in', ['a@x.test']]],
  [['name', 'like', 'acme']],
  [['name', 'ilike', 'ACME']],
  [['name', 'not ilike', 'acme']],
  [['notes', 'not like', 'hot']],
  [['name', 'startswith', 'Acme']],
  [['name', 'istartswith', 'acme']],
  [['name', 'like', '50%']],
  // as in Odoo (and Prisma's contains), _ and % in a like value are wildcards
  [['name', 'like', 'a_b']],
  [['name', 'ilike', 'acme%small']],
  [['closed_at', '>', '2026-03-01T00:00:00Z']],
  [['closed_at', '=', '2026-02-01T10:20:30.400Z']],
  [['closed_at', '!=', null]],
  ['|', ['stage', '=', 'won'], ['expected_revenue', '=', 0]],
  ['!', ['stage', '=', 'won']],
  ['&', ['stage', '=', 'won'], '!', ['name', 'ilike', 'acme']],
  [['organization.is_active', '=', false]],
  [['organization.country.code', '=', 'FR']],
  [['organization', 'any', [['name', 'ilike', 'north'], ['is_active', '=', true]]]],
  [['organization', '=', null]],
  [['country', '!=', null], ['country.name', 'ilike', 'germ']],
];

const ORG_DOMAINS: unknown[][] = [
  [['is_active', '=', true]],
  [['is_active', '!=', true]],
  [['code', '=', null]],
  [['users.email', 'ilike', 'ALICE']],
  [['users', 'any', [['role', '=', 'admin']]]],
  ['!', ['users', 'any', []]],
];

describe.each(PROVIDERS)('reads compiled to SQL agree with Prisma on %s', (provider) => {
  let tk: TestKernel;
  const T = 'sqlreads';
  const admin = adminPrincipal(T);
  let alice: Principal;
  const run = <R = Row>(command: string, payload: Record<string, unknown>, p: Principal = admin) => tk.kernel.dispatch<R>(command, payload, p);
  /** The same command inside a write transaction, where reads go through Prisma. */
  const viaPrisma = async <R,>(command: string, payload: Record<string, unknown>, p: Principal = admin): Promise<R> => {
    const client = await tk.kernel.tenants.get(T);
    return tk.kernel.execute(client, p, (env) => env.dispatch<R>(command, payload), true);
  };
  const statements = async (fn: () => Promise<unknown>): Promise<string[]> => {
    const seen: string[] = [];
    const off = onQuery((e) => seen.push(e.query));
    try {
      await fn();
    } finally {
      off();
    }
    return seen;
  };

  beforeAll(async () => {
    tk = await bootTestKernel({ provider });
    const country = async (code: string) =>
      (await run<Page>('fw.search', { model: 'res.country', domain: [['code', '=', code]] })).items[0].id;
    const [fr, de] = [await country('FR'), await country('DE')];
    const org = async (values: Record<string, unknown>) => (await run('fw.create', { model: 'res.organization', values })).id;
    const north = await org({ name: 'North', code: 'north', country: fr });
    const south = await org({ name: 'South', is_active: false, country: de });
    await org({ name: 'Empty' });
    const a = await run('res.user.register', { email: 'alice@north.test', name: 'Alice', password: 'password-1', organization: north });
    await run('res.user.register', { email: 'root@south.test', name: 'Root', password: 'password-1', organization: south, role: 'admin' });
    alice = userPrincipal(T, { user_id: a.id, organization_id: north });
    const leads: Array<Record<string, unknown>> = [
      { name: 'Acme 50%', email: 'a@x.test', stage: 'won', expected_revenue: 500, probability: 0.5, closed_at: '2026-02-01T10:20:30.400Z', organization: north, notes: 'hot lead' },
      { name: 'acme small', stage: 'new', expected_revenue: 0, probability: 0.25, organization: north, country: de },
      { name: 'a_b trading', email: 'b@x.test', stage: 'lost', expected_revenue: 100, closed_at: '2026-04-01T00:00:00.000Z', organization: south },
      { name: 'aXb trading', email: 'c@x.test', stage: 'qualified', expected_revenue: 101, probability: 0.9 },
      { name: 'Zeta', stage: 'won', expected_revenue: 7, organization: south, notes: 'cold' },
    ];
    for (const values of leads) await run('fw.create', { model: 'crm.lead', values });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('outside a transaction a search runs the compiled SQL, inside one it runs through Prisma', async () => {
    const payload = { model: 'crm.lead', domain: [['stage', '=', 'won']] };
    const sqlPath = await statements(() => run('fw.search', payload));
    const prismaPath = await statements(() => viaPrisma('fw.search', payload));
    expect(sqlPath).toHaveLength(1);
    expect(sqlPath[0]).toMatch(/^select "t0"\."dbid", "t0"\."record_uuid"/);
    expect(prismaPath.some((q) => q.includes('"t0"'))).toBe(false);
  });

  it.each(LEAD_DOMAINS.map((d) => [JSON.stringify(d), d]))('crm.lead %s: same records, order and total both ways', async (_label, domain) => {
    const payload = { model: 'crm.lead', domain, count: true, order: 'name asc' };
    const viaSql = await run<Page>('fw.search', payload);
    expect(viaSql).toEqual(await viaPrisma<Page>('fw.search', payload));
    expect(await run('fw.count', { model: 'crm.lead', domain })).toEqual({ count: viaSql.total });
  });

  it.each(ORG_DOMAINS.map((d) => [JSON.stringify(d), d]))('res.organization %s: same records both ways', async (_label, domain) => {
    const payload = { model: 'res.organization', domain, count: true, order: 'name asc' };
    const viaSql = await run<Page>('fw.search', payload);
    expect(viaSql.total).toBeGreaterThanOrEqual(0);
    expect(viaSql).toEqual(await viaPrisma<Page>('fw.search', payload));
  });

  it('record rules apply the same way: a user sees only the leads of their organization', async () => {
    const payload = { model: 'crm.lead', order: 'expected_revenue desc', count: true };
    const viaSql = await run<Page>('fw.search', payload, alice);
    expect(viaSql.items.map((r) => r.name)).toEqual(['Acme 50%', 'acme small']);
    expect(viaSql).toEqual(await viaPrisma<Page>('fw.search', payload, alice));
  });

  it('values come back typed: booleans, ISO date-times, floats, nulls and JSON', async () => {
    const [lead] = (await run<Page>('fw.search', { model: 'crm.lead', domain: [['name', '=', 'Acme 50%']] })).items;
    expect(lead).toMatchObject({ probability: 0.5, closed_at: '2026-02-01T10:20:30.400Z', expected_revenue: 500, email: 'a@x.test' });
    expect(lead.created_at_utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const orgs = (await run<Page>('fw.search', { model: 'res.organization', domain: [['name', 'in', ['South', 'Empty']]], order: 'name asc' })).items;
    expect(orgs).toMatchObject([{ name: 'Empty', is_active: true, country: null }, { name: 'South', is_active: false }]);
    const domain = [['stage', 'in', ['won']], ['name', 'ilike', 'ü "quoted"']];
    await run('fw.create', { model: 'ir.action', values: { name: 'Won leads', model_key: 'x.sqlreads', domain } });
    await run('fw.create', { model: 'ir.action', values: { name: 'All leads', model_key: 'x.sqlreads' } });
    const actions = { model: 'ir.action', domain: [['model_key', '=', 'x.sqlreads']], order: 'name desc' };
    const viaSql = await run<Page>('fw.search', actions);
    expect(viaSql.items.map((a) => a.domain)).toEqual([domain, null]);
    expect(viaSql).toEqual(await viaPrisma<Page>('fw.search', actions));
  });

  it('paging without a limit, and an offset past the end, agree', async () => {
    for (const payload of [{ offset: 2 }, { offset: 99 }, { limit: 2, offset: 1 }, { limit: 0 }]) {
      const p = { model: 'crm.lead', order: 'name asc', ...payload };
      expect(await run('fw.search', p)).toEqual(await viaPrisma('fw.search', p));
    }
  });

  it('read by id: the same record, 404 for an unknown id and for a record outside the rules', async () => {
    const [first] = (await run<Page>('fw.search', { model: 'crm.lead', domain: [['name', '=', 'Zeta']] })).items;
    expect(await run('fw.read_one', { model: 'crm.lead', id: first.id })).toEqual(await viaPrisma('fw.read_one', { model: 'crm.lead', id: first.id }));
    expect(await run('fw.read_one', { model: 'crm.lead', id: first.id.toUpperCase(), fields: ['name'] })).toEqual({ id: first.id, name: 'Zeta' });
    await expectFwError(run('fw.read_one', { model: 'crm.lead', id: '00000000-0000-4000-8000-000000000000' }), 404, 'RECORD_NOT_FOUND');
    await expectFwError(run('fw.read_one', { model: 'crm.lead', id: first.id }, alice), 404, 'RECORD_NOT_FOUND');
  });

  it('the same search asked twice sees what was written in between: statements are cached, results never', async () => {
    const payload = { model: 'crm.lead', domain: [['closed_at', '=', '2026-05-05T05:05:05.000Z']], count: true };
    expect(await run('fw.search', payload)).toMatchObject({ items: [], total: 0 });
    const created = await run('fw.create', { model: 'crm.lead', values: { name: 'Later', closed_at: '2026-05-05T05:05:05.000Z' } });
    expect(await run('fw.search', payload)).toMatchObject({ items: [{ id: created.id, name: 'Later' }], total: 1 });
    // the same text on a text field is another query, whatever its printed form
    expect(await run('fw.count', { model: 'crm.lead', domain: [['name', '=', '2026-05-05T05:05:05.000Z']] })).toEqual({ count: 0 });
    await run('fw.delete', { model: 'crm.lead', id: created.id });
    expect(await run('fw.search', payload)).toMatchObject({ items: [], total: 0 });
  });

  it('a read right after a write sees it (the read connection reads the last commit)', async () => {
    const created = await run('fw.create', { model: 'crm.lead', values: { name: 'Fresh', expected_revenue: 3 } });
    expect(await run('fw.read_one', { model: 'crm.lead', id: created.id })).toMatchObject({ name: 'Fresh' });
    await run('fw.update', { model: 'crm.lead', id: created.id, values: { name: 'Fresher' } });
    expect((await run<Page>('fw.search', { model: 'crm.lead', domain: [['record_uuid', '=', created.id]] })).items[0]).toMatchObject({ name: 'Fresher', revision: 2 });
    await run('fw.delete', { model: 'crm.lead', id: created.id });
    expect(await run('fw.count', { model: 'crm.lead', domain: [['record_uuid', '=', created.id]] })).toEqual({ count: 0 });
  });
});
