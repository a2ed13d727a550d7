import { useRef, useState, type FocusEvent, type KeyboardEvent } from 'react';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { errorMessage, fieldErrorsOf } from '../../app/errors.ts';
import { useModels } from '../../app/meta.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { isWritable } from '../../model/access.ts';
import { createDocument, displayName, toInput, updateDocument, type FieldInfo, type ModelInfo, type Row } from '../../model/records.ts';
import { Display } from '../../widgets/display.tsx';
import { inputWidgetFor } from '../../widgets/inputs.tsx';
import { useEditT } from './edit-messages.ts';
import { widthStyle } from './columns.tsx';

/** A row being edited in place: the record (null for a new line), what was typed, what the server refused. */
export interface Editing {
  record: Row | null;
  values: Record<string, unknown>;
  dirty: ReadonlySet<string>;
  errors: Readonly<Record<string, string>>;
}

export const startEditing = (record: Row | null, defaults: Record<string, unknown> = {}): Editing =>
  ({ record, values: record ? { ...record } : { ...defaults }, dirty: new Set(), errors: {} });

/**
 * One row of an editable list (`<list editable="bottom|top">`, Odoo's editable lists) with an input
 * per writable column, the same inputs as the form's (the widget registry). Enter or leaving the
 * row saves what changed, against the revision the row was read at (a record changed elsewhere
 * meanwhile is refused, STALE_REVISION, as the form's save is); Escape puts the row back. A field
 * the server refuses (422) is marked with its message and the row stays as typed.
 */
export function EditRow({ model, columns, widths, editing, setEditing, onSaved, index, openColumn = false }: {
  model: ModelInfo; columns: readonly FieldInfo[]; widths: Record<string, number>;
  editing: Editing; setEditing: (e: Editing | null) => void;
  onSaved: (id: string) => Promise<void> | void;
  /** the row's place among the list's rows (aria-rowindex), none for a new line */
  index?: number;
  /** the list's rows end with an Open button: this row keeps the column */
  openColumn?: boolean;
}) {
  const t = useT();
  const te = useEditT();
  const models = useModels();
  const row = useRef<HTMLTableRowElement>(null);
  const [saving, setSaving] = useState(false);
  const isNew = editing.record === null;
  const name = isNew ? te('list.edit.new_line') : displayName(model, editing.record!);

  async function save(): Promise<void> {
    if (saving) return;
    if (!editing.dirty.size) { setEditing(null); return; }
    setSaving(true);
    try {
      const input = toInput(columns, editing.values, editing.dirty);
      let id: string;
      if (isNew) {
        id = (await request<{ record: { id: string } }, { input: Record<string, unknown> }>(createDocument(model), { input })).record.id;
        toast(t('form.created'));
      } else {
        id = editing.record!.id;
        await request(updateDocument(model), { id, input, revision: editing.record!.revision as number | undefined });
        toast(t('form.saved'));
      }
      setEditing(null);
      await onSaved(id);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'STALE_REVISION') {
        // what was typed stays: the person decides whether to reload (losing it) or leave the row
        toast(te('list.edit.conflict', { name }), 'error', { label: t('form.conflict.reload'), testId: 'edit-reload', run: () => { setEditing(null); void onSaved(editing.record!.id); } });
      } else if (err instanceof ApiError && err.status === 422 && Object.keys(err.fieldErrors()).length) {
        const errors = fieldErrorsOf(t, err);
        setEditing({ ...editing, errors });
        toast(`${t('error.validation')} ${Object.values(errors).join(' ')}`, 'error');
      } else {
        toast(errorMessage(t, err), 'error');
      }
    } finally {
      setSaving(false);
    }
  }

  const set = (f: FieldInfo, v: unknown) => {
    const errors = { ...editing.errors };
    delete errors[f.name];
    setEditing({ ...editing, values: { ...editing.values, [f.name]: v }, dirty: new Set([...editing.dirty, f.name]), errors });
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') { e.preventDefault(); setEditing(null); }
    // Enter in a text box saves; in a textarea or a picker's list it does what it does there
    if (e.key === 'Enter' && e.target instanceof HTMLInputElement && e.target.getAttribute('role') !== 'combobox') { e.preventDefault(); void save(); }
  };
  // leaving the row (focus moves outside it: another row, the page) saves it
  const onBlur = (e: FocusEvent) => {
    const next = e.relatedTarget as Node | null;
    if (next && row.current?.contains(next)) return;
    // a picker's list or a dialog it opened lies outside the row: focus moving there is not leaving
    if (next instanceof Element && next.closest('[role="listbox"], [role="dialog"], .popover')) return;
    void save();
  };

  let first = true;
  return (
    <tr ref={row} className="editing" data-testid={isNew ? 'edit-row-new' : 'edit-row'} aria-rowindex={index === undefined ? undefined : index + 2}
      aria-busy={saving || undefined} onKeyDown={onKeyDown} onBlur={onBlur}>
      <td className="col-select" />
      {columns.map((f) => {
        const error = editing.errors[f.name];
        const Input = inputWidgetFor(f);
        const focus = first && isWritable(f);
        if (focus) first = false;
        return (
          <td key={f.name} className={f.type === 'integer' || f.type === 'float' ? 'num' : undefined} style={widthStyle(widths[f.name])} title={error}>
            {isWritable(f) ? (
              <AutoFocus on={focus}>
                <Input field={f} id={`edit-${f.name}`} value={editing.values[f.name]} onChange={(v) => set(f, v)} onBlur={() => {}}
                  invalid={!!error} testId={`edit-${f.name}`} ariaLabel={te('list.edit.cell', { label: f.label, name })} disabled={saving} />
              </AutoFocus>
            ) : (
              editing.record ? <Display field={f} value={editing.record[f.name]} models={models} record={editing.record} /> : null
            )}
            {error && <span className="sr-only" role="alert">{error}</span>}
          </td>
        );
      })}
      {openColumn && <td className="col-open" />}
    </tr>
  );
}

/** Focuses the first input inside once, when the row starts being edited. */
function AutoFocus({ on, children }: { on: boolean; children: React.ReactNode }) {
  const done = useRef(false);
  return (
    <span className="edit-cell" ref={(el) => {
      if (!on || done.current || !el) return;
      done.current = true;
      el.querySelector<HTMLElement>('input, select, textarea')?.focus();
    }}>{children}</span>
  );
}
