import { useCallback, useMemo, useState } from 'react';
import { PageLoading } from '../../app/PageLoading.tsx';
import { useIntl } from 'react-intl';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { asFields, useModels, type GraphPlan } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import { useAnalysisT } from '../../model/analysis-messages.ts';
import { useGraphT } from './messages.ts';
import { groupBysOf, measureLabel, measureOf, useAnalysis, useKeyLabels, type GroupBy } from '../../model/analysis.ts';
import { modelOf } from '../../model/records.ts';
import { ControlPanel } from '../ControlPanel.tsx';
import type { ViewProps } from '../registry.ts';
import { ChartCanvas, type Series } from './Chart.tsx';

type ChartType = 'bar' | 'line' | 'pie';
const TYPES: ChartType[] = ['bar', 'line', 'pie'];
const isChartType = (x: string): x is ChartType => TYPES.some((t) => t === x);
/** One series when the graph has no second group-by. */
const ONE_SERIES: Array<[string, unknown]> = [['', null]];

/**
 * The graph view: the measure (a count or a field's sum) per value of the first group-by, one
 * series per value of the second; as bars, a line or a pie, switched in place. The group-by is the
 * search panel's when one is chosen, else the view's; the search filters what is counted. The
 * numbers are also in a table for screen readers (the canvas is one image to them).
 */
export default function GraphView({ plan, action, search, searchPlan, where, org }: ViewProps<GraphPlan>) {
  const t = useT();
  const ta = useAnalysisT();
  const tg = useGraphT();
  const intl = useIntl();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const fields = useMemo(() => [...asFields(plan.fields), ...asFields(searchPlan?.fields ?? [])], [plan.fields, searchPlan]);
  const [type, setType] = useState<ChartType>(isChartType(plan.chart_type) ? plan.chart_type : 'bar');
  const [measure, setMeasure] = useState(plan.measure);
  const groupbys: GroupBy[] = groupBysOf(plan.groupby, search.group_by, fields);
  const groups = useAnalysis(m, groupbys, [measure], where);
  const label = useKeyLabels(groupbys, fields, models, groups.data, intl, t('list.group_none'));
  const format = useCallback((n: number) => intl.formatNumber(n), [intl]);
  const mLabel = measureLabel(measure, fields, ta('analysis.count'));

  // the axis: values of the first group-by in the server's order; a series per value of the second
  const { labels, series } = (() => {
    const data = groups.data ?? [];
    const [axis, by] = groupbys;
    const keyOf = (v: unknown) => JSON.stringify(v ?? null);
    const axisKeys = [...new Map(data.map((g) => [keyOf(g.key[axis.field]), g.key[axis.field]])).entries()];
    const seriesKeys = by ? [...new Map(data.map((g) => [keyOf(g.key[by.field]), g.key[by.field]])).entries()] : ONE_SERIES;
    const out: Series[] = seriesKeys.map(([sk, sv]) => ({
      label: by ? label(by, sv) : mLabel,
      values: axisKeys.map(([ak]) => data
        .filter((g) => keyOf(g.key[axis.field]) === ak && (!by || keyOf(g.key[by.field]) === sk))
        .reduce((n, g) => n + measureOf(g, measure), 0)),
    }));
    return { labels: axisKeys.map(([, v]) => label(axis, v)), series: out };
  })();

  const fieldLabel = (g: GroupBy) => fields.find((f) => f.name === g.field)?.label ?? g.field;
  const byLabel = groupbys.map(fieldLabel).join(', ');
  const summary = tg('graph.summary', { type: tg(`graph.type.${type}`), measure: mLabel, groupby: byLabel });

  return (
    <div className="view view-graph">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="graph" canCreate={false} />
      <div className="analysis-toolbar">
        <label className="analysis-measure">
          {ta('analysis.measure')}{' '}
          <select value={measure} onChange={(e) => setMeasure(e.target.value)} data-testid="graph-measure">
            {plan.available_measures.map((x) => <option key={x} value={x}>{measureLabel(x, fields, ta('analysis.count'))}</option>)}
          </select>
        </label>
        <div className="view-switcher" role="group" aria-label={tg('graph.type')}>
          {TYPES.map((x) => (
            <button key={x} type="button" className={`btn btn-ghost${x === type ? ' active' : ''}`} aria-pressed={x === type}
              onClick={() => setType(x)} data-testid={`graph-type-${x}`}>{tg(`graph.type.${x}`)}</button>
          ))}
        </div>
      </div>
      {groups.error ? <ErrorPanel error={groups.error} retry={() => void groups.refetch()} />
        : groups.isPending ? <PageLoading />
          : !groups.data.length ? <p className="notice" data-testid="graph-empty">{ta('analysis.empty')}</p>
            : (
              <>
                <ChartCanvas type={type} {...(type === 'pie' ? pieOf(labels, series) : { labels, series })} summary={summary} format={format} />
                <table className="sr-only" data-testid="graph-data">
                  <caption>{tg('graph.data')}: {summary}</caption>
                  <thead>
                    <tr><th scope="col">{fieldLabel(groupbys[0])}</th>{series.map((s) => <th key={s.label} scope="col">{s.label}</th>)}</tr>
                  </thead>
                  <tbody>
                    {labels.map((l, i) => (
                      <tr key={l}><th scope="row">{l}</th>{series.map((s) => <td key={s.label}>{format(s.values[i])}</td>)}</tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
    </div>
  );
}

/** A pie has one ring: with a second group-by, a slice per (axis, series) pair that is not empty ("New / October 2026"). */
function pieOf(labels: string[], series: Series[]): { labels: string[]; series: Series[] } {
  if (series.length < 2) return { labels, series };
  const slices = labels.flatMap((l, i) => series.filter((s) => s.values[i]).map((s) => ({ label: `${l} / ${s.label}`, value: s.values[i] })));
  return { labels: slices.map((x) => x.label), series: [{ label: '', values: slices.map((x) => x.value) }] };
}
