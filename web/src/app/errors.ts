import { ApiError, NETWORK_ERROR, sentence } from '../api/errors.ts';
import type { useT } from '../i18n/index.tsx';
import { knownMessage } from './result-message.ts';

/**
 * The catalogue's sentence for a server error code (`error.code.<CODE>`), when the language has
 * one: the server writes its messages in English, a translation names the code instead
 * (web/src/i18n/fr.ts). Without one, the server's message.
 */
export function byCode(t: ReturnType<typeof useT>, err: ApiError): string {
  return knownMessage(t.intl, `error.code.${err.code}`) ?? sentence(err.message);
}

/**
 * Field errors (ApiError.fieldErrors) in the reader's language: a field problem's reason from
 * `error.field.<CODE>` (REQUIRED, TOO_LONG, …) when the catalogue has one, else the server's
 * English reason; a hook's single one (`details.field`) from its error code.
 */
export function fieldErrorsOf(t: ReturnType<typeof useT>, err: ApiError): Record<string, string> {
  const out = err.fieldErrors();
  for (const p of err.fieldProblems()) {
    const text = p.field && p.code ? knownMessage(t.intl, `error.field.${p.code}`) : null;
    if (p.field && text) out[p.field] = text;
  }
  if (typeof err.details?.field === 'string') out[err.details.field] = byCode(t, err);
  return out;
}

/** What rowErrorText reads of an import report's row error (web/src/api/transfer.ts RowError). */
export interface CodedError { code: string; message: string; values?: Record<string, string | number> }

/**
 * An import's row error in the reader's language: the import's own codes from
 * `import.error.<CODE>` with the values the server sends (`defaults`: that chunk's English,
 * web/src/views/list/transfer-messages.ts, not in this module's initial bundle); a field problem
 * from `error.field.<CODE>`; another error code from `error.code.<CODE>`; else the server's
 * English message. A row error without `values` (a server before them) keeps its message.
 */
export function rowErrorText(t: ReturnType<typeof useT>, e: CodedError, defaults: Readonly<Record<string, string>> = {}): string {
  const own = `import.error.${e.code}`;
  if (e.values && (own in defaults || own in t.intl.messages)) return t.intl.formatMessage({ id: own, defaultMessage: defaults[own] }, e.values);
  return knownMessage(t.intl, `error.field.${e.code}`) ?? knownMessage(t.intl, `error.code.${e.code}`) ?? sentence(e.message);
}

/** An error as a sentence a person understands; never raw JSON. */
export function errorMessage(t: ReturnType<typeof useT>, err: unknown): string {
  if (!(err instanceof ApiError)) return t('error.internal');
  if (err.code === NETWORK_ERROR) return t('error.network');
  // no session any more (signed out in another tab, the login revoked): not the server's technical words
  if (err.status === 401 && err.code !== 'AUTHENTICATION_FAILED') return t('error.session_ended');
  if (err.code === 'INTERNAL_ERROR' || err.status >= 500) return t('error.internal');
  if (err.code === 'ACCESS_DENIED' || err.status === 403) return err.message ? byCode(t, err) : t('error.forbidden');
  if (err.status === 404) return t('error.not_found');
  if (err.code === 'VALIDATION_FAILED') {
    const problems = err.problemSentences();
    return problems.length ? `${t('error.validation')} ${problems.join(' ')}` : sentence(err.message);
  }
  return t('error.generic', { message: byCode(t, err) });
}
