/**
 * One migration chain per app, end to end: `generateAppMigration` diffs an app's last snapshot
 * against its current declarations (its dependencies' current models as context) and writes only
 * that app's DDL; `upgrade` applies what a tenant lacks, in dependency order, keeps its data, and a
 * rerun changes nothing. Chains are written into a temp copy of prisma/migrations; declaration
 * changes are made on copies of the loaded apps, never on the real files.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantDatabases } from '../../src/kernel/db/tenants.ts';
import type { FieldDecl } from '../../src/kernel/declare.ts';
import { f } from '../../src/kernel/declare.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { kernelApp } from '../../src/kernel/kernel-app.ts';
import { chainsOf, generateAppMigration, pendingChanges, readChain, type ChainApp } from '../../src/kernel/migrate/chains.ts';
import { loadAllApps, projectLayout } from '../../src/kernel/modules/loader.ts';
import {
  bootTestKernel, dropPgDatabases, expectFwError, PROVIDERS, repoTenantOptions, tempDir, testSettings, uniquePgPrefix,
  withPgClient, type Provider,
} from '../helpers/kernel.ts';

interface RawDb {
  columns(table: string): Promise<Array<{ name: string; notnull: boolean }>>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  applied(): Promise<string[]>;
}

function rawDb(provider: Provider, tenants: TenantDatabases, tenant: string): RawDb {
  if (provider === 'sqlite') {
    const run = <T>(fn: (db: Database.Database) => T): T => {
      const db = new Database(tenants.sqliteFile(tenant), { readonly: true });
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    return {
      columns: async (table) => run((db) => (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string; notnull: number }>)
        .map((c) => ({ name: c.name, notnull: c.notnull === 1 }))),
      rows: async (sql) => run((db) => db.prepare(sql).all() as Record<string, unknown>[]),
      applied: async () => run((db) => (db.prepare('SELECT name FROM _fw_migrations ORDER BY rowid').all() as Array<{ name: string }>).map((r) => r.name)),
    };
  }
  const query = (sql: string, params: unknown[] = []) =>
    withPgClient(tenants.pgUrl(tenants.pgDatabase(tenant)), async (client) => (await client.query(sql, params)).rows as Record<string, unknown>[]);
  return {
    columns: async (table) => (await query(
      'SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position', [table],
    )).map((c) => ({ name: c.column_name as string, notnull: c.is_nullable === 'NO' })),
    rows: query,
    applied: async () => (await query('SELECT name FROM _fw_migrations ORDER BY applied_at, name')).map((r) => r.name as string),
  };
}

/** The repository's apps with their chains in `root` (a temp copy), and extra fields on res.organization. */
function withOrgFields(real: ChainApp[], root: string, extra: Record<string, FieldDecl>): ChainApp[] {
  return real.map((a) => ({
    ...a,
    root,
    models: a.name !== 'base' ? a.models : a.models.map((m) => (m.key === 'res.organization' ? { ...m, fields: { ...m.fields, ...extra } } : m)),
  }));
}

describe.each(PROVIDERS)('per-app migration chains on %s', (provider) => {
  const tenant = 'acme';
  let root: string;
  let real: ChainApp[];
  let dataDir: string;
  let pgPrefix: string;
  let apps: ChainApp[];
  let tenants: TenantDatabases;
  let raw: RawDb;
  const website = { website: f.char(200) };
  const tier = { tier: f.char(20, { required: true, default: 'free' }) };

  const open = async (): Promise<TenantDatabases> => new TenantDatabases({
    settings: testSettings({ provider, dataDir, pgPrefix }), ...(await repoTenantOptions(provider, apps)),
  });
  const upgrade = async (): Promise<string[]> => {
    const t = await open();
    try {
      return await t.upgrade(tenant);
    } finally {
      await t.close();
    }
  };

  beforeAll(async () => {
    root = tempDir('project');
    fs.cpSync(path.join(projectLayout().root, 'prisma', 'migrations'), path.join(root, 'prisma', 'migrations'), { recursive: true });
    dataDir = tempDir('mig-data');
    pgPrefix = uniquePgPrefix();
    // a tenant created by a kernel from the committed chains, holding data
    const tk = await bootTestKernel({ provider, dataDir, pgPrefix, settings: { ACTIVE_DOMAINS: 'crm' } });
    // the apps active in that tenant (AI and QA are off by default)
    const active = new Set(tk.kernel.registry.apps.map((a) => a.name));
    real = [kernelApp(), ...(await loadAllApps(projectLayout()))].filter((a) => active.has(a.name));
    apps = real.map((a) => ({ ...a, root }));
    const sys = systemPrincipal(tenant);
    const org = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Acme', code: 'acme' } }, sys);
    await tk.kernel.dispatch('fw.create', { model: 'crm.lead', values: { name: 'Big deal', organization: org.id, expected_revenue: 500 } }, sys);
    await tk.kernel.dispatch('res.user.register', { email: 'ann@acme.test', name: 'Ann', password: 'password-1-long', organization: org.id }, sys);
    await tk.cleanup();
    tenants = await open();
    raw = rawDb(provider, tenants, tenant);
  });

  afterAll(async () => {
    await tenants?.close();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('every committed chain matches its declarations: generating for any app writes nothing', async () => {
    for (const app of apps) {
      expect(pendingChanges(app), app.name).toBeNull();
      expect(await generateAppMigration(root, apps, app.name, { description: 'no change' }), app.name).toBeNull();
    }
  });

  it('a tenant records the chains of its active apps only, kernel first and each app after its dependencies', async () => {
    const applied = await raw.applied();
    expect(applied[0]).toMatch(/^kernel\//);
    expect(applied.findIndex((n) => n.startsWith('base/'))).toBeLessThan(applied.findIndex((n) => n.startsWith('crm.sales/')));
    // AI and QA are off in this tenant: their tables do not exist
    expect(applied.some((n) => n.startsWith('ai/') || n.startsWith('qa/'))).toBe(false);
    expect(await raw.columns('ai_conversation')).toEqual([]);
  });

  it("a field added to a foundation model writes a migration in that app's chain only, altering only its table", async () => {
    apps = withOrgFields(real, root, website);
    const written = await generateAppMigration(root, apps, 'base', { description: 'Add organization website', now: new Date('2020-01-01T00:00:00Z') });
    expect(written?.folder).toMatch(/^\d{14}_add_organization_website$/);
    // named to sort after the app's existing migrations even with a clock behind the last one
    const chain = readChain(apps.find((a) => a.name === 'base')!, provider);
    expect(chain.at(-1)?.name).toBe(`base/${written!.folder}`);
    const sql = written!.sql[provider];
    expect(sql).toMatch(/ALTER TABLE "res_organization" ADD COLUMN\s+"website"/);
    expect(sql).not.toMatch(/CREATE TABLE/);
    const dir = path.join(root, 'prisma', 'migrations', 'base', written!.folder);
    expect(fs.readFileSync(path.join(dir, `${provider}.sql`), 'utf8')).toMatch(/^-- Add organization website \(app base\)\n/);
    const snapshot = JSON.parse(fs.readFileSync(path.join(dir, 'models.json'), 'utf8')) as Array<{ key: string; fields: Record<string, unknown> }>;
    expect(snapshot.find((m) => m.key === 'res.organization')?.fields.website).toEqual({ type: 'char', size: 200 });
  });

  it("an app that depends on the changed one has nothing to generate: another app's change is never in its chain", async () => {
    expect(await generateAppMigration(root, apps, 'crm.sales', { description: 'nothing' })).toBeNull();
    expect(pendingChanges(apps.find((a) => a.name === 'crm.sales')!)).toBeNull();
  });

  it('declarations ahead of the chain are named with the command to run', async () => {
    const ahead = withOrgFields(real, root, { ...website, ...tier });
    expect(pendingChanges(ahead.find((a) => a.name === 'base')!)).toBe('res.organization changed');
    expect(pendingChanges(ahead.find((a) => a.name === 'auth')!)).toBeNull();
  });

  it('upgrade applies only the new migration to a tenant that has rows; the rows are kept and the column exists; a rerun applies nothing', async () => {
    const last = readChain(apps.find((a) => a.name === 'base')!, provider).at(-1)!.name;
    expect(await upgrade()).toEqual([last]);
    expect((await raw.columns('res_organization')).map((c) => c.name)).toContain('website');
    expect(await raw.rows("SELECT name, code, website FROM res_organization WHERE code = 'acme'")).toEqual([{ name: 'Acme', code: 'acme', website: null }]);
    expect(await raw.rows('SELECT name, expected_revenue FROM crm_lead')).toEqual([{ name: 'Big deal', expected_revenue: 500 }]);
    expect(await upgrade()).toEqual([]);
  });

  it('a required field with a default added later fills the existing rows', async () => {
    apps = withOrgFields(real, root, { ...website, ...tier });
    const written = await generateAppMigration(root, apps, 'base', { description: 'organization tier' });
    expect(await upgrade()).toEqual([`base/${written!.folder}`]);
    expect((await raw.columns('res_organization')).find((c) => c.name === 'tier')?.notnull).toBe(true);
    expect(await raw.rows("SELECT name, tier FROM res_organization WHERE code = 'acme'")).toEqual([{ name: 'Acme', tier: 'free' }]);
  });

  it.runIf(provider === 'sqlite')('a change that rebuilds a referenced SQLite table keeps its rows and the rows referencing it (cascade is not triggered)', async () => {
    apps = withOrgFields(real, root, { website: f.char(200, { required: true, default: 'https://example.invalid' }), ...tier });
    const written = await generateAppMigration(root, apps, 'base', { description: 'website required' });
    expect(written!.sql.sqlite).toMatch(/^PRAGMA foreign_keys=OFF;$/m);
    expect(written!.sql.sqlite).toContain('DROP TABLE "res_organization"');
    expect(await upgrade()).toEqual([`base/${written!.folder}`]);
    expect(await raw.rows("SELECT name, website FROM res_organization WHERE code = 'acme'")).toEqual([{ name: 'Acme', website: 'https://example.invalid' }]);
    // crm.lead.organization cascades on delete: a rebuild with foreign keys on would have deleted the lead
    expect(await raw.rows('SELECT l.name FROM crm_lead l JOIN res_organization o ON o.record_uuid = l.organization')).toEqual([{ name: 'Big deal' }]);
    expect(await raw.rows("SELECT u.email FROM res_user u JOIN res_organization o ON o.record_uuid = u.organization WHERE o.code = 'acme'")).toEqual([{ email: 'ann@acme.test' }]);
    expect(await upgrade()).toEqual([]);
  });

  it('a migration needs a description and an app of the project; unknown apps are named', async () => {
    await expectFwError(generateAppMigration(root, apps, 'base', { description: '  ' }), 400, 'MIGRATION_DESCRIPTION_REQUIRED');
    await expectFwError(generateAppMigration(root, apps, 'nosuch.app', { description: 'x' }), 400, 'UNKNOWN_APP');
    // from a team project, fw's foundation apps are not the project's to migrate
    await expectFwError(generateAppMigration(tempDir('team'), apps, 'base', { description: 'x' }), 400, 'FOREIGN_APP');
  });
});

describe.each(PROVIDERS)('tenant databases on %s', (provider) => {
  let dataDir: string;
  let pgPrefix: string;
  let tenants: TenantDatabases;
  let all: string[];

  beforeAll(async () => {
    dataDir = tempDir('tenants');
    pgPrefix = uniquePgPrefix();
    const opts = await repoTenantOptions(provider);
    all = opts.plan.migrations.map((m) => m.name);
    tenants = new TenantDatabases({ settings: testSettings({ provider, dataDir, pgPrefix }), ...opts });
  });
  afterAll(async () => {
    await tenants.close();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('upgrade of a tenant that does not exist yet creates its database and applies every chain in order; a second upgrade applies nothing', async () => {
    expect(await tenants.exists('fresh')).toBe(false);
    expect(await tenants.upgrade('fresh')).toEqual(all);
    expect(all).toEqual(chainsOf([kernelApp(), ...(await loadAllApps(projectLayout()))], provider).map((m) => m.name));
    expect(await tenants.upgrade('fresh')).toEqual([]);
    expect(await tenants.exists('fresh')).toBe(true);
  });

  it('a new tenant is created and migrated on first get, and usable at once', async () => {
    expect(await tenants.list()).not.toContain('first-use');
    const client = await tenants.get('first-use');
    expect(await tenants.list()).toContain('first-use');
    expect(await rawDb(provider, tenants, 'first-use').applied()).toEqual(all);
    const rows = await client.$queryRaw<Array<{ n: number | bigint }>>`SELECT count(*) AS n FROM res_country`;
    expect(Number(rows[0].n)).toBe(0); // migrated but not seeded: seeding is the kernel's onOpen
    expect(await tenants.upgrade('first-use')).toEqual([]);
  });

  it('an if_loaded key the open cannot add is said in a warning once per process, though each open (after an eviction) tries again', async () => {
    const warnings: Array<{ msg: string; extra?: Record<string, unknown> }> = [];
    // a country's id is no res_user's: under cascade such a key cannot be added
    const key = { name: 'res_country_record_uuid_fkey', table: 'res_country', column: 'record_uuid', refTable: 'res_user', onDelete: 'cascade' as const };
    const keyed = new TenantDatabases({
      settings: testSettings({ provider, dataDir, pgPrefix }), ...(await repoTenantOptions(provider)),
      optionalKeys: () => ({ wanted: [key], released: [] }),
      log: (_level, msg, extra) => warnings.push({ msg, extra }),
    });
    try {
      await tenants.upgrade('keyless');
      const insert = "INSERT INTO res_country (record_uuid, updated_at_utc, name, code) VALUES ('00000000-0000-4000-8000-0000000000c1', CURRENT_TIMESTAMP, 'Nowhere', 'NW')";
      if (provider === 'sqlite') {
        const db = new Database(tenants.sqliteFile('keyless'));
        try {
          db.exec(insert);
        } finally {
          db.close();
        }
      } else {
        await withPgClient(tenants.pgUrl(tenants.pgDatabase('keyless')), (c) => c.query(insert));
      }
      await keyed.upgrade('keyless');
      await keyed.upgrade('keyless');
      expect(warnings).toEqual([{
        msg: 'if_loaded key res_country_record_uuid_fkey left as it is: 1 row of res_country point at no res_user row, and on delete cascade cannot empty them; each open tries again (said once per process)',
        extra: expect.objectContaining({ key: 'res_country_record_uuid_fkey' }),
      }]);
    } finally {
      await keyed.close();
    }
  });

  it('concurrent first gets of one tenant share a single open', async () => {
    const [a, b] = await Promise.all([tenants.get('racy'), tenants.get('racy')]);
    expect(a).toBe(b);
    expect(tenants.openTenants()).toContain('racy');
  });

  it('a dropped tenant disappears from the list', async () => {
    await tenants.get('doomed');
    await tenants.drop('doomed');
    expect(await tenants.list()).not.toContain('doomed');
    expect(tenants.openTenants()).not.toContain('doomed');
  });
});
