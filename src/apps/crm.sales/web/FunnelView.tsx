import { FormattedNumber } from 'react-intl';
import { ControlPanel, enumLabel, errorMessage, modelOf, useAppT, useGroups, useModels, useT, type AppViewPlan, type ViewProps } from '@fw/web';
import type { messages } from './messages.ts';

interface FunnelOptions { stage_field?: string; measure_field?: string }

/**
 * `<crm.funnel model="crm.lead" stage_field="stage" measure_field="expected_revenue"/>`: how many
 * records sit at each value of the stage field, in the field's order, each bar as wide as its
 * share of the largest stage, with the sum of the measure field. One read_group query
 * (`<model>GroupBy`) through the same typed client and filter (action domain AND search) as fw's
 * own views.
 */
export default function FunnelView({ plan, action, search, searchPlan, where, org }: ViewProps<AppViewPlan>) {
  const t = useT();
  const at = useAppT<typeof messages>();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const options = (plan.options ?? {}) as FunnelOptions;
  const stage = plan.fields.find((f) => f.name === options.stage_field);
  const measure = options.measure_field;
  const groups = useGroups(m, stage?.name, where, measure ? { [measure]: 'sum' } : undefined);
  const byValue = new Map((groups.data ?? []).map((g) => [String(g.key[stage?.name ?? ''] ?? ''), g]));
  const rows = (stage?.values ?? [...byValue.keys()]).map((value) => ({ value, group: byValue.get(value) }));
  const widest = Math.max(1, ...rows.map((r) => r.group?.count ?? 0));

  return (
    <div className="view">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current={plan.type} canCreate={false} />
      {groups.error && <p className="notice error" role="alert">{errorMessage(t, groups.error)}</p>}
      {groups.isPending ? <div className="page-loading" aria-busy="true">{t('common.loading')}</div> : (
        <ol className="crm-funnel" aria-label={at('crm.funnel.label', { title: plan.title })} data-testid="crm-funnel">
          {rows.map(({ value, group }) => {
            const count = group?.count ?? 0;
            const total = measure ? Number(group?.aggregates?.[`${measure}_sum`] ?? 0) : null;
            return (
              <li key={value} className="crm-funnel-stage" data-testid={`crm-funnel-${value}`}>
                <span className="crm-funnel-name">{enumLabel(value, stage)}</span>
                <span className="crm-funnel-track"><span className="crm-funnel-bar" style={{ width: `${(count / widest) * 100}%` }} /></span>
                <span className="crm-funnel-count num">{at('crm.funnel.count', { count })}</span>
                {total !== null && <span className="crm-funnel-total num"><FormattedNumber value={total} /></span>}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
