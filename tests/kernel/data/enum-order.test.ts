/**
 * An enum sorts by its declaration order, not alphabetically: crm.lead's stage is declared
 * new, qualified, won, lost, so `stage asc` lists them so (alphabetically it would be lost, new,
 * qualified, won) and `stage desc` the other way round. On both engines and through every read
 * path: fw.search on the reader (compiled SQL), fw.search inside a transaction (Prisma, sorted in
 * JavaScript), the REST list, GraphQL orderBy; read_group's groups (kanban columns) too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { gqlOk } from '../../helpers/api.ts';
import { PROVIDERS } from '../../helpers/kernel.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

type Rec = Record<string, any>;
const DECLARED = ['new', 'qualified', 'won', 'lost'];
/** Inserted in neither declared nor alphabetical order. */
const INSERTED = ['won', 'lost', 'new', 'qualified', 'lost', 'new'];
const ours = [['email', '=', 'order@enum.test']];
const byRank = (dir: 1 | -1) => (a: string, b: string) => dir * (DECLARED.indexOf(a) - DECLARED.indexOf(b));

it('the declared order differs from the alphabetical one (so the test can fail)', () => {
  expect([...DECLARED].sort()).not.toEqual(DECLARED);
});

describe.each(PROVIDERS)('enum fields sort by declaration order on %s', (provider) => {
  let ts: TestServer;
  let token: string;

  beforeAll(async () => {
    ts = await startTestServer({}, { provider });
    token = (await ts.loginAdmin()).access_token;
    for (const [i, stage] of INSERTED.entries()) {
      const res = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: `Lead ${i}`, email: 'order@enum.test', stage, expected_revenue: i } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });
  afterAll(async () => {
    await ts?.close();
  });

  const search = async (payload: Rec, inTransaction: boolean): Promise<Rec[]> => {
    const client = await ts.kernel.tenants.get('default');
    const page = await ts.kernel.execute(client, systemPrincipal('default'),
      (env) => env.dispatch<{ items: Rec[] }>('fw.search', { model: 'crm.lead', domain: ours, ...payload }), inTransaction);
    return page.items;
  };

  for (const [path, inTransaction] of [['the reader (compiled SQL)', false], ['a transaction (Prisma)', true]] as const) {
    it(`fw.search on ${path}: stage asc and desc in declaration order, paging cuts that order`, async () => {
      const asc = [...INSERTED].sort(byRank(1));
      expect((await search({ order: 'stage asc' }, inTransaction)).map((r) => r.stage)).toEqual(asc);
      expect((await search({ order: 'stage desc' }, inTransaction)).map((r) => r.stage)).toEqual([...INSERTED].sort(byRank(-1)));
      expect((await search({ order: 'stage asc', limit: 3, offset: 2 }, inTransaction)).map((r) => r.stage)).toEqual(asc.slice(2, 5));
    });

    it(`fw.search on ${path}: a second key breaks ties within a stage`, async () => {
      const rows = await search({ order: 'stage desc, expected_revenue desc' }, inTransaction);
      expect(rows.map((r) => `${r.stage}:${r.expected_revenue}`)).toEqual(['lost:4', 'lost:1', 'won:0', 'qualified:3', 'new:5', 'new:2']);
    });
  }

  it('the REST list orders by the enum\'s declaration order', async () => {
    const res = await ts.request('GET', `/api/data/crm.lead?filter=${encodeURIComponent(JSON.stringify(ours))}&order=${encodeURIComponent('stage desc')}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.map((r: Rec) => r.stage)).toEqual([...INSERTED].sort(byRank(-1)));
  });

  it('GraphQL orderBy gives the same order', async () => {
    const data = await gqlOk(ts, '{ crmLeads(where: { email: { eq: "order@enum.test" } }, orderBy: [{ stage: asc }], limit: 100) { stage } }', undefined, { token });
    expect(data.crmLeads.map((r: Rec) => r.stage)).toEqual([...INSERTED].sort(byRank(1)));
  });

  it('read_group (kanban columns) lists the stage groups in declaration order', async () => {
    const res = await ts.request('POST', '/api/data/crm.lead/read_group', { token, body: { groupby: ['stage'], filter: ours } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.groups.map((g: Rec) => [g.stage, g.count])).toEqual([['new', 2], ['qualified', 1], ['won', 1], ['lost', 2]]);
  });
});
