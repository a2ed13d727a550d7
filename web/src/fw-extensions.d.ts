/**
 * `@fw/extensions`: the module src/kernel/generate/web-extensions.ts writes (web/vite.config.ts
 * aliases it): app name → a lazy import of the app's web/ entry.
 */
declare module '@fw/extensions' {
  const loaders: Record<string, () => Promise<{ default: import('./extensions/install.ts').WebExtension }>>;
  export default loaders;
}
