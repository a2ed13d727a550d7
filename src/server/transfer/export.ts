import type { Principal } from '../../kernel/env.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';
import type { TransferField } from './fields.js';
import type { Cell } from './formats.js';
import { namesByIds } from './names.js';

/**
 * The rows of an export. First the ids of every matching record, in the export's order, in one
 * `fw.search` (one sort, and the set of records fixed when the export starts: a record written
 * meanwhile is neither missed nor repeated); then the records a page of ids at a time, each page
 * one `fw.search` as the caller (access, field access, record rules and read hooks apply as on
 * any list), its References turned into record names with one more read per Reference column.
 * Only the ids (about 60 bytes a record) and one page of records are held at a time.
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
  const ids = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: q.model.key, domain: q.domain, order: q.order, fields: ['record_uuid'] }, principal))
    .items.map((it) => it.id as string);
  for (let at = 0; at < ids.length; at += q.pageSize) {
    const part = ids.slice(at, at + q.pageSize);
    const page = await kernel.dispatch<{ items: Rec[] }>('fw.search',
      { model: q.model.key, domain: [['record_uuid', 'in', part]], limit: part.length, fields }, principal);
    const byId = new Map(page.items.map((it) => [it.id as string, it]));
    const names = new Map<string, Map<string, string>>();
    for (const r of refs) {
      const refIds = [...new Set(page.items.map((it) => it[r.name]).filter((v): v is string => typeof v === 'string'))];
      names.set(r.name, await namesByIds(kernel, principal, kernel.registry.model(r.relation!), refIds));
    }
    for (const id of part) {
      // deleted since the ids were read: left out
      const item = byId.get(id);
      if (item) yield q.columns.map((c) => cellOf(c, item[c.name], names.get(c.name)));
    }
  }
}
