import type { Principal } from '../../kernel/env.js';
import { BadRequest } from '../../kernel/errors.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import { filledOnCreate, type ResolvedModel } from '../../kernel/registry/model.js';
import type { BatchResult, ImportRow, RowError } from '../../kernel/commands/import-batch.js';
import { cellText, convertCell } from './convert.js';
import { importableFields, type TransferField } from './fields.js';
import type { Table } from './formats.js';
import { hasName, idsByValues } from './names.js';

/**
 * An import: the file's columns mapped to fields, each row's cells converted, References found
 * by record name (or taken as ids), existing records found by the key column, then the rows sent
 * to `fw.import_batch` a batch at a time. A dry run sends every batch with `dry_run` (each rolls
 * back) and reports every row's errors by line; a real run stops at the first batch with an
 * error, which rolls back (the batches before it stay written).
 */
export interface ColumnMatch { index: number; header: string; field: string | null }
export interface ImportReport {
  dry_run: boolean;
  rows: number;
  created: number;
  updated: number;
  /** every refused row, by line; `column` names the file's column when the error is a cell's */
  errors: Array<RowError & { column?: string }>;
  /** a real run wrote everything (false: a dry run, or a batch that failed) */
  committed: boolean;
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Suggests a field for each column: its name or its label, case, spaces and punctuation aside. */
export function suggestMapping(headers: string[], fields: TransferField[]): ColumnMatch[] {
  const taken = new Set<string>();
  return headers.map((header, index) => {
    const h = norm(header);
    const f = h ? fields.find((x) => !taken.has(x.name) && (norm(x.name) === h || norm(x.label) === h || norm(x.source_label) === h)) : undefined;
    if (f) taken.add(f.name);
    return { index, header, field: f?.name ?? null };
  });
}

/** The key field a mapping implies: the model's `xml_id` (its seed data's external id) when mapped. */
export const defaultKey = (model: ResolvedModel, mapped: string[]): string | null =>
  model.fields.has('xml_id') && mapped.includes('xml_id') ? 'xml_id' : null;

/**
 * The mapping a request gives: a list aligned with the columns (a field name or null to skip
 * the column), or an object from header to field name.
 */
export function parseMapping(raw: unknown, headers: string[], fields: TransferField[]): Array<TransferField | null> {
  let list: unknown[];
  if (Array.isArray(raw)) list = raw;
  else if (raw && typeof raw === 'object') {
    const byHeader = raw as Record<string, unknown>;
    for (const h of Object.keys(byHeader)) {
      if (!headers.includes(h)) throw new BadRequest(`the file has no column "${h}"`, { column: h }, 'IMPORT_UNKNOWN_COLUMN');
    }
    list = headers.map((h) => byHeader[h] ?? null);
  } else throw new BadRequest('mapping must be a list (one field name or null per column) or an object from column to field', undefined, 'IMPORT_INVALID_MAPPING');
  if (list.length !== headers.length) {
    throw new BadRequest(`mapping has ${list.length} entries for ${headers.length} columns`, { columns: headers.length }, 'IMPORT_INVALID_MAPPING');
  }
  const seen = new Set<string>();
  return list.map((name, i) => {
    if (name === null || name === undefined || name === '') return null;
    if (typeof name !== 'string') throw new BadRequest('mapping entries are field names or null', undefined, 'IMPORT_INVALID_MAPPING');
    const f = fields.find((x) => x.name === name);
    if (!f) throw new BadRequest(`"${name}" (column "${headers[i]}") is not a field you may import`, { field: name, column: headers[i] }, 'IMPORT_UNKNOWN_FIELD');
    if (seen.has(name)) throw new BadRequest(`field "${name}" is mapped from two columns`, { field: name }, 'IMPORT_INVALID_MAPPING');
    seen.add(name);
    return f;
  });
}

export interface ImportOptions { mapping: unknown; key: string | null | undefined; dryRun: boolean; batchSize: number }

/** A row on its way: `bad` are its fields whose cell was refused (left out, so the dry run still checks the rest). */
interface Pending { line: number; id?: string; values: Record<string, unknown>; keyValue?: string; bad: Set<string> }

export async function runImport(kernel: KernelHandle, principal: Principal, model: ResolvedModel, table: Table, opts: ImportOptions): Promise<ImportReport> {
  const fields = importableFields(kernel.registry, model, principal);
  const mapping = parseMapping(opts.mapping, table.headers, fields);
  const mapped = mapping.filter((f): f is TransferField => !!f).map((f) => f.name);
  if (!mapped.length) throw new BadRequest('map at least one column to a field', undefined, 'IMPORT_INVALID_MAPPING');
  const key = opts.key || defaultKey(model, mapped);
  if (key && (key === 'id' || !mapped.includes(key))) {
    throw new BadRequest(`the key "${key}" must be a field mapped from a column (other than id)`, { key }, 'IMPORT_INVALID_KEY');
  }
  const errors: ImportReport['errors'] = [];
  const columnOf = (field: string) => table.headers[mapping.findIndex((f) => f?.name === field)];

  // 1. cells → values (References still as text)
  const pending: Pending[] = [];
  for (const row of table.rows) {
    const p: Pending = { line: row.line, values: {}, bad: new Set() };
    mapping.forEach((f, i) => {
      if (!f) return;
      const c = convertCell(f, row.cells[i] ?? null);
      if (!c.ok) {
        p.bad.add(f.name);
        errors.push({ line: row.line, column: table.headers[i], field: f.name, code: 'IMPORT_INVALID_VALUE', message: c.message, values: c.values });
      } else if (f.name === 'id') {
        if (c.value) p.id = String(c.value).toLowerCase();
      } else p.values[f.name] = c.value;
    });
    if (key && p.values[key] !== null && p.values[key] !== undefined) p.keyValue = String(p.values[key]);
    // an id that is not one refuses the row: it cannot be told whether it creates or updates
    if (p.bad.has('id')) continue;
    pending.push(p);
  }

  // 2. References: a uuid is taken as the id; any other text is looked up by record name
  const refFields = mapping.filter((f): f is TransferField => f?.type === 'reference');
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const refused = new Set<Pending>();
  for (const f of refFields) {
    const target = kernel.registry.model(f.relation!);
    const names = [...new Set(pending.map((p) => p.values[f.name]).filter((v): v is string => typeof v === 'string' && !UUID.test(v)))];
    const found = hasName(target) ? await idsByValues(kernel, principal, target, target.recordName, names) : new Map<string, string[]>();
    for (const p of pending) {
      const v = p.values[f.name];
      if (typeof v !== 'string' || UUID.test(v)) continue;
      const ids = found.get(v) ?? [];
      if (ids.length === 1) p.values[f.name] = ids[0];
      else {
        p.bad.add(f.name);
        delete p.values[f.name];
        errors.push({
          line: p.line, column: columnOf(f.name), field: f.name,
          code: ids.length ? 'IMPORT_REFERENCE_AMBIGUOUS' : 'IMPORT_REFERENCE_NOT_FOUND',
          message: ids.length ? `${ids.length} ${target.description} records are named "${v}"; give the id instead` : `no ${target.description} named "${v}"`,
          values: ids.length ? { value: v, model: target.key, count: ids.length } : { value: v, model: target.key },
        });
      }
    }
  }

  // 3. the key column: a value an existing record holds updates it, a value seen twice is refused
  if (key) {
    const seen = new Map<string, number>();
    for (const p of pending) {
      if (p.keyValue === undefined) continue;
      const first = seen.get(p.keyValue);
      if (first !== undefined) {
        refused.add(p);
        errors.push({ line: p.line, column: columnOf(key), field: key, code: 'IMPORT_DUPLICATE_KEY', message: `"${p.keyValue}" is also on line ${first}`, values: { value: p.keyValue, first_line: first } });
      } else seen.set(p.keyValue, p.line);
    }
    const existing = await idsByValues(kernel, principal, model, key, [...seen.keys()]);
    for (const p of pending) {
      if (p.keyValue === undefined || refused.has(p)) continue;
      const ids = existing.get(p.keyValue) ?? [];
      if (ids.length > 1) {
        refused.add(p);
        errors.push({ line: p.line, column: columnOf(key), field: key, code: 'IMPORT_KEY_AMBIGUOUS', message: `${ids.length} records have ${key} "${p.keyValue}"`, values: { value: p.keyValue, count: ids.length } });
      } else if (ids.length === 1 && !p.id) p.id = ids[0];
    }
  }

  // a new record gets a field's default for an empty cell (an update empties the field): a
  // declared one, or the caller's organization or the caller themself (`default_principal`)
  const hasDefault = (k: string) => { const f = model.fields.get(k); return f !== undefined && filledOnCreate(f); };
  const withDefaults = (p: Pending) => (p.id ? p.values
    : Object.fromEntries(Object.entries(p.values).filter(([k, v]) => v !== null || !hasDefault(k))));
  const rows: ImportRow[] = pending.filter((p) => !refused.has(p)).map((p) => ({ line: p.line, ...(p.id ? { id: p.id } : {}), values: withDefaults(p) }));
  // what the bus says about a field whose cell was already refused (it was left out: "required") is not news
  const badAt = new Map(pending.map((p) => [p.line, p.bad]));
  const news = (e: RowError) => !(e.field && badAt.get(e.line)?.has(e.field));
  const report: ImportReport = { dry_run: opts.dryRun, rows: table.rows.length, created: 0, updated: 0, errors, committed: false };
  // a real run writes nothing when a cell is already known to be wrong
  if (!opts.dryRun && errors.length) return sortErrors(report);

  // 4. the bus, a batch at a time
  for (let i = 0; i < rows.length; i += opts.batchSize) {
    const batch = rows.slice(i, i + opts.batchSize);
    const r = await kernel.dispatch<BatchResult>('fw.import_batch', { model: model.key, rows: batch, dry_run: opts.dryRun }, principal);
    report.errors.push(...r.errors.filter(news).map((e) => (e.field ? { ...e, column: columnOf(e.field) } : e)));
    if (opts.dryRun || r.committed) {
      // a row counts when nothing was wrong with it: neither a cell nor the bus refused it
      const failed = new Set(r.errors.map((e) => e.line));
      for (const row of batch) {
        if (failed.has(row.line) || badAt.get(row.line)?.size) continue;
        if (row.id) report.updated += 1;
        else report.created += 1;
      }
    }
    if (!opts.dryRun && !r.committed) return sortErrors(report);
  }
  report.committed = !opts.dryRun;
  return sortErrors(report);
}

function sortErrors(r: ImportReport): ImportReport {
  r.errors.sort((a, b) => a.line - b.line);
  return r;
}

/** The first rows, as text, for the mapping screen. */
export const sampleRows = (table: Table, n = 5): string[][] => table.rows.slice(0, n).map((r) => table.headers.map((_, i) => cellText(r.cells[i] ?? null)));
