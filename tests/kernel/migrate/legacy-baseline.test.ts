/**
 * Tenants made by releases with the single shared chain (prisma/legacy-migrations) move to the
 * per-app chains on their next upgrade without losing data: what they lack of the shared chain is
 * applied first, then each app's first migration whose tables all exist is recorded as applied
 * (not run), and only later migrations run. Both engines, real databases.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantDatabases } from '../../../src/kernel/db/tenants.ts';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { applyPostgresMigrations, applySqliteMigrations, ensurePostgresDatabase, type StoredMigration } from '../../../src/kernel/migrate/runner.ts';
import { readLegacyChain } from '../../../src/kernel/migrate/store.ts';
import { projectLayout } from '../../../src/kernel/modules/loader.ts';
import {
  bootTestKernel, dropPgDatabases, PROVIDERS, repoTenantOptions, tempDir, testSettings, uniquePgPrefix, withPgClient,
} from '../../helpers/kernel.ts';

describe.each(PROVIDERS)('a tenant of the single shared chain on %s', (provider) => {
  let dataDir: string;
  let pgPrefix: string;
  let tenants: TenantDatabases;
  const legacy = readLegacyChain(projectLayout().fwRoot, provider);

  /** Applies `migrations` to the tenant as an earlier release did, then runs `sql` on it. */
  async function legacyTenant(tenant: string, migrations: StoredMigration[], sql: string[]): Promise<void> {
    if (provider === 'sqlite') {
      const file = tenants.sqliteFile(tenant);
      await applySqliteMigrations(file, migrations);
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(file);
      for (const s of sql) db.exec(s);
      db.close();
    } else {
      await ensurePostgresDatabase(testSettings({ provider, dataDir, pgPrefix }).DATABASE_URL, tenants.pgDatabase(tenant));
      const url = tenants.pgUrl(tenants.pgDatabase(tenant));
      await applyPostgresMigrations(url, migrations);
      await withPgClient(url, async (c) => { for (const s of sql) await c.query(s); });
    }
  }

  const now = provider === 'sqlite' ? "'2026-01-01T00:00:00.000Z'" : "now()";
  const rows = [
    `INSERT INTO res_organization (record_uuid, name, code, updated_at_utc) VALUES ('00000000-0000-4000-8000-000000000001', 'Legacy Org', 'legacy', ${now})`,
    `INSERT INTO crm_lead (record_uuid, name, organization, updated_at_utc) VALUES ('00000000-0000-4000-8000-000000000002', 'Old lead', '00000000-0000-4000-8000-000000000001', ${now})`,
  ];

  beforeAll(async () => {
    dataDir = tempDir('legacy');
    pgPrefix = uniquePgPrefix();
    tenants = new TenantDatabases({ settings: testSettings({ provider, dataDir, pgPrefix }), ...(await repoTenantOptions(provider)) });
  });
  afterAll(async () => {
    await tenants.close();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the frozen shared chain is there to complete (the test would prove nothing without it)', () => {
    expect(legacy.length).toBeGreaterThan(3);
  });

  it('upgrade records every app whose tables exist as baselined, runs no CREATE TABLE, and a rerun applies nothing', async () => {
    await legacyTenant('old', legacy, rows);
    const applied = await tenants.upgrade('old');
    const plan = (await repoTenantOptions(provider)).plan;
    // each app's initial migration is baselined (its tables exist); the later ones of a chain run
    const initials = new Set((await plan.initials()).map((i) => i.migration.name));
    expect(initials.size).toBeGreaterThan(3);
    const later = plan.migrations.filter((m) => !initials.has(m.name)).map((m) => m.name);
    expect(applied).toEqual([...plan.migrations.filter((m) => initials.has(m.name)).map((m) => `${m.name} (baseline)`), ...later]);
    expect(await tenants.upgrade('old')).toEqual([]);
  });

  it('a tenant one shared migration behind gets it first, then the baseline', async () => {
    await legacyTenant('older', legacy.slice(0, -1), rows);
    const applied = await tenants.upgrade('older');
    expect(applied[0]).toBe(legacy.at(-1)!.name);
    const plan = (await repoTenantOptions(provider)).plan;
    const initials = (await plan.initials()).length;
    expect(applied.slice(1, 1 + initials).every((n) => n.endsWith(' (baseline)'))).toBe(true);
    expect(applied.slice(1 + initials).some((n) => n.endsWith(' (baseline)'))).toBe(false);
  });

  it("a kernel opens the moved tenant and reads and writes its old rows", async () => {
    const tk = await bootTestKernel({ provider, dataDir, pgPrefix, settings: { ACTIVE_DOMAINS: 'crm' } });
    try {
      const sys = systemPrincipal('old');
      const leads = await tk.kernel.dispatch<{ items: Array<{ id: string; name: string; organization: unknown }> }>('fw.search', { model: 'crm.lead' }, sys);
      expect(leads.items.map((l) => l.name)).toEqual(['Old lead']);
      await tk.kernel.dispatch('fw.update', { model: 'crm.lead', id: leads.items[0].id, values: { name: 'Old lead, kept' } }, sys);
      expect((await tk.kernel.dispatch<{ name: string }>('fw.read_one', { model: 'crm.lead', id: leads.items[0].id }, sys)).name).toBe('Old lead, kept');
    } finally {
      await tk.cleanup();
    }
  });
});
