import { useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { useBootstrap, useModels, type FormNode } from '../../app/meta.ts';
import { formActionOf } from '../../app/nav.ts';
import { actionSegment } from '../../app/search-params.ts';
import { useT } from '../../i18n/index.tsx';
import { anyWritable, useInputFields, useWritable } from '../../model/access.ts';
import { createDocument, defaultsOf, deleteDocument, displayName, toInput, updateDocument, type FieldInfo, type ModelInfo, type Models, type Row } from '../../model/records.ts';
import { Display, isEmpty } from '../../widgets/display.tsx';
import { inputWidgetFor } from '../../widgets/inputs.tsx';

/** Lines added, changed and removed in the form; written after the parent, with it. */
export interface LineChanges { added: Row[]; changed: Map<string, Row>; removed: Set<string> }
export const noLineChanges = (): LineChanges => ({ added: [], changed: new Map(), removed: new Set() });
export const hasLineChanges = (c: LineChanges | undefined): boolean => !!c && (c.added.length > 0 || c.changed.size > 0 || c.removed.size > 0);
/** The lines shown: the stored lines without the removed ones, each changed one as edited, then the added ones. */
export const shownLines = (rows: readonly Row[], c: LineChanges): Row[] =>
  [...rows.filter((r) => !c.removed.has(r.id)).map((r) => c.changed.get(r.id) ?? r), ...c.added];
/** What one save wrote of a field's lines: the ids the added lines were created with, by their temporary id. */
export interface LinesWritten { created: Map<string, string>; changed: Map<string, Row>; removed: Set<string> }

/**
 * A line the server refused while a form saved its lines: which One2Many field, which line (its
 * place as the person counts the lines, from 1) and the columns of the line model, with the
 * server's error. Its field errors belong to the line, not to the parent's fields of the same name.
 */
export class LineSaveError extends Error {
  constructor(readonly field: string, readonly line: number, readonly columns: readonly FieldInfo[], readonly error: unknown,
    /** required columns the line leaves empty (found before anything is sent) */
    readonly missing: readonly FieldInfo[] = []) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** A One2Many field whose lines a save writes: its line model, the columns it shows, and the inverse Reference to the parent. */
function linesOf(models: Models, nodes: readonly FormNode[], name: string): { child: ModelInfo; cols: readonly FieldInfo[]; inverse: string } | null {
  const list = nodes.find((n) => n.kind === 'field' && n.field?.name === name)?.list;
  const child = list ? models.get(list.model) : undefined;
  return child && list?.inverse ? { child, cols: list.columns as readonly FieldInfo[], inverse: list.inverse } : null;
}

/**
 * The first line to be written that leaves a required column empty, as a LineSaveError, or null.
 * Checked before the save sends anything, as the parent's required fields are: the server would
 * refuse the line after the parent was written (through GraphQL, in its own words).
 */
export function incompleteLine(models: Models, nodes: readonly FormNode[], all: Record<string, LineChanges>, placeOf: (field: string, id: string) => number): LineSaveError | null {
  for (const [name, c] of Object.entries(all)) {
    const lines = linesOf(models, nodes, name);
    if (!lines) continue;
    const { cols, inverse } = lines;
    const required = cols.filter((col) => col.required && !col.readonly && col.type !== 'boolean' && col.name !== inverse);
    for (const row of [...c.changed.values(), ...c.added]) {
      const missing = required.filter((col) => isEmpty(row[col.name]));
      if (missing.length) return new LineSaveError(name, placeOf(name, row.id), cols, null, missing);
    }
  }
  return null;
}

type Plan = FormNode['list'];

/**
 * A One2Many field as an inline list: the nested list's columns; lines are added, edited and
 * removed in place when the caller may write the line model, and written after the parent on Save
 * (a new line gets the plan's `inverse` Reference set to the parent). Lines that cannot be edited
 * (a read-only form, a line model without mutations, no writable column) open their own record
 * when an action shows the line model in a form.
 */
export function OneToMany({ field, list, rows, changes = noLineChanges(), recordId, readOnly = false, onChange }: {
  field: FieldInfo; list: Plan;
  /** the stored lines */
  rows: Row[];
  /** what was done to them and not saved yet: kept by the form, so a save can take what it wrote out of it and leave the rest */
  changes?: LineChanges;
  recordId: string | null; readOnly?: boolean; onChange: (next: (c: LineChanges) => LineChanges) => void;
}) {
  const t = useT();
  const models = useModels();
  const boot = useBootstrap();
  const navigate = useNavigate();
  const { org } = useParams({ strict: false }) as { org: string };
  const columns = (list?.columns ?? []) as readonly FieldInfo[];
  const lineModel = list ? models.get(list.model) : undefined;
  const can = useWritable(lineModel);
  const editable = !readOnly && !!list?.inverse && models.has(list.model) && anyWritable(columns) && can.create && can.update && can.delete;
  const opener = !editable && list && models.has(list.model) ? formActionOf(boot.actions, list.model) : undefined;
  // a new line only when the columns can supply what creating one requires (no line of users: a
  // user needs a password no list shows, and a half-made line only failed on Save)
  const required = useInputFields(lineModel?.names.createInput, editable)?.filter((f) => f.required).map((f) => f.name);
  const addInline = editable && !!required && required.every((f) => f === list?.inverse || columns.some((c) => c.name === f && !c.readonly));
  // removing a saved line deletes its record on Save: the person says so first
  const [pending, setPending] = useState<Row | null>(null);
  const open = (row: Row) => {
    if (opener && !row.id.startsWith('new-')) void navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(opener.key), record: row.id }, search: {} });
  };
  const lines = shownLines(rows, changes);

  const edit = (row: Row, name: string, value: unknown) => onChange((c) => {
    if (c.added.some((x) => x.id === row.id)) return { ...c, added: c.added.map((x) => (x.id === row.id ? { ...x, [name]: value } : x)) };
    return { ...c, changed: new Map(c.changed).set(row.id, { ...(c.changed.get(row.id) ?? row), [name]: value }) };
  });
  const add = () => {
    // a new line starts from the line model's defaults (a creation stamp is left to the server)
    const r: Row = { ...defaultsOf(columns, { stamps: false }), id: `new-${crypto.randomUUID()}` };
    onChange((c) => ({ ...c, added: [...c.added, r] }));
  };
  const remove = (row: Row) => onChange((c) => {
    const isAdded = c.added.some((x) => x.id === row.id);
    const changed = new Map(c.changed);
    changed.delete(row.id);
    return { added: c.added.filter((x) => x.id !== row.id), changed, removed: isAdded ? c.removed : new Set(c.removed).add(row.id) };
  });

  return (
    <div className="o2m" data-testid={`o2m-${field.name}`}>
      <table className="records compact">
        <thead><tr>{columns.map((c) => <th key={c.name}>{c.label}</th>)}{editable && <th><span className="sr-only">{t('common.remove')}</span></th>}</tr></thead>
        <tbody>
          {lines.map((row) => (
            <tr key={row.id} data-testid="o2m-row" {...(opener ? {
              tabIndex: 0, className: 'o2m-open', onClick: () => open(row),
              onKeyDown: (e: React.KeyboardEvent) => { if (e.key === 'Enter' && e.target === e.currentTarget) open(row); },
            } : {})}>
              {columns.map((c) => {
                const Input = inputWidgetFor(c);
                return (
                  <td key={c.name}>
                    {editable && !c.readonly && c.type !== 'one2many'
                      ? Input({ field: c, id: `${field.name}-${row.id}-${c.name}`, testId: `o2m-${field.name}-${c.name}`, ariaLabel: c.label, value: row[c.name], onChange: (v) => edit(row, c.name, v), onBlur: () => {}, invalid: false })
                      : <Display field={c} value={row[c.name]} models={models} record={row} />}
                  </td>
                );
              })}
              {editable && (
                <td>
                  <Button className="btn-icon" aria-label={t('o2m.remove_line', { name: displayName(lineModel, row) })} data-testid="o2m-remove"
                    onPress={() => (row.id.startsWith('new-') ? remove(row) : setPending(row))}>×</Button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {addInline && (
        <Button className="btn btn-ghost" onPress={add} data-testid={`o2m-add-${field.name}`}>{t('common.add_line')}</Button>
      )}
      {addInline && !recordId && <p className="muted small">{t('form.record_saved_with_parent')}</p>}
      <Modal isOpen={!!pending} onOpenChange={(open) => { if (!open) setPending(null); }} isDismissable className="modal">
        <Dialog role="alertdialog" className="dialog" data-testid="o2m-remove-dialog">
          <Heading slot="title">{t('o2m.remove_title', { name: displayName(lineModel, pending) })}</Heading>
          <p>{t('o2m.remove_body', { name: displayName(lineModel, pending), model: (lineModel?.description ?? '').toLowerCase() })}</p>
          <div className="dialog-actions">
            <Button className="btn" onPress={() => setPending(null)} autoFocus>{t('common.cancel')}</Button>
            <Button className="btn btn-danger" data-testid="o2m-remove-confirm" onPress={() => { const row = pending!; setPending(null); remove(row); }}>
              {t('o2m.remove_confirm')}
            </Button>
          </div>
        </Dialog>
      </Modal>
    </div>
  );
}

/**
 * Writes the line changes of every One2Many field after the parent was saved, and returns what it
 * wrote by field (also when a line fails: `written` is filled as each write succeeds).
 */
export async function saveLines(models: Models, nodes: readonly FormNode[], parentId: string, all: Record<string, LineChanges>,
  written: Record<string, LinesWritten> = {}, placeOf: (field: string, id: string) => number = () => 0): Promise<Record<string, LinesWritten>> {
  for (const [name, c] of Object.entries(all)) {
    const lines = linesOf(models, nodes, name);
    if (!lines) continue;
    const { child, cols, inverse } = lines;
    const w: LinesWritten = written[name] = { created: new Map(), changed: new Map(), removed: new Set() };
    const line = async <T,>(id: string, run: () => Promise<T>): Promise<T> => {
      try { return await run(); } catch (err) { throw new LineSaveError(name, placeOf(name, id), cols, err); }
    };
    for (const id of c.removed) { await line(id, () => request(deleteDocument(child), { id })); w.removed.add(id); }
    for (const [id, row] of c.changed) { await line(id, () => request(updateDocument(child), { id, input: toInput(cols, row) })); w.changed.set(id, row); }
    for (const row of c.added) {
      const r = await line(row.id, () => request<{ record: { id: string } }, { input: Record<string, unknown> }>(createDocument(child), { input: { ...toInput(cols, row), [inverse]: parentId } }));
      w.created.set(row.id, r.record.id);
    }
  }
  return written;
}

/**
 * The lines after a save wrote `w` (sent as `sent`): the stored lines it leaves, and what is still
 * to save of `now`, the changes made up to its end. A line added or edited while the save ran
 * stays a change: an added line the save created is from then on an edit of the new record (or
 * its deletion, removed meanwhile); a line edited again after it was sent stays changed.
 */
export function afterLinesSaved(rows: readonly Row[], sent: LineChanges, w: LinesWritten, now: LineChanges): { rows: Row[]; changes: LineChanges } {
  const stored = [
    ...rows.filter((r) => !w.removed.has(r.id)).map((r) => w.changed.get(r.id) ?? r),
    ...sent.added.filter((r) => w.created.has(r.id)).map((r) => ({ ...r, id: w.created.get(r.id)! })),
  ];
  const changed = new Map([...now.changed].filter(([id, r]) => w.changed.get(id) !== r));
  const removed = new Set([...now.removed].filter((id) => !w.removed.has(id)));
  const added: Row[] = [];
  for (const r of now.added) {
    const id = w.created.get(r.id);
    if (id === undefined) added.push(r);
    else if (sent.added.find((x) => x.id === r.id) !== r) changed.set(id, { ...r, id }); // edited while its create ran
  }
  // created by the save, removed while it ran: deleted by the next one
  for (const r of sent.added) { const id = w.created.get(r.id); if (id !== undefined && !now.added.some((x) => x.id === r.id)) removed.add(id); }
  return { rows: stored, changes: { added, changed, removed } };
}
