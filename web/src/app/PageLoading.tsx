import { useT } from '../i18n/index.tsx';

/**
 * What shows while something the page needs is on its way: a status (`role="status"`,
 * `aria-busy`) a screen reader announces, with a spinner and "Loading…". `full` fills the window
 * (the first load, before the shell); otherwise it sits where the view will be.
 */
export function PageLoading({ full = false, label = true }: { full?: boolean; label?: boolean }) {
  const t = useT();
  return (
    <div className={full ? 'page-loading page-loading-full' : 'page-loading'} role="status" aria-busy="true" data-testid="page-loading">
      <span className="spinner" aria-hidden="true" />
      {label ? <span>{t('common.loading')}</span> : <span className="sr-only">{t('common.loading')}</span>}
    </div>
  );
}

/** The first load's pending screen (the router's, before the bootstrap is in). */
export const FullPageLoading = () => <PageLoading full />;
/** A view's pending screen inside the shell (a route whose loader takes long). */
export const ViewLoading = () => <PageLoading />;
