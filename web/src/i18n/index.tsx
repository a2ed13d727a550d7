import { useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { IntlProvider, useIntl } from 'react-intl';
import { DuplicateNameError } from '../widgets/registry.ts';
import { en, type MessageId } from './en.ts';

export type { MessageId };

/**
 * Messages the apps' web code brings (`defineWebExtension({ messages })`), added when an app's
 * chunk loads: the provider re-renders with them. An id is fw's or one app's, never both.
 */
let appMessages: Readonly<Record<string, string>> = {};
const listeners = new Set<() => void>();
export function addMessages(messages: Record<string, string>): void {
  for (const id of Object.keys(messages)) if (id in en || id in appMessages) throw new DuplicateNameError('message', id);
  appMessages = { ...appMessages, ...messages };
  for (const l of listeners) l();
}
const subscribe = (l: () => void) => { listeners.add(l); return () => { listeners.delete(l); }; };

export function I18nProvider({ children }: { children: ReactNode }) {
  const locale = navigator.language || 'en';
  const extra = useSyncExternalStore(subscribe, () => appMessages);
  const messages = useMemo(() => ({ ...en, ...extra }), [extra]);
  return <IntlProvider locale={locale} defaultLocale="en" messages={messages} onError={reportIntlError}>{children}</IntlProvider>;
}

/**
 * react-intl's errors are printed (a broken message is a bug), except a message missing from the
 * catalogue that carries its own English default: the dialogs loaded on demand keep their texts
 * beside them (web/src/views/list/transfer-messages.ts), not in the initial bundle.
 */
function reportIntlError(err: { code: string; descriptor?: { defaultMessage?: unknown } }): void {
  if (err.code === 'MISSING_TRANSLATION' && err.descriptor?.defaultMessage) return;
  console.error(err);
}

/** `t('list.pager', { from, to, total })`: the only way components produce text. */
export function useT() {
  const intl = useIntl();
  return Object.assign(
    (id: MessageId, values?: Record<string, string | number | Date | null | undefined>) => intl.formatMessage({ id }, values as Record<string, string>),
    { intl },
  );
}

/** `useT` for an app's own messages (the ids its extension brings), which fw's catalogue type does not know. */
export function useAppT() {
  const intl = useIntl();
  return (id: string, values?: Record<string, string | number | Date | null | undefined>) => intl.formatMessage({ id }, values as Record<string, string>);
}
