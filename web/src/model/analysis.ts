import { useQueries, useQuery } from '@tanstack/react-query';
import type { IntlShape } from 'react-intl';
import { request } from '../api/client.ts';
import type { Where } from './domain.ts';
import { displayName, nameSelection, rowsDocument, type FieldInfo, type ModelInfo, type Models, type Row } from './records.ts';
import { recordsKey, type Group } from './useRecords.ts';
import { enumLabel } from '../widgets/display.tsx';
import { analysisMessages } from './analysis-messages.ts';

/**
 * What the graph and pivot views share: a read_group over one or more group-bys (a datetime by
 * its interval: `created_at_utc` by month) with the sums of the chosen measures, and the text of
 * a group's key as people read it ("November 2026", a stage's label, a record's name).
 */

/** A group-by of a graph or pivot: a field, and for a datetime the granularity of its buckets. */
export interface GroupBy { field: string; interval?: string | null }
/** The measure counting records (Odoo's `__count`). */
export const COUNT = '__count';

export const analysisDocument = (m: ModelInfo) =>
  `query Analysis($by: [${m.names.groupByField}!]!, $where: ${m.names.whereInput}, $aggregates: JSON, $granularity: JSON) { groups: ${m.names.groupBy}(by: $by, where: $where, aggregates: $aggregates, granularity: $granularity) { key count aggregates } }`;

/** The groups of `groupbys` (outermost first) with each measure summed; `enabled` false while a choice is pending. */
export function useAnalysis(m: ModelInfo, groupbys: readonly GroupBy[], measures: readonly string[], where: Where) {
  const by = groupbys.map((g) => g.field);
  const granularity = Object.fromEntries(groupbys.filter((g) => g.interval).map((g) => [g.field, g.interval]));
  const aggregates = Object.fromEntries(measures.filter((x) => x !== COUNT).map((x) => [x, 'sum']));
  return useQuery({
    queryKey: recordsKey(m.key, 'analysis', by, granularity, aggregates, where),
    queryFn: async () => (await request<{ groups: Group[] }, Record<string, unknown>>(analysisDocument(m), {
      by, where, aggregates: Object.keys(aggregates).length ? aggregates : undefined, granularity: Object.keys(granularity).length ? granularity : undefined,
    })).groups,
    // grouping by nothing is the total: read_group needs a key, the views ask for none then
    enabled: by.length > 0,
  });
}

/** A group's value of a measure: its count, or the sum of the field (0 when every value is empty). */
export const measureOf = (g: Group, measure: string): number =>
  measure === COUNT ? g.count : Number(g.aggregates?.[`${measure}_sum`] ?? 0);

/** The ISO 8601 week number of a UTC date (weeks start on Monday; week 1 holds the year's first Thursday). */
function isoWeek(d: Date): { week: number; year: number } {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  t.setUTCDate(t.getUTCDate() + 3 - ((t.getUTCDay() + 6) % 7));
  const jan4 = new Date(Date.UTC(t.getUTCFullYear(), 0, 4));
  return { week: 1 + Math.round(((t.getTime() - jan4.getTime()) / 86_400_000 - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7), year: t.getUTCFullYear() };
}

/** A bucket's start as people name the bucket: "November 2026", "W47 2026", "Q4 2026", "2026", a date. */
export function bucketLabel(intl: IntlShape, iso: string, interval: string): string {
  const d = new Date(iso);
  switch (interval) {
    case 'year': return String(d.getUTCFullYear());
    case 'quarter': return intl.formatMessage({ id: 'analysis.quarter', defaultMessage: analysisMessages['analysis.quarter'] }, { quarter: Math.floor(d.getUTCMonth() / 3) + 1, year: d.getUTCFullYear() });
    case 'month': return intl.formatDate(d, { month: 'long', year: 'numeric', timeZone: 'UTC' });
    case 'week': { const w = isoWeek(d); return intl.formatMessage({ id: 'analysis.week', defaultMessage: analysisMessages['analysis.week'] }, { week: w.week, year: w.year }); }
    default: return intl.formatDate(d, { dateStyle: 'medium', timeZone: 'UTC' });
  }
}

/**
 * The label of a group key of each group-by: a Reference's record name (one query per target for
 * the ids shown), an Enum's label, a bucket's name, "None" for an empty value.
 */
export function useKeyLabels(groupbys: readonly GroupBy[], fields: readonly FieldInfo[], models: Models, groups: readonly Group[] | undefined, intl: IntlShape, none: string) {
  const refs = groupbys.map((g) => {
    const f = fields.find((x) => x.name === g.field);
    const target = f?.type === 'reference' && f.relation ? models.get(f.relation) : undefined;
    const ids = target ? [...new Set((groups ?? []).map((x) => x.key[g.field]).filter((v): v is string => typeof v === 'string'))] : [];
    return { field: g.field, target, ids };
  }).filter((r) => r.target && r.ids.length);
  const names = useQueries({
    queries: refs.map((r) => ({
      queryKey: recordsKey(r.target!.key, 'names', r.ids),
      queryFn: async () => (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(r.target!, nameSelection(r.target!)), { where: { id: { in: r.ids } }, limit: r.ids.length })).rows,
    })),
  });
  return (g: GroupBy, value: unknown): string => {
    if (value === null || value === undefined || value === '') return none;
    const f = fields.find((x) => x.name === g.field);
    const i = refs.findIndex((r) => r.field === g.field);
    if (i >= 0) return displayName(refs[i].target, names[i]?.data?.find((r) => r.id === value) ?? { id: String(value) });
    if (f?.type === 'datetime') return bucketLabel(intl, String(value), g.interval ?? 'day');
    if (f?.type === 'enum') return enumLabel(String(value), f);
    if (f?.type === 'boolean') return value ? '✓' : '✗';
    return typeof value === 'number' ? intl.formatNumber(value) : String(value);
  };
}

/** The group-bys a view shows: the search panel's group-by when one is chosen, else the view's own. */
export function groupBysOf(declared: readonly GroupBy[], searchGroupBy: string | undefined, fields: readonly FieldInfo[]): GroupBy[] {
  if (!searchGroupBy) return [...declared];
  const f = fields.find((x) => x.name === searchGroupBy);
  return [{ field: searchGroupBy, interval: f?.type === 'datetime' ? 'month' : null }];
}

/** A measure's label: "Count", or its field's label. */
export const measureLabel = (measure: string, fields: readonly FieldInfo[], count: string): string =>
  measure === COUNT ? count : fields.find((f) => f.name === measure)?.label ?? measure;
