/**
 * read_group by a datetime field's granularity (`closed_at:month`), through REST read_group and
 * GraphQL `<one>GroupBy(granularity:)`, on SQLite and PostgreSQL: keys are the bucket's start
 * (UTC), groups come in chronological order ("None" last), aggregates add up per bucket, and a
 * bad granularity is 400 INVALID_GROUPING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketStart } from '../../src/kernel/commands/date-buckets.ts';
import { adminToken, gql, gqlError, gqlOk } from '../helpers/api.ts';
import { expectError, startTestServer, type Provider, type TestServer } from '../helpers/server.ts';

describe('date buckets (UTC)', () => {
  it.each([
    ['day', '2026-11-18T23:59:59.999Z', '2026-11-18T00:00:00.000Z'],
    // 2026-11-18 is a Wednesday: its ISO week starts on Monday the 16th; a Sunday belongs to the week before
    ['week', '2026-11-18T10:00:00.000Z', '2026-11-16T00:00:00.000Z'],
    ['week', '2026-11-22T10:00:00.000Z', '2026-11-16T00:00:00.000Z'],
    ['week', '2027-01-01T10:00:00.000Z', '2026-12-28T00:00:00.000Z'],
    ['month', '2026-11-30T23:00:00.000Z', '2026-11-01T00:00:00.000Z'],
    ['quarter', '2026-11-18T10:00:00.000Z', '2026-10-01T00:00:00.000Z'],
    ['year', '2026-11-18T10:00:00.000Z', '2026-01-01T00:00:00.000Z'],
  ] as const)('%s of %s starts at %s', (granularity, value, start) => {
    expect(bucketStart(new Date(value), granularity)).toBe(start);
  });
});

for (const provider of ['sqlite', 'postgresql'] as Provider[]) describe(`read_group by granularity on ${provider}`, () => {
  let ts: TestServer;
  let token: string;
  const url = '/api/data/crm.lead/read_group';
  const group = async (body: Record<string, unknown>) => {
    const res = await ts.request('POST', url, { token, body });
    expect(res.status).toBe(200);
    return res.body.groups as Array<Record<string, unknown>>;
  };

  beforeAll(async () => {
    ts = await startTestServer({}, { provider });
    token = await adminToken(ts);
    const leads = [
      { name: 'Dec', stage: 'won', expected_revenue: 500, probability: 1, closed_at: '2026-12-03T08:00:00Z' },
      { name: 'Nov a', stage: 'won', expected_revenue: 100, probability: 0.5, closed_at: '2026-11-02T10:00:00Z' },
      { name: 'Nov b', stage: 'lost', expected_revenue: 200, closed_at: '2026-11-30T23:30:00Z' },
      { name: 'Jan', stage: 'won', expected_revenue: 50, probability: 0.25, closed_at: '2027-01-15T12:00:00Z' },
      { name: 'Oct', stage: 'lost', expected_revenue: 1000, probability: 0.1, closed_at: '2025-10-01T00:00:00Z' },
      { name: 'Open', stage: 'new', expected_revenue: 7 },
    ];
    for (const body of leads) expect((await ts.request('POST', '/api/data/crm.lead', { token, body })).status).toBe(201);
  });
  afterAll(async () => { await ts?.close(); });

  it('groups by month in chronological order, the bucket start as key, "None" last, sums and counts per bucket', async () => {
    const groups = await group({ groupby: ['closed_at:month'], aggregates: { expected_revenue: 'sum', probability: 'avg', closed_at: 'max' } });
    expect(groups).toEqual([
      { 'closed_at:month': '2025-10-01T00:00:00.000Z', count: 1, expected_revenue_sum: 1000, probability_avg: 0.1, closed_at_max: '2025-10-01T00:00:00.000Z' },
      { 'closed_at:month': '2026-11-01T00:00:00.000Z', count: 2, expected_revenue_sum: 300, probability_avg: 0.5, closed_at_max: '2026-11-30T23:30:00.000Z' },
      { 'closed_at:month': '2026-12-01T00:00:00.000Z', count: 1, expected_revenue_sum: 500, probability_avg: 1, closed_at_max: '2026-12-03T08:00:00.000Z' },
      { 'closed_at:month': '2027-01-01T00:00:00.000Z', count: 1, expected_revenue_sum: 50, probability_avg: 0.25, closed_at_max: '2027-01-15T12:00:00.000Z' },
      { 'closed_at:month': null, count: 1, expected_revenue_sum: 7, probability_avg: null, closed_at_max: null },
    ]);
  });

  it('groups by year and by quarter, honouring the filter', async () => {
    expect((await group({ groupby: ['closed_at:year'], filter: [['closed_at', '!=', null]] })).map((g) => [g['closed_at:year'], g.count]))
      .toEqual([['2025-01-01T00:00:00.000Z', 1], ['2026-01-01T00:00:00.000Z', 3], ['2027-01-01T00:00:00.000Z', 1]]);
    expect((await group({ groupby: ['closed_at:quarter'], filter: [['stage', '=', 'won']] })).map((g) => [g['closed_at:quarter'], g.count]))
      .toEqual([['2026-10-01T00:00:00.000Z', 2], ['2027-01-01T00:00:00.000Z', 1]]);
  });

  it('combines a field with a granularity: stage (declaration order), then month', async () => {
    const groups = await group({ groupby: ['stage', 'closed_at:month'], filter: [['closed_at', '!=', null]] });
    expect(groups.map((g) => [g.stage, g['closed_at:month'], g.count])).toEqual([
      ['won', '2026-11-01T00:00:00.000Z', 1], ['won', '2026-12-01T00:00:00.000Z', 1], ['won', '2027-01-01T00:00:00.000Z', 1],
      ['lost', '2025-10-01T00:00:00.000Z', 1], ['lost', '2026-11-01T00:00:00.000Z', 1],
    ]);
  });

  it('groups by week and by day', async () => {
    expect((await group({ groupby: ['closed_at:week'], filter: [['name', 'in', ['Nov a', 'Nov b']]] })).map((g) => g['closed_at:week']))
      .toEqual(['2026-11-02T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
    expect((await group({ groupby: ['closed_at:day'], filter: [['name', '=', 'Nov b']] })).map((g) => g['closed_at:day']))
      .toEqual(['2026-11-30T00:00:00.000Z']);
  });

  it('GraphQL groupBy takes the same granularity, keyed by the field name', async () => {
    const data = await gqlOk(ts, '{ crmLeadGroupBy(by: [closed_at], granularity: { closed_at: "year" }, where: { closed_at: { ne: null } }, aggregates: { expected_revenue: "sum" }) { key count aggregates } }', {}, { token });
    expect(data.crmLeadGroupBy).toEqual([
      { key: { closed_at: '2025-01-01T00:00:00.000Z' }, count: 1, aggregates: { expected_revenue_sum: 1000 } },
      { key: { closed_at: '2026-01-01T00:00:00.000Z' }, count: 3, aggregates: { expected_revenue_sum: 800 } },
      { key: { closed_at: '2027-01-01T00:00:00.000Z' }, count: 1, aggregates: { expected_revenue_sum: 50 } },
    ]);
  });

  it.each([
    ['an unknown granularity', ['closed_at:fortnight']],
    ['a granularity on a field that is not a datetime', ['stage:month']],
    ['a granularity with a trailing part', ['closed_at:month:utc']],
  ])('REST read_group with %s is 400 INVALID_GROUPING', async (_label, groupby) => {
    const res = await ts.request('POST', url, { token, body: { groupby } });
    expectError(res, 400, 'INVALID_GROUPING');
  });

  it('the error of an unknown granularity names the field and the allowed ones', async () => {
    const res = await ts.request('POST', url, { token, body: { groupby: ['closed_at:fortnight'] } });
    expect(res.body.error.details).toEqual({ field: 'closed_at', granularity: 'fortnight', allowed: ['day', 'week', 'month', 'quarter', 'year'] });
  });

  it.each([
    ['an unknown granularity', '{ crmLeadGroupBy(by: [closed_at], granularity: { closed_at: "fortnight" }) { count } }'],
    ['a granularity for a field `by` does not name', '{ crmLeadGroupBy(by: [stage], granularity: { closed_at: "month" }) { count } }'],
    ['a granularity that is not text', '{ crmLeadGroupBy(by: [closed_at], granularity: { closed_at: 3 }) { count } }'],
    ['a granularity that is a list', '{ crmLeadGroupBy(by: [closed_at], granularity: ["month"]) { count } }'],
  ])('GraphQL groupBy with %s is 400 INVALID_GROUPING', async (_label, query) => {
    gqlError(await gql(ts, query, {}, { token }), 'INVALID_GROUPING', 400);
  });
});
