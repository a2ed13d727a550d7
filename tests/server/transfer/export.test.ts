/**
 * Export of any model's records (GET/POST /api/export/<model>): CSV and XLSX, References as
 * record names, the caller's filters, order, selection and record rules applied, and every
 * refusal with its code.
 */
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../../helpers/server.ts';

let ts: TestServer;
let admin: string;
let acmeUser: string;
let globexUser: string;
let acme: string;
const leadIds: Record<string, string> = {};

const post = async (url: string, body: unknown, t = admin) => ts.request('POST', url, { token: t, body });

/** The raw bytes of an export (inject's `body` is text). */
async function exportRaw(body: Record<string, unknown>, token = admin) {
  const res = await ts.server.inject({ method: 'POST', url: '/api/export/crm.lead', headers: { authorization: `Bearer ${token}` }, payload: body });
  return res;
}
const csvRows = (text: string) => parse(text, { bom: true }) as string[][];

beforeAll(async () => {
  ts = await startTestServer();
  admin = await adminToken(ts);
  const fr = (await ts.request('GET', `/api/data/res.country?filter=${encodeURIComponent(JSON.stringify([['code', '=', 'FR']]))}`, { token: admin })).body.items[0].id;
  acme = await ts.createOrg(admin, 'Acme');
  const globex = await ts.createOrg(admin, 'Globex');
  await ts.createUser(admin, { email: 'a@acme.test', name: 'Ann Acme', password: 'pass-acme-1', role: 'user', organization: acme });
  await ts.createUser(admin, { email: 'g@globex.test', name: 'Gus Globex', password: 'pass-globex-1', role: 'user', organization: globex });
  acmeUser = (await ts.login('a@acme.test', 'pass-acme-1')).access_token;
  globexUser = (await ts.login('g@globex.test', 'pass-globex-1')).access_token;
  const leads = [
    { name: 'Alpha', stage: 'new', expected_revenue: 100, organization: acme, country: fr, email: '=cmd|calc' },
    { name: 'Bravo', stage: 'won', expected_revenue: 300, organization: acme, closed_at: '2026-03-31T14:00:00.000Z' },
    { name: 'Charlie, "the third"', stage: 'qualified', expected_revenue: 200, organization: acme, notes: 'line one\nline two' },
  ];
  for (const l of leads) {
    const r = await post('/api/data/crm.lead', l);
    expect(r.status).toBe(201);
    leadIds[l.name] = r.body.id;
  }
});

afterAll(async () => {
  await ts?.close();
});

describe('CSV export', () => {
  it('streams the chosen columns with their labels, References as record names, in the given order', async () => {
    const res = await exportRaw({ format: 'csv', fields: ['name', 'stage', 'expected_revenue', 'organization', 'country'], order: 'expected_revenue asc' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="crm\.lead-\d{4}-\d{2}-\d{2}\.csv"/);
    expect(res.headers['x-export-rows']).toBe('3');
    expect(csvRows(res.body)).toEqual([
      ['Name', 'Stage', 'Expected revenue', 'Organization', 'Country'],
      ['Alpha', 'new', '100', 'Acme', 'France'],
      ['Charlie, "the third"', 'qualified', '200', 'Acme', ''],
      ['Bravo', 'won', '300', 'Acme', ''],
    ]);
  });

  it('keeps line breaks inside a cell and neutralises a formula with an apostrophe (CSV injection)', async () => {
    const res = await exportRaw({ format: 'csv', fields: ['name', 'email', 'notes'], order: 'expected_revenue asc' });
    const rows = csvRows(res.body);
    expect(rows[1]).toEqual(['Alpha', "'=cmd|calc", '']);
    expect(rows[2][2]).toBe('line one\nline two');
  });

  it('exports only the selected records when ids are given, and the GraphQL where of the list', async () => {
    const sel = csvRows((await exportRaw({ fields: ['name'], ids: [leadIds.Bravo] })).body);
    expect(sel).toEqual([['Name'], ['Bravo']]);
    const where = csvRows((await exportRaw({ fields: ['name'], where: { stage: { in: ['new', 'won'] } }, order: 'name asc' })).body);
    expect(where).toEqual([['Name'], ['Alpha'], ['Bravo']]);
    const filter = csvRows((await ts.server.inject({ method: 'GET', url: `/api/export/crm.lead?fields=name&filter=${encodeURIComponent(JSON.stringify([['expected_revenue', '>', 150]]))}&order=name%20desc`, headers: { authorization: `Bearer ${admin}` } })).body);
    expect(filter).toEqual([['Name'], ['Charlie, "the third"'], ['Bravo']]);
  });

  it('writes every exportable field, id first, when no fields are named', async () => {
    const rows = csvRows((await exportRaw({ ids: [leadIds.Alpha] })).body);
    expect(rows[0].slice(0, 3)).toEqual(['ID', 'Name', 'Email']);
    expect(rows[1][0]).toBe(leadIds.Alpha);
  });

  it('applies record rules: a user of another organization exports nothing of Acme', async () => {
    const other = await exportRaw({ fields: ['name'] }, globexUser);
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-export-rows']).toBe('0');
    expect(csvRows(other.body)).toEqual([['Name']]);
    const own = await exportRaw({ fields: ['name'], order: 'name asc' }, acmeUser);
    expect(csvRows(own.body).map((r) => r[0])).toEqual(['Name', 'Alpha', 'Bravo', 'Charlie, "the third"']);
  });

  it('reads page by page: more records than EXPORT_PAGE_SIZE come out whole and in order', async () => {
    const small = await startTestServer({ EXPORT_PAGE_SIZE: '2' });
    try {
      const t = await adminToken(small);
      for (const n of ['a', 'b', 'c', 'd', 'e']) await small.request('POST', '/api/data/crm.lead', { token: t, body: { name: n } });
      const res = await small.server.inject({ method: 'GET', url: '/api/export/crm.lead?fields=name&order=name%20asc', headers: { authorization: `Bearer ${t}` } });
      expect(csvRows(res.body)).toEqual([['Name'], ['a'], ['b'], ['c'], ['d'], ['e']]);
    } finally {
      await small.close();
    }
  });
});

describe('XLSX export', () => {
  it('writes a workbook that reads back: typed numbers, dates, References as names', async () => {
    const res = await exportRaw({ format: 'xlsx', fields: ['name', 'expected_revenue', 'closed_at', 'organization'], order: 'expected_revenue asc' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ExcelJS.Buffer);
    const sheet = wb.worksheets[0];
    const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    expect(values(1)).toEqual(['Name', 'Expected revenue', 'Closed at', 'Organization']);
    expect(values(2)).toEqual(['Alpha', 100, undefined, 'Acme']);
    expect(values(4)).toEqual(['Bravo', 300, new Date('2026-03-31T14:00:00.000Z'), 'Acme']);
    expect(sheet.rowCount).toBe(4);
  });
});

describe('refusals', () => {
  it('needs a token (401 UNAUTHENTICATED)', async () => {
    expectError(await ts.request('POST', '/api/export/crm.lead', { body: {} }), 401, 'UNAUTHENTICATED');
  });
  it('an unknown format is 400 EXPORT_INVALID_FORMAT', async () => {
    expectError(await post('/api/export/crm.lead', { format: 'pdf' }), 400, 'EXPORT_INVALID_FORMAT');
  });
  it('an unknown or unreadable field is 400 EXPORT_UNKNOWN_FIELD', async () => {
    expectError(await post('/api/export/crm.lead', { fields: ['name', 'nope'] }), 400, 'EXPORT_UNKNOWN_FIELD');
    expectError(await post('/api/export/res.user', { fields: ['password_hash'] }), 400, 'EXPORT_UNKNOWN_FIELD');
  });
  it('an empty field list is 400 EXPORT_INVALID_FIELDS', async () => {
    expectError(await post('/api/export/crm.lead', { fields: [] }), 400, 'EXPORT_INVALID_FIELDS');
  });
  it('a bad filter, order or id list is refused before anything is sent', async () => {
    expectError(await post('/api/export/crm.lead', { filter: [['nope', '=', 1]] }), 400, 'INVALID_DOMAIN');
    expectError(await post('/api/export/crm.lead', { order: 'nope asc' }), 400, 'INVALID_ORDER');
    expectError(await post('/api/export/crm.lead', { ids: ['not-a-uuid'] }), 400, 'INVALID_FILTER');
    expectError(await post('/api/export/crm.lead', { where: { nope: { eq: 1 } } }), 400, 'INVALID_FILTER');
    // a shape GraphQL's input type would refuse before it ran
    expectError(await post('/api/export/crm.lead', { where: { AND: 5 } }), 400, 'INVALID_FILTER');
    expectError(await post('/api/export/crm.lead', { where: { name: 'x' } }), 400, 'INVALID_FILTER');
  });
  it('a model the role may not read is 403 ACCESS_DENIED; an unknown one 404 UNKNOWN_MODEL', async () => {
    expectError(await post('/api/export/ir.event', {}, acmeUser), 403, 'ACCESS_DENIED');
    expectError(await post('/api/export/no.such', {}), 404, 'UNKNOWN_MODEL');
  });
});

describe('fields', () => {
  it('GET /api/export/<model>/fields lists what the caller may export, id first', async () => {
    const res = await ts.request('GET', '/api/export/crm.lead/fields', { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.fields[0]).toEqual({ name: 'id', label: 'ID', source_label: 'ID', type: 'uuid', required: false, relation: null, values: null });
    expect(res.body.fields).toContainEqual(expect.objectContaining({ name: 'organization', type: 'reference', relation: 'res.organization' }));
    expect(res.body.fields).toContainEqual(expect.objectContaining({ name: 'expected_revenue', label: 'Expected revenue', source_label: 'Expected revenue' }));
  });

  it('a French reader gets the apps\' French labels, in the field list and as the file\'s headers; the declaration\'s own label stays beside it', async () => {
    const user = await ts.createUser(admin, { email: 'fr@acme.test', name: 'Fanny', password: 'pass-fr-123', role: 'admin', organization: acme });
    const token = (await ts.login('fr@acme.test', 'pass-fr-123')).access_token;
    expect((await ts.request('POST', `/api/data/res.user/${user.id}/set_preferences`, { token, body: { lang: 'fr' } })).status).toBe(200);
    const fields = (await ts.request('GET', '/api/export/crm.lead/fields', { token })).body.fields;
    expect(fields).toContainEqual(expect.objectContaining({ name: 'expected_revenue', label: 'Revenu attendu', source_label: 'Expected revenue' }));
    expect(fields).toContainEqual(expect.objectContaining({ name: 'name', label: 'Nom' }));
    const res = await exportRaw({ format: 'csv', fields: ['name', 'expected_revenue'] }, token);
    expect(res.statusCode).toBe(200);
    expect(csvRows(res.body)[0]).toEqual(['Nom', 'Revenu attendu']);
    // the English reader's headers are untouched
    expect(csvRows((await exportRaw({ format: 'csv', fields: ['name', 'expected_revenue'] })).body)[0]).toEqual(['Name', 'Expected revenue']);
  });
});
