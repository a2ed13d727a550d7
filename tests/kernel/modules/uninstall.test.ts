/**
 * `fw app uninstall`: an app taken out of the settings can be removed from a tenant — its tables
 * and data dropped, its migrations and `ir.module` row forgotten, the menus and actions its data
 * files seeded deleted — but never while it is active or another installed app depends on it.
 * Activating it again later installs it afresh. Both engines, real databases.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { appliedMigrations } from '../../../src/kernel/migrate/upgrade.ts';
import { planUninstall, uninstallApp } from '../../../src/kernel/modules/uninstall.ts';
import { bootTestKernel, dropPgDatabases, expectFwError, PROVIDERS, tempDir, uniquePgPrefix, withPgClient, type TestKernel } from '../../helpers/kernel.ts';

const FOUNDATION = 'base,auth,presentation,connectors,storage';

describe.each(PROVIDERS)('uninstalling an app from a tenant on %s', (provider) => {
  const tenant = 'acme';
  let dataDir: string;
  let pgPrefix: string;
  let tk: TestKernel;
  const boot = (settings: Record<string, string>) => bootTestKernel({ provider, dataDir, pgPrefix, settings });
  const target = () => (provider === 'sqlite'
    ? { provider, file: tk.kernel.tenants.sqliteFile(tenant) } as const
    : { provider, url: tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(tenant)) } as const);
  const sys = systemPrincipal(tenant);
  /** The tenant's tables, read from the database itself. */
  const tables = async (): Promise<string[]> => {
    if (provider === 'sqlite') {
      const db = new Database(tk.kernel.tenants.sqliteFile(tenant), { readonly: true });
      try {
        return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name);
      } finally {
        db.close();
      }
    }
    return withPgClient(tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(tenant)), async (c) =>
      (await c.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()')).rows.map((r) => r.name));
  };
  /** The tables ir_connector_param's keys reference (the if_loaded file_id's among them while storage is there). */
  const paramKeys = async (): Promise<string[]> => {
    if (provider === 'sqlite') {
      const db = new Database(tk.kernel.tenants.sqliteFile(tenant), { readonly: true });
      try {
        return (db.prepare("SELECT \"table\" AS ref FROM pragma_foreign_key_list('ir_connector_param')").all() as Array<{ ref: string }>).map((r) => r.ref).sort();
      } finally {
        db.close();
      }
    }
    return withPgClient(tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(tenant)), async (c) =>
      (await c.query<{ ref: string }>("SELECT confrelid::regclass::text AS ref FROM pg_constraint WHERE contype = 'f' AND conrelid = 'ir_connector_param'::regclass")).rows.map((r) => r.ref).sort());
  };
  const menus = async () => (await tk.kernel.dispatch<{ items: Array<{ xml_id: string }> }>('fw.search', { model: 'ir.menu', limit: 500 }, sys)).items.map((m) => m.xml_id);
  const modules = async () => (await tk.kernel.dispatch<{ items: Array<{ name: string }> }>('fw.search', { model: 'ir.module', limit: 100 }, sys)).items.map((m) => m.name);

  beforeAll(async () => {
    dataDir = tempDir('uninstall');
    pgPrefix = uniquePgPrefix();
    // a tenant where the CRM domain was installed and used
    const first = await boot({ ACTIVE_MODULES: FOUNDATION, ACTIVE_DOMAINS: 'crm' });
    await first.kernel.tenants.get(tenant);
    await first.kernel.dispatch('fw.create', { model: 'crm.lead', values: { name: 'Doomed lead' } }, sys);
    await first.cleanup();
    // the server now runs without CRM, connectors and storage
    tk = await boot({ ACTIVE_MODULES: 'base,auth,presentation', ACTIVE_DOMAINS: '' });
  });
  afterAll(async () => {
    await tk?.cleanup();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the plan names the tables and the records its data files seeded into other models', async () => {
    const plan = await planUninstall(tk.kernel, tenant, 'crm.sales');
    expect(plan.tables).toEqual(['crm_lead']);
    expect(plan.cleared).toEqual([]);
    expect(plan.deleted).toEqual([]);
    expect(plan.records).toEqual([
      { model: 'ir.action', xml_id: 'crm.action_leads' },
      { model: 'ir.menu', xml_id: 'crm.menu_root' },
      { model: 'ir.menu', xml_id: 'crm.menu_leads' },
    ]);
  });

  it('an active app, an unknown app and the kernel are refused', async () => {
    await expectFwError(planUninstall(tk.kernel, tenant, 'base'), 409, 'APP_ACTIVE');
    await expectFwError(planUninstall(tk.kernel, tenant, 'nosuch.app'), 404, 'UNKNOWN_APP');
    await expectFwError(planUninstall(tk.kernel, tenant, 'kernel'), 404, 'UNKNOWN_APP');
    await expectFwError(planUninstall(tk.kernel, 'no-such-tenant', 'crm.sales'), 404, 'UNKNOWN_TENANT');
  });

  it('an app another installed app depends on is refused, naming it; once that one is gone it goes', async () => {
    const err = await expectFwError(uninstallApp(tk.kernel, tenant, 'connectors'), 409, 'APP_REQUIRED');
    expect(err.message).toContain('required by storage');
    expect(await modules()).toContain('connectors');
    // storage's tables are there (inactive, not uninstalled): connectors' if_loaded key to them stays
    expect(await paramKeys()).toEqual(['ir_connector', 'storage_document']);
    // the plan says which other app's values it empties
    expect((await planUninstall(tk.kernel, tenant, 'storage')).cleared).toEqual(['ir_connector_param.file_id']);
    // as an uninstall that stopped after its first steps leaves it: the ir.module row gone, the
    // tables and migrations there; storage still counts as installed, for itself and for connectors
    const row = (await tk.kernel.dispatch<{ items: Array<{ id: string }> }>('fw.search', { model: 'ir.module', domain: [['name', '=', 'storage']] }, sys)).items[0]!;
    await tk.kernel.dispatch('fw.delete', { model: 'ir.module', id: row.id }, sys);
    await expectFwError(uninstallApp(tk.kernel, tenant, 'connectors'), 409, 'APP_REQUIRED');
    const done = await uninstallApp(tk.kernel, tenant, 'storage');
    expect(done.rows).toEqual({ nulled: { 'ir_connector_param.file_id': 0 }, deleted: {} });
    // taken back before storage's tables went (PostgreSQL refuses to drop a table a key references)
    expect(await paramKeys()).toEqual(['ir_connector']);
    const gone = await uninstallApp(tk.kernel, tenant, 'connectors');
    expect(gone.tables).toEqual(['ir_connector_param', 'ir_connector']);
    expect(await tables()).not.toContain('ir_connector');
  });

  it("uninstalling drops the app's tables and data, its migrations, its ir.module row and its menus; other apps' data stays", async () => {
    expect(await tables()).toContain('crm_lead');
    await uninstallApp(tk.kernel, tenant, 'crm.sales');
    expect(await tables()).not.toContain('crm_lead');
    const applied = await appliedMigrations(target());
    expect(applied.some((n) => n.startsWith('crm.sales/'))).toBe(false);
    expect(applied.some((n) => n.startsWith('base/'))).toBe(true);
    expect(await modules()).not.toContain('crm.sales');
    const left = await menus();
    expect(left.filter((x) => x.startsWith('crm.'))).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
    await expectFwError(uninstallApp(tk.kernel, tenant, 'crm.sales'), 404, 'APP_NOT_INSTALLED');
  });

  it('activating the app again installs it afresh: empty table, menus seeded again', async () => {
    await tk.cleanup();
    tk = await boot({ ACTIVE_MODULES: FOUNDATION, ACTIVE_DOMAINS: 'crm' });
    expect(await tk.kernel.dispatch('fw.count', { model: 'crm.lead' }, sys)).toEqual({ count: 0 });
    expect(await menus()).toContain('crm.menu_leads');
    expect(await modules()).toEqual(expect.arrayContaining(['crm.sales', 'connectors', 'storage']));
  });
});
