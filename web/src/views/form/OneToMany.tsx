import { useNavigate, useParams } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { useBootstrap, useModels, type FormNode } from '../../app/meta.ts';
import { formActionOf } from '../../app/nav.ts';
import { actionSegment } from '../../app/search-params.ts';
import { useT } from '../../i18n/index.tsx';
import { anyWritable, useInputFields, useWritable } from '../../model/access.ts';
import { createDocument, defaultsOf, deleteDocument, displayName, toInput, updateDocument, type FieldInfo, type Models, type Row } from '../../model/records.ts';
import { Display } from '../../widgets/display.tsx';
import { inputWidgetFor } from '../../widgets/inputs.tsx';

/** Lines added, changed and removed in the form; written after the parent, with it. */
export interface LineChanges { added: Row[]; changed: Map<string, Row>; removed: Set<string> }

type Plan = FormNode['list'];

/**
 * A One2Many field as an inline list: the nested list's columns; lines are added, edited and
 * removed in place when the caller may write the line model, and written after the parent on Save
 * (a new line gets the plan's `inverse` Reference set to the parent). Lines that cannot be edited
 * (a read-only form, a line model without mutations, no writable column) open their own record
 * when an action shows the line model in a form.
 */
export function OneToMany({ field, list, rows, recordId, readOnly = false, onChange }: {
  field: FieldInfo; list: Plan; rows: Row[]; recordId: string | null; readOnly?: boolean; onChange: (c: LineChanges) => void;
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
  const [lines, setLines] = useState<Row[]>(rows);
  const [changes, setChanges] = useState<LineChanges>({ added: [], changed: new Map(), removed: new Set() });
  useEffect(() => { setLines(rows); setChanges({ added: [], changed: new Map(), removed: new Set() }); }, [rows]);
  const update = (next: LineChanges, nextLines: Row[]) => { setChanges(next); setLines(nextLines); onChange(next); };

  const edit = (row: Row, name: string, value: unknown) => {
    const r = { ...row, [name]: value };
    const nextLines = lines.map((x) => (x.id === row.id ? r : x));
    const isAdded = changes.added.some((x) => x.id === row.id);
    update({
      added: isAdded ? changes.added.map((x) => (x.id === row.id ? r : x)) : changes.added,
      changed: isAdded ? changes.changed : new Map(changes.changed).set(row.id, r),
      removed: changes.removed,
    }, nextLines);
  };
  const add = () => {
    // a new line starts from the line model's defaults (a creation stamp is left to the server)
    const r: Row = { ...defaultsOf(columns, { stamps: false }), id: `new-${crypto.randomUUID()}` };
    update({ ...changes, added: [...changes.added, r] }, [...lines, r]);
  };
  const remove = (row: Row) => {
    const isAdded = changes.added.some((x) => x.id === row.id);
    const changed = new Map(changes.changed);
    changed.delete(row.id);
    update({
      added: changes.added.filter((x) => x.id !== row.id),
      changed,
      removed: isAdded ? changes.removed : new Set(changes.removed).add(row.id),
    }, lines.filter((x) => x.id !== row.id));
  };

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

/** Writes the line changes of every One2Many field after the parent was saved. */
export async function saveLines(models: Models, nodes: readonly FormNode[], parentId: string, all: Record<string, LineChanges>): Promise<void> {
  for (const [name, c] of Object.entries(all)) {
    const node = nodes.find((n) => n.kind === 'field' && n.field?.name === name);
    if (!node?.list?.inverse) continue;
    const child = models.get(node.list.model);
    if (!child) continue;
    const cols = node.list.columns as readonly FieldInfo[];
    for (const id of c.removed) await request(deleteDocument(child), { id });
    for (const [id, row] of c.changed) await request(updateDocument(child), { id, input: toInput(cols, row) });
    for (const row of c.added) await request(createDocument(child), { input: { ...toInput(cols, row), [node.list.inverse]: parentId } });
  }
}
