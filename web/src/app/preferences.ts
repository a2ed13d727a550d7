import { setLanguage } from '../i18n/index.tsx';
import { applyThemePreference } from './theme.ts';

/**
 * The user's language (its catalogue loaded before the shell renders in it), time zone and theme,
 * applied when the session's `me` arrives and again when the preferences screen saves.
 */
export function applyPreferences(me: { lang?: string | null; tz?: string | null; theme?: string | null } | null | undefined, resetTheme = false): Promise<void> {
  applyThemePreference(me?.theme, resetTheme);
  return setLanguage(me?.lang, me?.tz);
}
