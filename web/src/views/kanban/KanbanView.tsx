import { DndContext, KeyboardSensor, PointerSensor, useDraggable, useDroppable, useSensor, useSensors, type DragEndEvent } from '@dnd-kit/core';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useMemo } from 'react';
import { request } from '../../api/client.ts';
import { errorMessage } from '../../app/errors.ts';
import { asFields, useModels, type KanbanPlan } from '../../app/meta.ts';
import { actionSegment } from '../../app/search-params.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { displayName, modelOf, orderBy, selection, updateDocument, type FieldInfo, type ModelInfo, type Row } from '../../model/records.ts';
import { BLOCK, recordsKey, useBlock, useInvalidateModel } from '../../model/useRecords.ts';
import { Display } from '../../widgets/display.tsx';
import { ControlPanel } from '../ControlPanel.tsx';
import type { ViewProps } from '../registry.ts';

/**
 * The kanban view: a column per `<column>` of the group field, a card per record showing the
 * `card_field`s; dragging a card (pointer or keyboard) to another column updates the record.
 */
export default function KanbanView({ plan, action, search, searchPlan, where, org }: ViewProps<KanbanPlan>) {
  const t = useT();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const fields = asFields(plan.fields);
  const sel = useMemo(() => selection(fields, models), [fields, models]);
  const order = orderBy(search.order);
  const rows = useBlock(m, sel, where, order, 0, BLOCK);
  const key = recordsKey(m.key, 'rows', sel, where, order, 0, BLOCK);
  const invalidate = useInvalidateModel();
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 5 } }), useSensor(KeyboardSensor, { keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space'] } }));
  const groupField = plan.groupby_field;
  const cardFields = plan.card_fields.map((n) => fields.find((f) => f.name === n)!).filter(Boolean);

  async function onDragEnd(e: DragEndEvent) {
    const id = String(e.active.id);
    const to = e.over?.id;
    const row = rows.data?.find((r) => r.id === id);
    if (to === undefined || !row || row[groupField] === to) return;
    const label = plan.kanban_columns.find((c) => c.value === to)?.label ?? String(to);
    qc.setQueryData<Row[]>(key, (old) => old?.map((r) => (r.id === id ? { ...r, [groupField]: to } : r)));
    try {
      await request(updateDocument(m), { id, input: { [groupField]: to } });
      toast(t('kanban.moved', { column: label }));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  return (
    <div className="view view-kanban">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="kanban" allowGroupBy={false} />
      <DndContext sensors={sensors} onDragEnd={(e) => void onDragEnd(e)}>
        <div className="kanban" data-testid="kanban">
          {plan.kanban_columns.map((c) => (
            <Column key={c.value} value={c.value} label={c.label}
              rows={(rows.data ?? []).filter((r) => r[groupField] === c.value)} model={m} cardFields={cardFields}
              onOpen={(id) => navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: {} })} />
          ))}
        </div>
      </DndContext>
    </div>
  );
}

function Column({ value, label, rows, model, cardFields, onOpen }: {
  value: string; label: string; rows: Row[]; model: ModelInfo; cardFields: readonly FieldInfo[]; onOpen: (id: string) => void;
}) {
  const t = useT();
  const { setNodeRef, isOver } = useDroppable({ id: value });
  return (
    <section ref={setNodeRef} className={`kanban-column${isOver ? ' over' : ''}`} aria-label={label} data-testid={`kanban-column-${value}`}>
      <h2>{label} <span className="group-count">{rows.length}</span></h2>
      {rows.length === 0 && <p className="muted small">{t('kanban.empty_column')}</p>}
      {rows.map((r) => <Card key={r.id} row={r} model={model} cardFields={cardFields} onOpen={onOpen} />)}
    </section>
  );
}

function Card({ row, model, cardFields, onOpen }: { row: Row; model: ModelInfo; cardFields: readonly FieldInfo[]; onOpen: (id: string) => void }) {
  const models = useModels();
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: row.id });
  const style = transform ? { transform: `translate(${transform.x}px, ${transform.y}px)` } : undefined;
  return (
    <article ref={setNodeRef} style={style} className={`card${isDragging ? ' dragging' : ''}`} {...attributes} {...listeners}
      aria-label={displayName(model, row)} data-testid="kanban-card"
      onClick={() => onOpen(row.id)} onKeyDown={(e) => { listeners?.onKeyDown?.(e); if (e.key === 'Enter' && !e.defaultPrevented) onOpen(row.id); }}>
      {cardFields.map((f, i) => (
        <div key={f.name} className={i === 0 ? 'card-title' : 'card-line'}>
          {i > 0 && <span className="muted">{f.label}: </span>}<Display field={f} value={row[f.name]} models={models} />
        </div>
      ))}
    </article>
  );
}
