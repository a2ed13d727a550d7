/**
 * A list reads the References its items select in its own statement (src/server/graphql/schema.ts,
 * `primeIncluded`): for a caller bound by record rules, each Reference answers what it answers
 * when loaded on its own: the record when the caller may read it, null when the target's rules
 * hide it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countQueries, gqlOk } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let seller: string;

beforeAll(async () => {
  t = await startTestServer({ ACTIVE_DOMAINS: 'crm' });
  const admin = (await t.loginAdmin()).access_token;
  const orgA = await t.createOrg(admin, 'Joined A');
  const orgB = await t.createOrg(admin, 'Joined B');
  await t.createUser(admin, { email: 'seller-a@joined.example.com', name: 'Seller A', password: 'joined-pass-1', organization: orgA });
  const userA = (await t.request('GET', `/api/data/res.user?filter=${encodeURIComponent('[["email","=","seller-a@joined.example.com"]]')}`, { token: admin })).body.items[0].id;
  const userB = (await t.createUser(admin, { email: 'seller-b@joined.example.com', name: 'Seller B', password: 'joined-pass-1', organization: orgB })).id;
  // two leads of A: sold by A's user, and by B's, whom A's users may not read (res.user's rule)
  for (const [name, salesperson] of [['Joined own', userA], ['Joined other', userB]]) {
    const r = await t.request('POST', '/api/data/crm.lead', { token: admin, body: { name, organization: orgA, salesperson } });
    expect(r.status).toBe(201);
  }
  seller = (await t.login('seller-a@joined.example.com', 'joined-pass-1')).access_token;
});

afterAll(async () => {
  await t?.close();
});

const LIST = '{ crmLeads(orderBy: [{ name: asc }]) { name salesperson { name } } }';

it('a Reference the caller may read comes from the list\'s statement; one the rules hide is null, as its own load answers', async () => {
  await gqlOk(t, LIST, {}, { token: seller }); // warm the session
  const joined = await countQueries(() => gqlOk(t, LIST, {}, { token: seller }));
  expect(joined.result.crmLeads).toEqual([
    { name: 'Joined other', salesperson: null },
    { name: 'Joined own', salesperson: { name: 'Seller A' } },
  ]);
  // the same answer through the loaders alone (two response keys are not joined)
  const loaded = await gqlOk(t, '{ crmLeads(orderBy: [{ name: asc }]) { name salesperson { name } again: salesperson { name } } }', {}, { token: seller });
  expect(loaded.crmLeads.map((l: { name: string; salesperson: unknown }) => ({ name: l.name, salesperson: l.salesperson }))).toEqual(joined.result.crmLeads);
  // the list with the readable seller in one statement; the hidden one asked once more, by its loader
  expect(joined.count, joined.queries.join('\n')).toBe(2);
});
