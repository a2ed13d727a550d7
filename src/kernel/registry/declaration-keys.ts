/**
 * The keys a model declaration may hold, checked at boot: an unknown key stops it, with the key
 * meant when one is close. A declaration is plain data, so a misspelt key was simply not read:
 * `rule: [...]` for `rules` dropped every record rule of the model (any user could update every
 * record) and `requird: true` left the field optional, with nothing said by `fw dev`, `fw serve`
 * or `fw generate` (found by the developer trial of 2026-11-30). Only `tsc` saw them.
 *
 * The lists are typed as `Record<keyof …, true>`, so a key added to a declaration type that is
 * not added here fails to compile, and one removed there fails here.
 */
import type { AccessDecl, FieldDecl, FieldType, ModelDecl, RecordRule } from '../declare.js';
import { BootError } from '../errors.js';
import { didYouMean, didYouMeanOrList } from './closest.js';

const MODEL: Record<keyof ModelDecl, true> = {
  key: true, description: true, record_name: true, default_order: true, name_search_fields: true, fields: true,
  unique_together: true, access: true, create_command: true,
};
const ACCESS: Record<keyof AccessDecl, true> = { roles: true, fields: true, rules: true };
const RULE: Record<keyof RecordRule, true> = { roles: true, ops: true, domain: true, follow: true };
const FIELD_ACCESS: Record<'read' | 'write', true> = { read: true, write: true };

const BASE = { type: true, description: true, required: true, unique: true, readonly: true, private: true, index: true, help: true, copy: true, renamed_from: true } as const;
const FIELDS: { [T in FieldType]: Record<keyof Extract<FieldDecl, { type: T }>, true> } = {
  char: { ...BASE, size: true, default: true, allow_empty: true },
  text: { ...BASE, default: true, allow_empty: true },
  integer: { ...BASE, default: true, min: true, max: true },
  float: { ...BASE, default: true },
  boolean: { ...BASE, default: true },
  datetime: { ...BASE, default: true },
  json: { ...BASE },
  uuid: { ...BASE },
  enum: { ...BASE, values: true, default: true, labels: true },
  reference: { ...BASE, target: true, on_delete: true, if_loaded: true, default_principal: true },
  one2many: { ...BASE, target: true, inverse: true },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKnown(where: string, value: unknown, known: Record<string, true>): void {
  if (!isObject(value)) throw new BootError(`${where} must be an object`);
  for (const k of Object.keys(value)) {
    if (!Object.hasOwn(known, k)) throw new BootError(`${where} has no option "${k}"${didYouMean(k, Object.keys(known))}; it would be ignored`);
  }
}

/** Throws a BootError naming the first unknown key of a model declaration (model, access, rules, fields). */
export function checkDeclarationKeys(decl: ModelDecl): void {
  const model = `model ${String(decl.key)}`;
  onlyKnown(model, decl, MODEL);
  if (!isObject(decl.fields)) throw new BootError(`${model}: fields must be an object of field declarations`);
  for (const [name, field] of Object.entries(decl.fields)) {
    const where = `${model}, field ${name}`;
    if (!isObject(field)) throw new BootError(`${where} must be a field declaration (f.char(…), f.reference(…), …)`);
    const type = field.type;
    if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) {
      throw new BootError(`${where}: unknown field type "${String(type)}"${didYouMeanOrList(String(type), Object.keys(FIELDS))}`);
    }
    onlyKnown(where, field, FIELDS[type as FieldType]);
  }
  if (decl.access === undefined) return;
  onlyKnown(`${model}: access`, decl.access, ACCESS);
  for (const [name, rights] of Object.entries(decl.access.fields ?? {})) onlyKnown(`${model}: access.fields.${name}`, rights, FIELD_ACCESS);
  (decl.access.rules ?? []).forEach((rule, i) => onlyKnown(`${model}: access.rules[${i}]`, rule, RULE));
}
