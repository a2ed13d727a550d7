import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AppManifest, AppModule } from '../app.js';
import type { ModelDecl } from '../declare.js';
import { BootError } from '../errors.js';
import type { LoadedApp } from '../registry/registry.js';
import type { Settings } from '../settings.js';
import { checkManifest, orderApps, type ActivePlan } from './order.js';
import { refuseUnlistedViews } from './unlisted-views.js';

/** Where a project keeps its apps, declarations, views and domain lists. */
export interface ProjectLayout {
  root: string;
  appsDir: string;
  schemaDir: string;
  viewsDir: string;
  domainsDir: string;
  /** `src/features/<name>.ts`: apps switched on by one boolean setting (AI_ENABLED → ai). */
  featuresDir: string;
}

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function projectLayout(root = PROJECT_ROOT): ProjectLayout {
  return {
    root,
    appsDir: path.join(root, 'src/apps'),
    schemaDir: path.join(root, 'schema'),
    viewsDir: path.join(root, 'views'),
    domainsDir: path.join(root, 'src/domains'),
    featuresDir: path.join(root, 'src/features'),
  };
}

const importDefault = async <T>(file: string): Promise<T> => (await import(pathToFileURL(file).href)).default as T;

export async function discoverManifests(layout: ProjectLayout): Promise<Map<string, AppManifest>> {
  const out = new Map<string, AppManifest>();
  for (const dir of fs.readdirSync(layout.appsDir).sort()) {
    const file = path.join(layout.appsDir, dir, 'manifest.ts');
    if (!fs.existsSync(file)) continue;
    const manifest = await importDefault<AppManifest>(file);
    checkManifest(manifest, `src/apps/${dir}/manifest.ts`);
    if (manifest.name !== dir) throw new BootError(`src/apps/${dir}/manifest.ts: name "${manifest.name}" must equal its folder "${dir}"`);
    out.set(dir, manifest);
  }
  return out;
}

async function loadModels(layout: ProjectLayout, app: string): Promise<ModelDecl[]> {
  const dir = path.join(layout.schemaDir, app);
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

/** `views/x.xml` lives in `views/<app>/x.xml`; any other entry is relative to `src/apps/<app>/`. */
function resolveData(layout: ProjectLayout, app: string, entry: string): string {
  const file = entry.startsWith('views/')
    ? path.join(layout.viewsDir, app, entry.slice('views/'.length))
    : path.join(layout.appsDir, app, entry);
  if (!fs.existsSync(file)) throw new BootError(`app ${app}: data file "${entry}" does not exist (looked at ${path.relative(layout.root, file)})`);
  return file;
}

async function loadApp(layout: ProjectLayout, manifest: AppManifest): Promise<LoadedApp> {
  const name = manifest.name;
  const indexFile = path.join(layout.appsDir, name, 'index.ts');
  const module: AppModule = fs.existsSync(indexFile)
    ? ((await import(pathToFileURL(indexFile).href)).app as AppModule)
    : { manifest };
  if (!module?.manifest) throw new BootError(`src/apps/${name}/index.ts must export \`app\` (defineApp)`);
  refuseUnlistedViews(layout.viewsDir, manifest); // issue 24: a view file the manifest does not list
  return {
    name,
    domain: name.includes('.') ? name.slice(0, name.indexOf('.')) : null,
    manifest,
    module,
    models: await loadModels(layout, name),
    dataFiles: manifest.data.map((d) => resolveData(layout, name, d)),
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
      const file = path.join(layout.domainsDir, `${domain}.ts`);
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

/** Every feature of the project (`src/features/*.ts`), in file order. */
export async function listFeatures(layout: ProjectLayout): Promise<FeatureDecl[]> {
  if (!layout.featuresDir || !fs.existsSync(layout.featuresDir)) return [];
  const out: FeatureDecl[] = [];
  for (const file of fs.readdirSync(layout.featuresDir).filter((f) => f.endsWith('.ts')).sort()) {
    const decl = await importDefault<FeatureDecl>(path.join(layout.featuresDir, file));
    if (typeof decl?.setting !== 'string' || !Array.isArray(decl.ACTIVE_MODULES)) {
      throw new BootError(`src/features/${file}: default export must be { setting, ACTIVE_MODULES }`);
    }
    out.push(decl);
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
  const manifests = await discoverManifests(layout);
  const order = orderApps(manifests, await activePlan(layout, settings));
  return Promise.all(order.map((n) => loadApp(layout, manifests.get(n)!)));
}

/** Every app in the project, active or not: the generated database schema covers them all. */
export async function loadAllApps(layout: ProjectLayout): Promise<LoadedApp[]> {
  const manifests = await discoverManifests(layout);
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
  return Promise.all(order.map((n) => loadApp(layout, manifests.get(n)!)));
}
