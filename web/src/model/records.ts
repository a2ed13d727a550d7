/**
 * Generic record operations, built from a render plan's fields and the model's GraphQL names
 * (served by the bootstrap payload: the client never derives a name itself). Every dynamic
 * GraphQL document the client sends is written here, with variables, never with values inlined.
 */
export interface ModelNames {
  typeName: string; one: string; many: string; count: string; groupBy: string;
  create: string; update: string; updateMany: string; delete: string; deleteMany: string; changed: string;
  whereInput: string; orderByInput: string; createInput: string; updateInput: string; groupByField: string;
}
export interface ModelInfo {
  key: string; description: string; record_name: string; name_search_fields: string[]; names: ModelNames;
  /** has an `is_active` the person may read: archived records are hidden unless asked, forms offer Archive */
  archivable?: boolean;
  /** what the person's role may do with the model's records */
  access?: { create: boolean; update: boolean; delete: boolean };
}
export interface FieldInfo {
  name: string; label: string; type: string; widget?: string | null; optional?: string | null;
  required?: boolean; readonly?: boolean; relation?: string | null; values?: readonly string[] | null;
  /** the labels of `values` in the user's language, when the server translates them (else derived: enumLabel) */
  value_labels?: readonly string[] | null;
  /** the model's default for a new record ("now" for a DateTime stamped at creation) */
  default?: unknown;
  /** a sentence shown under the input (the field's declared help) */
  help?: string | null;
}
export type Models = ReadonlyMap<string, ModelInfo>;
/** A number column: right-aligned under a right-aligned title, totalled in a grouped list. */
export const isNumberField = (f: FieldInfo): boolean => f.type === 'integer' || f.type === 'float';
export type Row = Record<string, unknown> & { id: string };

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
function ident(s: string): string {
  if (!NAME.test(s)) throw new Error(`not a GraphQL name: ${s}`);
  return s;
}

export function modelOf(models: Models, key: string): ModelInfo {
  const m = models.get(key);
  if (!m) throw new Error(`unknown or unreadable model ${key}`);
  return m;
}

/**
 * `id` and the record name: what shows a record. A model without a name field is named by its
 * uuid (`record_uuid`), which GraphQL serves as `id`.
 */
export function nameSelection(m: ModelInfo): string {
  return m.record_name === 'id' || m.record_name === 'record_uuid' ? 'id' : `id ${ident(m.record_name)}`;
}

/** The selection of some fields: a Reference selects the target's id and record name. */
export function selection(fields: readonly FieldInfo[], models: Models, nested: Record<string, readonly FieldInfo[]> = {}): string {
  const parts = ['id'];
  for (const f of fields) {
    if (f.name === 'id' || parts.includes(f.name)) continue;
    if (f.type === 'reference') {
      const target = f.relation ? models.get(f.relation) : undefined;
      parts.push(`${ident(f.name)} { ${target ? nameSelection(target) : 'id'} }`);
    } else if (f.type === 'one2many') {
      const cols = nested[f.name];
      if (cols) parts.push(`${ident(f.name)} { ${selection(cols, models)} }`);
    } else {
      parts.push(ident(f.name));
    }
  }
  return parts.join(' ');
}

/** `"name asc, id desc"` → `[{ name: "asc" }, { id: "desc" }]` (the `orderBy` input). */
export function orderBy(order: string | null | undefined): Array<Record<string, 'asc' | 'desc'>> | undefined {
  if (!order) return undefined;
  const out = order.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const [field, dir = 'asc'] = s.split(/\s+/);
    return { [ident(field)]: dir.toLowerCase() === 'desc' ? 'desc' as const : 'asc' as const };
  });
  return out.length ? out : undefined;
}

export const rowsDocument = (m: ModelInfo, sel: string) => {
  const n = m.names;
  return `query Rows($where: ${n.whereInput}, $orderBy: [${n.orderByInput}!], $limit: Int, $offset: Int) {
  rows: ${n.many}(where: $where, orderBy: $orderBy, limit: $limit, offset: $offset) { ${sel} }
}`;
};

export const countDocument = (m: ModelInfo) =>
  `query Count($where: ${m.names.whereInput}) { total: ${m.names.count}(where: $where) }`;

export const oneDocument = (m: ModelInfo, sel: string) =>
  `query One($id: ID!) { record: ${m.names.one}(id: $id) { ${sel} revision } }`;

export const createDocument = (m: ModelInfo) =>
  `mutation Create($input: ${m.names.createInput}!) { record: ${m.names.create}(input: $input) { id revision } }`;

export const updateDocument = (m: ModelInfo) =>
  `mutation Update($id: ID!, $input: ${m.names.updateInput}!, $revision: Int) { record: ${m.names.update}(id: $id, input: $input, revision: $revision) { id revision } }`;

export const deleteDocument = (m: ModelInfo) =>
  `mutation Delete($id: ID!) { result: ${m.names.delete}(id: $id) { id deleted } }`;

export const deleteManyDocument = (m: ModelInfo) =>
  `mutation DeleteMany($where: ${m.names.whereInput}!) { result: ${m.names.deleteMany}(where: $where) { count ids } }`;

export const updateManyDocument = (m: ModelInfo) =>
  `mutation UpdateMany($where: ${m.names.whereInput}!, $input: ${m.names.updateInput}!) { result: ${m.names.updateMany}(where: $where, input: $input) { count ids } }`;

export const groupDocument = (m: ModelInfo) =>
  `query Groups($by: [${m.names.groupByField}!]!, $where: ${m.names.whereInput}, $aggregates: JSON) { groups: ${m.names.groupBy}(by: $by, where: $where, aggregates: $aggregates) { key count aggregates } }`;

export const changedDocument = (m: ModelInfo) => `subscription Changed { change: ${m.names.changed} { op id } }`;

/** Records whose name-search fields contain the text (a Reference picker's options). */
export function nameSearchWhere(m: ModelInfo, text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined;
  return { OR: m.name_search_fields.map((f) => ({ [f]: { contains: text.trim(), mode: 'insensitive' } })) };
}

/** The text a person sees for a record: its record name, else its id. */
export function displayName(m: ModelInfo | undefined, rec: Record<string, unknown> | null | undefined): string {
  if (!rec) return '';
  const v = m ? rec[m.record_name] : undefined;
  return v === undefined || v === null || v === '' ? String(rec.id ?? '') : String(v);
}

/**
 * Form values → the mutation input: References become ids, empty strings of optional fields
 * null, read-only and One2Many fields are left out. Only `dirty` fields are sent on update.
 */
/**
 * What a new record shows before anyone types: the model's defaults, as the server would store
 * them ("now" is the moment the form opened; `stamps: false` leaves it to the server).
 */
export function defaultsOf(fields: readonly FieldInfo[], { stamps = true } = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.default === undefined || f.default === null) continue;
    if (f.type === 'datetime' && f.default === 'now') {
      if (stamps) out[f.name] = new Date().toISOString();
    } else out[f.name] = f.default;
  }
  return out;
}

export function toInput(fields: readonly FieldInfo[], values: Record<string, unknown>, dirty?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.readonly || f.type === 'one2many' || !(f.name in values)) continue;
    if (dirty && !dirty.has(f.name)) continue;
    let v = values[f.name];
    if (f.type === 'reference') v = v && typeof v === 'object' ? (v as { id: string }).id : v || null;
    else if (f.type === 'integer') v = v === '' || v === null || v === undefined ? null : Math.trunc(Number(v));
    else if (f.type === 'float') v = v === '' || v === null || v === undefined ? null : Number(v);
    else if (f.type === 'json' && typeof v === 'string') v = v.trim() ? JSON.parse(v) : null;
    else if ((f.type === 'datetime' || f.type === 'enum' || f.type === 'uuid') && v === '') v = null;
    else if ((f.type === 'char' || f.type === 'text') && v === '' && !f.required) v = null;
    out[f.name] = v;
  }
  return out;
}
