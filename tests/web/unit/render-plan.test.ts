/**
 * The render-plan interpreter's pure parts: the flat form nodes served by GraphQL rebuilt into the
 * tree the form renders, and the search view's URL state turned into a `where`.
 */
import { describe, expect, it } from 'vitest';
import type { FormNode, SearchPlan } from '../../../web/src/app/meta.ts';
import { buildTree } from '../../../web/src/views/form/tree.ts';
import { searchWhere } from '../../../web/src/views/search/facets.ts';

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
