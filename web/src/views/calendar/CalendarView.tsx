import { DndContext, PointerSensor, useDraggable, useDroppable, useSensor, useSensors, type DragEndEvent } from '@dnd-kit/core';
import { getLocalTimeZone } from '@internationalized/date';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { request } from '../../api/client.ts';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { errorMessage } from '../../app/errors.ts';
import { asFields, useModels, type CalendarPlan } from '../../app/meta.ts';
import { actionSegment, listScope, type ViewSearch } from '../../app/search-params.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { andWhere, type Where } from '../../model/domain.ts';
import { modelOf, orderBy, selection, updateDocument, type FieldInfo, type Row } from '../../model/records.ts';
import { useWritable } from '../../model/access.ts';
import { BLOCK, useBlock, useInvalidateModel } from '../../model/useRecords.ts';
import { Display } from '../../widgets/display.tsx';
import { ControlPanel } from '../ControlPanel.tsx';
import type { ViewProps } from '../registry.ts';
import { useCalendarT } from './messages.ts';
import {
  CALENDAR_MODES, dayAsUtcDate, dayKey, dayOf, daysOf, isDayOnly, isMode, localeFirstDay, moveToDay, parseDayKey, rangeOf, shiftDays, stepAnchor, todayIn,
  type CalendarDate, type CalendarMode,
} from './range.ts';
import './calendar.css';

type Entry = Row & { revision?: number };
const PALETTE = 8;

/** A colour index for a value: the same value always gets the same of the palette's colours. */
function colorIndex(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const text = typeof value === 'object' ? String((value as { id?: unknown }).id ?? JSON.stringify(value)) : String(value);
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % PALETTE;
}

/**
 * The calendar view: the records of the visible month, week or day on the days of their
 * `date_start` (through `date_stop`), fetched for that range only, every day being a day of the
 * person's time zone (./range.ts). Dragging an entry to another day (pointer), or the arrow keys
 * on a focused entry, moves it there at the same wall-clock time in that zone through the model's
 * update mutation, checked against the revision it was read at; a click or Enter opens its form.
 */
export default function CalendarView({ plan, action, search, searchPlan, where, org }: ViewProps<CalendarPlan>) {
  const t = useT();
  const ct = useCalendarT();
  const navigate = useNavigate();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const writable = useWritable(m);
  const fields = asFields(plan.fields);
  const startField = fields.find((f) => f.name === plan.date_start)!;
  const stopField = plan.date_stop ? fields.find((f) => f.name === plan.date_stop) ?? null : null;
  const movable = !startField.readonly && !stopField?.readonly && writable.update;
  const cardFields = plan.card_fields.map((n) => fields.find((f) => f.name === n)).filter((f): f is FieldInfo => !!f);
  const sel = useMemo(() => `${selection(fields, models)} revision`, [fields, models]);

  const mode: CalendarMode = isMode(search.mode) ? search.mode : isMode(plan.mode) ? plan.mode : 'month';
  // the person's zone (their `tz`, the IntlProvider's), else the browser's: where every other date is shown
  const zone = t.intl.timeZone ?? getLocalTimeZone();
  const today = todayIn(zone);
  const anchor = parseDayKey(search.date) ?? today;
  const firstDay = localeFirstDay(t.intl.locale);
  const range = rangeOf(mode, anchor, firstDay, zone);
  // the range's days in the person's zone, asked for as the UTC instants they start at
  const from = range.from.toISOString();
  const until = range.to.toISOString();
  const rangeWhere = useMemo((): Where => {
    const inRange = { [plan.date_start]: { gte: from, lt: until } };
    // with a stop, a record that started earlier and is still running shows too
    return plan.date_stop
      ? { OR: [inRange, { AND: [{ [plan.date_start]: { lt: from } }, { [plan.date_stop]: { gte: from } }] }] }
      : inRange;
  }, [plan.date_start, plan.date_stop, from, until]);
  const rows = useBlock(m, sel, andWhere([where, rangeWhere]), orderBy(`${plan.date_start} asc`), 0, BLOCK);
  const invalidate = useInvalidateModel();

  // an entry being moved shows on its new day until the refetch confirms it
  const [moved, setMoved] = useState<Record<string, Entry>>({});
  const [focusId, setFocusId] = useState<string | null>(null);
  const entries = useMemo(() => {
    const list = (rows.data ?? []).map((r) => moved[r.id] ?? r) as Entry[];
    const byDay = new Map<string, Entry[]>();
    for (const r of list) {
      const start = r[plan.date_start];
      if (typeof start !== 'string') continue;
      const stop = plan.date_stop && typeof r[plan.date_stop] === 'string' ? r[plan.date_stop] as string : null;
      for (const day of daysOf(start, stop, zone)) byDay.set(day, [...(byDay.get(day) ?? []), r]);
    }
    return byDay;
  }, [rows.data, moved, plan.date_start, plan.date_stop, zone]);

  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 5 } }));
  // a day is no moment: formatted as the UTC day it names, where no zone moves it (./range.ts)
  const formatDay = (d: CalendarDate, o: Intl.DateTimeFormatOptions) => t.intl.formatDate(dayAsUtcDate(d), { ...o, timeZone: 'UTC' });
  const dayLabel = (d: CalendarDate) => formatDay(d, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });

  /** Moves a record to `day` at the same wall-clock time in the person's zone (its stop by as many days). */
  async function move(row: Entry, day: CalendarDate) {
    if (!movable || moved[row.id]) return;
    const start = row[plan.date_start] as string;
    const fromDay = dayOf(start, zone);
    const target = moveToDay(start, day, zone);
    if (!fromDay || !target) return;
    const shift = day.compare(fromDay);
    if (shift === 0) return;
    const input: Record<string, string> = { [plan.date_start]: target };
    const stop = plan.date_stop && typeof row[plan.date_stop] === 'string' ? shiftDays(row[plan.date_stop] as string, shift, zone) : null;
    if (plan.date_stop && stop) input[plan.date_stop] = stop;
    setMoved((x) => ({ ...x, [row.id]: { ...row, ...input } }));
    try {
      await request(updateDocument(m), { id: row.id, input, revision: row.revision });
      toast(ct('calendar.moved', { date: dayLabel(day) }));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
    setMoved((x) => { const { [row.id]: _, ...rest } = x; return rest; });
  }

  function onDragEnd(e: DragEndEvent) {
    const row = e.active.data.current?.row as Entry | undefined;
    const day = e.over ? parseDayKey(String(e.over.id)) : null;
    if (row && day) void move(row, day);
  }

  /** Arrow keys on a focused entry: a day left or right, a week up or down; the range follows it. */
  function onKey(e: KeyboardEvent, row: Entry) {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[e.key];
    if (step === undefined || !movable || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    const day = dayOf(row[plan.date_start] as string, zone)?.add({ days: step });
    if (!day) return;
    setFocusId(row.id);
    if (day.compare(range.start) < 0 || day.compare(range.end) >= 0) void navigate(to({ date: dayKey(day) }));
    void move(row, day);
  }

  const open = (id: string) => navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: listScope(search) });
  const to = (s: Partial<ViewSearch>) => ({ to: '/$org/$action' as const, params: { org, action: actionSegment(action.key) }, search: { ...search, view: 'calendar', page: undefined, ...s } });
  const title = mode === 'month'
    ? formatDay(anchor, { month: 'long', year: 'numeric' })
    : mode === 'week'
      ? new Intl.DateTimeFormat(t.intl.locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })
        .formatRange(dayAsUtcDate(range.start), dayAsUtcDate(range.end.subtract({ days: 1 })))
      : dayLabel(anchor);
  const full = rows.data?.length === BLOCK;

  return (
    <div className="view view-calendar">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="calendar" allowGroupBy={false} />
      <div className="cal-toolbar">
        <Link {...to({ date: undefined })} className="btn" data-testid="calendar-today">{ct('calendar.today')}</Link>
        <Link {...to({ date: dayKey(stepAnchor(mode, anchor, -1)) })} className="btn btn-ghost" aria-label={ct(`calendar.prev.${mode}`)} data-testid="calendar-prev">‹</Link>
        <Link {...to({ date: dayKey(stepAnchor(mode, anchor, 1)) })} className="btn btn-ghost" aria-label={ct(`calendar.next.${mode}`)} data-testid="calendar-next">›</Link>
        <h2 className="cal-title" aria-live="polite" data-testid="calendar-title">{title}</h2>
        <div className="cp-spacer" />
        <div className="view-switcher" role="group" aria-label={ct('calendar.modes')}>
          {CALENDAR_MODES.map((x) => (
            <Link key={x} {...to({ mode: x })} className={`btn btn-ghost${x === mode ? ' active' : ''}`} aria-current={x === mode ? 'true' : undefined} data-testid={`calendar-mode-${x}`}>
              {ct(`calendar.mode.${x}`)}
            </Link>
          ))}
        </div>
      </div>
      {rows.error && <ErrorPanel error={rows.error} retry={() => void rows.refetch()} />}
      {full && <p className="notice" data-testid="calendar-capped">{ct('calendar.capped', { count: BLOCK })}</p>}
      <DndContext sensors={sensors} onDragEnd={onDragEnd}
        accessibility={{ screenReaderInstructions: { draggable: ct('calendar.instructions') } }}>
        <table className={`calendar ${mode === 'day' ? 'cal-day-mode' : `cal-${mode}`}`} data-testid="calendar" aria-busy={rows.isFetching}>
          <caption className="sr-only">{`${plan.title}: ${title}`}</caption>
          <thead>
            <tr>
              {range.weeks[0].map((d) => (
                <th key={dayKey(d)} scope="col">
                  {mode === 'month' ? formatDay(d, { weekday: 'short' }) : formatDay(d, { weekday: 'short', day: 'numeric', month: mode === 'day' ? 'long' : undefined })}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {range.weeks.map((week) => (
              <tr key={dayKey(week[0])}>
                {week.map((d) => (
                  <Day key={dayKey(d)} day={d} label={dayLabel(d)} outside={mode === 'month' && d.month !== anchor.month}
                    today={d.compare(today) === 0} showNumber={mode === 'month'}>
                    {(entries.get(dayKey(d)) ?? []).map((r) => (
                      <CalendarEntry key={r.id} row={r} day={dayKey(d)} plan={plan} cardFields={mode === 'month' ? cardFields.slice(0, 1) : cardFields}
                        colorOf={plan.color} movable={movable} pending={!!moved[r.id]} focus={focusId === r.id}
                        home={dayKey(d) === dayOf(r[plan.date_start] as string, zone)?.toString()} onOpen={open} onKey={onKey} />
                    ))}
                  </Day>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </DndContext>
      {rows.data && rows.data.length === 0 && <p className="muted small" data-testid="calendar-empty">{ct('calendar.empty')}</p>}
    </div>
  );
}

function Day({ day, label, outside, today, showNumber, children }: {
  day: CalendarDate; label: string; outside: boolean; today: boolean; showNumber: boolean; children: ReactNode;
}) {
  const { setNodeRef, isOver } = useDroppable({ id: dayKey(day) });
  return (
    <td ref={setNodeRef} className={`cal-day${outside ? ' outside' : ''}${today ? ' today' : ''}${isOver ? ' over' : ''}`}
      data-testid={`calendar-day-${dayKey(day)}`} aria-current={today ? 'date' : undefined}>
      {showNumber ? <div className="cal-daynum"><span aria-hidden="true">{day.day}</span><span className="sr-only">{label}</span></div>
        : <span className="sr-only">{label}</span>}
      <div className="cal-entries">{children}</div>
    </td>
  );
}

/** An entry on one of its days; `home` when that day is its start's (where focus goes after a keyboard move). */
function CalendarEntry({ row, day, plan, cardFields, colorOf, movable, pending, focus, home, onOpen, onKey }: {
  row: Entry; day: string; plan: CalendarPlan; cardFields: readonly FieldInfo[]; colorOf: string | null | undefined; movable: boolean;
  pending: boolean; focus: boolean; home: boolean; onOpen: (id: string) => void; onKey: (e: KeyboardEvent, row: Entry) => void;
}) {
  const t = useT();
  const models = useModels();
  // one draggable per day an entry spans: the id says which
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: `${row.id}@${day}`, data: { row }, disabled: !movable });
  const ref = useRef<HTMLDivElement | null>(null);
  // moved by the keyboard, the entry is drawn in another day's cell: focus follows it there
  useEffect(() => { if (focus && home) ref.current?.focus(); }, [focus, home, row]);
  const color = colorOf ? colorIndex(row[colorOf]) : null;
  const start = row[plan.date_start] as string;
  const style = transform ? { transform: `translate(${transform.x}px, ${transform.y}px)` } : undefined;
  return (
    <div ref={(el) => { setNodeRef(el); ref.current = el; }} style={style} {...attributes} {...listeners}
      className={`cal-entry${color === null ? '' : ` cal-color-${color}`}${isDragging ? ' dragging' : ''}${pending ? ' pending' : ''}${movable ? '' : ' fixed'}`}
      data-testid="calendar-entry" data-id={row.id}
      onClick={() => onOpen(row.id)}
      onKeyDown={(e) => { if (e.key === 'Enter') onOpen(row.id); else onKey(e, row); }}>
      {/* a moment's time in the person's zone (the IntlProvider's); a calendar day has none */}
      {!isDayOnly(start) && <><span className="cal-time">{t.intl.formatTime(new Date(start), { hour: 'numeric', minute: '2-digit' })}</span>{' '}</>}
      {cardFields.map((f, i) => (
        <span key={f.name} className={i === 0 ? 'cal-entry-title' : 'cal-entry-line'}>
          {i > 0 && <span className="muted">{f.label}: </span>}<Display field={f} value={row[f.name]} models={models} record={row} />
        </span>
      ))}
    </div>
  );
}
