/**
 * Text sorts the way people read it (the Unicode root collation), not by its bytes, on both
 * engines and through every read path: the REST list (compiled SQL on the reader), GraphQL,
 * fw.search inside a transaction (Prisma, sorted in JavaScript), and read_group's groups.
 */
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortKey } from '../../../src/kernel/data/collation.ts';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { gqlOk } from '../../helpers/api.ts';
import { PG_URL, PROVIDERS, withPgClient } from '../../helpers/kernel.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** In reading order: digits before letters, accents and case only break ties, lower case first. */
const READING_ORDER = [
  '10 Downing', '2 Fast', 'Afghanistan', 'Åland Islands', 'Albania', 'eclair', 'Éclair',
  'Ørsted', 'Oslo', 'resume', 'Resume', 'résumé', 'Straße', 'Strasse 2', 'zebra', 'Zebra',
];
/** Inserted in another order than either expected one, so no insertion order can pass. */
const INSERTED = ['Zebra', 'résumé', 'Albania', 'Oslo', '2 Fast', 'Éclair', 'Straße', 'Åland Islands', 'resume',
  '10 Downing', 'zebra', 'Ørsted', 'Afghanistan', 'Strasse 2', 'Resume', 'eclair'];

type Rec = Record<string, any>;

it('the expected order is the ICU root order and differs from byte order (so the test can fail)', () => {
  expect([...READING_ORDER].sort(new Intl.Collator('und').compare)).toEqual(READING_ORDER);
  expect([...READING_ORDER].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)))).toEqual(READING_ORDER);
  const bytes = [...READING_ORDER].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  expect(bytes.indexOf('Åland Islands')).toBeGreaterThan(bytes.indexOf('zebra'));
  expect(bytes).not.toEqual(READING_ORDER);
});

it('the SQLite sort key orders over a thousand names in five languages exactly as PostgreSQL\'s und-x-icu collation', async () => {
  const require = createRequire(import.meta.url);
  const names = new Set<string>(READING_ORDER);
  for (const lang of ['en', 'fr', 'de', 'ru', 'el']) {
    countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`));
    for (const n of Object.values(countries.getNames(lang, { select: 'all' })).flat()) names.add(n);
  }
  for (const odd of ['', ' ', 'a b', 'a_b', 'a-b', 'ab', '(x)', '#1', '$5', '€5', '😀', 'ﬁle', 'Łódź', 'Lodz', 'Þór', 'İstanbul', '日本', '한국']) names.add(odd);
  const list = [...names];
  expect(list.length).toBeGreaterThan(1000);
  const postgres = await withPgClient(PG_URL, async (c) =>
    (await c.query<{ x: string }>('SELECT x FROM unnest($1::text[]) AS x ORDER BY x COLLATE "und-x-icu"', [list])).rows.map((r) => r.x));
  expect([...list].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)))).toEqual(postgres);
});

describe.each(PROVIDERS)('text sorts as people read it on %s', (provider) => {
  let ts: TestServer;
  let token: string;
  const ours = [['email', '=', 'order@text.test']];

  beforeAll(async () => {
    ts = await startTestServer({}, { provider });
    token = (await ts.loginAdmin()).access_token;
    for (const [i, name] of INSERTED.entries()) {
      const res = await ts.request('POST', '/api/data/crm.lead', { token, body: { name, email: 'order@text.test', stage: i % 2 ? 'won' : 'new' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });
  afterAll(async () => {
    await ts?.close();
  });

  const list = async (order: string, page = '&limit=500'): Promise<string[]> => {
    const res = await ts.request('GET', `/api/data/crm.lead?filter=${encodeURIComponent(JSON.stringify(ours))}&order=${encodeURIComponent(order)}${page}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items.map((r: Rec) => r.name);
  };
  /** fw.search inside a write transaction, where reads go through Prisma. */
  const inTransaction = async (payload: Rec): Promise<string[]> => {
    const client = await ts.kernel.tenants.get('default');
    const page = await ts.kernel.execute(client, systemPrincipal('default'), (env) => env.dispatch<{ items: Rec[] }>('fw.search', { model: 'crm.lead', domain: ours, ...payload }), true);
    return page.items.map((r) => r.name);
  };

  it('the REST list (compiled SQL) orders text by reading order, ascending and descending', async () => {
    expect(await list('name asc')).toEqual(READING_ORDER);
    expect(await list('name desc')).toEqual([...READING_ORDER].reverse());
    // paging cuts the ordered list
    expect(await list('name asc', '&limit=4&offset=2')).toEqual(READING_ORDER.slice(2, 6));
  });

  it('GraphQL orderBy gives the same order', async () => {
    const data = await gqlOk(ts, '{ crmLeads(where: { email: { eq: "order@text.test" } }, orderBy: [{ name: asc }], limit: 100) { name } }', undefined, { token });
    expect(data.crmLeads.map((r: Rec) => r.name)).toEqual(READING_ORDER);
  });

  it('fw.search inside a transaction (Prisma) orders and pages text the same way', async () => {
    expect(await inTransaction({ order: 'name asc' })).toEqual(READING_ORDER);
    expect(await inTransaction({ order: 'name desc' })).toEqual([...READING_ORDER].reverse());
    expect(await inTransaction({ order: 'name asc', limit: 4, offset: 2 })).toEqual(READING_ORDER.slice(2, 6));
    expect(await inTransaction({ order: 'name asc', offset: 20 })).toEqual([]);
  });

  it('a mixed order (an enum by its declaration order, then text) agrees between the reader and the transaction path', async () => {
    const stageOf = new Map(INSERTED.map((n, i) => [n, i % 2 ? 'won' : 'new']));
    const rank = (n: string) => ['new', 'qualified', 'won', 'lost'].indexOf(stageOf.get(n)!);
    const expected = [...READING_ORDER].sort((a, b) => rank(a) - rank(b)
      || READING_ORDER.indexOf(b) - READING_ORDER.indexOf(a));
    expect(await list('stage asc, name desc')).toEqual(expected);
    expect(await inTransaction({ order: 'stage asc, name desc' })).toEqual(expected);
  });

  it('read_group orders its text groups by reading order', async () => {
    const res = await ts.request('POST', '/api/data/crm.lead/read_group', { token, body: { groupby: ['name'], filter: ours } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.groups.map((g: Rec) => g.name)).toEqual(READING_ORDER);
    const two = await ts.request('POST', '/api/data/crm.lead/read_group', { token, body: { groupby: ['stage', 'name'], filter: ours } });
    expect(two.body.groups.filter((g: Rec) => g.stage === 'new').map((g: Rec) => g.name))
      .toEqual(READING_ORDER.filter((n) => INSERTED.indexOf(n) % 2 === 0));
  });
});
