import { useState } from 'react';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { useModels } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import { andWhere, type Where } from '../../model/domain.ts';
import type { FieldInfo, ModelInfo } from '../../model/records.ts';
import { displayName, nameSelection } from '../../model/records.ts';
import { useBlock, useGroups } from '../../model/useRecords.ts';
import { Display } from '../../widgets/display.tsx';

/** A list grouped by one field (read_group): a header per group with its count, rows on demand. */
export function GroupedList({ model, groupBy, fields, columns, where, sel, order, onOpen }: {
  model: ModelInfo; groupBy: string; fields: readonly FieldInfo[]; columns: readonly FieldInfo[]; where: Where; sel: string;
  order: unknown; onOpen: (id: string) => void;
}) {
  const t = useT();
  const models = useModels();
  const groups = useGroups(model, groupBy, where);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const field = fields.find((f) => f.name === groupBy);
  const target = field?.relation ? models.get(field.relation) : undefined;
  // the names of Reference groups: one query for the ids of every group
  const ids = (groups.data ?? []).map((g) => g.key[groupBy]).filter((v): v is string => typeof v === 'string');
  const names = useBlock(target ?? model, target ? nameSelection(target) : 'id', { id: { in: ids } }, undefined, 0, Math.max(ids.length, 1), !!target && ids.length > 0);
  const label = (v: unknown) => {
    if (v === null || v === undefined) return t('list.group_none');
    if (target) return displayName(target, names.data?.find((r) => r.id === v) ?? { id: String(v) });
    return String(v);
  };
  if (groups.error) return <ErrorPanel error={groups.error} retry={() => void groups.refetch()} />;
  if (groups.isPending) return <div className="page-loading" aria-busy="true">{t('common.loading')}</div>;
  return (
    <div className="grouped" data-testid="grouped-list">
      {(groups.data ?? []).map((g) => {
        const value = g.key[groupBy];
        const id = JSON.stringify(value);
        const isOpen = open.has(id);
        return (
          <section key={id} className="group">
            <button type="button" className="group-header" aria-expanded={isOpen} data-testid="group-header"
              onClick={() => { const s = new Set(open); if (isOpen) s.delete(id); else s.add(id); setOpen(s); }}>
              <span aria-hidden="true">{isOpen ? '▾' : '▸'}</span> {label(value)}
              <span className="group-count" data-testid="group-count">{t('list.group_count', { count: g.count })}</span>
            </button>
            {isOpen && <GroupRows model={model} where={andWhere([where, { [groupBy]: { eq: value } }])} sel={sel} order={order} columns={columns} onOpen={onOpen} count={g.count} />}
          </section>
        );
      })}
    </div>
  );
}

function GroupRows({ model, where, sel, order, columns, onOpen, count }: {
  model: ModelInfo; where: Where; sel: string; order: unknown; columns: readonly FieldInfo[]; onOpen: (id: string) => void; count: number;
}) {
  const models = useModels();
  const rows = useBlock(model, sel, where, order, 0, Math.min(count, 500));
  if (rows.error) return <ErrorPanel error={rows.error} retry={() => void rows.refetch()} />;
  return (
    <table className="records">
      <thead><tr>{columns.map((f) => <th key={f.name} className="th-plain">{f.label}</th>)}</tr></thead>
      <tbody>
        {(rows.data ?? []).map((r) => (
          <tr key={r.id} tabIndex={0} data-testid="list-row" onClick={() => onOpen(r.id)} onKeyDown={(e) => { if (e.key === 'Enter') onOpen(r.id); }}>
            {columns.map((f) => <td key={f.name}><Display field={f} value={r[f.name]} models={models} record={r} /></td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
