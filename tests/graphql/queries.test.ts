/**
 * The generic GraphQL queries compiled from the registry: one record, lists with where/orderBy/
 * limit/offset, the cursor connection, counts, groupBy with aggregates, and the typed filters
 * per field type (scalar operators, AND/OR/NOT, reference `is`, one2many some/none/every).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OrganizationCountDocument,
  OrganizationDocument,
  OrganizationsFilteredDocument,
  OrganizationsPageDocument,
  type OrganizationsPageQuery,
} from '../../generated/gql/graphql.ts';
import { adminToken, gql, gqlError, gqlOk } from '../helpers/api.ts';
import { startTestServer, type Provider, type TestServer } from '../helpers/server.ts';

for (const provider of ['sqlite', 'postgresql'] as Provider[]) describe(provider, () => {
  let ts: TestServer;
  let token: string;
  const country: Record<string, string> = {};
  const org: Record<string, string> = {};
  const lead: Record<string, string> = {};

  const ORGS = [
    { key: 'acme', name: 'Acme Corp', code: 'acme', country: 'FR' },
    { key: 'acmeLabs', name: 'acme labs', code: 'acme-labs', country: 'DE' },
    { key: 'beta', name: 'Beta GmbH', code: 'beta', country: 'DE', is_active: false },
    { key: 'gamma', name: 'Gamma Inc', code: 'gamma', country: 'US' },
    { key: 'delta', name: 'Delta', code: 'delta', country: null },
  ];

  /** Names of the organizations a `where` selects, sorted. */
  async function orgNames(where: Record<string, unknown>): Promise<string[]> {
    const data = await gqlOk(ts, OrganizationsFilteredDocument, { where, orderBy: [{ name: 'asc' }] }, { token });
    return data.resOrganizations.map((o: { name: string }) => o.name).sort();
  }

  /** Names of the leads a `where` selects, sorted. */
  async function leadNames(where: Record<string, unknown>): Promise<string[]> {
    const data = await gqlOk(ts, 'query($where: CrmLeadWhere) { crmLeads(where: $where) { name } }', { where }, { token });
    return data.crmLeads.map((l: { name: string }) => l.name).sort();
  }

  beforeAll(async () => {
    ts = await startTestServer({}, { provider });
    token = await adminToken(ts);
    const countries = await gqlOk(ts, '{ resCountries(where: { code: { in: ["FR", "DE", "US"] } }) { id code } }', {}, { token });
    for (const c of countries.resCountries) country[c.code] = c.id;

    const created = await gqlOk(ts, 'mutation($inputs: [ResOrganizationCreateInput!]!) { resOrganizationCreateMany(inputs: $inputs) { id code } }', {
      inputs: ORGS.map(({ key: _k, country: c, ...o }) => ({ ...o, country: c ? country[c] : null })),
    }, { token });
    for (const o of created.resOrganizationCreateMany) org[ORGS.find((x) => x.code === o.code)!.key] = o.id;
    org.default = (await gqlOk(ts, '{ resOrganizations(where: { code: { eq: "default" } }) { id } }', {}, { token })).resOrganizations[0].id;

    // users: Acme all active, Beta all inactive, Gamma mixed, acme labs and Delta none
    const users = [
      ['alice@acme.test', 'acme', true], ['bob@acme.test', 'acme', true],
      ['carol@beta.test', 'beta', false],
      ['dave@gamma.test', 'gamma', true], ['erin@gamma.test', 'gamma', false],
    ] as const;
    for (const [email, o, active] of users) {
      const u = await gqlOk(ts, 'mutation($e: String!, $o: ID!) { resUserRegister(email: $e, name: $e, password: "password-123", organization: $o) { id } }',
        { e: email, o: org[o] }, { token });
      if (!active) await gqlOk(ts, 'mutation($id: ID!) { resUserDeactivate(id: $id) { id is_active } }', { id: u.resUserRegister.id }, { token });
    }

    const leads = [
      { name: 'Lead One', stage: 'new', expected_revenue: 100, probability: 0.1, organization: org.acme, email: 'one@lead.test' },
      { name: 'Lead Two', stage: 'qualified', expected_revenue: 250, probability: 0.5, organization: org.acme },
      { name: 'Lead Three', stage: 'won', expected_revenue: 1000, probability: 1, organization: org.gamma, closed_at: '2026-01-15T00:00:00.000Z' },
      { name: 'Lead Four', stage: 'qualified', expected_revenue: 400, probability: 0.4, organization: org.gamma },
      { name: 'Lead Five', stage: 'lost', expected_revenue: 0, organization: org.beta, closed_at: '2025-06-01T00:00:00.000Z' },
    ];
    const l = await gqlOk(ts, 'mutation($inputs: [CrmLeadCreateInput!]!) { crmLeadCreateMany(inputs: $inputs) { id name } }', { inputs: leads }, { token });
    for (const x of l.crmLeadCreateMany) lead[x.name] = x.id;
  });

  afterAll(async () => {
    await ts?.close();
  });

  describe('one record and lists', () => {
    it('resOrganization(id) returns the record with its nested reference', async () => {
      const data = await gqlOk(ts, OrganizationDocument, { id: org.acme }, { token });
      expect(data.resOrganization).toMatchObject({ id: org.acme, name: 'Acme Corp', code: 'acme', is_active: true, revision: 1, country: { id: country.FR, code: 'FR' } });
    });

    it('resOrganization(id) of an unknown id is null, not an error', async () => {
      const data = await gqlOk(ts, OrganizationDocument, { id: '00000000-0000-4000-8000-000000000000' }, { token });
      expect(data.resOrganization).toBeNull();
    });

    it('resOrganization(id) of an id that is no UUID is null too, and does not fail the records loaded beside it', async () => {
      expect((await gqlOk(ts, OrganizationDocument, { id: 'nope' }, { token })).resOrganization).toBeNull();
      const both = await gqlOk(ts, `{ a: resOrganization(id: "${org.acme}") { name } b: resOrganization(id: "nope") { name } }`, {}, { token });
      expect(both).toEqual({ a: { name: 'Acme Corp' }, b: null });
    });

    it('resOrganizations orders by orderBy (several keys) and pages with limit and offset', async () => {
      const asc = await gqlOk(ts, OrganizationsFilteredDocument, { orderBy: [{ name: 'asc' }] }, { token });
      const desc = await gqlOk(ts, OrganizationsFilteredDocument, { orderBy: [{ name: 'desc' }] }, { token });
      expect(desc.resOrganizations).toHaveLength(6);
      expect(desc.resOrganizations.map((o) => o.name)).toEqual(asc.resOrganizations.map((o) => o.name).reverse());

      const byCode = await gqlOk(ts, 'query($o: [ResOrganizationOrderBy!]) { resOrganizations(orderBy: $o) { code } }', { o: [{ code: 'asc' }] }, { token });
      expect(byCode.resOrganizations.map((o: { code: string }) => o.code)).toEqual(['acme', 'acme-labs', 'beta', 'default', 'delta', 'gamma']);

      const multi = await gqlOk(ts, 'query($o: [ResOrganizationOrderBy!]) { resOrganizations(orderBy: $o) { code } }', { o: [{ is_active: 'asc' }, { code: 'desc' }] }, { token });
      expect(multi.resOrganizations.map((o: { code: string }) => o.code)).toEqual(['beta', 'gamma', 'delta', 'default', 'acme-labs', 'acme']);

      const page = await gqlOk(ts, 'query { resOrganizations(orderBy: [{ code: asc }], limit: 2, offset: 1) { code } }', {}, { token });
      expect(page.resOrganizations.map((o: { code: string }) => o.code)).toEqual(['acme-labs', 'beta']);
    });

    it('resOrganizations without limit returns at most the default page size (50)', async () => {
      const data = await gqlOk(ts, '{ resCountries { id } }', {}, { token });
      expect(data.resCountries).toHaveLength(50);
      const big = await gqlOk(ts, '{ resCountries(limit: 500) { id } }', {}, { token });
      expect(big.resCountries.length).toBeGreaterThan(200);
    });

    it('resOrganizationsConnection pages through every record with cursors and pageInfo', async () => {
      const all = await gqlOk(ts, OrganizationsFilteredDocument, { orderBy: [{ name: 'asc' }], limit: 100 }, { token });
      const expected = all.resOrganizations.map((o) => o.id);
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const data: OrganizationsPageQuery = await gqlOk(ts, OrganizationsPageDocument, { first: 4, after }, { token });
        const c = data.resOrganizationsConnection;
        const edges = c.edges!;
        const pageInfo = c.pageInfo!;
        pages += 1;
        expect(c.totalCount).toBe(6);
        expect(pageInfo.hasPreviousPage).toBe(after !== null);
        expect(pageInfo.startCursor).toBe(edges[0].cursor);
        expect(pageInfo.endCursor).toBe(edges.at(-1)!.cursor);
        seen.push(...edges.map((e) => e.node!.id));
        if (!pageInfo.hasNextPage) break;
        after = pageInfo.endCursor!;
        expect(pages).toBeLessThan(10);
      }
      expect(pages).toBe(2);
      expect(seen).toEqual(expected);
    });

    it('a connection past the end is empty with null cursors and hasNextPage false', async () => {
      const first = await gqlOk(ts, OrganizationsPageDocument, { first: 6 }, { token });
      const data = await gqlOk(ts, OrganizationsPageDocument, { first: 2, after: first.resOrganizationsConnection.pageInfo!.endCursor }, { token });
      expect(data.resOrganizationsConnection.edges).toEqual([]);
      expect(data.resOrganizationsConnection.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
    });

    it('a connection filters like the list (where) and counts only the matches', async () => {
      const data = await gqlOk(ts, OrganizationsPageDocument, { first: 1, where: { name: { contains: 'cme' } } }, { token });
      expect(data.resOrganizationsConnection.totalCount).toBe(2);
      expect(data.resOrganizationsConnection.pageInfo!.hasNextPage).toBe(true);
    });

    it('an invalid cursor is a 400 BAD_REQUEST, not an internal error', async () => {
      const res = await gql(ts, OrganizationsPageDocument, { first: 1, after: 'not-a-cursor' }, { token });
      gqlError(res, 'BAD_REQUEST', 400);
    });

    it('resOrganizationCount counts the records a where selects', async () => {
      expect((await gqlOk(ts, OrganizationCountDocument, {}, { token })).resOrganizationCount).toBe(6);
      const de = await gqlOk(ts, OrganizationCountDocument, { where: { country: { is: { code: { eq: 'DE' } } } } }, { token });
      expect(de.resOrganizationCount).toBe(2);
    });

    it('crmLeadGroupBy returns one group per key with count and the requested aggregates', async () => {
      const data = await gqlOk(ts, `{ crmLeadGroupBy(by: [stage], aggregates: { expected_revenue: "sum", probability: "max" }) { key count aggregates } }`, {}, { token });
      const byStage = Object.fromEntries(data.crmLeadGroupBy.map((g: { key: { stage: string } }) => [g.key.stage, g]));
      expect(Object.keys(byStage).sort()).toEqual(['lost', 'new', 'qualified', 'won']);
      expect(byStage.qualified).toEqual({ key: { stage: 'qualified' }, count: 2, aggregates: { expected_revenue_sum: 650, probability_max: 0.5 } });
      expect(byStage.won).toMatchObject({ count: 1, aggregates: { expected_revenue_sum: 1000, probability_max: 1 } });
      expect(byStage.lost).toMatchObject({ count: 1, aggregates: { expected_revenue_sum: 0, probability_max: null } });
    });

    it('groupBy takes a where and several keys', async () => {
      const data = await gqlOk(ts, `query($w: CrmLeadWhere) { crmLeadGroupBy(by: [organization, stage], where: $w, aggregates: { expected_revenue: "avg" }) { key count aggregates } }`,
        { w: { organization: { eq: org.acme } } }, { token });
      expect(data.crmLeadGroupBy).toEqual([
        { key: { organization: org.acme, stage: 'new' }, count: 1, aggregates: { expected_revenue_avg: 100 } },
        { key: { organization: org.acme, stage: 'qualified' }, count: 1, aggregates: { expected_revenue_avg: 250 } },
      ]);
    });

    it('groupBy with an unknown aggregate is a 400 INVALID_GROUPING', async () => {
      const res = await gql(ts, '{ crmLeadGroupBy(by: [stage], aggregates: { expected_revenue: "median" }) { count } }', {}, { token });
      gqlError(res, 'INVALID_GROUPING', 400);
    });
  });

  describe('typed filters', () => {
    it('String: eq, ne, in, notIn', async () => {
      expect(await orgNames({ name: { eq: 'Delta' } })).toEqual(['Delta']);
      expect(await orgNames({ name: { ne: 'Delta' } })).toHaveLength(5);
      expect(await orgNames({ name: { in: ['Delta', 'Gamma Inc', 'nope'] } })).toEqual(['Delta', 'Gamma Inc']);
      expect(await orgNames({ code: { notIn: ['acme', 'acme-labs', 'default'] } })).toEqual(['Beta GmbH', 'Delta', 'Gamma Inc']);
    });

    it('String: lt, lte, gt, gte compare text', async () => {
      expect(await orgNames({ code: { lt: 'b' } })).toEqual(['Acme Corp', 'acme labs']);
      expect(await orgNames({ code: { lte: 'beta' } })).toEqual(['Acme Corp', 'Beta GmbH', 'acme labs']);
      expect(await orgNames({ code: { gt: 'delta' } })).toEqual(['Gamma Inc']);
      expect(await orgNames({ code: { gte: 'delta' } })).toEqual(['Delta', 'Gamma Inc']);
    });

    it('String: contains and startsWith', async () => {
      expect(await orgNames({ name: { contains: 'cme' } })).toEqual(['Acme Corp', 'acme labs']);
      expect(await orgNames({ name: { startsWith: 'Gam' } })).toEqual(['Gamma Inc']);
      expect(await orgNames({ code: { startsWith: 'acme-' } })).toEqual(['acme labs']);
    });

    it('String: mode insensitive ignores case for contains, startsWith', async () => {
      expect(await orgNames({ name: { contains: 'ACME', mode: 'insensitive' } })).toEqual(['Acme Corp', 'acme labs']);
      expect(await orgNames({ name: { startsWith: 'ACME', mode: 'insensitive' } })).toEqual(['Acme Corp', 'acme labs']);
      expect(await orgNames({ name: { startsWith: 'gAMMA', mode: 'insensitive' } })).toEqual(['Gamma Inc']);
    });

    // SQLite's LIKE is ASCII-case-insensitive whatever the mode; only PostgreSQL tells the modes apart
    it.runIf(provider === 'postgresql')('String: the default mode of contains and startsWith is case-sensitive (PostgreSQL)', async () => {
      expect(await orgNames({ name: { contains: 'ACME' } })).toEqual([]);
      expect(await orgNames({ name: { startsWith: 'Acme' } })).toEqual(['Acme Corp']);
      expect(await orgNames({ name: { contains: 'acme', mode: 'default' } })).toEqual(['acme labs']);
    });

    it('Int: eq, ne, in, notIn, lt, lte, gt, gte', async () => {
      expect(await leadNames({ expected_revenue: { eq: 250 } })).toEqual(['Lead Two']);
      expect(await leadNames({ expected_revenue: { ne: 250 } })).toEqual(['Lead Five', 'Lead Four', 'Lead One', 'Lead Three']);
      expect(await leadNames({ expected_revenue: { in: [0, 1000] } })).toEqual(['Lead Five', 'Lead Three']);
      expect(await leadNames({ expected_revenue: { notIn: [0, 1000] } })).toEqual(['Lead Four', 'Lead One', 'Lead Two']);
      expect(await leadNames({ expected_revenue: { lt: 250 } })).toEqual(['Lead Five', 'Lead One']);
      expect(await leadNames({ expected_revenue: { lte: 250 } })).toEqual(['Lead Five', 'Lead One', 'Lead Two']);
      expect(await leadNames({ expected_revenue: { gt: 400 } })).toEqual(['Lead Three']);
      expect(await leadNames({ expected_revenue: { gte: 400 } })).toEqual(['Lead Four', 'Lead Three']);
    });

    it('Float: comparisons, and ne keeps records where the value is null', async () => {
      expect(await leadNames({ probability: { gt: 0.45 } })).toEqual(['Lead Three', 'Lead Two']);
      expect(await leadNames({ probability: { lte: 0.4 } })).toEqual(['Lead Four', 'Lead One']);
      expect(await leadNames({ probability: { ne: 0.5 } })).toEqual(['Lead Five', 'Lead Four', 'Lead One', 'Lead Three']);
    });

    it('Boolean: eq and ne', async () => {
      expect(await orgNames({ is_active: { eq: false } })).toEqual(['Beta GmbH']);
      expect(await orgNames({ is_active: { ne: true } })).toEqual(['Beta GmbH']);
    });

    it('DateTime: gt and lt take ISO 8601', async () => {
      expect(await leadNames({ closed_at: { gt: '2025-12-31T00:00:00Z' } })).toEqual(['Lead Three']);
      expect(await leadNames({ closed_at: { lt: '2025-12-31T00:00:00Z' } })).toEqual(['Lead Five']);
      expect(await leadNames({ closed_at: { gte: '2025-06-01T00:00:00Z', lte: '2026-01-15T00:00:00Z' } })).toEqual(['Lead Five', 'Lead Three']);
    });

    it('Enum: eq, ne, in, notIn use the enum values', async () => {
      expect(await leadNames({ stage: { eq: 'won' } })).toEqual(['Lead Three']);
      expect(await leadNames({ stage: { in: ['qualified', 'won'] } })).toEqual(['Lead Four', 'Lead Three', 'Lead Two']);
      expect(await leadNames({ stage: { notIn: ['qualified', 'won'] } })).toEqual(['Lead Five', 'Lead One']);
      expect(await leadNames({ stage: { ne: 'qualified' } })).toHaveLength(3);
    });

    it('an enum filter refuses a value outside the enum (GraphQL validation)', async () => {
      const res = await gql(ts, '{ crmLeads(where: { stage: { eq: bogus } }) { id } }', {}, { token });
      expect(res.body.errors?.[0].message).toMatch(/bogus/);
      expect(res.body.data ?? null).toBeNull();
    });

    it('id: eq and in select by record id', async () => {
      expect(await orgNames({ id: { eq: org.delta } })).toEqual(['Delta']);
      expect(await orgNames({ id: { in: [org.delta, org.acme] } })).toEqual(['Acme Corp', 'Delta']);
    });

    it('Reference: eq / ne / in on the target id, and `is` filters through the referenced record', async () => {
      expect(await orgNames({ country: { eq: country.FR } })).toEqual(['Acme Corp']);
      expect(await orgNames({ country: { in: [country.FR, country.US] } })).toEqual(['Acme Corp', 'Gamma Inc']);
      expect(await orgNames({ country: { ne: country.DE } })).toEqual(['Acme Corp', 'Default Organization', 'Delta', 'Gamma Inc']);
      expect(await orgNames({ country: { is: { code: { eq: 'DE' } } } })).toEqual(['Beta GmbH', 'acme labs']);
      // two hops: leads whose organization is in the US
      expect(await leadNames({ organization: { is: { country: { is: { code: { eq: 'US' } } } } } })).toEqual(['Lead Four', 'Lead Three']);
    });

    it('One2Many: some, none and every over res.organization.users', async () => {
      const inactive = { is_active: { eq: false } };
      expect(await orgNames({ users: { some: inactive } })).toEqual(['Beta GmbH', 'Gamma Inc']);
      expect(await orgNames({ users: { none: inactive } })).toEqual(['Acme Corp', 'Default Organization', 'Delta', 'acme labs']);
      // every holds vacuously for organizations without users
      expect(await orgNames({ users: { every: { is_active: { eq: true } } } })).toEqual(['Acme Corp', 'Default Organization', 'Delta', 'acme labs']);
      expect(await orgNames({ users: { every: inactive } })).toEqual(['Beta GmbH', 'Delta', 'acme labs']);
      expect(await orgNames({ users: { some: { email: { startsWith: 'alice' } } } })).toEqual(['Acme Corp']);
    });

    it('AND, OR and NOT combine filters', async () => {
      expect(await orgNames({ OR: [{ code: { eq: 'acme' } }, { code: { eq: 'delta' } }] })).toEqual(['Acme Corp', 'Delta']);
      expect(await orgNames({ AND: [{ country: { is: { code: { eq: 'DE' } } } }, { is_active: { eq: true } }] })).toEqual(['acme labs']);
      expect(await orgNames({ NOT: { name: { contains: 'cme' } } })).toEqual(['Beta GmbH', 'Default Organization', 'Delta', 'Gamma Inc']);
      // nested: (DE or FR) and not Beta
      expect(await orgNames({
        OR: [{ country: { eq: country.DE } }, { country: { eq: country.FR } }],
        NOT: { code: { eq: 'beta' } },
      })).toEqual(['Acme Corp', 'acme labs']);
      // fields of one where are ANDed
      expect(await orgNames({ name: { contains: 'cme' }, country: { eq: country.FR } })).toEqual(['Acme Corp']);
    });

    it('a filter value of the wrong type is rejected by GraphQL validation', async () => {
      const res = await gql(ts, '{ crmLeads(where: { expected_revenue: { eq: "many" } }) { id } }', {}, { token });
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expect(res.status).not.toBe(500);
    });
  });
});
