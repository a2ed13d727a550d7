import { ApiError, NETWORK_ERROR, sentence } from '../api/errors.ts';
import type { useT } from '../i18n/index.tsx';

/** An error as a sentence a person understands; never raw JSON. */
export function errorMessage(t: ReturnType<typeof useT>, err: unknown): string {
  if (!(err instanceof ApiError)) return t('error.internal');
  if (err.code === NETWORK_ERROR) return t('error.network');
  if (err.code === 'INTERNAL_ERROR' || err.status >= 500) return t('error.internal');
  if (err.code === 'ACCESS_DENIED' || err.status === 403) return err.message ? sentence(err.message) : t('error.forbidden');
  if (err.status === 404) return t('error.not_found');
  if (err.code === 'VALIDATION_FAILED') {
    const problems = err.problemSentences();
    return problems.length ? `${t('error.validation')} ${problems.join(' ')}` : sentence(err.message);
  }
  return t('error.generic', { message: sentence(err.message) });
}
