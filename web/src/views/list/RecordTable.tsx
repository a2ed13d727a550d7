import { useQueries } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useRef, useState } from 'react';
import { request } from '../../api/client.ts';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { useModels } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import type { Where } from '../../model/domain.ts';
import { displayName, isNumberField, orderBy, rowsDocument, type FieldInfo, type ModelInfo, type Models, type Row } from '../../model/records.ts';
import { BLOCK, recordsKey } from '../../model/useRecords.ts';
import { Display } from '../../widgets/display.tsx';
import { ResizeHandle, widthStyle } from './columns.tsx';
import { useEditT } from './edit-messages.ts';
import { EditRow, startEditing, type Editing } from './EditRow.tsx';

const ROW_HEIGHT = 37;
const NO_WIDTHS: Record<string, number> = {};

interface Props {
  model: ModelInfo; columns: readonly FieldInfo[]; sel: string; where: Where; order: string | undefined;
  /** first record of the window and how many it holds (a page of the pager) */
  offset: number; count: number; loadingTotal: boolean; filtered: boolean;
  onSort: (order: string | undefined) => void; onOpen: (id: string) => void;
  selected: Set<string>; setSelected: (s: Set<string>) => void;
  /** the header box: ticked when every record of the page is selected; ticking it selects the page */
  pageSelected: boolean; onSelectPage: (on: boolean) => void;
  /** the person's column widths, and what changes them or the order (./columns.tsx) */
  widths?: Record<string, number>;
  onResize?: (name: string, width: number | null) => void;
  onMove?: (name: string, before: string | null) => void;
  /**
   * `editable="top|bottom"` when the person may update the records: a click edits the row in place
   * (./EditRow.tsx) and the row's last cell opens the form; `canCreate` adds "Add a line" there.
   */
  editable?: 'top' | 'bottom' | null;
  canCreate?: boolean;
  /** the action has a form: an editable list's rows then end with a button opening it */
  canOpenForm?: boolean;
  /** values a new line starts with (the model's defaults) */
  newDefaults?: Record<string, unknown>;
  /** after a row was saved (the list refetches) */
  onSaved?: (id: string) => Promise<void> | void;
  /** the table's accessible name (the view's title) */
  label?: string;
}

/**
 * A window of `count` records from `offset`, rendered virtually: only the rows on screen exist in
 * the DOM, and the blocks of 500 they fall in are fetched when first seen.
 */
export function RecordTable({ model, columns, sel, where, order, offset, count, loadingTotal, filtered, onSort, onOpen, selected, setSelected, pageSelected, onSelectPage, widths = NO_WIDTHS, onResize, onMove, editable = null, canCreate = false, canOpenForm = true, newDefaults, onSaved, label }: Props) {
  const t = useT();
  const te = useEditT();
  const [editing, setEditing] = useState<Editing | null>(null);
  // the header being dragged to another place, and the one it would land before
  const [dragged, setDragged] = useState<string | null>(null);
  const [dropBefore, setDropBefore] = useState<string | null>(null);
  const models = useModels();
  const scroller = useRef<HTMLDivElement>(null);
  // no flushSync per scroll event: React batches the row updates into the next frame
  const virtual = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8, useFlushSync: false });
  const items = virtual.getVirtualItems();
  const firstBlock = Math.floor((offset + (items[0]?.index ?? 0)) / BLOCK);
  const lastBlock = Math.floor((offset + (items.at(-1)?.index ?? 0)) / BLOCK);
  const blocks = count === 0 ? [] : Array.from({ length: lastBlock - firstBlock + 1 }, (_, i) => firstBlock + i);
  const gql = orderBy(order);
  const results = useQueries({
    queries: blocks.map((b) => {
      // a block never reaches past the window (the page's end)
      const start = Math.max(b * BLOCK, offset);
      const limit = Math.min((b + 1) * BLOCK, offset + count) - start;
      return {
        queryKey: recordsKey(model.key, 'rows', sel, where, gql, start, limit),
        queryFn: async () => ({ start, rows: (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(model, sel), { where, orderBy: gql, limit, offset: start })).rows }),
      };
    }),
  });
  const rowAt = (i: number): Row | undefined => {
    for (const r of results) {
      const d = r.data;
      if (d && offset + i >= d.start && offset + i < d.start + d.rows.length) return d.rows[offset + i - d.start];
    }
    return undefined;
  };
  const visibleRows = items.map((v) => rowAt(v.index));
  const [sortField, sortDir] = (order ?? '').split(',')[0].trim().split(/\s+/);

  // stable handlers, so memoised rows are not rendered again when the parent is
  const latest = useRef({ selected, setSelected, onOpen, rows: [] as Array<Row | undefined>, setEditing: (_: Editing | null) => {} });
  latest.current = { ...latest.current, selected, setSelected, onOpen };
  const toggle = useCallback((id: string, on: boolean) => {
    const next = new Set(latest.current.selected);
    if (on) next.add(id); else next.delete(id);
    latest.current.setSelected(next);
  }, []);
  const open = useCallback((id: string) => latest.current.onOpen(id), []);
  // in an editable list a click edits the row; its last cell opens the form
  const edit = useCallback((id: string) => {
    const rec = latest.current.rows.find((r) => r?.id === id);
    if (rec) latest.current.setEditing(startEditing(rec));
  }, []);
  latest.current.rows = visibleRows;
  latest.current.setEditing = setEditing;

  // keyboard walking, as in a grid (rows first; the table keeps its table and cell roles, which
  // recorded QA locators name): one row is in the Tab order (the last one
  // focused, else the first drawn); ↑ ↓, Page Up/Down, Home and End move the focus between rows,
  // scrolling a row the virtual table has not drawn into view first (TanStack Virtual's
  // scrollToIndex), Enter opens (or, in an editable list, edits) the row
  const [active, setActive] = useState(0);
  const tabStop = items.some((v) => v.index === active) ? active : items[0]?.index;
  const walk = useRef<(from: number, key: string) => boolean>(() => false);
  walk.current = (from, key) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
    const to = key === 'ArrowDown' ? from + 1 : key === 'ArrowUp' ? from - 1 : key === 'PageDown' ? from + page : key === 'PageUp' ? from - page
      : key === 'Home' ? 0 : key === 'End' ? count - 1 : null;
    if (to === null) return false;
    const target = Math.min(Math.max(to, 0), count - 1);
    setActive(target);
    virtual.scrollToIndex(target, { align: 'auto' });
    // the row exists once the virtual window has moved to it (a frame or a few)
    let frames = 0;
    const focus = () => {
      const row = scroller.current?.querySelector<HTMLElement>(`tr[data-index="${target}"]`);
      if (row?.dataset.testid === 'list-row') row.focus();
      else if (frames++ < 120) requestAnimationFrame(focus); // a block still loading: up to 2 s
    };
    focus();
    return true;
  };
  const onRowKey = useCallback((index: number, key: string) => walk.current(index, key), []);
  const onRowFocus = useCallback((index: number) => setActive(index), []);

  const failed = results.find((r) => r.error);
  if (failed) return <ErrorPanel error={failed.error} retry={() => { for (const r of results) if (r.error) void r.refetch(); }} />;
  const newLine = editing && editing.record === null
    ? <EditRow model={model} columns={columns} widths={widths} editing={editing} setEditing={setEditing} onSaved={async (id) => { await onSaved?.(id); }} openColumn={canOpenForm} />
    : null;
  const addLine = editable && canCreate && !newLine ? (
    <button type="button" className="btn btn-ghost add-line" data-testid="list-add-line" onClick={() => setEditing(startEditing(null, newDefaults))}>
      + {te('list.edit.add')}
    </button>
  ) : null;
  if (count === 0 && !loadingTotal && !newLine) {
    return (
      <>
        <p className="empty" data-testid="list-empty">{t(filtered ? 'list.empty.filtered' : 'list.empty')}</p>
        {addLine}
      </>
    );
  }
  const before = items[0]?.start ?? 0;
  const after = virtual.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <div className="table-scroll" ref={scroller} data-testid="list-scroll">
      <table className="records" aria-label={label} aria-rowcount={count + 1} data-testid="list-table">
        <thead>
          <tr>
            <th className="col-select">
              <input type="checkbox" checked={pageSelected} aria-label={t('list.select_page')} data-testid="select-all"
                onChange={(e) => onSelectPage(e.target.checked)} />
            </th>
            {columns.map((f) => {
              const dir = sortField === f.name ? (sortDir?.toLowerCase() === 'desc' ? 'descending' : 'ascending') : undefined;
              return (
                <th key={f.name} aria-sort={dir ?? 'none'} style={widthStyle(widths[f.name])} data-testid={`th-${f.name}`}
                  className={[isNumberField(f) ? 'num' : '', dropBefore === f.name && dragged !== f.name ? 'drop-before' : ''].filter(Boolean).join(' ') || undefined}
                  draggable={!!onMove}
                  onDragStart={(e) => { setDragged(f.name); e.dataTransfer.effectAllowed = 'move'; e.dataTransfer.setData('text/plain', f.name); }}
                  onDragOver={(e) => { if (dragged) { e.preventDefault(); setDropBefore(f.name); } }}
                  onDragEnd={() => { setDragged(null); setDropBefore(null); }}
                  onDrop={(e) => {
                    e.preventDefault();
                    if (dragged && dragged !== f.name) onMove?.(dragged, f.name);
                    setDragged(null); setDropBefore(null);
                  }}>
                  <button type="button" className="th-sort" data-testid={`sort-${f.name}`} aria-label={t('list.sort_by', { label: f.label })}
                    onClick={() => onSort(dir === 'ascending' ? `${f.name} desc` : `${f.name} asc`)}>
                    {f.label}<span aria-hidden="true" className="sort-mark">{dir === 'ascending' ? ' ▲' : dir === 'descending' ? ' ▼' : ''}</span>
                  </button>
                  {onResize && <ResizeHandle field={f} width={widths[f.name]} setWidth={onResize} />}
                </th>
              );
            })}
            {editable && canOpenForm && <th className="col-open"><span className="sr-only">{te('list.edit.open_column')}</span></th>}
          </tr>
        </thead>
        <tbody>
          {editable === 'top' && newLine}
          {before > 0 && <tr aria-hidden="true" style={{ height: before }} />}
          {items.map((v, i) => {
            const rec = visibleRows[i];
            if (rec && editing?.record?.id === rec.id) {
              return <EditRow key={rec.id} index={v.index} model={model} columns={columns} widths={widths} editing={editing} setEditing={setEditing}
                onSaved={async (id) => { await onSaved?.(id); }} openColumn={canOpenForm} />;
            }
            return (
              <RecordRow key={rec?.id ?? `v${v.index}`} index={v.index} rec={rec} columns={columns} widths={widths} models={models} model={model}
                checked={!!rec && selected.has(rec.id)} onOpen={editable ? edit : open} onCheck={toggle} openForm={editable && canOpenForm ? open : undefined}
                tabStop={v.index === tabStop} onKey={onRowKey} onFocusRow={onRowFocus} measure={virtual.measureElement} />
            );
          })}
          {after > 0 && <tr aria-hidden="true" style={{ height: after }} />}
          {editable === 'bottom' && newLine}
        </tbody>
      </table>
      {addLine}
    </div>
  );
}

/**
 * One row, re-rendered only when its record, its checkbox or the columns change: scrolling
 * moves the window, and the rows that stay on screen are not rendered again.
 */
const RecordRow = memo(function RecordRow({ index, rec, columns, widths, models, model, checked, onOpen, onCheck, openForm, tabStop, onKey, onFocusRow, measure }: {
  index: number; rec: Row | undefined; columns: readonly FieldInfo[]; widths: Record<string, number>; models: Models; model: ModelInfo; checked: boolean;
  onOpen: (id: string) => void; onCheck: (id: string, on: boolean) => void;
  /** an editable list's row: a click edits it (onOpen), this opens its form */
  openForm?: (id: string) => void;
  /** the row in the Tab order; the arrow keys move from row to row (true: handled) */
  tabStop: boolean; onKey: (index: number, key: string) => boolean; onFocusRow: (index: number) => void;
  /** the virtualizer's measuring ref: a row is as tall as its content (names wrap on a phone) */
  measure: (el: HTMLTableRowElement | null) => void;
}) {
  const t = useT();
  const te = useEditT();
  if (!rec) {
    return (
      <tr data-index={index} aria-rowindex={index + 2} data-testid="list-row-loading">
        <td className="col-select" />{columns.map((f) => <td key={f.name}><span className="skeleton" /></td>)}{openForm && <td />}
      </tr>
    );
  }
  return (
    <tr ref={measure} data-index={index} aria-rowindex={index + 2} tabIndex={tabStop ? 0 : -1} className={checked ? 'selected' : undefined} data-testid="list-row"
      aria-keyshortcuts={openForm ? 'Shift+Enter' : undefined}
      onClick={() => onOpen(rec.id)} onFocus={(e) => { if (e.target === e.currentTarget) onFocusRow(index); }}
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
        // an editable list's row: Enter edits it in place, Shift+Enter opens its form (the ↗ button's way)
        if (e.key === 'Enter' && e.shiftKey && openForm) openForm(rec.id);
        else if (e.key === 'Enter') onOpen(rec.id);
        else if (e.key === ' ') {
          // Space selects the focused row, as in a grid (its checkbox is not a Tab stop of its own)
          e.preventDefault();
          onCheck(rec.id, !checked);
        } else if (onKey(index, e.key)) e.preventDefault();
      }}>
      <td className="col-select">
        {/* out of the Tab order: the rows are one Tab stop, and Space on a row toggles this */}
        <input type="checkbox" tabIndex={-1} checked={checked} aria-label={t('list.select_row', { name: displayName(model, rec) })}
          onClick={(e) => e.stopPropagation()} onChange={(e) => onCheck(rec.id, e.target.checked)} />
      </td>
      {columns.map((f) => <td key={f.name} className={isNumberField(f) ? 'num' : undefined} style={widthStyle(widths[f.name])}><Display field={f} value={rec[f.name]} models={models} record={rec} /></td>)}
      {openForm && (
        <td className="col-open">
          {/* out of the Tab order, as the checkbox: a Tab stop on every row would make the rows 50
              stops again; Shift+Enter on the row does what it does */}
          <button type="button" className="btn-icon" tabIndex={-1} aria-label={te('list.edit.open', { name: displayName(model, rec) })} title={te('list.edit.open_key')} data-testid="row-open"
            onClick={(e) => { e.stopPropagation(); openForm(rec.id); }}>↗</button>
        </td>
      )}
    </tr>
  );
});
