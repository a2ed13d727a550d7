import type { FormNode } from '../../app/meta.ts';

/** The plan's flat node list back into a tree (GraphQL cannot select a tree of unknown depth). */
export interface TreeNode { node: FormNode; children: TreeNode[] }

export function buildTree(nodes: readonly FormNode[]): TreeNode[] {
  const byIndex = new Map<number, TreeNode>(nodes.map((n) => [n.index, { node: n, children: [] }]));
  const roots: TreeNode[] = [];
  for (const n of nodes) {
    const t = byIndex.get(n.index)!;
    const parent = n.parent === null || n.parent === undefined ? undefined : byIndex.get(n.parent);
    (parent ? parent.children : roots).push(t);
  }
  return roots;
}

/** Every field node of the form, nested lists included once. */
export const fieldNodes = (nodes: readonly FormNode[]) => nodes.filter((n) => n.kind === 'field' && n.field);
