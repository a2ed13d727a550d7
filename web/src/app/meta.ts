import { useQuery, useSuspenseQuery, type QueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { graphql } from '../gql/index.ts';
import type { ViewPlanQuery } from '../gql/graphql.ts';
import type { FieldInfo, ModelInfo, Models } from '../model/records.ts';
import { setDefaultCurrency } from '../widgets/currency.ts';

/**
 * What the client knows of the server comes from three typed queries: the bootstrap payload
 * (menus, actions, views, models with their GraphQL names), the current user, and render plans.
 */
export const BootstrapDocument = graphql(`
  query Bootstrap {
    presentationBootstrap {
      tenant_id
      currency
      user { id name email role holds }
      apps { key name icon category sequence action menus { id key name icon category sequence action parent_key } }
      actions { key id name model_key view_type domain page views { type view_id } }
      active_apps { name web { widgets views pages } }
      views { view_id version title type model app }
      groups { name label description implies }
      models {
        key description record_name name_search_fields archivable access { create update delete }
        names { typeName one many count groupBy create update updateMany delete deleteMany changed whereInput orderByInput createInput updateInput groupByField }
      }
    }
  }
`);

export const MeDocument = graphql(`
  query Me { me { id name email role tenant_id lang tz theme default_organization organization { id name code } organizations { id name code } } }
`);

graphql(`fragment PlanFieldParts on PlanField { name label type widget optional required readonly relation values value_labels default help }`);
graphql(`fragment PlanButtonParts on PlanButton { string name type special special_accept modifiers }`);

export const ViewPlanDocument = graphql(`
  query ViewPlan($view_id: String!) {
    presentationGetViewPlan(view_id: $view_id) {
      __typename view_id version title type model js_class fields { ...PlanFieldParts }
      ... on ListPlan { default_order limit columns aggregates editable }
      ... on KanbanPlan { groupby_field kanban_columns: columns { value label } card_fields }
      ... on GraphPlan { chart_type groupby { field interval } measure available_measures }
      ... on PivotPlan { rows { field interval } cols { field interval } measures available_measures }
      ... on CalendarPlan { date_start date_stop color mode card_fields }
      ... on SearchPlan { search_fields { name string } filters { string domain } group_by { string field } }
      ... on AppViewPlan { options app_columns: columns }
      ... on FormPlan {
        chatter
        header { statusbar { field values clickable } buttons { ...PlanButtonParts } }
        nodes {
          index parent kind string modifiers
          field { ...PlanFieldParts }
          button { ...PlanButtonParts }
          list { model inverse default_order limit columns { name label type widget optional required readonly relation values value_labels default } }
        }
      }
    }
  }
`);

export type Plan = NonNullable<ViewPlanQuery['presentationGetViewPlan']>;
export type ListPlan = Extract<Plan, { __typename: 'ListPlan' }>;
export type FormPlan = Extract<Plan, { __typename: 'FormPlan' }>;
export type KanbanPlan = Extract<Plan, { __typename: 'KanbanPlan' }>;
export type SearchPlan = Extract<Plan, { __typename: 'SearchPlan' }>;
export type GraphPlan = Extract<Plan, { __typename: 'GraphPlan' }>;
export type PivotPlan = Extract<Plan, { __typename: 'PivotPlan' }>;
export type CalendarPlan = Extract<Plan, { __typename: 'CalendarPlan' }>;
/** The plan of a view type an app registers (`<acme.gantt model=…>`): its options and field columns. */
export type AppViewPlan = Extract<Plan, { __typename: 'AppViewPlan' }>;
export type FormNode = FormPlan['nodes'][number];
export type PlanButton = NonNullable<FormPlan['header']>['buttons'][number];

export const bootstrapKey = ['bootstrap'] as const;
export const meKey = ['me'] as const;

export const bootstrapQuery = { queryKey: bootstrapKey, queryFn: () => request(BootstrapDocument), staleTime: 5 * 60_000 };
export const meQuery = { queryKey: meKey, queryFn: () => request(MeDocument), staleTime: 5 * 60_000 };

/** Starts both session queries at once (the shell's suspense would otherwise fetch them in turn). */
export function prefetchSession(qc: QueryClient): void {
  void qc.prefetchQuery(bootstrapQuery);
  void qc.prefetchQuery(meQuery);
}

export function useBootstrap() {
  const b = useSuspenseQuery(bootstrapQuery).data.presentationBootstrap!;
  setDefaultCurrency(b.currency);
  return b;
}

export function useMe() {
  return useSuspenseQuery(meQuery).data.me!;
}

const modelMaps = new WeakMap<object, Models>();
export function useModels(): Models {
  const b = useBootstrap();
  let m = modelMaps.get(b);
  if (!m) {
    m = new Map(b.models.map((x) => [x.key, x as ModelInfo]));
    modelMaps.set(b, m);
  }
  return m;
}

/** Every cached plan's key starts with this (dropped when the user's language changes). */
export const planKey = ['plan'] as const;

/**
 * Plans never change while the server runs (in one language: the preferences screen drops them
 * when the language changes), so they are cached for the whole session.
 */
export const planQuery = (viewId: string) => ({
  queryKey: [...planKey, viewId],
  queryFn: async () => (await request(ViewPlanDocument, { view_id: viewId })).presentationGetViewPlan!,
  staleTime: Infinity,
});

export function usePlan(viewId: string | null | undefined) {
  return useQuery({ ...planQuery(viewId ?? ''), enabled: !!viewId });
}

export const asFields = (fields: readonly unknown[]) => fields as readonly FieldInfo[];

/** A list plan's `aggregates` (JSON: column → sum | avg | min | max), keeping only well-formed entries. */
export function planAggregates(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
