import { GRANULARITIES, isGranularity, type Granularity } from '../../../kernel/commands/date-buckets.js';
import type { ResolvedField } from '../../../kernel/registry/model.js';
import type { Ctx } from './plan.js';
import type { XmlNode } from './xml.js';

/** The measure that counts records (Odoo's `__count`): no field can be named so. */
export const COUNT_MEASURE = '__count';
export const CHART_TYPES = ['bar', 'line', 'pie'] as const;

/** A group-by of a graph or pivot: a field, and for a datetime the granularity of its buckets. */
export interface AnalysisGroupBy { field: string; interval: Granularity | null }

const GROUPABLE = new Set(['char', 'text', 'enum', 'integer', 'float', 'boolean', 'datetime', 'reference', 'uuid']);
const isMeasure = (f: ResolvedField) => (f.type === 'integer' || f.type === 'float') && !f.auto && !f.private && f.stored;

/**
 * The bodies of the two views over read_group (Odoo's graph and pivot):
 *
 *     <graph model="crm.lead" type="bar">              <pivot model="crm.lead">
 *       <field name="stage"/>                             <field name="stage" type="row"/>
 *       <field name="created_at_utc" interval="month"/>   <field name="created_at_utc" type="col" interval="month"/>
 *       <field name="expected_revenue" type="measure"/>   <field name="expected_revenue" type="measure"/>
 *     </graph>                                          </pivot>
 *
 * A graph has one or two group-bys (bars, then the series) and at most one measure; a pivot
 * row and column group-bys (each expandable in the client) and any number of measures. No
 * measure means the record count. A datetime groups by `interval` (month unless said). The plan
 * also lists every number field a person may pick as measure instead (`measures`).
 */
export function analysis(ctx: Ctx, node: XmlNode) {
  const pivot = node.tag === 'pivot';
  for (const key of Object.keys(node.attrs)) {
    if (key !== 'model' && !(key === 'type' && !pivot)) ctx.fail(node, `<${node.tag}> takes no attribute "${key}"`);
  }
  const chart = node.attrs.type ?? 'bar';
  if (!pivot && !(CHART_TYPES as readonly string[]).includes(chart)) ctx.fail(node, `type must be one of ${CHART_TYPES.join(', ')}, not "${chart}"`);
  const rows: AnalysisGroupBy[] = [];
  const cols: AnalysisGroupBy[] = [];
  const measures: string[] = [];
  for (const c of node.children) {
    if (c.tag !== 'field') ctx.fail(c, `a <${node.tag}> holds <field> elements, not <${c.tag}>`);
    const f = ctx.field(c);
    const role = c.attrs.type ?? (pivot ? undefined : 'row');
    if (role === 'measure') {
      if (!isMeasure(f)) ctx.fail(c, `measure ${f.name} must be a stored Integer or Float field that is not automatic (it is ${f.type})`);
      if (c.attrs.interval !== undefined) ctx.fail(c, `a measure takes no interval`);
      if (measures.includes(f.name)) ctx.fail(c, `measure ${f.name} is declared twice`);
      measures.push(f.name);
    } else if (role === 'row' || role === 'col') {
      if (!pivot && role === 'col') ctx.fail(c, `a graph's group-bys take no type="col": the first is the axis, the second the series`);
      (role === 'row' ? rows : cols).push(groupBy(ctx, c, f));
    } else {
      ctx.fail(c, pivot ? `a pivot's <field> needs type="row", "col" or "measure"${role ? `, not "${role}"` : ''}` : `type must be row or measure, not "${role}"`);
    }
    ctx.planField(c, f);
  }
  // what a person may switch to: every number field of the model (labels come from the plan's fields)
  const available = [...ctx.model.fields.values()].filter(isMeasure);
  for (const f of available) ctx.planField({ ...node, attrs: { name: f.name } }, f);
  const choices = [COUNT_MEASURE, ...available.map((f) => f.name)];
  if (pivot) {
    return { rows, cols, measures: measures.length ? measures : [COUNT_MEASURE], available_measures: choices };
  }
  if (rows.length < 1 || rows.length > 2) ctx.fail(node, `a graph groups by one or two fields (the axis, then the series), not ${rows.length}`);
  if (measures.length > 1) ctx.fail(node, `a graph shows one measure; ${measures.join(', ')} are declared`);
  return { chart_type: chart, groupby: rows, measure: measures[0] ?? COUNT_MEASURE, available_measures: choices };
}

function groupBy(ctx: Ctx, node: XmlNode, f: ResolvedField): AnalysisGroupBy {
  if (!f.stored || !GROUPABLE.has(f.type)) ctx.fail(node, `cannot group by ${f.name} (a ${f.type} field)`);
  const interval = node.attrs.interval;
  if (interval === undefined) return { field: f.name, interval: f.type === 'datetime' ? 'month' : null };
  if (f.type !== 'datetime') ctx.fail(node, `interval is for a datetime field; ${f.name} is ${f.type}`);
  if (!isGranularity(interval)) ctx.fail(node, `interval must be one of ${GRANULARITIES.join(', ')}, not "${interval}"`);
  return { field: f.name, interval };
}
