/**
 * What a value must be before it is written or compared (src/kernel/data/values.ts), on SQLite
 * files and on PostgreSQL, through the real server:
 *   - no NUL character (U+0000) in text, Char or JSON: PostgreSQL stores none (a 500 there), so
 *     neither engine takes one — 422 VALIDATION_FAILED when written, 400 INVALID_DOMAIN in a
 *     filter. The HTTP edge already refuses a NUL in a body or query string (400 BAD_REQUEST); a
 *     GraphQL string literal (`"a\u0000b"` inside the document) is how one still arrives;
 *   - date-times between MIN_DATETIME and MAX_DATETIME (years 1–9999, UTC): PostgreSQL fails on
 *     year 0, negative and six-digit years (a 500 there) — 422 when written, 400 INVALID_DOMAIN in
 *     a filter; the first and last instants are stored and read back unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DATETIME, MIN_DATETIME } from '../../../src/kernel/data/values.ts';
import { PROVIDERS } from '../../helpers/kernel.ts';
import { gqlRefused, refused, startProbeServer, type ProbeRead, type ProbeServer, type Reply } from './probe-server.ts';

/** `\u0000` as GraphQL source text: the document carries the escape, the parsed string the character. */
const NUL = '\\u0000';

/** Outside years 1–9999 in UTC (the last two only once their offset is applied). */
const OUT_OF_RANGE = [
  '0000-01-01T00:00:00Z',
  '-001000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '+010000-01-01T00:00:00Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:30:00-01:00',
];
const FIRST = '0001-01-01T00:00:00.000Z';
const LAST = '9999-12-31T23:59:59.999Z';

describe.each(PROVIDERS)('written and compared values on %s', (provider) => {
  let s: ProbeServer;
  let alpha: string;
  const filter = (domain: unknown) => encodeURIComponent(JSON.stringify(domain));

  /** The leads as they are, to show a refused request changed nothing. */
  const leads = async () => (await s.request('GET', '/api/data/crm.lead?fields=name,notes,closed_at&order=name%20asc')).body.items
    .map((l: Record<string, unknown>) => [l.name, l.notes, l.closed_at]);

  beforeAll(async () => {
    s = await startProbeServer(provider);
    const res = await s.request('POST', '/api/data/crm.lead', { name: 'Alpha', notes: 'first', closed_at: '2026-01-02T03:04:05.678Z' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    alpha = res.body.id;
  });
  afterAll(async () => {
    await s?.close();
  });

  /** A 422 VALIDATION_FAILED naming `field` with INVALID_TYPE (REST envelope or GraphQL extensions). */
  const expectInvalidValue = (res: Reply, field: string, why: RegExp, where: string, graphql: boolean) => {
    const err = graphql ? gqlRefused(res, 422, 'VALIDATION_FAILED', where) : refused(res, 422, 'VALIDATION_FAILED', where);
    const details = graphql ? (err as { extensions: { details?: Record<string, unknown> } }).extensions.details : (err as { details?: Record<string, unknown> }).details;
    expect(details?.errors, where).toEqual([expect.objectContaining({ field, code: 'INVALID_TYPE', message: expect.stringMatching(why) })]);
    expect(err.message, where).toMatch(why);
  };

  describe('no NUL character (U+0000) in text', () => {
    it('a NUL in a Char or text value is 422 VALIDATION_FAILED (INVALID_TYPE) on every GraphQL write, and nothing is stored', async () => {
      const before = await leads();
      const writes: Array<[string, string, string]> = [
        ['create', 'name', `mutation { crmLeadCreate(input: { name: "a${NUL}b" }) { id } }`],
        ['create (text field)', 'notes', `mutation { crmLeadCreate(input: { name: "fine", notes: "${NUL}" }) { id } }`],
        ['createMany', 'name', `mutation { crmLeadCreateMany(inputs: [{ name: "fine" }, { name: "x${NUL}" }]) { id } }`],
        ['update', 'notes', `mutation { crmLeadUpdate(id: "${alpha}", input: { notes: "a${NUL}" }) { id } }`],
        ['updateMany', 'notes', `mutation { crmLeadUpdateMany(where: { name: { eq: "Alpha" } }, input: { notes: "${NUL}x" }) { count } }`],
        ['fw.create with a JSON payload literal', 'name', `mutation { command(name: "fw.create", payload: { model: "crm.lead", values: { name: "${NUL}" } }) }`],
        ['create of another model (res.organization)', 'name', `mutation { resOrganizationCreate(input: { name: "Org${NUL}" }) { id } }`],
      ];
      for (const [where, field, query] of writes) expectInvalidValue(await s.gql(query), field, /NUL character \(U\+0000\)/, where, true);
      expect(await leads()).toEqual(before);
      expect((await s.request('GET', `/api/data/res.organization/count?filter=${filter([['name', 'startswith', 'Org']])}`)).body).toEqual({ count: 0 });
    });

    it('a NUL in a JSON value, however deep, is 422 VALIDATION_FAILED (PostgreSQL\'s jsonb cannot hold it either); the same value without one passes', async () => {
      for (const data of [`"${NUL}"`, `{ a: "x${NUL}" }`, `[1, { b: ["ok", "${NUL}"] }]`]) {
        const res = await s.gql(`mutation { command(name: "limitprobe.store", payload: { data: ${data} }) }`);
        expectInvalidValue(res, 'data', /NUL character/, `data: ${data}`, true);
      }
      const ok = await s.gql('mutation { command(name: "limitprobe.store", payload: { data: [1, { b: ["ok", "\\u0001"] }] }) }');
      expect(ok.body, JSON.stringify(ok.body)).toEqual({ data: { command: { stored: [1, { b: ['ok', '\u0001'] }] } } });
    });

    it('a NUL in a filter value is 400 INVALID_DOMAIN for every operator on every path (GraphQL where, and domains in a command payload)', async () => {
      const before = await leads();
      const filters = [
        `{ name: { eq: "a${NUL}" } }`, `{ name: { ne: "a${NUL}" } }`, `{ name: { in: ["x", "${NUL}"] } }`, `{ name: { notIn: ["${NUL}"] } }`,
        `{ name: { lt: "${NUL}" } }`, `{ notes: { contains: "${NUL}" } }`, `{ notes: { notContains: "${NUL}", mode: insensitive } }`,
        `{ notes: { startsWith: "a${NUL}" } }`, `{ organization: { is: { name: { eq: "${NUL}" } } } }`, `{ NOT: { email: { eq: "${NUL}" } } }`,
      ];
      for (const where of filters) {
        for (const query of [
          `{ crmLeads(where: ${where}) { name } }`,
          `{ crmLeadCount(where: ${where}) }`,
          `{ crmLeadGroupBy(by: [name], where: ${where}) { count } }`,
          `mutation { crmLeadUpdateMany(where: ${where}, input: { notes: "touched" }) { count } }`,
          `mutation { crmLeadDeleteMany(where: ${where}) { count } }`,
        ]) {
          const err = gqlRefused(await s.gql(query), 400, 'INVALID_DOMAIN', query);
          expect(err.message, query).toContain('NUL character (U+0000)');
        }
      }
      for (const domain of [`[["name", "=", "a${NUL}"]]`, `[["notes", "ilike", "${NUL}"]]`, `["!", ["organization.name", "in", ["${NUL}"]]]`]) {
        for (const command of ['fw.search', 'fw.count', 'limitprobe.read', 'fw.update_many', 'fw.delete_many']) {
          const values = command === 'fw.update_many' ? ', values: { notes: "touched" }' : '';
          const res = await s.gql(`mutation { command(name: "${command}", payload: { model: "crm.lead", domain: ${domain}${values} }) }`);
          gqlRefused(res, 400, 'INVALID_DOMAIN', `${command} ${domain}`);
        }
        const grouped = await s.gql(`mutation { command(name: "fw.read_group", payload: { model: "crm.lead", groupby: ["name"], domain: ${domain} }) }`);
        gqlRefused(grouped, 400, 'INVALID_DOMAIN', `fw.read_group ${domain}`);
      }
      expect(await leads()).toEqual(before);
    });

    it('other control characters are text like any other: U+0001 is stored and found', async () => {
      const res = await s.gql('mutation { crmLeadCreate(input: { name: "ctl\\u0001", notes: "a\\u0001b" }) { name notes } }');
      expect(res.body, JSON.stringify(res.body)).toEqual({ data: { crmLeadCreate: { name: 'ctl\u0001', notes: 'a\u0001b' } } });
      const found = await s.gql('{ crmLeads(where: { notes: { contains: "\\u0001" } }) { name } }');
      expect(found.body).toEqual({ data: { crmLeads: [{ name: 'ctl\u0001' }] } });
      expect((await s.gql('mutation { crmLeadDeleteMany(where: { name: { eq: "ctl\\u0001" } }) { count } }')).body).toEqual({ data: { crmLeadDeleteMany: { count: 1 } } });
    });
  });

  describe(`date-times between ${MIN_DATETIME.toISOString()} and ${MAX_DATETIME.toISOString()}`, () => {
    it('a date-time outside years 1–9999 (UTC) is 422 VALIDATION_FAILED (INVALID_TYPE) on every write path, and nothing is stored', async () => {
      const before = await leads();
      const why = /outside the years 1 to 9999/;
      for (const value of OUT_OF_RANGE) {
        const values = { name: 'Dated', closed_at: value };
        expectInvalidValue(await s.request('POST', '/api/data/crm.lead', values), 'closed_at', why, `REST create ${value}`, false);
        expectInvalidValue(await s.request('PATCH', `/api/data/crm.lead/${alpha}`, { closed_at: value }), 'closed_at', why, `REST PATCH ${value}`, false);
        expectInvalidValue(await s.request('PUT', `/api/data/crm.lead/${alpha}`, { name: 'Alpha', notes: 'first', closed_at: value }), 'closed_at', why, `REST PUT ${value}`, false);
        expectInvalidValue(await s.request('POST', '/api/command/fw.create_many', { model: 'crm.lead', values: [{ name: 'ok' }, values] }), 'closed_at', why, `fw.create_many ${value}`, false);
        expectInvalidValue(await s.request('POST', '/api/command/fw.update_many', { model: 'crm.lead', domain: [], values: { closed_at: value } }), 'closed_at', why, `fw.update_many ${value}`, false);
        expectInvalidValue(await s.gql(`mutation { crmLeadCreate(input: { name: "Dated", closed_at: "${value}" }) { id } }`), 'closed_at', why, `GraphQL create ${value}`, true);
        expectInvalidValue(await s.gql('mutation($v: DateTime) { crmLeadUpdate(id: "' + alpha + '", input: { closed_at: $v }) { id } }', { v: value }), 'closed_at', why, `GraphQL update ${value}`, true);
      }
      expect(await leads()).toEqual(before);
    });

    it('the first and last instants of the range are stored and read back unchanged on every read path, and found by equality', async () => {
      const ids: Record<string, string> = {};
      for (const [name, closed_at] of [['First', FIRST], ['Last', LAST]]) {
        const res = await s.request('POST', '/api/data/crm.lead', { name, closed_at });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.body.closed_at).toBe(closed_at);
        ids[name] = res.body.id;
      }
      // the same instants written with an offset are the same values
      const offset = await s.request('PATCH', `/api/data/crm.lead/${ids.First}`, { closed_at: '0001-01-01T01:00:00+01:00' });
      expect(offset.body.closed_at, JSON.stringify(offset.body)).toBe(FIRST);
      for (const [name, value] of [['First', FIRST], ['Last', LAST]]) {
        const domain = [['closed_at', '=', value]];
        const list = await s.request('GET', `/api/data/crm.lead?filter=${filter(domain)}&fields=name,closed_at`);
        expect(list.body.items, 'REST list (compiled SQL)').toEqual([{ id: ids[name], name, closed_at: value }]);
        expect((await s.request('GET', `/api/data/crm.lead/${ids[name]}`)).body.closed_at, 'REST read').toBe(value);
        const probe = (await s.request('POST', '/api/command/limitprobe.read', { model: 'crm.lead', domain, fields: ['name', 'closed_at'] })).body as ProbeRead;
        expect([probe.items, probe.viaPrisma], 'a read in a transaction (Prisma)').toEqual([[{ id: ids[name], name, closed_at: value }], true]);
        const groups = await s.request('POST', '/api/data/crm.lead/read_group', { groupby: ['closed_at'], filter: domain });
        expect(groups.body.groups, 'REST read_group').toEqual([{ closed_at: value, count: 1 }]);
        const gql = await s.gql(`{ crmLeads(where: { closed_at: { eq: "${value}" } }) { name closed_at } }`);
        expect(gql.body, 'GraphQL').toEqual({ data: { crmLeads: [{ name, closed_at: value }] } });
      }
      const ordered = await s.request('GET', `/api/data/crm.lead?filter=${filter([['closed_at', '!=', null]])}&fields=name&order=closed_at%20asc`);
      expect(ordered.body.items.map((r: { name: string }) => r.name)).toEqual(['First', 'Alpha', 'Last']);
      for (const id of Object.values(ids)) expect((await s.request('DELETE', `/api/data/crm.lead/${id}`)).body).toEqual({ id, deleted: true });
    });

    it('a filter date-time outside years 1–9999 (UTC) is 400 INVALID_DOMAIN on every path, and changes nothing', async () => {
      const before = await leads();
      for (const value of OUT_OF_RANGE) {
        for (const domain of [[['closed_at', '>', value]], [['closed_at', 'in', [FIRST, value]]], ['!', ['closed_at', '=', value]]]) {
          for (const [where, res] of [
            ['REST list', await s.request('GET', `/api/data/crm.lead?filter=${filter(domain)}`)],
            ['REST count', await s.request('GET', `/api/data/crm.lead/count?filter=${filter(domain)}`)],
            ['REST read_group', await s.request('POST', '/api/data/crm.lead/read_group', { groupby: ['name'], filter: domain })],
            ['a read in a transaction', await s.request('POST', '/api/command/limitprobe.read', { model: 'crm.lead', domain })],
            ['fw.update_many', await s.request('POST', '/api/command/fw.update_many', { model: 'crm.lead', domain, values: { notes: 'touched' } })],
            ['fw.delete_many', await s.request('POST', '/api/command/fw.delete_many', { model: 'crm.lead', domain })],
          ] as Array<[string, Reply]>) {
            const err = refused(res, 400, 'INVALID_DOMAIN', `${where} ${JSON.stringify(domain)}:`);
            expect(err.message).toMatch(/outside the years 1 to 9999/);
            expect(err.details).toMatchObject({ field: 'closed_at' });
          }
        }
        for (const query of [
          `{ crmLeads(where: { closed_at: { gte: "${value}" } }) { name } }`,
          `{ crmLeadCount(where: { closed_at: { in: ["${value}"] } }) }`,
          `{ crmLeadGroupBy(by: [name], where: { NOT: { closed_at: { eq: "${value}" } } }) { count } }`,
          `mutation { crmLeadDeleteMany(where: { closed_at: { lt: "${value}" } }) { count } }`,
        ]) gqlRefused(await s.gql(query), 400, 'INVALID_DOMAIN', query);
      }
      expect(await leads()).toEqual(before);
    });
  });
});
