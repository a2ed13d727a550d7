import { DndContext, KeyboardSensor, PointerSensor, useDraggable, useDroppable, useSensor, useSensors, type Active, type Announcements, type DragEndEvent } from '@dnd-kit/core';
import { useNavigate } from '@tanstack/react-router';
import { useMemo, useRef, useState } from 'react';
import { request } from '../../api/client.ts';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { errorMessage } from '../../app/errors.ts';
import { asFields, useModels, type KanbanPlan } from '../../app/meta.ts';
import { actionSegment, listScope } from '../../app/search-params.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { modelOf, orderBy, selection, updateDocument, type FieldInfo, type ModelInfo, type Row } from '../../model/records.ts';
import { useBlock, useGroups, useInvalidateModel } from '../../model/useRecords.ts';
import { andWhere, type Where } from '../../model/domain.ts';
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
  const models = useModels();
  const m = modelOf(models, plan.model);
  const fields = asFields(plan.fields);
  const sel = useMemo(() => selection(fields, models), [fields, models]);
  const order = orderBy(search.order);
  const groupField = plan.groupby_field;
  const groups = useGroups(m, groupField, where);
  const invalidate = useInvalidateModel();
  // a dropped card shows in its new column until the refetch confirms it
  const [moved, setMoved] = useState<Record<string, { to: string; row: Row }>>({});
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 5 } }), useSensor(KeyboardSensor, { keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space'] } }));
  const cardFields = plan.card_fields.map((n) => fields.find((f) => f.name === n)!).filter(Boolean);
  // read_group has no group for an empty column: its count is 0
  const countOf = (value: string) => (groups.data ? groups.data.find((g) => g.key[groupField] === value)?.count ?? 0 : undefined);

  // what a screen reader says while a card moves: the card's title and the columns' labels, not
  // dnd-kit's default of the record's id and the column's stored value
  const columnLabel = (value: unknown) => plan.kanban_columns.find((c) => c.value === String(value))?.label ?? String(value);
  const cardName = (active: Active) => {
    const row = active.data.current?.row as Row | undefined;
    const first = cardFields[0];
    return first && row && row[first.name] != null ? String(row[first.name]) : t('kanban.card');
  };
  const fromOf = (active: Active) => columnLabel((active.data.current?.row as Row | undefined)?.[groupField]);
  // dnd-kit says "over" at once, over the card's own column: said only once the card has left it
  const leftHome = useRef(false);
  const announcements: Announcements = {
    onDragStart: ({ active }) => {
      leftHome.current = false;
      return t('kanban.picked', { card: cardName(active), column: fromOf(active) });
    },
    onDragOver: ({ active, over }) => {
      if (!over) return undefined;
      const home = String(over.id) === String((active.data.current?.row as Row | undefined)?.[groupField]);
      if (home && !leftHome.current) return undefined;
      leftHome.current = true;
      return t('kanban.over', { card: cardName(active), column: columnLabel(over.id) });
    },
    onDragEnd: ({ active, over }) => (over ? t('kanban.dropped', { card: cardName(active), column: columnLabel(over.id) }) : t('kanban.cancelled', { card: cardName(active), column: fromOf(active) })),
    onDragCancel: ({ active }) => t('kanban.cancelled', { card: cardName(active), column: fromOf(active) }),
  };

  async function onDragEnd(e: DragEndEvent) {
    const id = String(e.active.id);
    const to = e.over?.id === undefined ? undefined : String(e.over.id);
    const row = e.active.data.current?.row as Row | undefined;
    if (to === undefined || !row || row[groupField] === to) return;
    const label = plan.kanban_columns.find((c) => c.value === to)?.label ?? to;
    setMoved((x) => ({ ...x, [id]: { to, row: { ...row, [groupField]: to } } }));
    try {
      await request(updateDocument(m), { id, input: { [groupField]: to } });
      toast(t('kanban.moved', { column: label }));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
    setMoved((x) => { const { [id]: _, ...rest } = x; return rest; });
  }

  return (
    <div className="view view-kanban">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="kanban" allowGroupBy={false} />
      <DndContext sensors={sensors} onDragEnd={(e) => void onDragEnd(e)} accessibility={{ screenReaderInstructions: { draggable: t('kanban.instructions') }, announcements }}>
        <div className="kanban" data-testid="kanban">
          {plan.kanban_columns.map((c) => (
            <Column key={c.value} value={c.value} label={c.label} model={m} sel={sel} order={order} groupField={groupField}
              where={andWhere([where, { [groupField]: { eq: c.value } }])} total={countOf(c.value)} moved={moved} cardFields={cardFields}
              onOpen={(id) => navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: listScope(search) })} />
          ))}
        </div>
      </DndContext>
    </div>
  );
}

const PAGE = 40;

/** A column loads its own first cards (more on demand); its count comes from read_group. */
function Column({ value, label, model, sel, order, groupField, where, total, moved, cardFields, onOpen }: {
  value: string; label: string; model: ModelInfo; sel: string; order: unknown; groupField: string; where: Where; total: number | undefined;
  moved: Record<string, { to: string; row: Row }>; cardFields: readonly FieldInfo[]; onOpen: (id: string) => void;
}) {
  const t = useT();
  const [limit, setLimit] = useState(PAGE);
  const rows = useBlock(model, sel, where, order, 0, limit);
  const { setNodeRef, isOver } = useDroppable({ id: value });
  const shown = [
    ...(rows.data ?? []).filter((r) => !moved[r.id] || moved[r.id].to === value),
    ...Object.values(moved).filter((x) => x.to === value && !rows.data?.some((r) => r.id === x.row.id)).map((x) => x.row),
  ];
  return (
    <section ref={setNodeRef} className={`kanban-column${isOver ? ' over' : ''}`} aria-label={label} data-testid={`kanban-column-${value}`}>
      <h2>{label} <span className="group-count" data-testid="kanban-count">{total === undefined ? '' : t.intl.formatNumber(total)}</span></h2>
      {rows.error && <ErrorPanel error={rows.error} retry={() => void rows.refetch()} />}
      {shown.length === 0 && !rows.isPending && !rows.error && <p className="muted small">{t('kanban.empty_column')}</p>}
      {shown.map((r) => <Card key={r.id} row={r} cardFields={cardFields} onOpen={onOpen} groupField={groupField} />)}
      {total !== undefined && (rows.data?.length ?? 0) < total && rows.data?.length === limit && (
        <button type="button" className="btn btn-ghost" onClick={() => setLimit(limit + PAGE)} data-testid="kanban-more">{t('kanban.more', { count: total - limit })}</button>
      )}
    </section>
  );
}

function Card({ row, cardFields, onOpen, groupField }: { row: Row; cardFields: readonly FieldInfo[]; onOpen: (id: string) => void; groupField: string }) {
  const models = useModels();
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: row.id, data: { row, from: row[groupField] } });
  const style = transform ? { transform: `translate(${transform.x}px, ${transform.y}px)` } : undefined;
  return (
    <article ref={setNodeRef} style={style} className={`card${isDragging ? ' dragging' : ''}`} {...attributes} {...listeners}
      data-testid="kanban-card"
      onClick={() => onOpen(row.id)} onKeyDown={(e) => { listeners?.onKeyDown?.(e); if (e.key === 'Enter' && !e.defaultPrevented) onOpen(row.id); }}>
      {cardFields.map((f, i) => (
        <div key={f.name} className={i === 0 ? 'card-title' : 'card-line'}>
          {i > 0 && <span className="muted">{f.label}: </span>}<Display field={f} value={row[f.name]} models={models} record={row} />
        </div>
      ))}
    </article>
  );
}
