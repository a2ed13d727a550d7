import type { Group } from '../../model/useRecords.ts';

/**
 * The pivot's two header trees, built from one read_group over every row and column group-by:
 * a node is a path of key values (the root, "Total", is the empty path), its children the values
 * of the next group-by under it in the server's order. Each cell sums the groups under its row
 * and column paths, so a collapsed header shows its total without asking the server again.
 */
export interface HeaderNode { path: unknown[]; children: HeaderNode[] }

export const pathId = (path: readonly unknown[]) => JSON.stringify(path);

export function headerTree(groups: readonly Group[], fields: readonly string[]): HeaderNode {
  const root: HeaderNode = { path: [], children: [] };
  const index = new Map<string, HeaderNode>([[pathId([]), root]]);
  for (const g of groups) {
    let parent = root;
    const path: unknown[] = [];
    for (const f of fields) {
      path.push(g.key[f] ?? null);
      const id = pathId(path);
      let node = index.get(id);
      if (!node) {
        node = { path: [...path], children: [] };
        index.set(id, node);
        parent.children.push(node);
      }
      parent = node;
    }
  }
  return root;
}

/** Sums per (row path, column path, measure) for every prefix of both paths. */
export function cellTable(groups: readonly Group[], rowFields: readonly string[], colFields: readonly string[], measures: readonly string[], value: (g: Group, m: string) => number) {
  const sums = new Map<string, number[]>();
  for (const g of groups) {
    const row = rowFields.map((f) => g.key[f] ?? null);
    const col = colFields.map((f) => g.key[f] ?? null);
    const values = measures.map((m) => value(g, m));
    for (let i = 0; i <= row.length; i++) {
      for (let j = 0; j <= col.length; j++) {
        const id = `${pathId(row.slice(0, i))}|${pathId(col.slice(0, j))}`;
        const acc = sums.get(id) ?? measures.map(() => 0);
        values.forEach((v, k) => { acc[k] += v; });
        sums.set(id, acc);
      }
    }
  }
  return (row: readonly unknown[], col: readonly unknown[]): number[] | undefined => sums.get(`${pathId(row)}|${pathId(col)}`);
}

/** The rows shown: a node, then (when expanded) its children's rows, depth first. */
export function visibleRows(node: HeaderNode, expanded: ReadonlySet<string>): HeaderNode[] {
  return [node, ...(expanded.has(pathId(node.path)) ? node.children.flatMap((c) => visibleRows(c, expanded)) : [])];
}

/** The columns shown: the leaves of the expanded part of the tree, left to right. */
export function visibleLeaves(node: HeaderNode, expanded: ReadonlySet<string>): HeaderNode[] {
  return expanded.has(pathId(node.path)) && node.children.length ? node.children.flatMap((c) => visibleLeaves(c, expanded)) : [node];
}

/** The column header rows: per depth, the nodes shown at it with how many leaf columns each spans. */
export function headerRows(root: HeaderNode, expanded: ReadonlySet<string>): Array<Array<{ node: HeaderNode; leaves: number; open: boolean }>> {
  const rows: Array<Array<{ node: HeaderNode; leaves: number; open: boolean }>> = [];
  const walk = (n: HeaderNode, depth: number) => {
    const open = expanded.has(pathId(n.path)) && n.children.length > 0;
    (rows[depth] ??= []).push({ node: n, leaves: visibleLeaves(n, expanded).length, open });
    if (open) n.children.forEach((c) => walk(c, depth + 1));
  };
  walk(root, 0);
  return rows;
}

/** A set without `node`'s path and its descendants' (collapsing a header collapses what is under it). */
export function collapse(expanded: ReadonlySet<string>, path: readonly unknown[]): Set<string> {
  const prefix = pathId(path).slice(0, -1);
  return new Set([...expanded].filter((id) => !(id === pathId(path) || (id.startsWith(prefix) && (path.length === 0 || id[prefix.length] === ',')))));
}

/** RFC 4180 CSV of rows of cells (quotes doubled, every cell quoted when it needs to be). */
export function toCsv(rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cell = (v: string | number) => {
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
