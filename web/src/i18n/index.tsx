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

/**
 * The language and time zone text and dates are shown in: the user's preference (`me.lang`,
 * `me.tz`), else the browser's. A catalogue other than English is its own chunk, loaded before the
 * shell renders in it (the initial JavaScript carries English only); its ids are en.ts's and the
 * chunk messages' (tests/web/i18n-catalogues.test.ts).
 */
const catalogues: Record<string, (() => Promise<Record<string, string>>) | undefined> = { fr: () => import('./fr.ts').then((m) => m.fr) };
// (no navigator in the unit tests' Node: English)
const browserLocale = () => (typeof navigator === 'undefined' ? 'en' : navigator.language || 'en');
const NONE: Readonly<Record<string, string>> = {};
let setting: { locale: string; catalogue: Readonly<Record<string, string>>; timeZone?: string } = { locale: browserLocale(), catalogue: NONE };

let latest = 0;
export async function setLanguage(lang?: string | null, timeZone?: string | null): Promise<void> {
  const call = ++latest;
  const browser = browserLocale();
  const wanted = lang || browser.slice(0, 2);
  const load = catalogues[wanted];
  const catalogue = load ? await load() : NONE;
  // the browser's regional variant when it speaks that language (fr-CA), else the language itself
  const locale = browser.slice(0, 2) === wanted ? browser : lang ? wanted : browser;
  if (call !== latest) return; // a later call (the user's preference after the browser's) won
  // the route loader applies the preferences on every navigation: the same ones re-render nothing
  if (setting.locale === locale && setting.catalogue === catalogue && setting.timeZone === (timeZone || undefined)) return;
  setting = { locale, catalogue, timeZone: timeZone || undefined };
  if (typeof document !== 'undefined') document.documentElement.lang = locale; // screen readers pronounce the page in its language
  for (const l of listeners) l();
}
if (typeof navigator !== 'undefined') void setLanguage().catch(() => undefined);

export function I18nProvider({ children }: { children: ReactNode }) {
  const extra = useSyncExternalStore(subscribe, () => appMessages);
  const { locale, catalogue, timeZone } = useSyncExternalStore(subscribe, () => setting);
  const messages = useMemo(() => ({ ...en, ...extra, ...catalogue }), [extra, catalogue]);
  return <IntlProvider locale={locale} timeZone={timeZone} defaultLocale="en" messages={messages} onError={reportIntlError}>{children}</IntlProvider>;
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
