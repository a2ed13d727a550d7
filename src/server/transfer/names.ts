import { canAccess } from '../../kernel/access.js';
import type { Principal } from '../../kernel/env.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';

/**
 * Record names for References, both ways, read through `fw.search` as the caller: a record the
 * caller cannot read has no name for them (export writes its id, import does not find it).
 */
const CHUNK = 500;

type Rec = Record<string, unknown>;
interface SearchResult { items: Rec[] }

const chunks = <T>(list: T[]): T[][] => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

/** A model named by its uuid has no name other than its id. */
export const hasName = (m: ResolvedModel): boolean => m.recordName !== 'record_uuid';

/** id → record name of the given ids the caller may read (the others are absent). */
export async function namesByIds(kernel: KernelHandle, principal: Principal, target: ResolvedModel, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!ids.length || !hasName(target) || !canAccess(target, principal, 'read')) return out;
  for (const part of chunks(ids)) {
    const r = await kernel.dispatch<SearchResult>('fw.search', { model: target.key, domain: [['record_uuid', 'in', part]], fields: [target.recordName] }, principal);
    for (const item of r.items) out.set(item.id as string, item[target.recordName] === null ? '' : String(item[target.recordName]));
  }
  return out;
}

/** value → ids of the records whose `field` holds it, among those the caller may read. */
export async function idsByValues(kernel: KernelHandle, principal: Principal, model: ResolvedModel, field: string, values: unknown[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!values.length || !canAccess(model, principal, 'read')) return out;
  for (const part of chunks(values)) {
    const r = await kernel.dispatch<SearchResult>('fw.search', { model: model.key, domain: [[field, 'in', part]], fields: [field] }, principal);
    for (const item of r.items) {
      const key = String(item[field]);
      out.set(key, [...(out.get(key) ?? []), item.id as string]);
    }
  }
  return out;
}
