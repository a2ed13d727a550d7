import type { FormNode } from '../../app/meta.ts';

/** The plan's flat node list back into a tree (GraphQL cannot select a tree of unknown depth). */
export interface TreeNode { node: FormNode; children: TreeNode[] }

export function buildTree(nodes: readonly FormNode[], hidden: readonly string[] = []): TreeNode[] {
  const byIndex = new Map<number, TreeNode>(nodes.map((n) => [n.index, { node: n, children: [] }]));
  const roots: TreeNode[] = [];
  for (const n of nodes) {
    if (n.kind === 'field' && n.field && hidden.includes(n.field.name)) continue;
    const t = byIndex.get(n.index)!;
    const parent = n.parent === null || n.parent === undefined ? undefined : byIndex.get(n.parent);
    (parent ? parent.children : roots).push(t);
  }
  // a page, group or notebook left with nothing to show is left out too
  const prune = (list: TreeNode[]): TreeNode[] => list
    .map((t) => ({ ...t, children: prune(t.children) }))
    .filter((t) => t.node.kind === 'field' || t.node.kind === 'button' || t.node.kind === 'separator' || t.children.length > 0);
  return hidden.length ? prune(roots) : roots;
}
