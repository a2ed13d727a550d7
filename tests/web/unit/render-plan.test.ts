/**
 * The render-plan interpreter's pure parts: the flat form nodes served by GraphQL rebuilt into the
 * tree the form renders, and the search view's URL state turned into a `where`.
 */
import { describe, expect, it } from 'vitest';
import type { FormNode, SearchPlan } from '../../../web/src/app/meta.ts';
import { buildTree } from '../../../web/src/views/form/tree.ts';
import { fieldTerm, listScope, validateViewSearch } from '../../../web/src/app/search-params.ts';
import { archivedWhere, fieldFacets, searchWhere } from '../../../web/src/views/search/facets.ts';

const node = (index: number, parent: number | null, kind: string, string: string | null = null) =>
  ({ index, parent, kind, string, field: null, button: null, list: null }) as unknown as FormNode;

describe('buildTree', () => {
  it('leaves out hidden fields, and a page or notebook left empty by them', () => {
    const withField = (i: number, parent: number, name: string) => ({ ...node(i, parent, 'field'), field: { name } }) as unknown as FormNode;
    const nodes = [node(0, null, 'group', 'G'), withField(1, 0, 'name'), node(2, null, 'notebook'), node(3, 2, 'page', 'Params'), withField(4, 3, 'param_ids')];
    expect(buildTree(nodes, ['param_ids']).map((t) => t.node.kind)).toEqual(['group']);
    expect(buildTree(nodes, []).map((t) => t.node.kind)).toEqual(['group', 'notebook']);
  });

  it('rebuilds groups, notebooks and pages from parent indices, keeping document order', () => {
    const tree = buildTree([node(0, null, 'group', 'Lead'), node(1, 0, 'field'), node(2, 0, 'field'), node(3, null, 'notebook'),
      node(4, 3, 'page', 'Notes'), node(5, 4, 'field'), node(6, 3, 'page', 'More')]);
    expect(tree.map((t) => t.node.kind)).toEqual(['group', 'notebook']);
    expect(tree[0].children.map((c) => c.node.index)).toEqual([1, 2]);
    expect(tree[1].children.map((c) => c.node.string)).toEqual(['Notes', 'More']);
    expect(tree[1].children[0].children.map((c) => c.node.index)).toEqual([5]);
  });
});

const plan = {
  __typename: 'SearchPlan', view_id: 'crm.lead.search', version: 1, title: 'Search', type: 'search', model: 'crm.lead',
  fields: [{ name: 'name', label: 'Lead', type: 'char' }, { name: 'salesperson', label: 'Salesperson', type: 'reference', relation: 'res.user' }],
  search_fields: [{ name: 'name', string: 'Lead' }, { name: 'salesperson', string: 'Salesperson' }],
  filters: [{ string: 'Open', domain: [['stage', 'in', ['new', 'qualified']]] }, { string: 'Won', domain: [['stage', '=', 'won']] }],
  group_by: [{ string: 'Stage', field: 'stage' }],
} as unknown as SearchPlan;
const models = new Map([['res.user', { key: 'res.user', description: 'User', record_name: 'name', name_search_fields: ['name'], names: {} as never }]]);

describe('searchWhere', () => {
  it('typed text matches any search field, a Reference by its target record name', () => {
    expect(searchWhere(plan, { q: 'ann' }, models)).toEqual({ OR: [
      { name: { contains: 'ann', mode: 'insensitive' } },
      { salesperson: { is: { name: { contains: 'ann', mode: 'insensitive' } } } },
    ] });
  });
  it('active filters are ORed with each other and ANDed with the text', () => {
    expect(searchWhere(plan, { filter: ['Open', 'Won'] }, models)).toEqual({ OR: [{ stage: { in: ['new', 'qualified'] } }, { stage: { eq: 'won' } }] });
    const both = searchWhere(plan, { q: 'x', filter: ['Won'] }, models) as { AND: unknown[] };
    expect(both.AND).toHaveLength(2);
    expect(both.AND[1]).toEqual({ stage: { eq: 'won' } });
  });
  it('no text and no filter is no condition; an unknown filter name is ignored', () => {
    expect(searchWhere(plan, {}, models)).toEqual({});
    expect(searchWhere(plan, { filter: ['Nope'] }, models)).toEqual({});
  });
});

describe('search in a chosen field', () => {
  it('a field facet matches only that field, a Reference by its target\'s name search; texts of one field are ORed, fields ANDed', () => {
    const users = new Map([['res.user', { ...models.get('res.user')!, name_search_fields: ['name', 'email'] }]]);
    const ann = { salesperson: { is: { OR: [{ name: { contains: 'ann', mode: 'insensitive' } }, { email: { contains: 'ann', mode: 'insensitive' } }] } } };
    expect(searchWhere(plan, { field: ['name:acme'] }, users)).toEqual({ name: { contains: 'acme', mode: 'insensitive' } });
    expect(searchWhere(plan, { field: ['salesperson:ann', 'salesperson:bob'] }, users)).toEqual({ OR: [
      ann,
      { salesperson: { is: { OR: [{ name: { contains: 'bob', mode: 'insensitive' } }, { email: { contains: 'bob', mode: 'insensitive' } }] } } },
    ] });
    const both = searchWhere(plan, { field: ['salesperson:ann', 'name:acme'] }, users) as { AND: unknown[] };
    expect(both.AND).toEqual([{ name: { contains: 'acme', mode: 'insensitive' } }, ann]);
  });
  it('facets are grouped per search field in the view\'s order; an entry naming no search field is left out', () => {
    expect(fieldFacets(plan, { field: ['salesperson:ann', 'name:acme', 'name:bolt', 'stage:new'] })).toEqual([
      { name: 'name', label: 'Lead', texts: ['acme', 'bolt'], entries: ['name:acme', 'name:bolt'] },
      { name: 'salesperson', label: 'Salesperson', texts: ['ann'], entries: ['salesperson:ann'] },
    ]);
    expect(searchWhere(plan, { field: ['stage:new'] }, models)).toEqual({});
  });
  it('a URL entry is "<field>:<text>" (the text may hold colons); anything else is dropped when the URL is read', () => {
    expect(fieldTerm('name:a:b')).toEqual({ field: 'name', text: 'a:b' });
    expect(fieldTerm(':x')).toBeNull();
    expect(fieldTerm('name:')).toBeNull();
    expect(validateViewSearch({ field: ['name:x', 'bogus', 3], archived: 'true' })).toMatchObject({ field: ['name:x'], archived: true });
    expect(validateViewSearch({ archived: 'no' }).archived).toBeUndefined();
  });
});

describe('archived records', () => {
  const org = { key: 'res.organization', description: 'Organization', record_name: 'name', name_search_fields: ['name'], names: {} as never };
  it('an archivable model shows its active records unless the search asks for the archived ones', () => {
    expect(archivedWhere({ ...org, archivable: true }, {}, null)).toEqual({ is_active: { eq: true } });
    expect(archivedWhere({ ...org, archivable: true }, { archived: true }, null)).toEqual({ is_active: { eq: false } });
  });
  it('a model without is_active, or an action whose domain names is_active, is left alone', () => {
    expect(archivedWhere(org, {}, null)).toBeNull();
    expect(archivedWhere({ ...org, archivable: true }, {}, [['is_active', '=', false]])).toBeNull();
  });
  it('a form keeps the search of the view it was opened from, with the view\'s order when the URL had none', () => {
    expect(listScope({ view: 'list', q: 'x', field: ['name:a'], filter: ['Open'], archived: true, group_by: 'stage', page: 3, limit: 20 }, 'name asc'))
      .toEqual({ view: 'list', q: 'x', field: ['name:a'], filter: ['Open'], archived: true, order: 'name asc' });
  });
});
