/**
 * The generic fw.* commands every model has: create, read_one, update, delete, search, count,
 * read_group (and the batch forms), with the spec's domain operators, ordering, paging, field
 * selection, aggregates and error codes. Runs on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal, type Principal } from '../../src/kernel/env.ts';
import { ValidationError } from '../../src/kernel/errors.ts';
import type { Kernel } from '../../src/kernel/kernel.ts';
import { adminPrincipal, bootTestKernel, errorCodes, expectFwError, PROVIDERS, type TestKernel } from '../helpers/kernel.ts';

type Rec = Record<string, unknown> & { id: string };
interface Page { items: Rec[]; total?: number; limit: number | null; offset: number }

describe.each(PROVIDERS)('fw.* commands on %s', (provider) => {
  let tk: TestKernel;
  let kernel: Kernel;
  /** Tenant holding the fixed query dataset below; write tests use their own tenant. */
  const Q = 'queries';
  const W = 'writes';
  let admin: Principal;
  let wAdmin: Principal;
  const ids: Record<string, string> = {};

  const run = <T = Rec>(command: string, payload: Record<string, unknown>, p: Principal = admin) => kernel.dispatch<T>(command, payload, p);
  const search = (payload: Record<string, unknown>, p: Principal = admin) => run<Page>('fw.search', { model: 'crm.lead', ...payload }, p);
  const names = async (domain: unknown[], model = 'crm.lead') =>
    (await run<Page>('fw.search', { model, domain })).items.map((r) => r.name as string).sort();
  const countryId = async (code: string, tenant = Q) =>
    (await kernel.dispatch<Page>('fw.search', { model: 'res.country', domain: [['code', '=', code]] }, systemPrincipal(tenant))).items[0].id;

  beforeAll(async () => {
    tk = await bootTestKernel({ provider });
    kernel = tk.kernel;
    admin = adminPrincipal(Q);
    wAdmin = adminPrincipal(W);
    const [fr, de, us] = [await countryId('FR'), await countryId('DE'), await countryId('US')];
    Object.assign(ids, { fr, de, us });
    ids.alpha = (await run('fw.create', { model: 'res.organization', values: { name: 'Alpha', code: 'alpha', country: fr } })).id;
    ids.beta = (await run('fw.create', { model: 'res.organization', values: { name: 'Beta', code: 'beta', country: de } })).id;
    await run('res.user.register', { email: 'xavier@alpha.test', name: 'Xavier', password: 'password-1', organization: ids.alpha });
    await run('res.user.register', { email: 'yolanda@beta.test', name: 'Yolanda', password: 'password-1', organization: ids.beta });
    const leads: Array<Record<string, unknown>> = [
      { name: 'Alpha one', email: 'one@alpha.test', stage: 'new', expected_revenue: 100, probability: 0.1, organization: ids.alpha, country: fr },
      { name: 'Alpha two', stage: 'qualified', expected_revenue: 250, probability: 0.5, organization: ids.alpha, country: de },
      { name: 'Alpha three', email: 'Three@Alpha.test', stage: 'won', expected_revenue: 1000, probability: 1, organization: ids.alpha, country: fr },
      { name: 'Beta one', email: 'one@beta.test', stage: 'lost', expected_revenue: 0, organization: ids.beta },
      { name: 'Beta two', email: 'two@beta.test', stage: 'qualified', expected_revenue: 400, probability: 0.25, organization: ids.beta, country: us },
    ];
    for (const values of leads) ids[values.name as string] = (await run('fw.create', { model: 'crm.lead', values })).id;
  });

  afterAll(async () => {
    await tk?.cleanup();
  });

  describe('fw.search domains', () => {
    it('"=" matches equal values; ["x", "=", null] matches nulls', async () => {
      expect(await names([['stage', '=', 'qualified']])).toEqual(['Alpha two', 'Beta two']);
      expect(await names([['email', '=', null]])).toEqual(['Alpha two']);
    });

    it('"!=" on a nullable field also matches records where it is null', async () => {
      expect(await names([['email', '!=', 'one@alpha.test']])).toEqual(['Alpha three', 'Alpha two', 'Beta one', 'Beta two']);
      expect(await names([['probability', '!=', 0.5]])).toEqual(['Alpha one', 'Alpha three', 'Beta one', 'Beta two']);
    });

    it('"!=" on a required/defaulted field, and ["x", "!=", null] for "is set"', async () => {
      expect(await names([['stage', '!=', 'won']])).toEqual(['Alpha one', 'Alpha two', 'Beta one', 'Beta two']);
      expect(await names([['email', '!=', null]])).toEqual(['Alpha one', 'Alpha three', 'Beta one', 'Beta two']);
    });

    it('"<", "<=", ">", ">=" compare numbers; nulls never match a comparison', async () => {
      expect(await names([['expected_revenue', '<', 250]])).toEqual(['Alpha one', 'Beta one']);
      expect(await names([['expected_revenue', '<=', 250]])).toEqual(['Alpha one', 'Alpha two', 'Beta one']);
      expect(await names([['expected_revenue', '>', 250]])).toEqual(['Alpha three', 'Beta two']);
      expect(await names([['expected_revenue', '>=', 400]])).toEqual(['Alpha three', 'Beta two']);
      expect(await names([['probability', '<', 0.3]])).toEqual(['Alpha one', 'Beta two']);
    });

    it('"<" and ">" also order text and date-times', async () => {
      expect(await names([['name', '<', 'Alpha two']])).toEqual(['Alpha one', 'Alpha three']);
      expect(await names([['created_at_utc', '>', '2000-01-01T00:00:00Z']])).toHaveLength(5);
      expect(await names([['created_at_utc', '<', '2000-01-01T00:00:00Z']])).toEqual([]);
    });

    it('"in" and "not in" take lists; "not in" on a nullable field includes nulls', async () => {
      expect(await names([['stage', 'in', ['new', 'won']]])).toEqual(['Alpha one', 'Alpha three']);
      expect(await names([['stage', 'not in', ['new', 'won']]])).toEqual(['Alpha two', 'Beta one', 'Beta two']);
      expect(await names([['email', 'not in', ['one@alpha.test', 'one@beta.test']]])).toEqual(['Alpha three', 'Alpha two', 'Beta two']);
      expect(await names([['stage', 'in', []]])).toEqual([]);
    });

    it('"like" matches a substring', async () => {
      expect(await names([['name', 'like', 'two']])).toEqual(['Alpha two', 'Beta two']);
      expect(await names([['email', 'like', '@beta.']])).toEqual(['Beta one', 'Beta two']);
    });

    it('"ilike" matches a substring ignoring case', async () => {
      expect(await names([['email', 'ilike', 'ALPHA']])).toEqual(['Alpha one', 'Alpha three']);
      expect(await names([['name', 'ilike', 'beta TWO']])).toEqual(['Beta two']);
    });

    it.runIf(provider === 'postgresql')('"like" is case-sensitive on PostgreSQL', async () => {
      expect(await names([['email', 'like', 'Alpha']])).toEqual(['Alpha three']);
    });

    it('"&" and "|" are prefix operators over the next two terms, "!" negates the next term', async () => {
      expect(await names(['|', ['stage', '=', 'won'], ['stage', '=', 'lost']])).toEqual(['Alpha three', 'Beta one']);
      expect(await names(['&', ['stage', '=', 'qualified'], ['expected_revenue', '>', 300]])).toEqual(['Beta two']);
      expect(await names(['!', ['stage', '=', 'qualified']])).toEqual(['Alpha one', 'Alpha three', 'Beta one']);
      // (won or lost) and not revenue 0
      expect(await names(['&', '|', ['stage', '=', 'won'], ['stage', '=', 'lost'], '!', ['expected_revenue', '=', 0]])).toEqual(['Alpha three']);
    });

    it('terms without an operator are ANDed (implicit "&")', async () => {
      expect(await names([['stage', '=', 'qualified'], ['organization', '=', ids.alpha]])).toEqual(['Alpha two']);
      expect(await names(['|', ['stage', '=', 'won'], ['stage', '=', 'new'], ['expected_revenue', '>', 500]])).toEqual(['Alpha three']);
    });

    it('a dotted path follows a Reference (country.code), also over two hops', async () => {
      expect(await names([['country.code', '=', 'FR']])).toEqual(['Alpha one', 'Alpha three']);
      expect(await names([['organization.name', '=', 'Beta']])).toEqual(['Beta one', 'Beta two']);
      expect(await names([['organization.country.code', '=', 'DE']])).toEqual(['Beta one', 'Beta two']);
    });

    it('a dotted path through a One2Many matches when some child matches (res.organization users.email)', async () => {
      expect(await names([['users.email', 'like', 'alpha.test']], 'res.organization')).toEqual(['Alpha']);
      expect(await names([['users.email', 'like', 'nobody']], 'res.organization')).toEqual([]);
    });

    it('a Reference compares with the target record id', async () => {
      expect(await names([['organization', '=', ids.beta]])).toEqual(['Beta one', 'Beta two']);
      expect(await names([['country', 'in', [ids.de, ids.us]]])).toEqual(['Alpha two', 'Beta two']);
    });

    it.each([
      ['an unknown field', [['nope', '=', 1]]],
      ['an unknown operator', [['name', '~', 'x']]],
      ['a term that is not a triple', [['name', '=']]],
      ['a prefix operator missing an operand', ['|', ['name', '=', 'x']]],
      ['"in" without a list', [['stage', 'in', 'new']]],
      ['"like" on a number', [['expected_revenue', 'like', '1']]],
      ['a value of the wrong type', [['expected_revenue', '=', 'lots']]],
      ['a path through a field that is not a relation', [['name.size', '=', 1]]],
      ['a One2Many compared directly', [['users', '=', 'x']]],
      ['a domain that is not a list', 'stage = new'],
    ])('a domain with %s is refused (400 INVALID_DOMAIN)', async (_label, domain) => {
      const model = _label === 'a One2Many compared directly' ? 'res.organization' : 'crm.lead';
      await expectFwError(run('fw.search', { model, domain }), 400, 'INVALID_DOMAIN');
    });
  });

  describe('fw.search ordering, paging and fields', () => {
    it('without an order the model default_order applies (crm.lead: expected_revenue desc)', async () => {
      expect((await search({})).items.map((r) => r.name)).toEqual(['Alpha three', 'Beta two', 'Alpha two', 'Alpha one', 'Beta one']);
    });

    it('"<field> asc|desc" orders, several keys separated by commas', async () => {
      expect((await search({ order: 'name asc' })).items.map((r) => r.name)).toEqual(['Alpha one', 'Alpha three', 'Alpha two', 'Beta one', 'Beta two']);
      // stage in its declaration order: new, qualified, won, lost
      expect((await search({ order: 'stage asc, expected_revenue desc' })).items.map((r) => r.name))
        .toEqual(['Alpha one', 'Beta two', 'Alpha two', 'Alpha three', 'Beta one']);
    });

    it.each(['nope asc', 'name sideways', 'name asc extra', 'password_hash asc'])('ordering by "%s" is refused (400 INVALID_ORDER)', async (order) => {
      const model = order.startsWith('password_hash') ? 'res.user' : 'crm.lead';
      await expectFwError(run('fw.search', { model, order }), 400, 'INVALID_ORDER');
    });

    it('limit and offset page through the ordered result; count: true adds the total', async () => {
      const page = await search({ order: 'name asc', limit: 2, offset: 1, count: true });
      expect(page.items.map((r) => r.name)).toEqual(['Alpha three', 'Alpha two']);
      expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
      expect((await search({ order: 'name asc', offset: 4 })).items.map((r) => r.name)).toEqual(['Beta two']);
      expect((await search({ limit: 0 })).items).toEqual([]);
    });

    it.each([-1, 1.5, '10'])('limit %j is refused (400 INVALID_PAGING)', async (limit) => {
      await expectFwError(search({ limit }), 400, 'INVALID_PAGING');
    });

    it('fields selects what each record returns (the id always comes)', async () => {
      const page = await search({ fields: ['name', 'stage'], domain: [['name', '=', 'Alpha one']] });
      expect(page.items).toEqual([{ id: ids['Alpha one'], name: 'Alpha one', stage: 'new' }]);
    });

    it('without fields a record carries its id, the automatic fields and every declared stored field', async () => {
      const [r] = (await search({ domain: [['name', '=', 'Alpha one']] })).items;
      expect(Object.keys(r).sort()).toEqual([
        'closed_at', 'country', 'created_at_utc', 'date_deadline', 'dbid', 'email', 'expected_revenue', 'id', 'name', 'notes',
        'organization', 'probability', 'revision', 'salesperson', 'stage', 'updated_at_utc',
      ]);
      expect(r).toMatchObject({ id: ids['Alpha one'], revision: 1, country: ids.fr, organization: ids.alpha, probability: 0.1, expected_revenue: 100 });
      expect(r.created_at_utc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('fields naming an unknown field is refused (400 INVALID_FIELDS)', async () => {
      await expectFwError(search({ fields: ['name', 'nope'] }), 400, 'INVALID_FIELDS');
      await expectFwError(search({ fields: 'name' }), 400, 'INVALID_FIELDS');
    });
  });

  describe('fw.count and fw.read_one', () => {
    it('fw.count counts the records matching a domain', async () => {
      expect(await run('fw.count', { model: 'crm.lead' })).toEqual({ count: 5 });
      expect(await run('fw.count', { model: 'crm.lead', domain: [['stage', '=', 'qualified']] })).toEqual({ count: 2 });
    });

    it('fw.read_one returns one record by id, with a field selection if asked', async () => {
      const r = await run('fw.read_one', { model: 'crm.lead', id: ids['Beta two'] });
      expect(r).toMatchObject({ id: ids['Beta two'], name: 'Beta two', stage: 'qualified', country: ids.us });
      expect(await run('fw.read_one', { model: 'crm.lead', id: ids['Beta two'].toUpperCase(), fields: ['email'] }))
        .toEqual({ id: ids['Beta two'], email: 'two@beta.test' });
    });

    it('fw.read_one of an id that does not exist (or is not a UUID) answers 404 RECORD_NOT_FOUND', async () => {
      await expectFwError(run('fw.read_one', { model: 'crm.lead', id: crypto.randomUUID() }), 404, 'RECORD_NOT_FOUND');
      await expectFwError(run('fw.read_one', { model: 'crm.lead', id: 'not-a-uuid' }), 404, 'RECORD_NOT_FOUND');
    });

    it('a command on a model that is not loaded answers 404 UNKNOWN_MODEL; a missing model 400 INVALID_PAYLOAD', async () => {
      await expectFwError(run('fw.search', { model: 'shop.order' }), 404, 'UNKNOWN_MODEL');
      await expectFwError(run('fw.search', {}), 400, 'INVALID_PAYLOAD');
    });
  });

  describe('fw.read_group', () => {
    type Groups = { groups: Array<Record<string, unknown>> };
    const group = (payload: Record<string, unknown>) => run<Groups>('fw.read_group', { model: 'crm.lead', ...payload });

    it('groups by a field with a count per group; an enum\'s groups come in its declaration order, not alphabetically', async () => {
      expect((await group({ groupby: ['stage'] })).groups).toEqual([
        { stage: 'new', count: 1 }, { stage: 'qualified', count: 2 }, { stage: 'won', count: 1 }, { stage: 'lost', count: 1 },
      ]);
    });

    it('groups on a Reference come in the order of the referenced records\' names (not their ids), None last', async () => {
      const { groups } = await group({ groupby: ['country'] });
      const name = async (id: unknown) => id === null ? null : (await run<{ name: string }>('fw.read_one', { model: 'res.country', id })).name;
      const names = await Promise.all(groups.map((g) => name(g.country)));
      // Beta one has no country: its None group comes after the named ones
      expect(names).toEqual(['France', 'Germany', expect.stringMatching(/^United States/), null]);
    });

    it('sum and avg aggregate numeric fields as <field>_<aggregate>; nulls are skipped', async () => {
      const { groups } = await group({ groupby: ['stage'], aggregates: { expected_revenue: 'sum', probability: 'avg' } });
      const qualified = groups.find((g) => g.stage === 'qualified')!;
      expect(qualified).toMatchObject({ count: 2, expected_revenue_sum: 650 });
      expect(qualified.probability_avg).toBeCloseTo(0.375);
      expect(groups.find((g) => g.stage === 'lost')).toEqual({ stage: 'lost', count: 1, expected_revenue_sum: 0, probability_avg: null });
    });

    it('min and max aggregate ordered fields', async () => {
      const { groups } = await group({ groupby: ['organization'], aggregates: { expected_revenue: 'max', name: 'min', probability: 'min' } });
      expect(groups).toHaveLength(2);
      expect(groups.find((g) => g.organization === ids.alpha)).toMatchObject({ count: 3, expected_revenue_max: 1000, name_min: 'Alpha one', probability_min: 0.1 });
      expect(groups.find((g) => g.organization === ids.beta)).toMatchObject({ count: 2, expected_revenue_max: 400, name_min: 'Beta one', probability_min: 0.25 });
    });

    it('count as an aggregate counts non-null values, and the group count stays the number of records', async () => {
      const { groups } = await group({ groupby: ['organization'], aggregates: { email: 'count' } });
      expect(groups.find((g) => g.organization === ids.alpha)).toMatchObject({ count: 3, email_count: 2 });
    });

    it('groups by several fields and honours the domain', async () => {
      const { groups } = await group({ groupby: ['organization', 'stage'], domain: [['expected_revenue', '>', 0]] });
      expect(groups.map((g) => [g.organization === ids.alpha ? 'alpha' : 'beta', g.stage, g.count]).sort()).toEqual([
        ['alpha', 'new', 1], ['alpha', 'qualified', 1], ['alpha', 'won', 1], ['beta', 'qualified', 1],
      ]);
    });

    it.each([
      ['an empty groupby', { groupby: [] }],
      ['a groupby that is not a list', { groupby: 'stage' }],
      ['grouping by an unknown field', { groupby: ['nope'] }],
      ['sum of a text field', { groupby: ['stage'], aggregates: { name: 'sum' } }],
      ['avg of an enum', { groupby: ['organization'], aggregates: { stage: 'avg' } }],
      ['an unknown aggregate', { groupby: ['stage'], aggregates: { expected_revenue: 'median' } }],
      ['aggregating an unknown field', { groupby: ['stage'], aggregates: { nope: 'sum' } }],
    ])('read_group with %s is refused (400 INVALID_GROUPING)', async (_label, payload) => {
      await expectFwError(group(payload), 400, 'INVALID_GROUPING');
    });

    it('grouping by a One2Many (not stored) is refused', async () => {
      await expectFwError(run('fw.read_group', { model: 'res.organization', groupby: ['users'] }), 400, 'INVALID_GROUPING');
    });
  });

  describe('writes', () => {
    const w = <T = Rec>(command: string, payload: Record<string, unknown>) => kernel.dispatch<T>(command, payload, wAdmin);
    const lead = (values: Record<string, unknown>) => w('fw.create', { model: 'crm.lead', values });

    it('fw.create stores a record and returns it with its id, defaults, timestamps and revision 1', async () => {
      const r = await lead({ name: 'Fresh', email: 'fresh@x.test' });
      expect(r).toMatchObject({ name: 'Fresh', email: 'fresh@x.test', stage: 'new', expected_revenue: 0, probability: null, revision: 1 });
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.created_at_utc).toBe(r.updated_at_utc);
      expect(await w('fw.read_one', { model: 'crm.lead', id: r.id })).toEqual(r);
    });

    it('fw.update changes the named fields only and returns the new record', async () => {
      const r = await lead({ name: 'To change', email: 'keep@x.test' });
      const u = await w('fw.update', { model: 'crm.lead', id: r.id, values: { stage: 'won', closed_at: '2026-01-02T03:04:05Z' } });
      expect(u).toMatchObject({ id: r.id, name: 'To change', email: 'keep@x.test', stage: 'won', closed_at: '2026-01-02T03:04:05.000Z', revision: 2 });
      expect(Date.parse(u.updated_at_utc as string)).toBeGreaterThanOrEqual(Date.parse(r.updated_at_utc as string));
      expect(u.created_at_utc).toBe(r.created_at_utc);
    });

    it('fw.update can clear an optional field with null', async () => {
      const r = await lead({ name: 'Clearable', email: 'c@x.test' });
      expect(await w('fw.update', { model: 'crm.lead', id: r.id, values: { email: null } })).toMatchObject({ email: null });
    });

    it('fw.delete removes the record; reading or deleting it again answers 404', async () => {
      const r = await lead({ name: 'Doomed' });
      expect(await w('fw.delete', { model: 'crm.lead', id: r.id })).toEqual({ id: r.id, deleted: true });
      await expectFwError(w('fw.read_one', { model: 'crm.lead', id: r.id }), 404, 'RECORD_NOT_FOUND');
      await expectFwError(w('fw.delete', { model: 'crm.lead', id: r.id }), 404, 'RECORD_NOT_FOUND');
      await expectFwError(w('fw.update', { model: 'crm.lead', id: r.id, values: { name: 'x' } }), 404, 'RECORD_NOT_FOUND');
    });

    it('every invalid value is reported at once: 422 with details.errors (UNKNOWN_FIELD, READONLY_FIELD, INVALID_TYPE, TOO_LONG, INVALID_ENUM)', async () => {
      const err = await expectFwError(lead({
        name: 'x'.repeat(201), stage: 'bogus', expected_revenue: 'lots', probability: 'high', bogus: 1, dbid: 5, revision: 3, closed_at: 'yesterday',
      }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({
        name: 'TOO_LONG', stage: 'INVALID_ENUM', expected_revenue: 'INVALID_TYPE', probability: 'INVALID_TYPE',
        bogus: 'UNKNOWN_FIELD', dbid: 'READONLY_FIELD', revision: 'READONLY_FIELD', closed_at: 'INVALID_TYPE',
      });
      expect(await w('fw.count', { model: 'crm.lead', domain: [['stage', '=', 'bogus']] }).catch(() => 'refused')).toBe('refused');
    });

    it('a value below an Integer min is INVALID_TYPE; a reference that is not a UUID is INVALID_TYPE', async () => {
      const err = await expectFwError(lead({ name: 'Neg', expected_revenue: -5, country: 'FR' }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ expected_revenue: 'INVALID_TYPE', country: 'INVALID_TYPE' });
    });

    it('a missing required field is 422 REQUIRED on create, and setting it to null is REQUIRED on update', async () => {
      expect(errorCodes(await expectFwError(lead({ email: 'no-name@x.test' }), 422, 'VALIDATION_FAILED'))).toEqual({ name: 'REQUIRED' });
      const r = await lead({ name: 'Named' });
      expect(errorCodes(await expectFwError(w('fw.update', { model: 'crm.lead', id: r.id, values: { name: null, stage: null } }), 422, 'VALIDATION_FAILED')))
        .toEqual({ name: 'REQUIRED', stage: 'REQUIRED' });
    });

    it('a One2Many is read-only through the generic commands', async () => {
      const org = await w('fw.create', { model: 'res.organization', values: { name: 'O2M' } });
      expect(errorCodes(await expectFwError(w('fw.update', { model: 'res.organization', id: org.id, values: { users: [] } }), 422, 'VALIDATION_FAILED')))
        .toEqual({ users: 'READONLY_FIELD' });
    });

    it('a duplicate unique value answers 409 UNIQUE_VIOLATION and nothing is written', async () => {
      const err = await expectFwError(w('fw.create', { model: 'res.country', values: { name: 'Francia bis', code: 'FR' } }), 409, 'UNIQUE_VIOLATION');
      expect(err.details).toMatchObject({ model: 'res.country' });
      expect(await w('fw.count', { model: 'res.country', domain: [['name', '=', 'Francia bis']] })).toEqual({ count: 0 });
      await expectFwError(w('fw.create', { model: 'res.organization', values: { name: 'Another default', code: 'default' } }), 409, 'UNIQUE_VIOLATION');
    });

    it('a reference to a record that does not exist answers 422 INVALID_REFERENCE', async () => {
      await expectFwError(lead({ name: 'Ghost country', country: crypto.randomUUID() }), 422, 'INVALID_REFERENCE');
      expect(await w('fw.count', { model: 'crm.lead', domain: [['name', '=', 'Ghost country']] })).toEqual({ count: 0 });
    });

    it('deleting a country a lead refers to (optional reference, on_delete set null) clears the lead\'s country', async () => {
      const land = await w('fw.create', { model: 'res.country', values: { name: 'Testland', code: 'QM' } });
      const l = await lead({ name: 'Testland lead', country: land.id });
      await w('fw.delete', { model: 'res.country', id: land.id });
      expect(await w('fw.read_one', { model: 'crm.lead', id: l.id })).toMatchObject({ name: 'Testland lead', country: null });
    });

    it('deleting a country an organization refers to sets res.organization.country to null', async () => {
      const land = await w('fw.create', { model: 'res.country', values: { name: 'Otherland', code: 'QN' } });
      const org = await w('fw.create', { model: 'res.organization', values: { name: 'Otherland Org', country: land.id } });
      await w('fw.delete', { model: 'res.country', id: land.id });
      expect(await w('fw.read_one', { model: 'res.organization', id: org.id })).toMatchObject({ country: null, name: 'Otherland Org' });
    });

    it('deleting an organization that leads and users still belong to is refused with 409 RECORD_REFERENCED naming them; once they are gone it is deleted', async () => {
      const org = await w('fw.create', { model: 'res.organization', values: { name: 'Short lived' } });
      const l = await lead({ name: 'Orphan to be', organization: org.id });
      const u = await w('res.user.register', { email: 'short@lived.test', name: 'Short', password: 'password-1', organization: org.id });
      const err = await expectFwError(w('fw.delete', { model: 'res.organization', id: org.id }), 409, 'RECORD_REFERENCED');
      expect(err.details).toEqual({
        model: 'res.organization', id: org.id,
        references: [
          { model: 'res.user', field: 'organization', on_delete: 'set null', count: 1 },
          { model: 'crm.lead', field: 'organization', on_delete: 'cascade', count: 1 },
        ],
      });
      expect(err.message).toBe('Organization "Short lived" is still referred to by 1 res.user (organization) and 1 crm.lead (organization); delete them or move them to another organization first');
      // nothing was cascaded or detached
      expect(await w('fw.read_one', { model: 'crm.lead', id: l.id })).toMatchObject({ organization: org.id });
      expect(await w('fw.read_one', { model: 'res.user', id: u.id })).toMatchObject({ organization: org.id });
      await w('fw.delete', { model: 'crm.lead', id: l.id });
      await w('fw.delete', { model: 'res.user', id: u.id });
      expect(await w('fw.delete', { model: 'res.organization', id: org.id })).toEqual({ id: org.id, deleted: true });
    });

    it('password_hash (private) is never returned by reads, cannot be selected, filtered, ordered or written generically', async () => {
      const sys = systemPrincipal(W);
      for (const p of [wAdmin, sys]) {
        const users = await kernel.dispatch<Page>('fw.search', { model: 'res.user' }, p);
        expect(users.items.length).toBeGreaterThan(0);
        for (const u of users.items) expect(u).not.toHaveProperty('password_hash');
        const one = await kernel.dispatch<Rec>('fw.read_one', { model: 'res.user', id: users.items[0].id }, p);
        expect(one).not.toHaveProperty('password_hash');
      }
      await expectFwError(w('fw.search', { model: 'res.user', fields: ['password_hash'] }), 400, 'INVALID_FIELDS');
      await expectFwError(w('fw.search', { model: 'res.user', domain: [['password_hash', '!=', null]] }), 400, 'INVALID_DOMAIN');
      await expectFwError(w('fw.search', { model: 'res.user', domain: [['password_hash', 'like', '$2']] }), 400, 'INVALID_DOMAIN');
      await expectFwError(w('fw.read_group', { model: 'res.user', groupby: ['password_hash'] }), 400, 'INVALID_GROUPING');
      const [admin] = (await w<Page>('fw.search', { model: 'res.user', domain: [['role', '=', 'admin']] })).items;
      expect(errorCodes(await expectFwError(w('fw.update', { model: 'res.user', id: admin.id, values: { password_hash: 'x' } }), 422, 'VALIDATION_FAILED')))
        .toEqual({ password_hash: 'UNKNOWN_FIELD' });
    });
  });

  describe('batch commands', () => {
    const w = <T = Rec>(command: string, payload: Record<string, unknown>) => kernel.dispatch<T>(command, payload, wAdmin);

    it('fw.create_many creates every record, or none when one is invalid, and names the invalid one (values[i], details.index)', async () => {
      const made = await w<Rec[]>('fw.create_many', { model: 'crm.lead', values: [{ name: 'Batch a', notes: 'batch' }, { name: 'Batch b', notes: 'batch' }] });
      expect(made.map((r) => r.name)).toEqual(['Batch a', 'Batch b']);
      const err = await expectFwError(w('fw.create_many', { model: 'crm.lead', values: [{ name: 'Batch c', notes: 'batch' }, { name: 'Batch d', notes: 'batch' }, { stage: 'bogus' }] }), 422, 'VALIDATION_FAILED');
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.message).toMatch(/^values\[2\]: /);
      expect(err.details).toMatchObject({ index: 2, model: 'crm.lead' });
      expect(errorCodes(err)).toEqual({ stage: 'INVALID_ENUM' });
      // a hook's refusal too
      const hook = await expectFwError(w('fw.create_many', { model: 'crm.lead', values: [{ name: 'Batch e', notes: 'batch', probability: 2 }] }), 422, 'INVALID_PROBABILITY');
      expect(hook.details).toMatchObject({ index: 0 });
      expect(await w('fw.count', { model: 'crm.lead', domain: [['notes', '=', 'batch']] })).toEqual({ count: 2 });
    });

    it('fw.update_many and fw.delete_many act on every record matching the domain, and name the records they touched', async () => {
      const made = await w<Rec[]>('fw.create_many', { model: 'crm.lead', values: [{ name: 'Many 1', notes: 'many' }, { name: 'Many 2', notes: 'many' }] });
      const ids = made.map((r) => r.id);
      expect(await w('fw.update_many', { model: 'crm.lead', domain: [['notes', '=', 'many']], values: { stage: 'lost' } })).toEqual({ count: 2, ids });
      expect(await w('fw.count', { model: 'crm.lead', domain: [['notes', '=', 'many'], ['stage', '=', 'lost']] })).toEqual({ count: 2 });
      expect(await w('fw.delete_many', { model: 'crm.lead', domain: [['notes', '=', 'many']] })).toEqual({ count: 2, ids });
      expect(await w('fw.count', { model: 'crm.lead', domain: [['notes', '=', 'many']] })).toEqual({ count: 0 });
    });
  });
});
