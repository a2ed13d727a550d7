import type { ReactNode } from 'react';
import { IntlProvider, useIntl } from 'react-intl';
import { en, type MessageId } from './en.ts';

export type { MessageId };

export function I18nProvider({ children }: { children: ReactNode }) {
  const locale = navigator.language || 'en';
  return <IntlProvider locale={locale} defaultLocale="en" messages={en}>{children}</IntlProvider>;
}

/** `t('list.pager', { from, to, total })`: the only way components produce text. */
export function useT() {
  const intl = useIntl();
  return Object.assign(
    (id: MessageId, values?: Record<string, string | number | Date | null | undefined>) => intl.formatMessage({ id }, values as Record<string, string>),
    { intl },
  );
}
