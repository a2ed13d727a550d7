/**
 * Relations resolve without N+1: the SQL statements a list with nested relations costs do not
 * grow with the page size (counted with the clients' query listener).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OrganizationsWithCountryDocument, OrganizationsWithUsersDocument } from '../../generated/gql/graphql.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { adminToken, countQueries, gqlOk } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let token: string;

beforeAll(async () => {
  ts = await startTestServer();
  token = await adminToken(ts);
  const system = systemPrincipal('default');
  const countries = await ts.kernel.dispatch<{ items: Array<{ id: string }> }>('fw.search', { model: 'res.country', limit: 60 }, system);
  // 60 organizations, each in a different country; every third one gets two users
  const orgs = await ts.kernel.dispatch<Array<{ id: string }>>('fw.create_many', {
    model: 'res.organization',
    values: countries.items.map((c, i) => ({ name: `N1 Org ${String(i).padStart(2, '0')}`, country: c.id })),
  }, system);
  const users = orgs.filter((_, i) => i % 3 === 0).flatMap((o, i) => [0, 1].map((k) => ({
    model: 'res.user', values: { email: `n1-${i}-${k}@example.com`, name: `N1 User ${i}.${k}`, organization: o.id },
  })));
  for (const u of users) await ts.kernel.dispatch('fw.create', u, system);
  // warm the session cache so the counted requests only run the queries of the operation itself
  await gqlOk(ts, '{ me { id } }', {}, { token });
});

afterAll(async () => {
  await ts?.close();
});

it('a list of organizations with their country costs 1 SQL statement for 5 records and for 50 (the country is joined)', async () => {
  const five = await countQueries(() => gqlOk(ts, OrganizationsWithCountryDocument, { limit: 5 }, { token }));
  const fifty = await countQueries(() => gqlOk(ts, OrganizationsWithCountryDocument, { limit: 50 }, { token }));
  expect(five.result.resOrganizations).toHaveLength(5);
  expect(fifty.result.resOrganizations).toHaveLength(50);
  expect(fifty.result.resOrganizations.filter((o) => o.country?.code).length).toBeGreaterThanOrEqual(49);
  expect(five.count, five.queries.join('\n')).toBe(1);
  expect(fifty.count, fifty.queries.join('\n')).toBe(1);
});

it('a joined Reference answers exactly what its own batched load answers', async () => {
  // two response keys for one Reference are not joined: each loads through its resolver
  const q = (keys: string) => `{ resOrganizations(limit: 60, orderBy: [{ name: asc }]) { name ${keys} } }`;
  const joined = await countQueries(() => gqlOk(ts, q('country { code name }'), {}, { token }));
  const loaded = await countQueries(() => gqlOk(ts, q('country { code name } other: country { code }'), {}, { token }));
  expect(joined.count).toBe(1);
  // the organizations, then one batched search per distinct field list (code name, code)
  expect(loaded.count).toBe(3);
  const strip = (rows: Array<{ name: string; country: unknown }>) => rows.map((r) => ({ name: r.name, country: r.country }));
  expect(strip(joined.result.resOrganizations)).toEqual(strip(loaded.result.resOrganizations));
  expect(joined.result.resOrganizations.filter((o: { country: unknown }) => o.country).length).toBeGreaterThanOrEqual(59);
});

it('a selection with @include/@skip is not looked ahead into: its References load as before, with the same answer', async () => {
  const q = 'query($on: Boolean!) { resOrganizations(limit: 5, orderBy: [{ name: asc }]) { name country @include(if: $on) { code } } }';
  const on = await countQueries(() => gqlOk(ts, q, { on: true }, { token }));
  const off = await countQueries(() => gqlOk(ts, q, { on: false }, { token }));
  expect(on.count).toBe(2);
  expect(off.count).toBe(1);
  const plain = await gqlOk(ts, '{ resOrganizations(limit: 5, orderBy: [{ name: asc }]) { name country { code } } }', {}, { token });
  expect(on.result.resOrganizations).toEqual(plain.resOrganizations);
  expect(off.result.resOrganizations.every((o: { country?: unknown }) => o.country === undefined)).toBe(true);
});

it('a one2many with a nested reference (organizations → users → organization) costs the same queries for 5 and 50 records', async () => {
  const five = await countQueries(() => gqlOk(ts, OrganizationsWithUsersDocument, { limit: 5 }, { token }));
  const fifty = await countQueries(() => gqlOk(ts, OrganizationsWithUsersDocument, { limit: 50 }, { token }));
  const withUsers = fifty.result.resOrganizations.filter((o) => o.users.length > 0);
  expect(withUsers.length).toBeGreaterThan(10);
  for (const o of withUsers) for (const u of o.users) expect(u.organization?.name).toBe(o.name);
  // parents, children, referenced parents: one statement each
  expect(five.count, five.queries.join('\n')).toBe(3);
  expect(fifty.count, fifty.queries.join('\n')).toBe(3);
});

it('a reference that only asks for the id needs no query at all', async () => {
  const r = await countQueries(() => gqlOk(ts, '{ resOrganizations(limit: 50) { id country { id } } }', {}, { token }));
  expect(r.result.resOrganizations.filter((o: { country: { id: string } | null }) => o.country?.id).length).toBeGreaterThanOrEqual(49);
  expect(r.count, r.queries.join('\n')).toBe(1);
});

it('the connection with nested references stays constant too (page + count + one per relation)', async () => {
  const q = 'query($n: Int) { resOrganizationsConnection(first: $n) { totalCount edges { node { name country { name } } } } }';
  const five = await countQueries(() => gqlOk(ts, q, { n: 5 }, { token }));
  const fifty = await countQueries(() => gqlOk(ts, q, { n: 50 }, { token }));
  expect(fifty.result.resOrganizationsConnection.edges).toHaveLength(50);
  expect(five.count).toBe(fifty.count);
  expect(fifty.count, fifty.queries.join('\n')).toBe(3);
});

it('a list reads only the columns its selection needs, through fragments and inline fragments too', async () => {
  const q = `query { resOrganizations(limit: 5) { ...Named country { ... on ResCountry { code } } } }
    fragment Named on ResOrganization { id name }`;
  const r = await countQueries(() => gqlOk(ts, q, {}, { token }));
  expect(r.result.resOrganizations.find((o: { country: unknown }) => o.country)).toEqual({ id: expect.any(String), name: expect.any(String), country: { code: expect.any(String) } });
  // one statement: the organization's columns (t0) and the joined country's (j1); ORDER BY may name others
  expect(r.count).toBe(1);
  const select = r.queries[0].slice(0, r.queries[0].indexOf(' from '));
  expect(select).toMatch(/"t0"."name"/);
  expect(select).toMatch(/"t0"."country"/);
  expect(select).not.toMatch(/"t0"."is_active"|"t0"."code"/);
  expect(select).toMatch(/"j1"."code"/);
  expect(select).not.toMatch(/"j1"."name"/);
});
