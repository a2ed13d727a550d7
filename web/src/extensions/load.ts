import loaders from '@fw/extensions';
import type { BootstrapData } from '../app/nav.ts';
import { ExtensionError, installExtension, ownersOf, type ActiveApp, type WebExtension, type WebNames } from './install.ts';

/**
 * Loading the apps' web code: `@fw/extensions` (generated, src/kernel/generate/web-extensions.ts)
 * maps each app to a lazy import of its web/ entry, a chunk of its own fetched the first time a
 * screen needs one of the app's names.
 */
const installed = new Map<string, Promise<void>>();
const ready = new Set<string>();

/** Downloads an app's chunk (once) and installs it. */
function loadApp(app: ActiveApp): Promise<void> {
  let p = installed.get(app.name);
  if (!p) {
    const load = (loaders as Record<string, (() => Promise<{ default: WebExtension }>) | undefined>)[app.name];
    p = load
      ? load().then((m) => { installExtension(app, m.default); ready.add(app.name); })
      : Promise.reject(new ExtensionError(`app ${app.name} declares web names, but this client was built without its web/ folder (npm run build:web in the project)`));
    installed.set(app.name, p);
  }
  return p;
}

/**
 * Null when every app that owns one of `names` is installed; else the promise of installing them
 * (a view suspends on it, the route loader awaits it). Only the apps a screen needs are fetched.
 */
export function extensionsFor(boot: Pick<BootstrapData, 'active_apps'>, names: WebNames): Promise<void> | null {
  const owners = ownersOf(boot.active_apps, names).filter((a) => !ready.has(a.name));
  return owners.length ? Promise.all(owners.map(loadApp)).then(() => undefined) : null;
}

