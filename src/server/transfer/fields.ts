import { canReadField, canWriteField } from '../../kernel/access.js';
import type { Principal } from '../../kernel/env.js';
import { BadRequest } from '../../kernel/errors.js';
import { fieldLabel, sourceLabel } from '../../kernel/registry/labels.js';
import { requiredOnCreate, type ResolvedField, type ResolvedModel } from '../../kernel/registry/model.js';
import type { Registry } from '../../kernel/registry/registry.js';

/**
 * Which fields of a model a principal may export or import, from the registry alone: the same
 * read and write rules the record routes apply, so a file never carries a field the API hides.
 */
export interface TransferField {
  name: string;
  /** In the caller's language (`res.user.lang`) when an app translates it. */
  label: string;
  /** The declaration's own (English) label: an import column may carry either. */
  source_label: string;
  type: string;
  required: boolean;
  /** the target model of a Reference */
  relation: string | null;
  /** an Enum's values */
  values: readonly string[] | null;
}

/** `id` (the record id) heads both lists: export writes it, import updates the record it names. */
const ID: TransferField = { name: 'id', label: 'ID', source_label: 'ID', type: 'uuid', required: false, relation: null, values: null };

const describe = (registry: Registry, model: ResolvedModel, f: ResolvedField, principal: Principal): TransferField => ({
  name: f.name, label: fieldLabel(registry, model, f, principal.lang), source_label: sourceLabel(f),
  type: f.type, required: requiredOnCreate(f), relation: f.target ?? null, values: f.values ?? null,
});

/** Stored, readable, not private; One2Many lists are not cells. */
export function exportableFields(registry: Registry, model: ResolvedModel, principal: Principal): TransferField[] {
  const out = [ID];
  for (const f of model.fields.values()) {
    if (!f.stored || f.private || f.name === 'record_uuid' || f.name === 'dbid' || !canReadField(model, f, principal)) continue;
    out.push(describe(registry, model, f, principal));
  }
  return out;
}

/** What a generic create or update accepts from this principal. */
export function importableFields(registry: Registry, model: ResolvedModel, principal: Principal): TransferField[] {
  const out = [ID];
  for (const f of model.fields.values()) {
    if (!f.stored || f.auto || f.readonly || f.private || !canWriteField(model, f, principal)) continue;
    out.push(describe(registry, model, f, principal));
  }
  return out;
}

/** The export's columns: the asked-for fields in their order, every exportable one when none. */
export function exportColumns(registry: Registry, model: ResolvedModel, principal: Principal, names: unknown): TransferField[] {
  const all = exportableFields(registry, model, principal);
  if (names === undefined || names === null) return all.filter((f) => !['created_at_utc', 'updated_at_utc', 'revision'].includes(f.name));
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string')) {
    throw new BadRequest('fields must be a non-empty list of field names', undefined, 'EXPORT_INVALID_FIELDS');
  }
  return (names as string[]).map((n) => {
    const f = all.find((x) => x.name === n);
    if (!f) throw new BadRequest(`${model.key} has no field "${n}" you may export`, { field: n, model: model.key }, 'EXPORT_UNKNOWN_FIELD');
    return f;
  });
}
