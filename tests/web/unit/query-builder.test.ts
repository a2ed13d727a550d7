/**
 * The client's generic record operations: GraphQL documents built from a render plan's fields and
 * the model's served names, `orderBy` from an order string, domains turned into `where` inputs, and
 * form values turned into mutation inputs.
 */
import { describe, expect, it } from 'vitest';
import { andWhere, domainToWhere, DomainError } from '../../../web/src/model/domain.ts';
import {
  countDocument, createDocument, displayName, nameSearchWhere, rowsDocument, orderBy, selection, toInput, updateDocument,
  type FieldInfo, type ModelInfo,
} from '../../../web/src/model/records.ts';

const names = (type: string, one: string, many: string) => ({
  typeName: type, one, many, count: `${one}Count`, groupBy: `${one}GroupBy`, create: `${one}Create`, update: `${one}Update`,
  updateMany: `${one}UpdateMany`, delete: `${one}Delete`, deleteMany: `${one}DeleteMany`, changed: `${one}Changed`, whereInput: `${type}Where`,
  orderByInput: `${type}OrderBy`, createInput: `${type}CreateInput`, updateInput: `${type}UpdateInput`, groupByField: `${type}GroupByField`,
});
const lead: ModelInfo = { key: 'crm.lead', description: 'Lead', record_name: 'name', name_search_fields: ['name', 'email'], names: names('CrmLead', 'crmLead', 'crmLeads') };
const country: ModelInfo = { key: 'res.country', description: 'Country', record_name: 'name', name_search_fields: ['name'], names: names('ResCountry', 'resCountry', 'resCountries') };
const models = new Map([[lead.key, lead], [country.key, country]]);
const f = (name: string, type: string, extra: Partial<FieldInfo> = {}): FieldInfo => ({ name, label: name, type, ...extra });

describe('selection', () => {
  it('selects scalars by name and a Reference as its id plus the target record name', () => {
    expect(selection([f('name', 'char'), f('country', 'reference', { relation: 'res.country' })], models)).toBe('id name country { id name }');
  });
  it('a Reference whose target is unknown to the caller still selects its id (never a bare object field)', () => {
    expect(selection([f('file_id', 'reference')], models)).toBe('id file_id { id }');
  });
  it('a One2Many is selected only with the nested list columns, and a field is never selected twice', () => {
    const fields = [f('name', 'char'), f('name', 'char'), f('versions', 'one2many', { relation: 'x' })];
    expect(selection(fields, models)).toBe('id name');
    expect(selection(fields, models, { versions: [f('version_number', 'integer')] })).toBe('id name versions { id version_number }');
  });
  it('refuses a name that is not a GraphQL name, so nothing can be injected into a document', () => {
    expect(() => selection([f('name } evil {', 'char')], models)).toThrow(/not a GraphQL name/);
  });
});

describe('documents from the served names', () => {
  it('a list queries rows and the total with typed variables', () => {
    const doc = rowsDocument(lead, 'id name');
    expect(doc).toContain('query Rows($where: CrmLeadWhere, $orderBy: [CrmLeadOrderBy!], $limit: Int, $offset: Int)');
    expect(doc).toContain('rows: crmLeads(where: $where, orderBy: $orderBy, limit: $limit, offset: $offset) { id name }');
    expect(countDocument(lead)).toContain('total: crmLeadCount(where: $where)');
  });
  it('create and update use the create/update inputs; update passes the revision for optimistic locking', () => {
    expect(createDocument(lead)).toContain('crmLeadCreate(input: $input)');
    expect(updateDocument(lead)).toContain('$revision: Int');
    expect(updateDocument(lead)).toContain('crmLeadUpdate(id: $id, input: $input, revision: $revision)');
  });
});

describe('orderBy', () => {
  it('turns "a asc, b desc" into the orderBy input; direction defaults to asc', () => {
    expect(orderBy('name asc, expected_revenue desc')).toEqual([{ name: 'asc' }, { expected_revenue: 'desc' }]);
    expect(orderBy('name')).toEqual([{ name: 'asc' }]);
    expect(orderBy('')).toBeUndefined();
  });
});

describe('domainToWhere', () => {
  it('maps every comparison operator', () => {
    expect(domainToWhere([['stage', 'in', ['new', 'won']]])).toEqual({ stage: { in: ['new', 'won'] } });
    expect(domainToWhere([['a', '=', 1], ['b', '!=', null]])).toEqual({ AND: [{ a: { eq: 1 } }, { b: { ne: null } }] });
    expect(domainToWhere([['x', '>=', '2026-11-01T00:00:00.000Z']])).toEqual({ x: { gte: '2026-11-01T00:00:00.000Z' } });
    expect(domainToWhere([['n', 'ilike', 'ac']])).toEqual({ n: { contains: 'ac', mode: 'insensitive' } });
    expect(domainToWhere([['n', 'not like', 'ac']])).toEqual({ NOT: { n: { contains: 'ac' } } });
    expect(domainToWhere([['n', 'not in', [1]]])).toEqual({ n: { notIn: [1] } });
  });
  it('honours the prefix operators | & ! and dotted paths through References', () => {
    expect(domainToWhere(['|', ['code', '=', 'FR'], ['code', '=', 'DE']])).toEqual({ OR: [{ code: { eq: 'FR' } }, { code: { eq: 'DE' } }] });
    expect(domainToWhere(['!', ['code', 'in', ['FR']]])).toEqual({ NOT: { code: { in: ['FR'] } } });
    expect(domainToWhere([['country.code', '=', 'FR']])).toEqual({ country: { is: { code: { eq: 'FR' } } } });
    expect(domainToWhere([['country', 'any', [['code', '=', 'FR']]]])).toEqual({ country: { is: { code: { eq: 'FR' } } } });
  });
  it('an empty or missing domain is no filter; andWhere drops empty parts', () => {
    expect(domainToWhere(null)).toEqual({});
    expect(andWhere([{}, { a: { eq: 1 } }, null])).toEqual({ a: { eq: 1 } });
  });
  it('an unknown operator or a malformed term is an error, not a silent match-all', () => {
    expect(() => domainToWhere([['a', 'near', 1]])).toThrow(DomainError);
    expect(() => domainToWhere([['a', '=']])).toThrow(DomainError);
  });
});

describe('toInput', () => {
  const fields = [f('name', 'char', { required: true }), f('email', 'char'), f('country', 'reference', { relation: 'res.country' }),
    f('amount', 'float'), f('count', 'integer'), f('created_at_utc', 'datetime', { readonly: true }), f('lines', 'one2many')];
  it('sends References as ids, numbers as numbers, empty optional text as null; never read-only or One2Many fields', () => {
    expect(toInput(fields, { name: 'A', email: '', country: { id: 'c1', name: 'France' }, amount: '2.5', count: '3', created_at_utc: 'x', lines: [] }))
      .toEqual({ name: 'A', email: null, country: 'c1', amount: 2.5, count: 3 });
  });
  it('on update only the changed fields are sent', () => {
    expect(toInput(fields, { name: 'A', email: 'a@x' }, new Set(['email']))).toEqual({ email: 'a@x' });
  });
});

describe('name search and display names', () => {
  it('a picker searches every name_search_field case-insensitively; empty text searches nothing', () => {
    expect(nameSearchWhere(lead, ' ac ')).toEqual({ OR: [{ name: { contains: 'ac', mode: 'insensitive' } }, { email: { contains: 'ac', mode: 'insensitive' } }] });
    expect(nameSearchWhere(lead, '  ')).toBeUndefined();
  });
  it('a record shows its record name, else its id', () => {
    expect(displayName(lead, { id: '1', name: 'Acme' })).toBe('Acme');
    expect(displayName(lead, { id: '1', name: null })).toBe('1');
  });
});
