import fs from 'node:fs';
import path from 'node:path';
import { compileOptionalKey } from '../data/sql/compile.js';
import type { ModelDecl } from '../declare.js';
import { BadRequest } from '../errors.js';
import { printPrismaSchema, type DbProvider } from '../generate/prisma-schema.js';
import type { LoadedApp } from '../registry/registry.js';
import { checkModelGraph, degradeReference, resolveModel, type ResolvedModel } from '../registry/model.js';
import { columnObjectName, modelNames } from '../registry/names.js';
import { DATA_FILE, DATA_MARKER_LINE, DATA_STUB, migrationChecksum, readDataStep } from './data-migration.js';
import { applyRenames, renameSql } from './renames.js';
import type { StoredMigration } from './runner.js';
import { assertNoDataLoss, dataEffects, type DataEffect } from './safety.js';
import { diffDatamodels } from './schema-engine.js';
import { readLegacyChain } from './store.js';
import type { UpgradePlan } from './upgrade.js';

/**
 * One migration chain per app, kept beside the app in the root that holds it (fw's foundation
 * apps' chains ship inside fw; a team's apps' chains live in the team's project):
 *
 *   <root>/prisma/migrations/<app>/<timestamp>_<slug>/
 *     sqlite.sql  postgresql.sql   the statements, one file per engine
 *     models.json                  the app's model declarations after this migration
 *
 * A migration only ever creates or alters the tables of its own app. The next one is the diff
 * between the app's last `models.json` and its current declarations, each printed together with
 * the *current* models of the app's dependencies (so references resolve and foreign keys are
 * written, while the dependencies' own tables never appear in the diff). That is what lets a new
 * fw release add foundation migrations without a team's chain ever re-creating a foundation table.
 */

export const PROVIDERS: readonly DbProvider[] = ['sqlite', 'postgresql'];

/** The subset of a loaded app a chain needs. */
export type ChainApp = Pick<LoadedApp, 'name' | 'domain' | 'models' | 'manifest' | 'root'>;

export const chainDir = (root: string, app: string): string => path.join(root, 'prisma', 'migrations', app);

export const SNAPSHOT = 'models.json';

/** A stored migration of one app: `name` is `<app>/<folder>`, unique across chains. */
export interface ChainMigration extends StoredMigration {
  app: string;
  folder: string;
}

function folders(root: string, app: string): string[] {
  const dir = chainDir(root, app);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => fs.existsSync(path.join(dir, f, SNAPSHOT))).sort();
}

/** The app's chain for one engine, oldest first ([] for an app without a root or migrations). */
export function readChain(app: Pick<ChainApp, 'name' | 'root'>, provider: DbProvider): ChainMigration[] {
  if (!app.root) return [];
  const dir = chainDir(app.root, app.name);
  return folders(app.root, app.name).map((folder) => {
    const file = path.join(dir, folder, `${provider}.sql`);
    if (!fs.existsSync(file)) throw new Error(`migration ${app.name}/${folder} has no ${provider}.sql`);
    const sql = fs.readFileSync(file, 'utf8');
    const data = readDataStep(path.join(dir, folder));
    const earlier = readEarlier(path.join(dir, folder))[provider] ?? [];
    return {
      app: app.name, folder, name: `${app.name}/${folder}`, sql, checksum: migrationChecksum(sql, data),
      ...(data ? { data } : {}), ...(earlier.length ? { earlier } : {}),
    };
  });
}

/**
 * `earlier-checksums.json` of a migration folder: per engine, the checksums of texts this
 * migration had before fw rewrote it. Only a shipped migration whose new text leaves a tenant
 * that ran an earlier one where the new one would is rewritten so (docs/decisions.md); a
 * tenant's record of having applied it then stays valid.
 */
export const EARLIER_CHECKSUMS = 'earlier-checksums.json';

function readEarlier(dir: string): Partial<Record<DbProvider, string[]>> {
  const file = path.join(dir, EARLIER_CHECKSUMS);
  if (!fs.existsSync(file)) return {};
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const out: Partial<Record<DbProvider, string[]>> = {};
  for (const provider of PROVIDERS) {
    const list = parsed[provider];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((c) => typeof c === 'string' && /^[0-9a-f]{64}$/.test(c))) {
      throw new Error(`${file}: "${provider}" must be a list of sha256 checksums`);
    }
    out[provider] = list as string[];
  }
  return out;
}

/** Every chain of `apps` (in load order: dependencies first), each in its own order. */
export function chainsOf(apps: readonly Pick<ChainApp, 'name' | 'root'>[], provider: DbProvider): ChainMigration[] {
  return apps.flatMap((a) => readChain(a, provider));
}

/** The app's model declarations as of its last migration (null: it has none yet). */
export function lastSnapshot(app: Pick<ChainApp, 'name' | 'root'>): ModelDecl[] | null {
  if (!app.root) return null;
  const last = folders(app.root, app.name).at(-1);
  return last ? readSnapshot(app.root, app.name, last) : null;
}

/** The app's declarations as of the newest migration of its chain that sorts before `folder` (null: none). */
export function snapshotBefore(app: Pick<ChainApp, 'name' | 'root'>, folder: string): ModelDecl[] | null {
  if (!app.root) return null;
  const last = folders(app.root, app.name).filter((f) => f < folder).at(-1);
  return last ? readSnapshot(app.root, app.name, last) : null;
}

function readSnapshot(root: string, app: string, folder: string): ModelDecl[] {
  return JSON.parse(fs.readFileSync(path.join(chainDir(root, app), folder, SNAPSHOT), 'utf8')) as ModelDecl[];
}

/**
 * The tables the first migration of an app creates: a tenant made with the single shared chain
 * of earlier releases already has them, and records that migration as applied instead of running
 * it (see upgrade.ts).
 */
export function initialTables(app: Pick<ChainApp, 'name' | 'root'>): { migration: string; tables: string[] } | null {
  if (!app.root) return null;
  const first = folders(app.root, app.name)[0];
  if (!first) return null;
  const tables = readSnapshot(app.root, app.name, first).map((d) => resolveModel(d, app.name).names.table);
  return { migration: `${app.name}/${first}`, tables };
}

/**
 * What a tenant is upgraded to: the chains of the active apps (`apps`, kernel first, in load
 * order). The baseline candidates of tenants made by the shared chain cover every app of the
 * project, active or not, kernel included (those tenants have every table), and are only listed
 * when needed.
 */
export function upgradePlan(fwRoot: string, apps: readonly Pick<ChainApp, 'name' | 'root'>[], provider: DbProvider, allApps: () => Promise<readonly Pick<ChainApp, 'name' | 'root'>[]>): UpgradePlan {
  return {
    migrations: chainsOf(apps, provider),
    legacy: readLegacyChain(fwRoot, provider),
    initials: async () => (await allApps()).flatMap((a) => {
      const first = readChain(a, provider)[0];
      const initial = initialTables(a);
      return first && initial ? [{ migration: first, tables: initial.tables }] : [];
    }),
  };
}

/**
 * The tables of an app as of its last migration (what uninstalling drops), referencing tables
 * before the tables they reference so each drop leaves no dangling foreign key.
 */
export function tablesOf(app: Pick<ChainApp, 'name' | 'root'>): string[] {
  const left = (lastSnapshot(app) ?? []).map((d) => resolveModel(d, app.name));
  const referenced = (m: ResolvedModel): boolean =>
    left.some((o) => o !== m && [...o.fields.values()].some((f) => f.type === 'reference' && f.target === m.key));
  const ordered: ResolvedModel[] = [];
  while (left.length) {
    const i = left.findIndex((m) => !referenced(m));
    ordered.push(...left.splice(Math.max(i, 0), 1));
  }
  return ordered.map((m) => m.names.table);
}

// ---------------------------------------------------------------------------------------------
// Pending changes: declarations that differ from the last snapshot in anything the database holds

/**
 * What of a declaration reaches the database; labels, help texts, access and enum values do not.
 * For a `chain` (its migrations), neither do the target and `on_delete` of an `if_loaded`
 * Reference: its key is the tenant's open's (src/kernel/db/optional-keys.ts), so changing them
 * needs no migration, and counting them made boot refuse a change no migration could hold. The
 * generated `client` prints such a Reference as a relation, so for it they count.
 */
export function ddlShape(models: readonly ModelDecl[], of: 'chain' | 'client' = 'chain'): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of models) {
    const fields = Object.entries(m.fields)
      .filter(([, f]) => f.type !== 'one2many')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, f]) => {
        const r = f as unknown as Record<string, unknown>;
        const optional = r.if_loaded === true;
        const keyOf = (v: unknown) => (optional && of === 'chain' ? null : v);
        return [name, f.type, r.size, f.required ?? false, f.unique ?? false, f.index ?? false, r.default, keyOf(r.target), keyOf(r.on_delete), optional];
      });
    out.set(m.key, JSON.stringify({ fields, unique_together: m.unique_together ?? [] }));
  }
  return out;
}

/**
 * Why the app's declarations are ahead of its chain ("crm.lead: fields changed"), or null when
 * its last migration matches them. Cheap (no schema engine): boot and `fw migrate generate` run it
 * for every app.
 */
export function pendingChanges(app: ChainApp): string | null {
  const before = ddlShape(lastSnapshot(app) ?? []);
  const now = ddlShape(app.models);
  const parts: string[] = [];
  for (const [key, shape] of now) {
    if (!before.has(key)) parts.push(`${key} added`);
    else if (before.get(key) !== shape) parts.push(`${key} changed`);
  }
  for (const key of before.keys()) if (!now.has(key)) parts.push(`${key} removed`);
  return parts.length ? parts.join(', ') : null;
}

/** The sentence boot and the CLI print for an app with pending changes. */
export function pendingMessage(app: string, what: string): string {
  return `${app} has changes without a migration (${what}): run fw migrate generate -m "<what changed>" --app ${app}`;
}

// ---------------------------------------------------------------------------------------------
// Writing a migration

/** `app` and everything it depends on, transitively, that is among `apps`. */
function dependencyClosure(apps: readonly ChainApp[], app: ChainApp): ChainApp[] {
  const byName = new Map(apps.map((a) => [a.name, a]));
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const d of byName.get(name)?.manifest.depends ?? []) visit(d);
  };
  for (const d of app.manifest.depends) visit(d);
  // the kernel's own models (ir.event, ir.module) are in every tenant, under every app
  if (app.name !== 'kernel' && byName.has('kernel')) seen.add('kernel');
  return apps.filter((a) => seen.has(a.name));
}

/**
 * The models a migration is diffed over. An `if_loaded` Reference is a plain uuid column here even
 * when its target is present: its foreign key belongs to no chain but to the tenant's open
 * (src/kernel/db/optional-keys.ts), which adds it when the target's table is there and takes it
 * back when it goes. Written by the target app's migration instead, the key was rebuilt on SQLite
 * from the declaring app's columns as of when that migration was written (a column added since
 * was dropped), and lost again by the declaring app's next rebuild, whose diff lacks the target.
 */
function resolveAll(parts: ReadonlyArray<{ app: string; models: readonly ModelDecl[] }>): Map<string, ResolvedModel> {
  const models = new Map<string, ResolvedModel>();
  for (const p of parts) for (const d of p.models) models.set(d.key, resolveModel(d, p.app));
  checkModelGraph(models);
  for (const m of models.values()) for (const f of [...m.fields.values()]) if (f.type === 'reference' && f.ifLoaded) degradeReference(m, f);
  return models;
}

const printFor = (models: Map<string, ResolvedModel>, provider: DbProvider): string =>
  // the generator block is irrelevant to a diff; any output path will do
  printPrismaSchema(models.values(), { provider, clientOutput: 'unused' });

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 60);
const timestamp = (d: Date): string => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

export interface WrittenMigration {
  app: string;
  folder: string;
  sql: Record<DbProvider, string>;
  /** What each change does to existing rows (safety.ts), one line each. */
  effects: DataEffect[];
  /** A `data.ts` stub was written (`--data`). */
  data: boolean;
}

/**
 * The SQL (both engines) that brings `app`'s tables from its last snapshot to its current
 * declarations; empty strings when nothing changed. `apps` must hold the app's dependencies.
 */
export async function diffApp(apps: readonly ChainApp[], app: ChainApp): Promise<Record<DbProvider, string>> {
  const context = dependencyClosure(apps, app).map((a) => ({ app: a.name, models: a.models }));
  // fields declared renamed_from are renamed in the snapshot first; the rename is ours to write
  const { diffFrom: before, renames } = applyRenames(app.name, lastSnapshot(app), app.models);
  const from = resolveAll(before ? [...context, { app: app.name, models: before }] : context);
  const to = resolveAll([...context, { app: app.name, models: app.models }]);
  const out = {} as Record<DbProvider, string>;
  for (const provider of PROVIDERS) {
    const diff = from.size === 0
      ? await diffDatamodels(provider, null, printFor(to, provider))
      : await diffDatamodels(provider, printFor(from, provider), printFor(to, provider));
    const keys = provider === 'postgresql' ? optionalKeysLeft(before, app.models) : '';
    out[provider] = [renameSql(renames, provider), keys, diff].filter((part) => part.trim()).join('\n');
  }
  return out;
}

/**
 * PostgreSQL: a Reference that stops being `if_loaded` gets its key from the chain from now on
 * (or, no longer a Reference, none); the key a tenant's open gave it, of the same name, goes
 * first, else the engine's ADD CONSTRAINT would find it there.
 */
function optionalKeysLeft(before: readonly ModelDecl[] | null, after: readonly ModelDecl[]): string {
  const out: string[] = [];
  for (const m of after) {
    const old = before?.find((b) => b.key === m.key);
    for (const [name, f] of Object.entries(m.fields)) {
      const was = old?.fields[name];
      if (was?.type !== 'reference' || !was.if_loaded || (f.type === 'reference' && f.if_loaded)) continue;
      const table = modelNames(m.key).table;
      out.push(`-- ${m.key}.${name} is no longer if_loaded: the key its tenants' open added goes`);
      out.push(`${compileOptionalKey.drop({ table, name: columnObjectName(table, name, 'fkey') }, true)};`);
    }
  }
  return out.join('\n');
}

/**
 * The SQL removing `app` from a tenant: from its last snapshot with its dependencies to its
 * dependencies alone. The `if_loaded` foreign keys to its tables are not in it: the tenant
 * drops them first (`ensureOptionalKeys` with the app's tables gone).
 */
export async function uninstallSql(apps: readonly ChainApp[], app: ChainApp, provider: DbProvider): Promise<string> {
  return snapshotDiff(apps, app, lastSnapshot(app) ?? [], null, provider);
}

/**
 * The SQL taking `app`'s tables from the declarations `from` to `to` (null: the app not
 * installed), its dependencies as they are declared now.
 */
export async function snapshotDiff(apps: readonly ChainApp[], app: ChainApp, from: readonly ModelDecl[], to: readonly ModelDecl[] | null, provider: DbProvider): Promise<string> {
  const context = dependencyClosure(apps, app).map((a) => ({ app: a.name, models: a.models }));
  const before = resolveAll([...context, { app: app.name, models: from }]);
  const after = resolveAll(to ? [...context, { app: app.name, models: to }] : context);
  return diffDatamodels(provider, printFor(before, provider), printFor(after, provider));
}

/**
 * Writes the app's next migration into its chain (both engines and the snapshot), or returns
 * null when its declarations match the last one. Only apps of the project itself can be given a
 * migration: a foundation app's chain ships with fw.
 */
export async function generateAppMigration(
  projectRoot: string,
  apps: readonly ChainApp[],
  appName: string,
  opts: {
    description: string;
    now?: Date;
    /** Write it even when it drops or narrows columns (safety.ts); without, such a migration is refused. */
    allowDataLoss?: boolean;
    /** How the refusal says to go on (safety.ts's default names `fw migrate generate`'s flag). */
    lossRemedy?: string;
    /** Also write a `data.ts` stub (data-migration.ts); written even when no declaration changed. */
    data?: boolean;
  },
): Promise<WrittenMigration | null> {
  const label = slug(opts.description);
  if (!label) throw new BadRequest('a migration needs a description (-m "…")', undefined, 'MIGRATION_DESCRIPTION_REQUIRED');
  const app = apps.find((a) => a.name === appName);
  if (!app) throw new BadRequest(`unknown app "${appName}" (apps: ${apps.map((a) => a.name).join(', ')})`, { app: appName }, 'UNKNOWN_APP');
  if (!app.root || path.resolve(app.root) !== path.resolve(projectRoot)) {
    throw new BadRequest(`app ${appName} comes from the installed fw; its migrations ship with fw`, { app: appName }, 'FOREIGN_APP');
  }
  const sql = await diffApp(apps, app);
  const changed = PROVIDERS.some((p) => sql[p].trim());
  const snapshot = lastSnapshot(app);
  const { snapshot: renamed, renames } = applyRenames(app.name, snapshot, app.models);
  const effects = dataEffects(renamed, app.models, renames);
  // a change with no SQL can still lose data (an Enum value removed): it is refused, or, allowed,
  // written as a migration with no SQL so that its snapshot records the change
  if (!changed && !opts.data && !effects.some((e) => e.loses)) return null;
  if (!opts.allowDataLoss) assertNoDataLoss(app.name, effects, opts.lossRemedy);
  const existing = folders(app.root, app.name);
  let stamp = timestamp(opts.now ?? new Date());
  // names must sort after every existing one even if two are generated within a second
  const latest = existing.map((n) => n.slice(0, 14)).at(-1);
  if (latest !== undefined && latest >= stamp) stamp = String(Number(latest) + 1);
  const folder = `${stamp}_${label}`;
  const dir = path.join(chainDir(app.root, app.name), folder);
  fs.mkdirSync(dir, { recursive: true });
  for (const provider of PROVIDERS) {
    const body = sql[provider].trim() ? sql[provider].trimEnd() : `-- nothing to change on ${provider}`;
    // the data step runs where the marker stands: after the SQL until the user moves statements below it
    const marker = opts.data ? `\n${DATA_MARKER_LINE}` : '';
    fs.writeFileSync(path.join(dir, `${provider}.sql`), `-- ${opts.description} (app ${app.name})\n${body}${marker}\n`);
  }
  if (opts.data) fs.writeFileSync(path.join(dir, DATA_FILE), DATA_STUB);
  fs.writeFileSync(path.join(dir, SNAPSHOT), `${JSON.stringify(app.models, null, 2)}\n`);
  return { app: app.name, folder, sql, effects, data: opts.data ?? false };
}
