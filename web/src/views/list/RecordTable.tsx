import { useQueries } from '@tanstack/react-query';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import { request } from '../../api/client.ts';
import { useModels } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import type { Where } from '../../model/domain.ts';
import { displayName, orderBy, rowsDocument, type FieldInfo, type ModelInfo, type Row } from '../../model/records.ts';
import { BLOCK, recordsKey } from '../../model/useRecords.ts';
import { Display } from '../../widgets/display.tsx';

const ROW_HEIGHT = 37;
const helper = createColumnHelper<Row | undefined>();

interface Props {
  model: ModelInfo; columns: readonly FieldInfo[]; sel: string; where: Where; order: string | undefined;
  /** first record of the window and how many it holds (a page of the pager) */
  offset: number; count: number; loadingTotal: boolean; filtered: boolean;
  onSort: (order: string | undefined) => void; onOpen: (id: string) => void;
  selected: Set<string>; setSelected: (s: Set<string>) => void;
}

/**
 * A window of `count` records from `offset`, rendered virtually: only the rows on screen exist in
 * the DOM, and the blocks of 500 they fall in are fetched when first seen.
 */
export function RecordTable({ model, columns, sel, where, order, offset, count, loadingTotal, filtered, onSort, onOpen, selected, setSelected }: Props) {
  const t = useT();
  const models = useModels();
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
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
  const visibleIds = visibleRows.filter((r): r is Row => !!r).map((r) => r.id);
  const [sortField, sortDir] = (order ?? '').split(',')[0].trim().split(/\s+/);

  const tableColumns = useMemo(() => [
    helper.display({
      id: '__select',
      header: () => null,
      cell: (c) => {
        const r = c.row.original;
        return r ? (
          <input type="checkbox" checked={selected.has(r.id)} aria-label={t('list.select_row', { name: displayName(model, r) })}
            onClick={(e) => e.stopPropagation()}
            onChange={(e) => { const s = new Set(selected); if (e.target.checked) s.add(r.id); else s.delete(r.id); setSelected(s); }} />
        ) : null;
      },
    }),
    ...columns.map((f) => helper.display({
      id: f.name,
      header: () => f.label,
      cell: (c) => (c.row.original ? <Display field={f} value={c.row.original[f.name]} models={models} /> : <span className="skeleton" />),
    })),
  ], [columns, models, selected, setSelected, model, t]);

  const table = useReactTable({ data: visibleRows, columns: tableColumns, getCoreRowModel: getCoreRowModel(), getRowId: (r, i) => r?.id ?? `loading-${i}` });
  const allChecked = visibleIds.length > 0 && visibleIds.every((id) => selected.has(id));

  if (count === 0 && !loadingTotal) {
    return <p className="empty" data-testid="list-empty">{t(filtered ? 'list.empty.filtered' : 'list.empty')}</p>;
  }
  const before = items[0]?.start ?? 0;
  const after = virtual.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <div className="table-scroll" ref={scroller} data-testid="list-scroll">
      <table className="records" aria-rowcount={count + 1} data-testid="list-table">
        <thead>
          <tr>
            <th className="col-select">
              <input type="checkbox" checked={allChecked} aria-label={t('list.select_all')} data-testid="select-all"
                onChange={(e) => { const s = new Set(selected); for (const id of visibleIds) { if (e.target.checked) s.add(id); else s.delete(id); } setSelected(s); }} />
            </th>
            {columns.map((f) => {
              const dir = sortField === f.name ? (sortDir?.toLowerCase() === 'desc' ? 'descending' : 'ascending') : undefined;
              return (
                <th key={f.name} aria-sort={dir ?? 'none'} className={f.type === 'integer' || f.type === 'float' ? 'num' : undefined}>
                  <button type="button" className="th-sort" data-testid={`sort-${f.name}`} aria-label={t('list.sort_by', { label: f.label })}
                    onClick={() => onSort(dir === 'ascending' ? `${f.name} desc` : `${f.name} asc`)}>
                    {f.label}<span aria-hidden="true" className="sort-mark">{dir === 'ascending' ? ' ▲' : dir === 'descending' ? ' ▼' : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {before > 0 && <tr aria-hidden="true" style={{ height: before }} />}
          {table.getRowModel().rows.map((row, i) => {
            const v = items[i];
            const rec = row.original;
            return (
              <tr key={rec?.id ?? `v${v.index}`} data-index={v.index} aria-rowindex={v.index + 2} tabIndex={rec ? 0 : -1}
                className={rec && selected.has(rec.id) ? 'selected' : undefined} data-testid={rec ? 'list-row' : 'list-row-loading'}
                onClick={() => rec && onOpen(rec.id)} onKeyDown={(e) => { if (e.key === 'Enter' && rec) onOpen(rec.id); }}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className={cell.column.id === '__select' ? 'col-select' : undefined}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            );
          })}
          {after > 0 && <tr aria-hidden="true" style={{ height: after }} />}
        </tbody>
      </table>
    </div>
  );
}
