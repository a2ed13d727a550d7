import { useState } from 'react';
import { PageLoading } from '../../app/PageLoading.tsx';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { useModels } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import { andWhere, type Where } from '../../model/domain.ts';
import type { FieldInfo, ModelInfo } from '../../model/records.ts';
import { displayName, isNumberField, nameSelection } from '../../model/records.ts';
import { useBlock, useGroups } from '../../model/useRecords.ts';
import { Display, enumLabel } from '../../widgets/display.tsx';

const AGGREGATE_TITLE: Record<string, 'list.aggregate.sum' | 'list.aggregate.avg' | 'list.aggregate.min' | 'list.aggregate.max'> = {
  sum: 'list.aggregate.sum', avg: 'list.aggregate.avg', min: 'list.aggregate.min', max: 'list.aggregate.max',
};

/**
 * A list grouped by one field (read_group), as one table: a header row per group with its label,
 * its count and, under each column that declares one, the group's aggregate (a number column sums
 * by default); a header expands to its rows, which can be selected like the rows of a flat list.
 * The groups come in the server's order: an enum's declaration order, a Reference's record names.
 */
export function GroupedList({ model, groupBy, fields, columns, where, sel, order, onOpen, aggregates, selected, setSelected }: {
  model: ModelInfo; groupBy: string; fields: readonly FieldInfo[]; columns: readonly FieldInfo[]; where: Where; sel: string;
  order: unknown; onOpen: (id: string) => void; aggregates: Record<string, string>;
  selected: Set<string>; setSelected: (s: Set<string>) => void;
}) {
  const t = useT();
  const models = useModels();
  // aggregates of the columns shown only
  const shown = Object.fromEntries(Object.entries(aggregates).filter(([f]) => columns.some((c) => c.name === f)));
  const groups = useGroups(model, groupBy, where, shown);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const field = fields.find((f) => f.name === groupBy);
  const target = field?.relation ? models.get(field.relation) : undefined;
  // the names of Reference groups: one query for the ids of every group
  const ids = (groups.data ?? []).map((g) => g.key[groupBy]).filter((v): v is string => typeof v === 'string');
  const names = useBlock(target ?? model, target ? nameSelection(target) : 'id', { id: { in: ids } }, undefined, 0, Math.max(ids.length, 1), !!target && ids.length > 0);
  const label = (v: unknown) => {
    if (v === null || v === undefined) return t('list.group_none');
    if (target) return displayName(target, names.data?.find((r) => r.id === v) ?? { id: String(v) });
    if (field?.type === 'enum') return enumLabel(String(v), field);
    return String(v);
  };
  if (groups.error) return <ErrorPanel error={groups.error} retry={() => void groups.refetch()} />;
  if (groups.isPending) return <PageLoading />;
  return (
    <div className="table-scroll" data-testid="grouped-list">
      <table className="records grouped-table">
        <thead>
          <tr>
            <th className="col-select"><span className="sr-only">{t('list.select_all')}</span></th>
            {columns.map((f) => <th key={f.name} className={isNumberField(f) ? 'num th-plain' : 'th-plain'}>{f.label}</th>)}
          </tr>
        </thead>
        {(groups.data ?? []).map((g) => {
          const value = g.key[groupBy];
          const id = JSON.stringify(value);
          const isOpen = open.has(id);
          return (
            <tbody key={id} className="group">
              <tr className="group-row">
                <td colSpan={2}>
                  <button type="button" className="group-header" aria-expanded={isOpen} data-testid="group-header"
                    onClick={() => { const s = new Set(open); if (isOpen) s.delete(id); else s.add(id); setOpen(s); }}>
                    <span aria-hidden="true">{isOpen ? '▾' : '▸'}</span> {label(value)}
                    <span className="group-count" data-testid="group-count">{t('list.group_count', { count: g.count })}</span>
                  </button>
                </td>
                {columns.slice(1).map((f) => {
                  const agg = shown[f.name];
                  const v = agg ? g.aggregates?.[`${f.name}_${agg}`] : undefined;
                  return (
                    <td key={f.name} className={isNumberField(f) ? 'num group-aggregate' : 'group-aggregate'} data-testid={agg ? `group-aggregate-${f.name}` : undefined}>
                      {agg && v !== undefined && v !== null && (
                        <span title={t(AGGREGATE_TITLE[agg] ?? 'list.aggregate.sum', { label: f.label })}><Display field={f} value={v} models={models} /></span>
                      )}
                    </td>
                  );
                })}
              </tr>
              {isOpen && (
                <GroupRows model={model} where={andWhere([where, { [groupBy]: { eq: value } }])} sel={sel} order={order} columns={columns}
                  onOpen={onOpen} count={g.count} selected={selected} setSelected={setSelected} />
              )}
            </tbody>
          );
        })}
      </table>
    </div>
  );
}

function GroupRows({ model, where, sel, order, columns, onOpen, count, selected, setSelected }: {
  model: ModelInfo; where: Where; sel: string; order: unknown; columns: readonly FieldInfo[]; onOpen: (id: string) => void; count: number;
  selected: Set<string>; setSelected: (s: Set<string>) => void;
}) {
  const t = useT();
  const models = useModels();
  const rows = useBlock(model, sel, where, order, 0, Math.min(count, 500));
  if (rows.error) {
    return <tr><td colSpan={columns.length + 1}><ErrorPanel error={rows.error} retry={() => void rows.refetch()} /></td></tr>;
  }
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id); else next.delete(id);
    setSelected(next);
  };
  return (
    <>
      {(rows.data ?? []).map((r) => (
        <tr key={r.id} tabIndex={0} data-testid="list-row" className={selected.has(r.id) ? 'selected' : undefined}
          onClick={() => onOpen(r.id)} onKeyDown={(e) => {
            if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
            if (e.key === 'Enter') onOpen(r.id);
            else if (walkRows(e.currentTarget, e.key)) e.preventDefault();
          }}>
          <td className="col-select">
            <input type="checkbox" checked={selected.has(r.id)} aria-label={t('list.select_row', { name: displayName(model, r) })}
              onClick={(e) => e.stopPropagation()} onChange={(e) => toggle(r.id, e.target.checked)} />
          </td>
          {columns.map((f) => <td key={f.name} className={isNumberField(f) ? 'num' : undefined}><Display field={f} value={r[f.name]} models={models} record={r} /></td>)}
        </tr>
      ))}
    </>
  );
}

/**
 * ↑ ↓ Home End move the focus between the rows of the open groups (every one is drawn: a group
 * shows at most 500); true when the key was one of them.
 */
function walkRows(from: HTMLElement, key: string): boolean {
  if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(key)) return false;
  const rows = Array.from(from.closest('table')?.querySelectorAll<HTMLElement>('tr[data-testid="list-row"]') ?? []);
  const at = rows.indexOf(from);
  const to = key === 'ArrowDown' ? at + 1 : key === 'ArrowUp' ? at - 1 : key === 'Home' ? 0 : rows.length - 1;
  rows[Math.min(Math.max(to, 0), rows.length - 1)]?.focus();
  return true;
}
