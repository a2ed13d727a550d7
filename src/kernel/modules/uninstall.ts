import fs from 'node:fs';
import { delegateOf } from '../data/delegate.js';
import { optionalKeysOf, referencingRows, StillReferenced, type OptionalKey } from '../db/optional-keys.js';
import type { OnDelete } from '../declare.js';
import { systemPrincipal } from '../env.js';
import { Conflict, NotFound } from '../errors.js';
import { kernelApp } from '../kernel-app.js';
import type { Kernel } from '../kernel.js';
import { tablesOf, uninstallSql } from '../migrate/chains.js';
import { appliedMigrations } from '../migrate/upgrade.js';
import { resolveModel } from '../registry/model.js';
import type { LoadedApp } from '../registry/registry.js';
import { loadAllApps } from './loader.js';

/** What uninstalling an app from a tenant removes. */
export interface UninstallPlan {
  app: string;
  /** Its tables, referencing ones first. */
  tables: string[];
  /** Records its data files put into other apps' models (menus, actions), by model → xml_ids. */
  records: Array<{ model: string; xml_id: string }>;
  /** Other apps' `if_loaded` References to its tables declared `set null` (`<table>.<column>`): emptied. */
  cleared: string[];
  /** Those declared `cascade`: their rows holding a value are deleted, as deleting the records would. */
  deleted: string[];
}

interface DataBlock { model: string; records: Array<{ xml_id: string }> }

/** The records the app's JSON data files seed into models it does not own, in seeding order. */
function seededElsewhere(app: LoadedApp): UninstallPlan['records'] {
  const own = new Set(app.models.map((m) => m.key));
  const out: UninstallPlan['records'] = [];
  for (const file of app.dataFiles.filter((f) => f.endsWith('.json'))) {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as DataBlock | DataBlock[];
    for (const block of Array.isArray(data) ? data : [data]) {
      if (own.has(block.model)) continue;
      for (const r of block.records) out.push({ model: block.model, xml_id: r.xml_id });
    }
  }
  return out;
}

/**
 * Checks that `name` can be uninstalled from `tenant` and says what would go. Refused: an unknown
 * app, the kernel, an app active in this process's settings (the next boot would install it again),
 * an app not installed in the tenant, and an app another installed app depends on.
 */
export async function planUninstall(kernel: Kernel, tenant: string, name: string): Promise<UninstallPlan> {
  return (await prepare(kernel, tenant, name)).plan;
}

/** The plan, with what carrying it out needs: every app of the project, and the keys onto the app's tables. */
async function prepare(kernel: Kernel, tenant: string, name: string): Promise<{ plan: UninstallPlan; all: LoadedApp[]; keys: OptionalKey[] }> {
  const all = await loadAllApps(kernel.layout);
  const app = all.find((a) => a.name === name);
  if (!app || name === kernelApp().name) {
    throw new NotFound(`unknown app "${name}"`, { app: name }, 'UNKNOWN_APP');
  }
  if (kernel.registry.apps.some((a) => a.name === name)) {
    throw new Conflict(`${name} is active in this server's settings (ACTIVE_MODULES, ACTIVE_DOMAINS or a feature switch): take it out first, or the next boot installs it again`, { app: name }, 'APP_ACTIVE');
  }
  await kernel.tenants.assertExists(tenant);
  const installed = await installedApps(kernel, tenant);
  if (!installed.has(name)) throw new NotFound(`${name} is not installed in tenant ${tenant}`, { app: name, tenant }, 'APP_NOT_INSTALLED');
  const dependents = all.filter((a) => installed.has(a.name) && a.manifest.depends.includes(name)).map((a) => a.name);
  if (dependents.length) {
    throw new Conflict(`${name} is required by ${dependents.join(', ')}, installed in tenant ${tenant}: uninstall ${dependents.length > 1 ? 'them' : 'it'} first`, { app: name, dependents }, 'APP_REQUIRED');
  }
  const tables = tablesOf(app);
  const keys = optionalKeysTo(all, tables);
  // a restrict Reference still pointing at its records refuses it here, before anything is deleted
  for (const [k, rows] of await referencingRows(kernel.tenants.schemaTarget(tenant), keys.filter((k) => k.onDelete === 'restrict'))) {
    if (rows) throw new StillReferenced(k, rows);
  }
  const named = (onDelete: OnDelete) => keys.filter((k) => k.onDelete === onDelete).map((k) => `${k.table}.${k.column}`);
  const records = seededElsewhere(app).filter((r) => kernel.registry.models.has(r.model));
  return { plan: { app: name, tables, records, cleared: named('set null'), deleted: named('cascade') }, all, keys };
}

/** The keys of every app's `if_loaded` References (active or not: whoever declared one) to `tables`. */
function optionalKeysTo(apps: readonly LoadedApp[], tables: readonly string[]): OptionalKey[] {
  return optionalKeysOf([kernelApp(), ...apps].flatMap((a) => a.models.map((d) => resolveModel(d, a.name)))).filter((k) => tables.includes(k.refTable));
}

/**
 * Apps installed in the tenant: an `ir.module` row, or migrations recorded. The step that drops
 * an app's tables forgets its migrations with them, so an uninstall that stopped after removing
 * the `ir.module` row still finds the app (and what depends on it) and can be run again.
 */
async function installedApps(kernel: Kernel, tenant: string): Promise<Set<string>> {
  const { items } = await kernel.dispatch<{ items: Array<{ name: string }> }>('fw.search', { model: 'ir.module', limit: 1000 }, systemPrincipal(tenant));
  const recorded = (await appliedMigrations(kernel.tenants.schemaTarget(tenant))).filter((n) => n.includes('/')).map((n) => n.slice(0, n.indexOf('/')));
  return new Set([...items.map((r) => r.name), ...recorded]);
}

/** What an uninstall did to other apps' rows (`<table>.<column>`: rows): values emptied, rows deleted. */
export interface UninstallRows { nulled: Record<string, number>; deleted: Record<string, number> }

/**
 * `fw app uninstall <app> -t <tenant> --yes`: takes back other apps' `if_loaded` keys onto its
 * tables (their rows given the keys' on_delete; a refusal there changes nothing), removes the
 * records its data files seeded elsewhere (through the command bus, newest first, so hooks and
 * events run as for any delete) and its `ir.module` row, then drops its tables and forgets its
 * migrations in one transaction.
 */
export async function uninstallApp(kernel: Kernel, tenant: string, name: string): Promise<UninstallPlan & { rows: UninstallRows }> {
  const { plan, all, keys } = await prepare(kernel, tenant, name);
  const withKernel = [kernelApp(), ...all];
  const sql = await uninstallSql(withKernel, withKernel.find((a) => a.name === name)!, kernel.provider);
  const released = await kernel.tenants.releaseOptionalKeys(tenant, keys, plan.tables);
  const client = await kernel.tenants.get(tenant);
  await kernel.execute(client, systemPrincipal(tenant), async (env) => {
    for (const r of [...plan.records].reverse()) {
      const row = await delegateOf(env.db, env.registry.model(r.model)).findUnique({ where: { xml_id: r.xml_id }, select: { record_uuid: true } });
      if (row) await env.dispatch('fw.delete', { model: r.model, id: row.record_uuid });
    }
    await delegateOf(env.db, env.registry.model('ir.module')).deleteMany({ where: { name } });
  }, true, `uninstall:${name}`);
  await kernel.tenants.dropApp(tenant, name, sql, keys);
  return { ...plan, rows: { nulled: released.nulled, deleted: released.deleted } };
}
