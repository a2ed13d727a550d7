import { ApiError, NETWORK_ERROR, sentence } from '../api/errors.ts';
import type { useT } from '../i18n/index.tsx';

/**
 * The catalogue's sentence for a server error code (`error.code.<CODE>`), when the language has
 * one: the server writes its messages in English, a translation names the code instead
 * (web/src/i18n/fr.ts). Without one, the server's message.
 */
export function byCode(t: ReturnType<typeof useT>, err: ApiError): string {
  const id = `error.code.${err.code}`;
  return id in t.intl.messages ? t.intl.formatMessage({ id }) : sentence(err.message);
}

/**
 * Field errors (ApiError.fieldErrors) in the reader's language: a field problem's reason from
 * `error.field.<CODE>` (REQUIRED, TOO_LONG, …) when the catalogue has one, else the server's
 * English reason; a hook's single one (`details.field`) from its error code.
 */
export function fieldErrorsOf(t: ReturnType<typeof useT>, err: ApiError): Record<string, string> {
  const out = err.fieldErrors();
  for (const p of err.fieldProblems()) {
    const id = `error.field.${p.code}`;
    if (p.field && p.code && id in t.intl.messages) out[p.field] = t.intl.formatMessage({ id });
  }
  if (typeof err.details?.field === 'string') out[err.details.field] = byCode(t, err);
  return out;
}

/** An error as a sentence a person understands; never raw JSON. */
export function errorMessage(t: ReturnType<typeof useT>, err: unknown): string {
  if (!(err instanceof ApiError)) return t('error.internal');
  if (err.code === NETWORK_ERROR) return t('error.network');
  if (err.code === 'INTERNAL_ERROR' || err.status >= 500) return t('error.internal');
  if (err.code === 'ACCESS_DENIED' || err.status === 403) return err.message ? byCode(t, err) : t('error.forbidden');
  if (err.status === 404) return t('error.not_found');
  if (err.code === 'VALIDATION_FAILED') {
    const problems = err.problemSentences();
    return problems.length ? `${t('error.validation')} ${problems.join(' ')}` : sentence(err.message);
  }
  return t('error.generic', { message: byCode(t, err) });
}
