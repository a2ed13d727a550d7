import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/errors.ts';
import { makeRouter } from './app/router.tsx';
import { Toaster } from './app/toast.tsx';
import { onTokens } from './auth/session.ts';
import { I18nProvider } from './i18n/index.tsx';
import './theme.css';
import './views/builtin.ts';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // an error the server answered on purpose will answer the same again
      retry: (n, err) => !(err instanceof ApiError && err.status > 0 && err.status < 500) && n < 2,
    },
  },
});
const router = makeRouter(queryClient);

// a logout or a refused refresh in any tab signs this tab out too. A full page load, not a
// route change: it also ends the live connection (authenticated once, at connect) and drops
// every cached record of the old session
onTokens((t, reason) => {
  if (!t && router.state.location.pathname !== '/login') {
    // a deliberate sign-out is said neutrally, a refused session as a warning
    const search = reason === 'signed_out'
      ? { redirect: undefined, expired: undefined, signed_out: true }
      : { redirect: router.state.location.href, expired: true, signed_out: undefined };
    window.location.assign(router.buildLocation({ to: '/login', search }).href);
  }
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
        <Toaster />
      </QueryClientProvider>
    </I18nProvider>
  </StrictMode>,
);
