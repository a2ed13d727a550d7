import type { Principal } from '../../kernel/env.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';
import type { TransferField } from './fields.js';
import type { Cell } from './formats.js';
import { namesByIds } from './names.js';

/**
 * The rows of an export, a page at a time: each page is one `fw.search` as the caller (access,
 * field access, record rules and read hooks apply as on any list), its References turned into
 * record names with one more read per Reference column. Only one page is held at a time.
 * Pages are read by offset under the model's order, which ends with `dbid` (a stable order);
 * records written while an export runs may be missed or repeated, as with any paged list.
 */
export interface ExportQuery {
  model: ResolvedModel;
  columns: TransferField[];
  domain: unknown[] | undefined;
  order: string | undefined;
  pageSize: number;
}

type Rec = Record<string, unknown>;

function cellOf(f: TransferField, v: unknown, names: Map<string, string> | undefined): Cell {
  if (v === null || v === undefined) return null;
  if (f.type === 'reference') return names?.get(v as string) ?? (v as string);
  if (f.type === 'datetime') return new Date(v as string);
  if (f.type === 'json') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  return JSON.stringify(v);
}

export async function* exportRows(kernel: KernelHandle, principal: Principal, q: ExportQuery): AsyncGenerator<Cell[]> {
  const fields = q.columns.filter((c) => c.name !== 'id').map((c) => c.name);
  const refs = q.columns.filter((c) => c.type === 'reference');
  for (let offset = 0; ; offset += q.pageSize) {
    const page = await kernel.dispatch<{ items: Rec[] }>('fw.search',
      { model: q.model.key, domain: q.domain, order: q.order, limit: q.pageSize, offset, fields }, principal);
    const names = new Map<string, Map<string, string>>();
    for (const r of refs) {
      const ids = [...new Set(page.items.map((it) => it[r.name]).filter((v): v is string => typeof v === 'string'))];
      names.set(r.name, await namesByIds(kernel, principal, kernel.registry.model(r.relation!), ids));
    }
    for (const item of page.items) yield q.columns.map((c) => cellOf(c, item[c.name], names.get(c.name)));
    if (page.items.length < q.pageSize) return;
  }
}
