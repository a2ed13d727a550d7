import type { Modifiers } from './modifiers.js';
import type { NestedList, PlanButton, PlanField, SheetNode } from './plan.js';

/**
 * One node of a flattened form sheet (the GraphQL shape, `FormNode`). GraphQL cannot select a
 * tree of unknown depth, so the sheet is sent as a list in document order where each node names
 * its parent by index.
 */
export interface FormNode {
  /** Position in the list (document order: a parent always comes before its children). */
  index: number;
  /** Index of the enclosing group, notebook or page; null at the top of the sheet. */
  parent: number | null;
  kind: 'group' | 'notebook' | 'page' | 'field' | 'button' | 'separator';
  /** Title of a group, page or separator; label of a field; text of a button. */
  string: string | null;
  field: PlanField | null;
  button: PlanButton | null;
  list: NestedList | null;
  /** The node's invisible/readonly/required expressions (view modifiers); null when it has none. */
  modifiers: Modifiers | null;
}

/** The sheet of a form plan as a flat list: pages become nodes of kind `page` under their notebook. */
export function flattenSheet(sheet: readonly SheetNode[]): FormNode[] {
  const out: FormNode[] = [];
  const add = (parent: number | null, kind: FormNode['kind'], extra: Partial<FormNode> = {}): number => {
    out.push({ index: out.length, parent, kind, string: null, field: null, button: null, list: null, modifiers: null, ...extra });
    return out.length - 1;
  };
  const walk = (nodes: readonly SheetNode[], parent: number | null): void => {
    for (const n of nodes) {
      switch (n.kind) {
        case 'group':
          walk(n.children, add(parent, 'group', { string: n.string, modifiers: n.modifiers ?? null }));
          break;
        case 'notebook': {
          const notebook = add(parent, 'notebook');
          for (const page of n.pages) walk(page.children, add(notebook, 'page', { string: page.string, modifiers: page.modifiers ?? null }));
          break;
        }
        case 'field': {
          const { kind: _, list, modifiers, ...field } = n;
          add(parent, 'field', { string: field.label, field, list: list ?? null, modifiers: modifiers ?? null });
          break;
        }
        case 'button': {
          const { kind: _, modifiers, ...button } = n;
          add(parent, 'button', { string: button.string, button, modifiers: modifiers ?? null });
          break;
        }
        case 'separator':
          add(parent, 'separator', { string: n.string });
      }
    }
  };
  walk(sheet, null);
  return out;
}
