import { useMemo, useState } from 'react';
import { PageLoading } from '../../app/PageLoading.tsx';
import { useIntl } from 'react-intl';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { asFields, useModels, type PivotPlan } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import { useAnalysisT } from '../../model/analysis-messages.ts';
import { usePivotT } from './messages.ts';
import { groupBysOf, measureLabel, measureOf, useAnalysis, useKeyLabels, type GroupBy } from '../../model/analysis.ts';
import { modelOf } from '../../model/records.ts';
import { ControlPanel } from '../ControlPanel.tsx';
import type { ViewProps } from '../registry.ts';
import { cellTable, collapse, headerRows, headerTree, pathId, toCsv, visibleLeaves, visibleRows, type HeaderNode } from './tree.ts';

/**
 * The pivot view (Odoo's): a table of the measures per row group and column group, with totals.
 * A header expands to the next group-by under it and collapses back (the first level of each is
 * open at first); the rows are the search panel's group-by when one is chosen, else the view's.
 * One read_group over every row and column group-by feeds all cells (sums of counts and sums
 * add up). "Download CSV" saves the table as shown.
 */
export default function PivotView({ plan, action, search, searchPlan, where, org }: ViewProps<PivotPlan>) {
  const t = useT();
  const ta = useAnalysisT();
  const tp = usePivotT();
  const intl = useIntl();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const fields = useMemo(() => [...asFields(plan.fields), ...asFields(searchPlan?.fields ?? [])], [plan.fields, searchPlan]);
  const [measures, setMeasures] = useState<string[]>(plan.measures);
  const rowBys: GroupBy[] = groupBysOf(plan.rows, search.group_by, fields);
  const colBys: GroupBy[] = plan.cols.filter((c) => !rowBys.some((r) => r.field === c.field));
  const all = [...rowBys, ...colBys];
  const groups = useAnalysis(m, all, measures, where);
  const label = useKeyLabels(all, fields, models, groups.data, intl, t('list.group_none'));
  const [rowOpen, setRowOpen] = useState<Set<string>>(() => new Set([pathId([])]));
  const [colOpen, setColOpen] = useState<Set<string>>(() => new Set([pathId([])]));

  const data = groups.data ?? [];
  const rowFields = rowBys.map((g) => g.field);
  const colFields = colBys.map((g) => g.field);
  const rowRoot = headerTree(data, rowFields);
  const colRoot = headerTree(data, colFields);
  const cell = cellTable(data, rowFields, colFields, measures, measureOf);
  const rows = visibleRows(rowRoot, rowOpen);
  const leaves = visibleLeaves(colRoot, colOpen);
  const colHeader = headerRows(colRoot, colOpen);
  // an open column root adds the rows' totals as a last column (Odoo's)
  const totalColumn = leaves.length > 1 || leaves[0] !== colRoot;
  const columns = totalColumn ? [...leaves, colRoot] : leaves;
  const depth = colHeader.length;
  const total = ta('analysis.total');
  const nodeLabel = (bys: GroupBy[], n: HeaderNode) => (n.path.length ? label(bys[n.path.length - 1], n.path[n.path.length - 1]) : total);
  const mLabel = (x: string) => measureLabel(x, fields, ta('analysis.count'));
  // a combination without records is an empty cell, as in Odoo (a 0 would be a group that sums to 0)
  const fmt = (v: number | undefined) => (v === undefined ? '' : intl.formatNumber(v));
  const byNames = (bys: GroupBy[]) => bys.map((g) => fields.find((f) => f.name === g.field)?.label ?? g.field).join(', ') || total;

  function toggle(open: Set<string>, set: (s: Set<string>) => void, n: HeaderNode, levels: number) {
    const id = pathId(n.path);
    if (open.has(id)) set(collapse(open, n.path));
    else if (n.path.length < levels) set(new Set([...open, id]));
  }
  function header(bys: GroupBy[], open: Set<string>, set: (s: Set<string>) => void, n: HeaderNode, testid: string) {
    const text = nodeLabel(bys, n);
    if (n.path.length >= bys.length || n.children.length === 0) return <span data-testid={testid}>{text}</span>;
    const isOpen = open.has(pathId(n.path));
    return (
      <button type="button" className="pivot-toggle" aria-expanded={isOpen} data-testid={testid}
        aria-label={tp(isOpen ? 'pivot.collapse' : 'pivot.expand', { label: text })}
        onClick={() => toggle(open, set, n, bys.length)}>
        <span aria-hidden="true">{isOpen ? '▾' : '▸'}</span> {text}
      </button>
    );
  }

  function download() {
    const pathLabel = (bys: GroupBy[], n: HeaderNode) => (n.path.length ? n.path.map((v, i) => label(bys[i], v)).join(' / ') : total);
    const head = ['', ...columns.flatMap((c) => measures.map((x) => (colFields.length ? `${c === colRoot && totalColumn ? total : pathLabel(colBys, c)} – ${mLabel(x)}` : mLabel(x))))];
    const body = rows.map((r) => [pathLabel(rowBys, r), ...columns.flatMap((c) => measures.map((_, k) => cell(r.path, c.path)?.[k] ?? ''))]);
    const url = URL.createObjectURL(new Blob([toCsv([head, ...body])], { type: 'text/csv;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${plan.title}.csv`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  return (
    <div className="view view-pivot">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="pivot" canCreate={false} />
      <div className="analysis-toolbar">
        <fieldset className="pivot-measures" data-testid="pivot-measures">
          <legend>{ta('analysis.measures')}</legend>
          {plan.available_measures.map((x) => (
            <label key={x}>
              <input type="checkbox" checked={measures.includes(x)} disabled={measures.length === 1 && measures.includes(x)}
                onChange={(e) => setMeasures(e.target.checked ? plan.available_measures.filter((y) => y === x || measures.includes(y)) : measures.filter((y) => y !== x))} />
              {' '}{mLabel(x)}
            </label>
          ))}
        </fieldset>
        <button type="button" className="btn" onClick={download} disabled={!data.length} data-testid="pivot-download">{tp('pivot.download')}</button>
      </div>
      {groups.error ? <ErrorPanel error={groups.error} retry={() => void groups.refetch()} />
        : groups.isPending ? <PageLoading />
          : !data.length ? <p className="notice" data-testid="pivot-empty">{ta('analysis.empty')}</p>
            : (
              <div className="table-scroll">
                <table className="records pivot" data-testid="pivot">
                  <caption className="sr-only">{tp('pivot.caption', { measures: measures.map(mLabel).join(', '), rows: byNames(rowBys), cols: byNames(colBys) })}</caption>
                  <thead>
                    {colHeader.map((level, d) => (
                      <tr key={d}>
                        {d === 0 && <td rowSpan={depth + 1} className="pivot-corner" />}
                        {level.map(({ node, leaves: n, open }) => (
                          <th key={pathId(node.path)} scope="colgroup" colSpan={n * measures.length} rowSpan={open ? 1 : depth - d}
                            className="pivot-col-header">
                            {header(colBys, colOpen, setColOpen, node, 'pivot-col-header')}
                          </th>
                        ))}
                        {d === 0 && totalColumn && <th scope="colgroup" colSpan={measures.length} rowSpan={depth} className="pivot-col-header">{total}</th>}
                      </tr>
                    ))}
                    <tr>
                      {columns.flatMap((c, i) => measures.map((x) => (
                        <th key={`${i}-${x}`} scope="col" className="num pivot-measure">{mLabel(x)}</th>
                      )))}
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={pathId(r.path)} className={r.path.length === 0 ? 'pivot-total' : undefined} data-testid="pivot-row">
                        <th scope="row" className="pivot-row-header" style={{ paddingInlineStart: `${0.6 + r.path.length * 1.1}rem` }}>
                          {header(rowBys, rowOpen, setRowOpen, r, 'pivot-row-header')}
                        </th>
                        {columns.flatMap((c, i) => measures.map((x, k) => (
                          <td key={`${i}-${x}`} className="num" data-testid="pivot-cell">{fmt(cell(r.path, c.path)?.[k])}</td>
                        )))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
    </div>
  );
}
