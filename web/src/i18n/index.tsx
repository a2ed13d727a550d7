import { useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { IntlProvider, useIntl } from 'react-intl';
import { DuplicateNameError } from '../widgets/registry.ts';
import { en, type MessageId } from './en.ts';

export type { MessageId };

/**
 * An app's own messages (`defineWebExtension({ messages })`, docs/extend-client.md#messages), per
 * language: English, which every id has, and each translation the app ships, with the same ids.
 * `E` is the English object, so a translation naming an id English lacks is a type error.
 */
export type ExtensionMessages<E extends Record<string, string> = Record<string, string>> = { en: E } & { [lang: string]: Record<keyof E, string> };

/** An extension's messages are not what its app may bring. */
export class ExtensionMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtensionMessageError';
  }
}

/**
 * Messages the apps' web code brings, by language, added when an app's chunk loads: the provider
 * re-renders with them. An id is fw's or one app's, never both, and starts with the app's prefix
 * (its domain for `crm.sales`, its name for `storage`), as its widget names do.
 */
let appMessages: Readonly<Record<string, Readonly<Record<string, string>>>> = { en: {} };
const listeners = new Set<() => void>();
export function addMessages(app: string, messages: ExtensionMessages): void {
  const prefix = `${app.split('.')[0]}.`;
  // (the English-only shape of before, { id: text }, would otherwise read as languages named by ids)
  const perLanguage = Object.values(messages).every((texts) => !!texts && typeof texts === 'object') && typeof messages.en === 'object';
  if (!perLanguage) throw new ExtensionMessageError(`app ${app}: messages is one object per language, English required ({ en: { id: text }, fr: { … } })`);
  const ids = Object.keys(messages.en);
  for (const id of ids) {
    if (!id.startsWith(prefix)) throw new ExtensionMessageError(`app ${app}: message "${id}" must start with the app's prefix "${prefix}"`);
    if (id in en || id in appMessages.en) throw new DuplicateNameError('message', id);
  }
  const next: Record<string, Readonly<Record<string, string>>> = { ...appMessages };
  for (const [lang, texts] of Object.entries(messages)) {
    // a translation of an id English does not have is a typo: it would never show
    const stray = Object.keys(texts).filter((id) => !ids.includes(id));
    if (stray.length) throw new ExtensionMessageError(`app ${app}: messages.${lang} has ${stray.map((id) => `"${id}"`).join(', ')}, which messages.en does not`);
    next[lang] = { ...next[lang], ...texts };
  }
  appMessages = next;
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
/** `lang`: the language of `catalogue` (English when fw has no catalogue for the one wanted), whose app messages join it. */
let setting: { locale: string; lang: string; catalogue: Readonly<Record<string, string>>; timeZone?: string } = { locale: browserLocale(), lang: 'en', catalogue: NONE };

let latest = 0;
export async function setLanguage(lang?: string | null, timeZone?: string | null): Promise<void> {
  const call = ++latest;
  const browser = browserLocale();
  const wanted = lang || browser.slice(0, 2);
  const load = catalogues[wanted];
  const catalogue = load ? await load() : NONE;
  const catalogueLang = load ? wanted : 'en';
  // the browser's regional variant when it speaks that language (fr-CA), else the language itself
  const locale = browser.slice(0, 2) === wanted ? browser : lang ? wanted : browser;
  if (call !== latest) return; // a later call (the user's preference after the browser's) won
  // the route loader applies the preferences on every navigation: the same ones re-render nothing
  if (setting.locale === locale && setting.catalogue === catalogue && setting.timeZone === (timeZone || undefined)) return;
  setting = { locale, lang: catalogueLang, catalogue, timeZone: timeZone || undefined };
  if (typeof document !== 'undefined') document.documentElement.lang = locale; // screen readers pronounce the page in its language
  for (const l of listeners) l();
}
if (typeof navigator !== 'undefined') void setLanguage().catch(() => undefined);

const currentAppMessages = () => appMessages;
const currentSetting = () => setting;

export function I18nProvider({ children }: { children: ReactNode }) {
  // (the same snapshot on a server render: the unit tests render the provider in Node)
  const extra = useSyncExternalStore(subscribe, currentAppMessages, currentAppMessages);
  const { locale, lang, catalogue, timeZone } = useSyncExternalStore(subscribe, currentSetting, currentSetting);
  // an app's id its translation lacks shows in the app's English, as fw's own would
  const messages = useMemo(() => ({ ...en, ...extra.en, ...catalogue, ...(lang === 'en' ? undefined : extra[lang]) }), [extra, lang, catalogue]);
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

/**
 * `useT` for an app's own messages (the ids its extension brings), which fw's catalogue type does
 * not know: `useAppT<typeof messages>()` types the ids by the app's English messages.
 */
export function useAppT<M extends ExtensionMessages = ExtensionMessages>() {
  const intl = useIntl();
  return (id: keyof M['en'] & string, values?: Record<string, string | number | Date | null | undefined>) => intl.formatMessage({ id }, values as Record<string, string>);
}
