/**
 * What still points at a record: every Reference of the registry whose target is the record's
 * model, counted. A delete that would be refused (or, for a model that chooses so, that would
 * cascade or detach) answers with the models and counts in the way, instead of the database's
 * bare foreign-key error.
 */
import type { OnDelete } from '../declare.js';
import type { Env } from '../env.js';
import { Conflict } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';
import { delegateOf } from './delegate.js';

export interface ReferenceCount {
  /** The referencing model and its Reference field. */
  model: string;
  field: string;
  on_delete: OnDelete;
  count: number;
}

/** Every stored Reference to `target` in the registry, with its `on_delete`, in registry order. */
export function inboundReferences(env: Env, target: string): Array<{ model: ResolvedModel; field: string; onDelete: OnDelete }> {
  const out: Array<{ model: ResolvedModel; field: string; onDelete: OnDelete }> = [];
  for (const model of env.registry.models.values()) {
    for (const f of model.fields.values()) {
      // a Reference is always stored; its on_delete is resolved when the model loads (the default
      // here only satisfies the type: an equivalent mutant)
      if (f.type === 'reference' && f.target === target) out.push({ model, field: f.name, onDelete: f.onDelete ?? 'restrict' });
    }
  }
  return out;
}

/**
 * Records that refer to `model`'s record `id` through a Reference whose `on_delete` is one of
 * `kinds`; only the references with at least one. Counted as the system: a refusal must not
 * depend on what the caller can see.
 */
export async function countReferences(env: Env, model: ResolvedModel, id: string, kinds: readonly OnDelete[]): Promise<ReferenceCount[]> {
  const sys = env.sudo();
  const out: ReferenceCount[] = [];
  for (const ref of inboundReferences(env, model.key)) {
    if (!kinds.includes(ref.onDelete)) continue;
    const count = await delegateOf(sys.db, ref.model).count({ where: { [ref.field]: id } });
    if (count) out.push({ model: ref.model.key, field: ref.field, on_delete: ref.onDelete, count });
  }
  return out;
}

/**
 * 409 RECORD_REFERENCED naming what is in the way:
 * `Organization "Acme" is still referred to by 3 storage.document (organization_id) and …`.
 */
export function referencedError(model: ResolvedModel, record: Record<string, unknown>, refs: ReferenceCount[], advice = 'delete them or point them elsewhere first'): Conflict {
  const name = record[model.recordName];
  const what = `${model.description}${typeof name === 'string' && name ? ` "${name}"` : ` ${String(record.id)}`}`;
  const list = refs.map((r) => `${r.count} ${r.model} (${r.field})`);
  const joined = list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0];
  return new Conflict(`${what} is still referred to by ${joined}; ${advice}`,
    { model: model.key, id: record.id, references: refs }, 'RECORD_REFERENCED');
}
