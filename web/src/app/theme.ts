export type Theme = 'light' | 'dark';
export const currentTheme = (): Theme => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light');
export function setTheme(t: Theme): void {
  document.documentElement.dataset.theme = t;
  localStorage.setItem('fw.theme', t);
}
