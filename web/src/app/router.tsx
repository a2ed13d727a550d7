import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, Outlet, redirect } from '@tanstack/react-router';
import { lazy } from 'react';
import { readTokens } from '../auth/session.ts';
import { LoginPage } from '../auth/LoginPage.tsx';
import { validateViewSearch } from './search-params.ts';
import { Shell, GoHome, Home } from './Shell.tsx';

const ActionPage = lazy(() => import('./ActionPage.tsx'));

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({ component: Outlet });

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: (s: Record<string, unknown>) => ({
    redirect: typeof s.redirect === 'string' ? s.redirect : undefined,
    expired: s.expired === true || s.expired === 'true' ? true : undefined,
  }),
  beforeLoad: () => {
    if (readTokens()) throw redirect({ to: '/' });
  },
  component: LoginPage,
});

/** Everything but /login needs a session; without one the URL is kept for after the login. */
const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: ({ location }) => {
    if (!readTokens()) throw redirect({ to: '/login', search: { redirect: location.href, expired: undefined } });
  },
  component: Shell,
});

const indexRoute = createRoute({ getParentRoute: () => appRoute, path: '/', component: GoHome });
const orgRoute = createRoute({ getParentRoute: () => appRoute, path: '$org', component: Home });
export const actionRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '$org/$action',
  validateSearch: validateViewSearch,
  component: ActionPage,
});
export const recordRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '$org/$action/$record',
  validateSearch: validateViewSearch,
  component: ActionPage,
});

const routeTree = rootRoute.addChildren([loginRoute, appRoute.addChildren([indexRoute, orgRoute, actionRoute, recordRoute])]);

export function makeRouter(queryClient: QueryClient) {
  return createRouter({ routeTree, context: { queryClient }, defaultPreload: 'intent', scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface Register { router: ReturnType<typeof makeRouter> }
}
