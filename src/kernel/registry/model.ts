import type { AccessDecl, FieldDecl, FieldType, ModelDecl, OnDelete, RecordRule } from '../declare.js';
import { BootError } from '../errors.js';
import { didYouMean } from './closest.js';
import { checkDeclarationKeys } from './declaration-keys.js';
import { modelNames, type ModelNames } from './names.js';

/** A field after normalisation: every option filled, so no layer re-derives defaults. */
export interface ResolvedField {
  name: string;
  type: FieldType;
  description: string;
  /** A sentence that helps a person fill the field (shown under the input), not its label. */
  help?: string;
  required: boolean;
  unique: boolean;
  readonly: boolean;
  private: boolean;
  index: boolean;
  /** Automatic field every model has (dbid, record_uuid, …). */
  auto: boolean;
  /** Copied by `fw.copy`: not declared `copy: false`, not unique, stored, writable. */
  copy: boolean;
  /** Has a database column (everything but one2many). */
  stored: boolean;
  /** NOT NULL in the database: required or defaulted. */
  notNull: boolean;
  size?: number;
  /** Char/Text: a required field accepts blank text (declared `allow_empty`). */
  allowEmpty?: boolean;
  values?: readonly string[];
  /** Enum: declared labels of some values (EnumField.labels); the others' is derived (enumValueLabel) */
  labels?: Readonly<Record<string, string>>;
  target?: string;
  onDelete?: OnDelete;
  inverse?: string;
  /**
   * Declared `if_loaded`: what the Reference points to when its target's app is there. Kept when
   * it degrades to a uuid (`degradeReference`), so the key can be managed whichever way
   * (src/kernel/db/optional-keys.ts).
   */
  ifLoaded?: { target: string; onDelete: OnDelete };
  /** Reference filled on create from the caller when left out (ReferenceField.default_principal). */
  defaultPrincipal?: 'organization_id' | 'user_id';
  default?: unknown;
  min?: number;
  max?: number;
}

/**
 * A value a create must give: required, with no declared default, and not filled from the caller
 * (`default_principal`). GraphQL's create inputs, OpenAPI, the app types and import read this.
 */
export const requiredOnCreate = (f: ResolvedField): boolean => f.required && !filledOnCreate(f);

/** Whether a create fills the field when it is given no value: a declared default, or the caller (`default_principal`). */
export const filledOnCreate = (f: ResolvedField): boolean => f.default !== undefined || Boolean(f.defaultPrincipal);

/**
 * An Enum value's English label: the declared one (EnumField.labels), else derived from the value
 * as the client does by default (web/src/widgets/display.tsx enumLabel): `closed_won` → "Closed won".
 */
export function enumValueLabel(f: Pick<ResolvedField, 'labels'>, value: string): string {
  const declared = f.labels?.[value];
  if (declared) return declared;
  const words = value.replace(/[_-]+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : value;
}

export interface ResolvedOrder { field: string; direction: 'asc' | 'desc' }

export interface ResolvedModel {
  key: string;
  app: string;
  description: string;
  recordName: string;
  defaultOrder: ResolvedOrder[];
  nameSearchFields: string[];
  fields: ReadonlyMap<string, ResolvedField>;
  uniqueTogether: string[][];
  access: Required<AccessDecl>;
  names: ModelNames;
  createCommand?: string;
}

/**
 * What a new row holds in a column the create left out: the database's counter (`dbid`), the
 * time of the write (`created_at_utc`, `updated_at_utc`, datetime defaults), or a value. JSON
 * defaults are not column defaults (the Prisma schema has none for them). The Prisma schema's
 * `@default`/`@updatedAt` attributes are printed from this, and a create without Prisma
 * (src/kernel/commands/crud.ts) applies it the way Prisma's client does: every default sent as a
 * value, one time for all of a row's times.
 */
export type ColumnDefault = { kind: 'autoincrement' } | { kind: 'now' } | { kind: 'updatedAt' } | { kind: 'value'; value: string | number | boolean };

export function columnDefault(f: ResolvedField): ColumnDefault | undefined {
  if (f.name === 'dbid') return { kind: 'autoincrement' };
  if (f.name === 'created_at_utc') return { kind: 'now' };
  if (f.name === 'updated_at_utc') return { kind: 'updatedAt' };
  if (f.name === 'revision') return { kind: 'value', value: 1 };
  if (f.default === undefined || f.type === 'json') return undefined;
  if (f.type === 'datetime') return { kind: 'now' };
  const v = f.default;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? { kind: 'value', value: v } : undefined;
}

export const AUTO_FIELDS = ['dbid', 'record_uuid', 'created_at_utc', 'updated_at_utc', 'revision'] as const;
const RESERVED = new Set<string>([...AUTO_FIELDS, 'id']);
const KEY_RE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const FIELD_RE = /^[a-z][a-z0-9_]*$/;

function autoFields(): ResolvedField[] {
  const base = { required: true, readonly: true, private: false, index: false, auto: true, copy: false, stored: true, notNull: true };
  return [
    { ...base, name: 'dbid', type: 'integer', description: 'Database id', unique: true },
    { ...base, name: 'record_uuid', type: 'uuid', description: 'Record id', unique: true },
    { ...base, name: 'created_at_utc', type: 'datetime', description: 'Created at (UTC)', unique: false },
    { ...base, name: 'updated_at_utc', type: 'datetime', description: 'Updated at (UTC)', unique: false },
    { ...base, name: 'revision', type: 'integer', description: 'Revision', unique: false },
  ];
}

const humanize = (name: string): string => {
  const s = name.replace(/_id$/, '').replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
};

export function parseOrder(text: string, where: string): ResolvedOrder[] {
  return text.split(',').map((part) => {
    const [field, dir = 'asc', ...rest] = part.trim().split(/\s+/);
    const direction = dir.toLowerCase();
    if (!field || rest.length || (direction !== 'asc' && direction !== 'desc')) {
      throw new BootError(`${where}: order "${text}" must read "<field> asc" or "<field> desc"`);
    }
    return { field, direction };
  });
}

export function resolveField(model: string, name: string, decl: FieldDecl): ResolvedField {
  const where = `model ${model}, field ${name}`;
  if (!FIELD_RE.test(name)) throw new BootError(`${where}: field names are lower_snake_case`);
  if (RESERVED.has(name)) throw new BootError(`${where}: "${name}" is an automatic field and cannot be declared`);
  if (name.endsWith('_rel') || name.startsWith('rev_')) {
    throw new BootError(`${where}: names ending in _rel or starting with rev_ are reserved for relations`);
  }
  const stored = decl.type !== 'one2many';
  const priv = decl.private ?? false;
  const def = 'default' in decl ? decl.default : undefined;
  const field: ResolvedField = {
    name,
    type: decl.type,
    description: decl.description ?? humanize(name),
    ...(decl.help ? { help: decl.help } : {}),
    required: decl.required ?? false,
    unique: decl.unique ?? false,
    readonly: (decl.readonly ?? false) || priv,
    private: priv,
    index: decl.index ?? false,
    auto: false,
    copy: decl.copy !== false && stored && !(decl.unique ?? false) && !(decl.readonly ?? false) && !priv,
    stored,
    notNull: stored && ((decl.required ?? false) || def !== undefined),
    default: def,
  };
  switch (decl.type) {
    case 'char':
      if (!Number.isInteger(decl.size) || decl.size < 1) throw new BootError(`${where}: Char size must be a positive integer`);
      field.size = decl.size;
      field.allowEmpty = decl.allow_empty ?? false;
      break;
    case 'text':
      field.allowEmpty = decl.allow_empty ?? false;
      break;
    case 'integer':
      field.min = decl.min;
      field.max = decl.max;
      break;
    case 'enum':
      if (!decl.values.length) throw new BootError(`${where}: an Enum needs at least one value`);
      if (new Set(decl.values).size !== decl.values.length) throw new BootError(`${where}: Enum values repeat`);
      field.values = [...decl.values];
      for (const v of Object.keys(decl.labels ?? {})) if (!decl.values.includes(v)) throw new BootError(`${where}: a label for "${v}", which is not one of ${decl.values.join(', ')}`);
      if (decl.labels) field.labels = { ...decl.labels };
      if (def !== undefined && !decl.values.includes(def as string)) {
        throw new BootError(`${where}: default "${String(def)}" is not one of ${decl.values.join(', ')}`);
      }
      break;
    case 'reference': {
      field.target = decl.target;
      const onDelete = decl.on_delete ?? (field.required ? 'restrict' : 'set null');
      if (onDelete === 'set null' && field.required) {
        throw new BootError(`${where}: on_delete "set null" needs an optional field`);
      }
      field.onDelete = onDelete;
      if (decl.if_loaded) field.ifLoaded = { target: decl.target, onDelete };
      if (decl.default_principal) field.defaultPrincipal = decl.default_principal;
      field.index = true;
      break;
    }
    case 'one2many':
      field.target = decl.target;
      field.inverse = decl.inverse;
      field.readonly = true;
      if (field.required || field.unique) throw new BootError(`${where}: a One2Many cannot be required or unique`);
      break;
    case 'datetime':
      if (def !== undefined && def !== 'now') throw new BootError(`${where}: a DateTime default can only be "now"`);
      break;
    default:
      break;
  }
  return field;
}

/**
 * Each record rule has a domain or follows a reference, not both; a followed field is a Reference
 * (or the pair of a Char naming the model and a Uuid naming the record).
 */
function checkRules(key: string, rules: readonly RecordRule[], fields: ReadonlyMap<string, ResolvedField>): void {
  rules.forEach((rule, i) => {
    const where = `model ${key}: access.rules[${i}]`;
    if ((rule.domain === undefined) === (rule.follow === undefined)) throw new BootError(`${where} needs either a domain or follow (exactly one)`);
    if (typeof rule.follow === 'string') {
      const f = fields.get(rule.follow);
      if (f?.type !== 'reference') throw new BootError(`${where} follows "${rule.follow}", which is not a Reference field${didYouMean(rule.follow, fields.keys())}`);
    } else if (rule.follow) {
      const { model, id } = rule.follow;
      if (fields.get(model)?.type !== 'char') throw new BootError(`${where} follows { model: "${model}" }, which is not a Char field${didYouMean(String(model), fields.keys())}`);
      if (fields.get(id)?.type !== 'uuid') throw new BootError(`${where} follows { id: "${id}" }, which is not a Uuid field${didYouMean(String(id), fields.keys())}`);
    }
  });
}

/** Normalise one declaration; cross-model checks happen in `buildRegistry`. */
export function resolveModel(decl: ModelDecl, app: string): ResolvedModel {
  // a misspelt key would be ignored (`rule:` for `rules:` dropped every record rule)
  checkDeclarationKeys(decl);
  if (!KEY_RE.test(decl.key)) {
    throw new BootError(`model key "${decl.key}" must be dotted lower_snake_case, e.g. res.country or crm.lead`);
  }
  if (!decl.description) throw new BootError(`model ${decl.key}: description is required`);
  const fields = new Map<string, ResolvedField>();
  for (const f of autoFields()) fields.set(f.name, f);
  for (const [name, fd] of Object.entries(decl.fields)) fields.set(name, resolveField(decl.key, name, fd));

  const recordName = decl.record_name ?? (fields.has('name') ? 'name' : 'record_uuid');
  const stored = [...fields.values()].filter((f) => f.stored).map((f) => f.name);
  if (!fields.has(recordName)) throw new BootError(`model ${decl.key}: record_name "${recordName}" is not a field${didYouMean(recordName, fields.keys())}`);
  const defaultOrder = parseOrder(decl.default_order ?? 'dbid asc', `model ${decl.key}`);
  for (const o of defaultOrder) {
    const f = fields.get(o.field);
    if (!f || !f.stored) throw new BootError(`model ${decl.key}: default_order field "${o.field}" is not a stored field${didYouMean(o.field, stored)}`);
  }
  const nameSearchFields = decl.name_search_fields ?? [recordName];
  for (const n of nameSearchFields) {
    if (!fields.get(n)?.stored) throw new BootError(`model ${decl.key}: name_search_fields has unknown field "${n}"${didYouMean(n, stored)}`);
  }
  for (const group of decl.unique_together ?? []) {
    for (const n of group) {
      if (!fields.get(n)?.stored) throw new BootError(`model ${decl.key}: unique_together names unknown field "${n}"${didYouMean(n, stored)}`);
    }
  }
  const access = decl.access ?? {};
  for (const n of Object.keys(access.fields ?? {})) {
    if (!fields.has(n)) throw new BootError(`model ${decl.key}: access.fields names unknown field "${n}"${didYouMean(n, fields.keys())}`);
  }
  checkRules(decl.key, access.rules ?? [], fields);
  return {
    key: decl.key,
    app,
    description: decl.description,
    recordName,
    defaultOrder,
    nameSearchFields,
    fields,
    uniqueTogether: decl.unique_together ?? [],
    access: { roles: access.roles ?? { admin: 'crud' }, fields: access.fields ?? {}, rules: access.rules ?? [] },
    names: modelNames(decl.key),
    createCommand: decl.create_command,
  };
}

/** An `if_loaded` Reference as a plain uuid column (its `ifLoaded` kept): no relation, no foreign key. */
export function degradeReference(m: ResolvedModel, f: ResolvedField): void {
  (m.fields as Map<string, ResolvedField>).set(f.name, { ...f, type: 'uuid', target: undefined, onDelete: undefined });
}

/**
 * Checks that need every model: reference targets, one2many inverses, name clashes. A reference
 * declared `if_loaded` whose target app is inactive degrades to a plain uuid field.
 */
export function checkModelGraph(models: ReadonlyMap<string, ResolvedModel>): void {
  for (const m of models.values()) {
    for (const f of m.fields.values()) {
      if (f.type === 'reference' && f.ifLoaded && !models.has(f.target!)) degradeReference(m, f);
    }
  }
  const typeNames = new Map<string, string>();
  for (const m of models.values()) {
    const clash = typeNames.get(m.names.typeName);
    if (clash) throw new BootError(`models ${clash} and ${m.key} both map to the name ${m.names.typeName}`);
    typeNames.set(m.names.typeName, m.key);
    for (const f of m.fields.values()) {
      if (f.type === 'reference' && !models.has(f.target!)) {
        throw new BootError(`model ${m.key}, field ${f.name}: Reference target "${f.target}" is not a loaded model${didYouMean(f.target!, models.keys())}`);
      }
      if (f.type === 'one2many') {
        const target = models.get(f.target!);
        if (!target) throw new BootError(`model ${m.key}, field ${f.name}: One2Many target "${f.target}" is not a loaded model${didYouMean(f.target!, models.keys())}`);
        const inv = target.fields.get(f.inverse!);
        if (!inv || inv.type !== 'reference' || inv.target !== m.key) {
          throw new BootError(`model ${m.key}, field ${f.name}: inverse "${f.target}.${f.inverse}" must be a Reference to ${m.key}`);
        }
      }
    }
  }
}
