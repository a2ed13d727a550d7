/**
 * The GraphQL shapes of trees (pure functions, no server): a form plan's sheet as a flat list of
 * nodes in document order, each naming its parent by index (notebook pages become `page` nodes
 * under their notebook), and an app's menu tree as a flat list naming parent keys.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { flattenMenus, type MenuNode } from '../../src/apps/presentation/bootstrap.ts';
import { flattenSheet, type FormNode } from '../../src/apps/presentation/views/flatten.ts';
import type { SheetNode } from '../../src/apps/presentation/views/plan.ts';
import { ViewRegistry } from '../../src/apps/presentation/views/registry.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { loadAllApps, projectLayout } from '../../src/kernel/modules/loader.ts';

let views: ViewRegistry;

beforeAll(async () => {
  views = new ViewRegistry(createRegistry(await loadAllApps(projectLayout())));
});

const sheetOf = (id: string) => views.plan(id, systemPrincipal('default')).sheet as SheetNode[];
/** `kind:string@parent` per node: the tree at a glance. */
const outline = (nodes: FormNode[]) => nodes.map((n) => `${n.kind}:${n.string ?? ''}@${n.parent ?? '-'}`);

describe('flattenSheet', () => {
  it('crm.lead.form: groups, their fields, a notebook and its page, in document order with parent indexes', () => {
    const nodes = flattenSheet(sheetOf('crm.lead.form'));
    expect(outline(nodes)).toEqual([
      'group:Lead@-',
      'field:Name@0', 'field:Email@0', 'field:Expected revenue@0', 'field:Expected closing@0', 'field:Win probability (0–1)@0', 'field:Closed on@0',
      'group:Ownership@-',
      'field:Organization@7', 'field:Salesperson@7', 'field:Country@7',
      'notebook:@-',
      'page:Notes@11',
      'field:Notes@12',
    ]);
    expect(nodes.map((n) => n.index)).toEqual(nodes.map((_, i) => i));
    for (const n of nodes) if (n.parent !== null) expect(n.parent).toBeLessThan(n.index);
    expect(nodes[3]).toEqual({
      index: 3, parent: 0, kind: 'field', string: 'Expected revenue', button: null, list: null, modifiers: null,
      field: { name: 'expected_revenue', label: 'Expected revenue', type: 'integer', widget: 'money', optional: null, required: false, readonly: false, relation: null, values: null, default: 0, help: null },
    });
    // a node with view modifiers carries their trees
    expect(nodes[6].modifiers).toEqual({
      invisible: { op: 'not in', args: [{ field: 'stage' }, { const: ['won', 'lost'] }] },
      required: { op: '==', args: [{ field: 'stage' }, { const: 'won' }] },
    });
    expect(nodes[9].field).toMatchObject({ name: 'salesperson', type: 'reference', relation: 'res.user' });
    expect(nodes[12]).toEqual({ index: 12, parent: 11, kind: 'page', string: 'Notes', field: null, button: null, list: null, modifiers: null });
  });

  it('storage.document.form: two pages under one notebook, the nested One2Many list on its field node', () => {
    const sheet = sheetOf('storage.document.form');
    const nodes = flattenSheet(sheet);
    const notebook = nodes.find((n) => n.kind === 'notebook')!;
    const pages = nodes.filter((n) => n.kind === 'page');
    expect(pages.map((p) => [p.string, p.parent])).toEqual([['Description', notebook.index], ['Versions', notebook.index]]);
    const versions = nodes.find((n) => n.field?.name === 'versions')!;
    expect(versions.parent).toBe(pages[1].index);
    expect(versions.list).toMatchObject({ model: 'storage.document_version', inverse: 'document_id', default_order: 'version_number desc', limit: null });
    expect(versions.list!.columns[0]).toEqual({
      name: 'version_number', label: 'Version number', type: 'integer', widget: null, optional: null,
      required: true, readonly: false, relation: null, values: null, default: null,
    });
    // the REST plan is left as it was: nodes are computed, not stored
    expect(sheet.some((n) => n.kind === 'notebook')).toBe(true);
    expect(nodes.every((n) => !('children' in n) && !('pages' in n))).toBe(true);
  });

  it('buttons and separators keep their keys; an empty sheet is an empty list', () => {
    const nodes = flattenSheet([
      { kind: 'separator', string: null },
      { kind: 'group', string: null, children: [{ kind: 'button', string: 'Go', name: 'x.go', type: 'object', special: null, special_accept: null }] },
    ]);
    expect(nodes).toEqual([
      { index: 0, parent: null, kind: 'separator', string: null, field: null, button: null, list: null, modifiers: null },
      { index: 1, parent: null, kind: 'group', string: null, field: null, button: null, list: null, modifiers: null },
      { index: 2, parent: 1, kind: 'button', string: 'Go', field: null, list: null, modifiers: null, button: { string: 'Go', name: 'x.go', type: 'object', special: null, special_accept: null } },
    ]);
    expect(flattenSheet([])).toEqual([]);
  });
});

describe('flattenMenus', () => {
  const menu = (key: string, children: MenuNode[] = []): MenuNode =>
    ({ id: `id-${key}`, key, name: key, icon: null, category: 'settings', sequence: 10, action: null, children });

  it('lists every descendant in tree order, parent_key null for the direct children', () => {
    const flat = flattenMenus([menu('a', [menu('a1'), menu('a2', [menu('a2x')])]), menu('b')]);
    expect(flat.map((m) => [m.key, m.parent_key])).toEqual([['a', null], ['a1', 'a'], ['a2', 'a'], ['a2x', 'a2'], ['b', null]]);
    expect(flat[0]).toEqual({ id: 'id-a', key: 'a', name: 'a', icon: null, category: 'settings', sequence: 10, action: null, parent_key: null });
  });
});
