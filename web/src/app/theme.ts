import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';
export const currentTheme = (): Theme => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light');
/**
 * The theme on the page now, followed wherever it is set (the toggle, the preferences screen,
 * the stored preference applied at sign-in): a MutationObserver on <html data-theme>.
 */
export function useCurrentTheme(): Theme {
  return useSyncExternalStore((changed) => {
    const observer = new MutationObserver(changed);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, currentTheme);
}

export function setTheme(t: Theme): void {
  document.documentElement.dataset.theme = t;
  localStorage.setItem('fw.theme', t);
}

/**
 * The user's stored theme (`me.theme`) wins over this browser's last toggle: light or dark is
 * applied and remembered for the next first paint (public/theme.js); `system` leaves the browser's
 * choice alone, unless the person just chose it (`reset`): then the device's setting applies.
 */
export function applyThemePreference(pref: string | null | undefined, reset = false): void {
  if (pref === 'light' || pref === 'dark') return setTheme(pref);
  if (!reset) return;
  localStorage.removeItem('fw.theme');
  document.documentElement.dataset.theme = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
