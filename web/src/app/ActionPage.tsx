import { useParams, useSearch } from '@tanstack/react-router';
import { PageLoading } from './PageLoading.tsx';
import { Suspense, use, useEffect, useMemo, type ReactNode } from 'react';
import { namesOfPlan, type WebNames } from '../extensions/install.ts';
import { extensionsFor } from '../extensions/load.ts';
import { useT } from '../i18n/index.tsx';
import { andWhere, domainToWhere } from '../model/domain.ts';
import { archivedWhere, searchWhere } from '../views/search/facets.ts';
import { preloadView, viewComponent } from '../views/registry.ts';
import { ErrorPanel, NotFoundPanel } from './ErrorBoundary.tsx';
import { useBootstrap, useModels, usePlan, type SearchPlan } from './meta.ts';
import { viewIdsOf, viewTypeOf } from './nav.ts';
import { pageComponent } from './pages.ts';
import { actionKeyOf, type ViewSearch } from './search-params.ts';

/**
 * Renders its children once the web code of every app owning one of `names` is installed (the
 * route loader usually did that already; a plan fetched later may name more).
 */
function WithExtensions({ names, children }: { names: WebNames; children: () => ReactNode }) {
  const boot = useBootstrap();
  const pending = extensionsFor(boot, names);
  if (pending) use(pending);
  return <>{children()}</>;
}

/** `/:org/action-:key[/:record]`: the action's view (or its app page) for the URL's state. */
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
  useEffect(() => { if (action) preloadView(type); }, [type, action]);
  const plan = usePlan(action?.page ? null : views[type]);
  const searchPlan = usePlan(action?.page ? null : views.search);
  const sp = (searchPlan.data?.__typename === 'SearchPlan' ? searchPlan.data : null) as SearchPlan | null;
  // fw's views leave archived records out unless asked; an app's own view component (js_class)
  // gets the search without that rule, as it shows archived records its own way (Documents)
  const [where, withArchived] = useMemo(() => {
    try {
      const base = andWhere([domainToWhere(action?.domain as never), sp ? searchWhere(sp, search, models) : null]);
      return [andWhere([base, archivedWhere(action ? models.get(action.model_key) : undefined, search, action?.domain)]), base];
    } catch {
      return [{}, {}];
    }
  }, [action, sp, search, models]);

  const loading = <PageLoading />;
  if (!action || !models.has(action.model_key)) return <NotFoundPanel message={t('action.unknown')} />;
  if (action.page) {
    const page = action.page;
    return (
      <Suspense fallback={loading}>
        <WithExtensions names={{ widgets: [], views: [], pages: [page] }}>
          {() => {
            const Page = pageComponent(page);
            return Page ? <Page key={`${params.org}:${action.key}`} action={action} org={params.org} /> : <p className="notice">{t('view.none', { type: page })}</p>;
          }}
        </WithExtensions>
      </Suspense>
    );
  }
  if (!views[type]) return <p className="notice">{t('view.none', { type })}</p>;
  if (plan.error) return <ErrorPanel error={plan.error} retry={() => void plan.refetch()} />;
  if (!plan.data || (views.search && searchPlan.isPending)) return loading;
  const data = plan.data;
  return (
    <Suspense fallback={loading}>
      <WithExtensions names={namesOfPlan(data)}>
        {() => {
          // a plan's js_class (an app's component for a built-in type) wins over the type's
          const View = viewComponent(data.js_class ?? type);
          if (!View) return <p className="notice">{t('view.none', { type })}</p>;
          return (
            <View key={`${params.org}:${action.key}:${type}:${params.record ?? ''}`} plan={data} action={action} search={search}
              searchPlan={sp} where={data.js_class ? withArchived : where} org={params.org} recordId={params.record} />
          );
        }}
      </WithExtensions>
    </Suspense>
  );
}
