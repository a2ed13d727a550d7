/**
 * Model declarations: plain data, one file per model under `schema/<app>/<model.key>.ts`.
 * The helpers below only build objects; nothing here touches the registry, so a declaration
 * can be imported by tools (generators, docs) without booting anything.
 */

export type OnDelete = 'cascade' | 'set null' | 'restrict';

interface FieldBase {
  /** Label shown by clients and the default label of view fields. */
  description?: string;
  required?: boolean;
  unique?: boolean;
  /** Not settable through the generic create/update commands (model commands may still write it). */
  readonly?: boolean;
  /** Never returned by generic reads (e.g. password hashes). Implies readonly. */
  private?: boolean;
  index?: boolean;
  help?: string;
  /**
   * `false`: a duplicate of the record (`fw.copy`, the form's Duplicate) leaves this field to its
   * default. Unique fields, One2Many lines and read-only fields are never copied, whatever this says.
   */
  copy?: false;
  /**
   * The field's previous name: `fw migrate generate` renames the column (its data kept) instead
   * of dropping the old column and adding a new, empty one. Harmless to leave in place after the
   * migration is written (docs/migrations.md).
   */
  renamed_from?: string;
}

/**
 * A required Char or Text field refuses blank text (empty, or only whitespace) as it refuses a
 * missing value: a form's untouched input sends `""`, which would otherwise pass as a value.
 */
interface TextOptions {
  /** Let a required field hold blank text (it still refuses null). */
  allow_empty?: boolean;
}
export interface CharField extends FieldBase, TextOptions { type: 'char'; size: number; default?: string }
export interface TextField extends FieldBase, TextOptions { type: 'text'; default?: string }
export interface IntegerField extends FieldBase { type: 'integer'; default?: number; min?: number; max?: number }
export interface FloatField extends FieldBase { type: 'float'; default?: number }
export interface BooleanField extends FieldBase { type: 'boolean'; default?: boolean }
export interface DateTimeField extends FieldBase { type: 'datetime'; default?: 'now' }
export interface JsonField extends FieldBase { type: 'json' }
export interface UuidField extends FieldBase { type: 'uuid' }
export interface EnumField extends FieldBase {
  type: 'enum';
  values: readonly string[];
  default?: string;
  /**
   * English labels of values whose label derived from the value reads wrong (`qa` → "Qa"): the
   * others keep theirs (`closed_won` → "Closed won"). Translations key them as any value's label.
   */
  labels?: Readonly<Record<string, string>>;
}
export interface ReferenceField extends FieldBase {
  type: 'reference';
  target: string;
  on_delete?: OnDelete;
  /**
   * The target belongs to an app that may be inactive (e.g. ir.connector.param.file_id →
   * storage.document). Without it the field reads and writes as a plain record id.
   */
  if_loaded?: boolean;
  /**
   * On create, a value the caller leaves out is the calling user's current organization or the
   * user themself (`$principal.organization_id` / `$principal.user_id`), as Odoo's
   * `default=lambda self: self.env.company`. The system principal has neither: the field stays empty.
   */
  default_principal?: 'organization_id' | 'user_id';
}
export interface One2ManyField extends FieldBase { type: 'one2many'; target: string; inverse: string }

export type FieldDecl =
  | CharField | TextField | IntegerField | FloatField | BooleanField | DateTimeField
  | JsonField | UuidField | EnumField | ReferenceField | One2ManyField;

export type FieldType = FieldDecl['type'];

/** Operations access rules talk about; `fw.*` kernel commands map onto them. */
export type AccessOp = 'create' | 'read' | 'update' | 'delete';

/**
 * A domain filter as in the spec's search filters: a list of `[field, operator, value]`
 * conditions, combined with `&` (default), `|` and `!` prefix operators.
 * Values may be placeholders such as `$principal.organization_id`, resolved per request.
 */
export type DomainTerm = [string, string, unknown] | '&' | '|' | '!';
export type Domain = DomainTerm[];

/**
 * A record rule: the record must match `domain`, or (`follow`) the record it belongs to must be
 * one the caller may read. Exactly one of the two.
 */
export interface RecordRule {
  /** Roles the rule applies to; omitted = every role except `admin`. */
  roles?: string[];
  ops?: AccessOp[];
  domain?: Domain;
  /**
   * The record is visible exactly when the record it points to is readable by the caller (the
   * target model's read permission and read rules, followed again if the target follows too):
   * a Reference field's name (`'document_id'`), or, for a record that may belong to any model,
   * the pair of fields naming that model and the record's id (`{ model: 'res_model', id: 'res_id' }`,
   * chatter). A record pointing nowhere (an empty Reference) is not visible.
   */
  follow?: string | FollowPair;
}

/** The two fields of a record that may belong to any model: its model key (Char) and its id (Uuid). */
export interface FollowPair { model: string; id: string }

export interface AccessDecl {
  /** role → operations it may run, as letters `c r u d` (e.g. `'r'`, `'crud'`). `*` = any role. */
  roles?: Record<string, string>;
  /** field → roles allowed to read / write it; a field not listed follows the model. */
  fields?: Record<string, { read?: string[]; write?: string[] }>;
  rules?: RecordRule[];
}

export interface ModelDecl {
  key: string;
  description: string;
  record_name?: string;
  default_order?: string;
  name_search_fields?: string[];
  fields: Record<string, FieldDecl>;
  /** Composite unique constraints, each a list of field names. */
  unique_together?: string[][];
  access?: AccessDecl;
  /** Command that generic creates (REST POST, GraphQL create) go through, e.g. `res.user.register`. */
  create_command?: string;
}

type Opts<T extends FieldDecl> = Omit<T, 'type' | 'size' | 'target' | 'values' | 'inverse'>;

/** Field constructors; each returns plain data. */
export const f = {
  char: (size: number, o: Opts<CharField> = {}): CharField => ({ type: 'char', size, ...o }),
  text: (o: Opts<TextField> = {}): TextField => ({ type: 'text', ...o }),
  integer: (o: Opts<IntegerField> = {}): IntegerField => ({ type: 'integer', ...o }),
  float: (o: Opts<FloatField> = {}): FloatField => ({ type: 'float', ...o }),
  boolean: (o: Opts<BooleanField> = {}): BooleanField => ({ type: 'boolean', ...o }),
  datetime: (o: Opts<DateTimeField> = {}): DateTimeField => ({ type: 'datetime', ...o }),
  json: (o: Opts<JsonField> = {}): JsonField => ({ type: 'json', ...o }),
  uuid: (o: Opts<UuidField> = {}): UuidField => ({ type: 'uuid', ...o }),
  enum: (values: readonly string[], o: Opts<EnumField> = {}): EnumField => ({ type: 'enum', values, ...o }),
  reference: (target: string, o: Opts<ReferenceField> = {}): ReferenceField => ({ type: 'reference', target, ...o }),
  one2many: (target: string, inverse: string, o: Opts<One2ManyField> = {}): One2ManyField =>
    ({ type: 'one2many', target, inverse, ...o }),
};

export function defineModel(decl: ModelDecl): ModelDecl {
  return decl;
}
