import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, Outlet, redirect, useRouter } from '@tanstack/react-router';
import { ensureSession } from '../api/client.ts';
import { LoginPage } from '../auth/LoginPage.tsx';
import { ErrorPanel } from './ErrorBoundary.tsx';
import { FullPageLoading, ViewLoading } from './PageLoading.tsx';
import { bootstrapQuery, meQuery, planQuery, prefetchSession } from './meta.ts';
import { applyPreferences } from './preferences.ts';
import { viewIdsOf, viewTypeOf } from './nav.ts';
import { namesOfPlan } from '../extensions/install.ts';
import { extensionsFor } from '../extensions/load.ts';
import { preloadView } from '../views/registry.ts';
import { mutationsQuery } from '../model/access.ts';
import { actionKeyOf, validateViewSearch, type ViewSearch } from './search-params.ts';
import { Shell, GoHome, Home } from './Shell.tsx';

import ActionPage from './ActionPage.tsx';
import { lazy } from 'react';

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({ component: Outlet });

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: (s: Record<string, unknown>) => ({
    redirect: typeof s.redirect === 'string' ? s.redirect : undefined,
    expired: s.expired === true || s.expired === 'true' ? true : undefined,
    signed_out: s.signed_out === true || s.signed_out === 'true' ? true : undefined,
  }),
  beforeLoad: async () => {
    if (await ensureSession()) throw redirect({ to: '/' });
  },
  component: LoginPage,
});

/** Everything but /login needs a session; without one the URL is kept for after the login. */
const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ location, context }) => {
    // a new tab or a reload has no access token in memory: the refresh cookie gets one
    if (!(await ensureSession())) throw redirect({ to: '/login', search: { redirect: location.href, expired: undefined, signed_out: undefined } });
    prefetchSession(context.queryClient);
  },
  // the shell renders with its data at hand (a suspense fallback would delay it by React's reveal throttle)
  loader: ({ context }) => Promise.all([context.queryClient.ensureQueryData(bootstrapQuery), context.queryClient.ensureQueryData(meQuery).then((r) => applyPreferences(r.me))]),
  component: Shell,
  // until the session, the bootstrap and the person's preferences are in: the whole window says so
  // (a first load on a slow line was a blank page until then)
  pendingComponent: FullPageLoading,
  pendingMs: 0,
  pendingMinMs: 0, // not kept on screen longer than the load takes (the router's default holds it 0.5 s)
});

const indexRoute = createRoute({ getParentRoute: () => appRoute, path: '/', component: GoHome });
const orgRoute = createRoute({ getParentRoute: () => appRoute, path: '$org', component: Home });
/**
 * An action URL loads what its view needs in parallel before it renders: the plans (the view's
 * and the search view's) and the view's code.
 */
async function loadView(queryClient: QueryClient, actionParam: string, view: string | undefined, record: string | undefined) {
  const boot = (await queryClient.ensureQueryData(bootstrapQuery)).presentationBootstrap;
  const action = boot?.actions.find((a) => a.key === actionKeyOf(actionParam));
  if (!boot || !action) return;
  if (action.page) {
    await extensionsFor(boot, { widgets: [], views: [], pages: [action.page] });
    return;
  }
  const ids = viewIdsOf(action);
  const type = viewTypeOf(action, view, record);
  const [, , plan] = await Promise.all([
    preloadView(type),
    // which models can be written: a read-only form renders without a Save that then goes away
    queryClient.ensureQueryData(mutationsQuery),
    ids[type] ? queryClient.ensureQueryData(planQuery(ids[type])) : null,
    ids.search ? queryClient.ensureQueryData(planQuery(ids.search)) : null,
  ]);
  // the web code of the apps the plan names (an app's view type, js_class or widget): one chunk per app
  if (plan) await extensionsFor(boot, namesOfPlan(plan));
}

// a path of its own before `$org/$action`: the router ranks a fixed segment above a parameter
const preferencesRoute = createRoute({ getParentRoute: () => appRoute, path: '$org/preferences', component: lazy(() => import('./PreferencesPage.tsx')) });
const actionRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '$org/$action',
  validateSearch: validateViewSearch,
  loaderDeps: ({ search }: { search: ViewSearch }) => ({ view: search.view }),
  loader: ({ context, params, deps }) => loadView(context.queryClient, params.action, deps.view, undefined),
  component: ActionPage,
});
const recordRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '$org/$action/$record',
  validateSearch: validateViewSearch,
  loader: ({ context, params }) => loadView(context.queryClient, params.action, undefined, params.record),
  component: ActionPage,
});

const routeTree = rootRoute.addChildren([loginRoute, appRoute.addChildren([indexRoute, orgRoute, preferencesRoute, actionRoute, recordRoute])]);

/** A failed loader: Retry runs the loaders again (reset alone would only re-render the error). */
function RouteError({ error, reset }: { error: unknown; reset: () => void }) {
  const router = useRouter();
  return <ErrorPanel error={error} retry={() => { reset(); void router.invalidate(); }} />;
}

export function makeRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree, context: { queryClient }, defaultPreload: 'intent', scrollRestoration: true,
    defaultErrorComponent: RouteError,
    // a view whose plans or code take long (the first one, or a slow navigation) shows a loading
    // state in the shell instead of nothing (after the router's pendingMs, 1 s, on a navigation)
    defaultPendingComponent: ViewLoading,
  });
}

declare module '@tanstack/react-router' {
  interface Register { router: ReturnType<typeof makeRouter> }
}
