import { useParams, useSearch } from '@tanstack/react-router';
import { Suspense, useEffect, useMemo } from 'react';
import { useT } from '../i18n/index.tsx';
import { andWhere, domainToWhere } from '../model/domain.ts';
import { searchWhere } from '../views/search/facets.ts';
import { preloadView, viewComponent } from '../views/registry.ts';
import { ErrorPanel, NotFoundPanel } from './ErrorBoundary.tsx';
import { useBootstrap, useModels, usePlan, type SearchPlan } from './meta.ts';
import { viewIdsOf, viewTypeOf } from './nav.ts';
import { actionKeyOf, type ViewSearch } from './search-params.ts';

/** `/:org/action-:key[/:record]`: the action's view for the URL's state. */
export default function ActionPage() {
  const t = useT();
  const boot = useBootstrap();
  const models = useModels();
  const params = useParams({ strict: false }) as { org: string; action: string; record?: string };
  const search = useSearch({ strict: false }) as ViewSearch;
  const key = actionKeyOf(params.action);
  const action = boot.actions.find((a) => a.key === key);
  const views = viewIdsOf(action);
  const type = viewTypeOf(action, search.view, params.record);
  useEffect(() => { if (action) preloadView(type, action.model_key); }, [type, action]);
  const plan = usePlan(views[type]);
  const searchPlan = usePlan(views.search);
  const sp = (searchPlan.data?.__typename === 'SearchPlan' ? searchPlan.data : null) as SearchPlan | null;
  const where = useMemo(() => {
    try {
      return andWhere([domainToWhere(action?.domain as never), sp ? searchWhere(sp, search, models) : null]);
    } catch {
      return {};
    }
  }, [action?.domain, sp, search, models]);

  if (!action || !models.has(action.model_key)) return <NotFoundPanel message={t('action.unknown')} />;
  if (!views[type]) return <p className="notice">{t('view.none', { type })}</p>;
  if (plan.error) return <ErrorPanel error={plan.error} retry={() => void plan.refetch()} />;
  if (!plan.data || (views.search && searchPlan.isPending)) return <div className="page-loading" aria-busy="true">{t('common.loading')}</div>;
  const View = viewComponent(type, action.model_key);
  if (!View) return <p className="notice">{t('view.none', { type })}</p>;
  return (
    <Suspense fallback={<div className="page-loading" aria-busy="true">{t('common.loading')}</div>}>
      <View key={`${params.org}:${action.key}:${type}:${params.record ?? ''}`} plan={plan.data} action={action} search={search}
        searchPlan={sp} where={where} org={params.org} recordId={params.record} />
    </Suspense>
  );
}
