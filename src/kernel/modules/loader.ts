import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AppManifest, AppModule } from '../app.js';
import { f, type ModelDecl } from '../declare.js';
import { BootError, FwError } from '../errors.js';
import { didYouMeanOrList } from '../registry/closest.js';
import type { LoadedApp } from '../registry/registry.js';
import type { Settings } from '../settings.js';
import { checkManifest, orderApps, type ActivePlan } from './order.js';
import { refuseUnlistedTranslations, refuseUnlistedViews } from './unlisted-files.js';

/**
 * Where a project keeps its apps, declarations, views, domain lists and migrations. A project is
 * fw's own repository or a team's project that depends on fw: both have the same top-level
 * layout (`src/apps/<app>/`, `schema/<app>/`, `views/<app>/`, `src/domains/`, `src/features/`,
 * `prisma/`, `generated/`). Foundation apps (names without a dot) come from the installed fw;
 * domain apps (`<domain>.<app>`) and domain lists from the project only, so fw's example domain
 * never leaks into a team's schema. In fw's own repository both roots are the same folder.
 */
export interface ProjectLayout {
  /** The project: where generated clients, domain apps and their migrations live. */
  root: string;
  /** The installed fw (its foundation apps, their migration chains and the prebuilt client). */
  fwRoot: string;
}

/** The folder of the fw package this code runs from. */
export const FW_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface PackageJson { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> }

/**
 * The project a command runs in: FW_PROJECT_ROOT when set, else the nearest folder upward from
 * the working directory whose package.json is fw itself or depends on fw, else fw's own folder.
 */
export function findProjectRoot(cwd = process.cwd()): string {
  const explicit = process.env.FW_PROJECT_ROOT;
  if (explicit) return path.resolve(explicit);
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      try {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
        if (pkg.name === 'fw' || pkg.dependencies?.fw || pkg.devDependencies?.fw) return dir;
      } catch { /* an unreadable package.json is not a project marker */ }
    }
    if (path.dirname(dir) === dir) return FW_ROOT;
  }
}

export function projectLayout(root?: string): ProjectLayout {
  return { root: path.resolve(root ?? findProjectRoot()), fwRoot: FW_ROOT };
}

/** The standard folders under one root (a project, or the installed fw). */
export const rootDirs = (root: string) => ({
  apps: path.join(root, 'src/apps'),
  schema: path.join(root, 'schema'),
  views: path.join(root, 'views'),
  domains: path.join(root, 'src/domains'),
  features: path.join(root, 'src/features'),
});

/** Roots searched for apps, the project first; one entry in fw's own repository. */
export const appRoots = (layout: ProjectLayout): string[] =>
  layout.root === layout.fwRoot ? [layout.root] : [layout.root, layout.fwRoot];

/**
 * A project file's default export. An error thrown while the file runs (`f.chr(200)`: "f.chr is
 * not a function") is told with the file and line it came from: the message alone named neither,
 * where a syntax error already names both.
 */
async function importDefault<T>(file: string): Promise<T> {
  return (await importFile(file)).default as T;
}

async function importFile(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof Error) || err instanceof FwError || err.message.includes(file)) throw err;
    const frame = err.stack?.split('\n').find((line) => line.includes(url) || line.includes(file));
    const at = frame ? /:(\d+):(\d+)\)?\s*$/.exec(frame) : null;
    // f.date(…): a field constructor that does not exist; say which ones do
    const ctor = err instanceof TypeError ? /^f\.(\w+) is not a function$/.exec(err.message) : null;
    const hint = ctor ? didYouMeanOrList(ctor[1]!, Object.keys(f)) : '';
    throw new BootError(`${path.relative(process.cwd(), file) || file}${at ? `:${at[1]}:${at[2]}` : ''}: ${err.message}${hint}`);
  }
}

/** A manifest and the root holding its app. */
export interface FoundManifest { manifest: AppManifest; root: string }

/**
 * Every app of the project with the root it lives in. A root other than the project contributes
 * foundation apps only; an app found in two roots stops the boot (a project cannot shadow fw's).
 */
export async function discoverApps(layout: ProjectLayout): Promise<Map<string, FoundManifest>> {
  const out = new Map<string, FoundManifest>();
  for (const root of appRoots(layout)) {
    const dirs = rootDirs(root);
    if (!fs.existsSync(dirs.apps)) continue;
    for (const dir of fs.readdirSync(dirs.apps).sort()) {
      if (root !== layout.root && dir.includes('.')) continue;
      const file = path.join(dirs.apps, dir, 'manifest.ts');
      if (!fs.existsSync(file)) continue;
      const where = path.relative(layout.root, file) || file;
      if (out.has(dir)) throw new BootError(`${where}: app "${dir}" is also provided by ${path.relative(layout.root, out.get(dir)!.root) || 'the project'}; rename the project's app`);
      const manifest = await importDefault<AppManifest>(file);
      checkManifest(manifest, where);
      if (manifest.name !== dir) throw new BootError(`${where}: name "${manifest.name}" must equal its folder "${dir}"`);
      out.set(dir, { manifest, root });
    }
  }
  return out;
}

export async function discoverManifests(layout: ProjectLayout): Promise<Map<string, AppManifest>> {
  return new Map([...(await discoverApps(layout))].map(([name, found]) => [name, found.manifest]));
}

async function loadModels(root: string, app: string): Promise<ModelDecl[]> {
  const dir = path.join(rootDirs(root).schema, app);
  if (!fs.existsSync(dir)) return [];
  const models: ModelDecl[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
    const decl = await importDefault<ModelDecl>(path.join(dir, file));
    if (!decl?.key) throw new BootError(`schema/${app}/${file}: default export must be a model declaration`);
    if (`${decl.key}.ts` !== file) throw new BootError(`schema/${app}/${file}: declares ${decl.key}; the file must be named ${decl.key}.ts`);
    models.push(decl);
  }
  return models;
}

/**
 * `i18n/<lang>.json` entries of a manifest's `data` are the app's translations (docs/views.md#translations):
 * read by the presentation layer, never loaded as records.
 */
export const isTranslationEntry = (entry: string): boolean => /^i18n\/[^/]+\.json$/.test(entry);

/** `views/x.xml` lives in `views/<app>/x.xml`; any other entry is relative to `src/apps/<app>/`. */
function resolveData(root: string, app: string, entry: string): string {
  const dirs = rootDirs(root);
  const file = entry.startsWith('views/')
    ? path.join(dirs.views, app, entry.slice('views/'.length))
    : path.join(dirs.apps, app, entry);
  if (!fs.existsSync(file)) throw new BootError(`app ${app}: data file "${entry}" does not exist (looked at ${path.relative(root, file)})`);
  return file;
}

async function loadApp({ manifest, root }: FoundManifest): Promise<LoadedApp> {
  const name = manifest.name;
  const indexFile = path.join(rootDirs(root).apps, name, 'index.ts');
  const module: AppModule = fs.existsSync(indexFile)
    ? ((await importFile(indexFile)).app as AppModule)
    : { manifest };
  if (!module?.manifest) throw new BootError(`src/apps/${name}/index.ts must export \`app\` (defineApp)`);
  refuseUnlistedViews(rootDirs(root).views, manifest);
  refuseUnlistedTranslations(rootDirs(root).apps, manifest);
  return {
    name,
    domain: name.includes('.') ? name.slice(0, name.indexOf('.')) : null,
    manifest,
    module,
    models: await loadModels(root, name),
    dataFiles: manifest.data.filter((d) => !isTranslationEntry(d)).map((d) => resolveData(root, name, d)),
    translationFiles: manifest.data.filter(isTranslationEntry).map((d) => resolveData(root, name, d)),
    root,
  };
}

/** Reads ACTIVE_MODULES, ACTIVE_DOMAINS and each domain's own app list. */
export async function activePlan(layout: ProjectLayout, settings: Settings): Promise<ActivePlan> {
  const domains: ActivePlan['domains'] = [];
  for (const domain of settings.ACTIVE_DOMAINS) {
    const override = settings.extra[`${domain.toUpperCase()}_ACTIVE_MODULES`];
    let apps: string[];
    if (override !== undefined) {
      apps = override.split(',').map((s) => s.trim()).filter(Boolean);
    } else {
      const file = path.join(rootDirs(layout.root).domains, `${domain}.ts`);
      if (!fs.existsSync(file)) throw new BootError(`ACTIVE_DOMAINS lists "${domain}" but src/domains/${domain}.ts does not exist`);
      apps = (await importDefault<{ ACTIVE_MODULES: string[] }>(file)).ACTIVE_MODULES;
    }
    domains.push({ domain, apps });
  }
  return { foundation: [...settings.ACTIVE_MODULES, ...(await featureApps(layout, settings))], domains };
}

/**
 * A feature is a boolean setting that switches foundation apps on (`src/features/ai.ts`:
 * `{ setting: 'AI_ENABLED', ACTIVE_MODULES: ['ai'] }`). Off, the apps are not loaded at all: no
 * model, route, command or GraphQL field of theirs exists. On, they come after ACTIVE_MODULES.
 */
export interface FeatureDecl { setting: string; ACTIVE_MODULES: string[] }

/** Every feature of the project and of the installed fw (`src/features/*.ts`), in file order. */
export async function listFeatures(layout: ProjectLayout): Promise<FeatureDecl[]> {
  const out: FeatureDecl[] = [];
  for (const root of appRoots(layout)) {
    const dir = rootDirs(root).features;
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
      const decl = await importDefault<FeatureDecl>(path.join(dir, file));
    if (typeof decl?.setting !== 'string' || !Array.isArray(decl.ACTIVE_MODULES)) {
        throw new BootError(`src/features/${file}: default export must be { setting, ACTIVE_MODULES }`);
      }
      if (!out.some((d) => d.setting === decl.setting)) out.push(decl);
    }
  }
  return out;
}

async function featureApps(layout: ProjectLayout, settings: Settings): Promise<string[]> {
  const out: string[] = [];
  for (const decl of await listFeatures(layout)) {
    const raw = (settings.extra[decl.setting] ?? '').trim();
    if (raw !== '' && !/^(true|false|1|0|yes|no)$/i.test(raw)) throw new BootError(`setting ${decl.setting}="${raw}" must be true or false`);
    if (!/^(true|1|yes)$/i.test(raw)) continue;
    for (const app of decl.ACTIVE_MODULES) if (!settings.ACTIVE_MODULES.includes(app) && !out.includes(app)) out.push(app);
  }
  return out;
}

export async function loadActiveApps(layout: ProjectLayout, settings: Settings): Promise<LoadedApp[]> {
  const found = await discoverApps(layout);
  const order = orderApps(manifestsOf(found), await activePlan(layout, settings));
  return Promise.all(order.map((n) => loadApp(found.get(n)!)));
}

/**
 * The active apps' names and roots in load order, from their manifests alone (no app code, no
 * declarations imported): what `fw migrate upgrade` needs to find and order their chains.
 */
export async function activeAppRoots(layout: ProjectLayout, settings: Settings): Promise<Array<{ name: string; root: string }>> {
  const found = await discoverApps(layout);
  return orderApps(manifestsOf(found), await activePlan(layout, settings)).map((name) => ({ name, root: found.get(name)!.root }));
}

/** Every app's name and root (the baseline of tenants made by the shared chain covers them all). */
export async function allAppRoots(layout: ProjectLayout): Promise<Array<{ name: string; root: string }>> {
  return [...(await discoverApps(layout))].map(([name, f]) => ({ name, root: f.root }));
}

const manifestsOf = (found: Map<string, FoundManifest>): Map<string, AppManifest> =>
  new Map([...found].map(([name, f]) => [name, f.manifest]));

/** Every app in the project, active or not: the generated database schema covers them all. */
export async function loadAllApps(layout: ProjectLayout): Promise<LoadedApp[]> {
  const found = await discoverApps(layout);
  const manifests = manifestsOf(found);
  const names = [...manifests.keys()];
  const byDomain = new Map<string, string[]>();
  for (const n of names.filter((x) => x.includes('.'))) {
    const d = n.slice(0, n.indexOf('.'));
    byDomain.set(d, [...(byDomain.get(d) ?? []), n]);
  }
  const order = orderApps(manifests, {
    foundation: names.filter((n) => !n.includes('.')),
    domains: [...byDomain].map(([domain, apps]) => ({ domain, apps })),
  }, false);
  return Promise.all(order.map((n) => loadApp(found.get(n)!)));
}
