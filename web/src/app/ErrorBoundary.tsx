import { QueryErrorResetBoundary } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Component, type ReactNode } from 'react';
import { useT } from '../i18n/index.tsx';
import { errorMessage } from './errors.ts';

/** A failed render or query shows a sentence and a retry button, never a blank page. */
export function ErrorBoundary({ children }: { children: ReactNode }) {
  return (
    <QueryErrorResetBoundary>
      {({ reset }) => <Boundary onReset={reset}>{children}</Boundary>}
    </QueryErrorResetBoundary>
  );
}

class Boundary extends Component<{ children: ReactNode; onReset: () => void }, { error: unknown }> {
  state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) { return { error }; }
  render() {
    if (this.state.error) return <ErrorPanel error={this.state.error} retry={() => { this.props.onReset(); this.setState({ error: null }); }} />;
    return this.props.children;
  }
}

export function ErrorPanel({ error, retry }: { error: unknown; retry?: () => void }) {
  const t = useT();
  return (
    <div className="error-panel" role="alert" data-testid="error-panel">
      <h2>{t('error.title')}</h2>
      <p>{errorMessage(t, error)}</p>
      {retry && <button type="button" className="btn" onClick={retry}>{t('common.retry')}</button>}
    </div>
  );
}

/**
 * A record or action that is not there (deleted, mistyped, or not visible to the reader): said as
 * such, with a way home, never as a server error.
 */
export function NotFoundPanel({ message }: { message: string }) {
  const t = useT();
  return (
    <div className="error-panel not-found" role="alert" data-testid="not-found">
      <h2>{t('notfound.title')}</h2>
      <p>{message}</p>
      <Link to="/" className="btn" data-testid="not-found-home">{t('notfound.home')}</Link>
    </div>
  );
}
