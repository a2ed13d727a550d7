/**
 * Migrations end to end: `generateMigration` diffs the last recorded schema against the current
 * declarations and writes versioned SQL; `upgrade` applies what a tenant lacks, keeps its data,
 * and a rerun changes nothing. Runs against a temp copy of prisma/migrations, never the real one.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantDatabases } from '../../src/kernel/db/tenants.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import type { DbProvider } from '../../src/kernel/generate/prisma-schema.ts';
import { generateMigration, migrationsDir, readStoredMigrations } from '../../src/kernel/migrate/store.ts';
import { PROJECT_ROOT, projectLayout, type ProjectLayout } from '../../src/kernel/modules/loader.ts';
import { bootTestKernel, dropPgDatabases, PROVIDERS, tempDir, testSettings, uniquePgPrefix, withPgClient, type Provider } from '../helpers/kernel.ts';

/**
 * A changed declaration, expressed on the schema text: the last recorded snapshot with extra
 * columns on res.organization (what the generator prints after adding those fields).
 */
function withOrgColumns(snapshot: string, lines: string[]): string {
  const at = snapshot.indexOf('model ResOrganization {');
  if (at < 0) throw new Error('snapshot has no ResOrganization model');
  const eol = snapshot.indexOf('\n', at) + 1;
  return snapshot.slice(0, eol) + lines.map((l) => `  ${l}\n`).join('') + snapshot.slice(eol);
}

/** Column declarations per provider, as the generator prints Char(n) and defaults. */
const col = (provider: DbProvider, name: string, type: string, attrs = '', size?: number) =>
  `${name} ${type} ${attrs}${provider === 'postgresql' && size ? ` @db.VarChar(${size})` : ''}`.trimEnd();

const only = (provider: DbProvider, text: string) => ({ [provider]: text }) as Record<DbProvider, string>;

/** A project root holding a copy of the committed migrations; apps and schema stay the real ones. */
function tempProject(): ProjectLayout {
  const root = tempDir('project');
  fs.cpSync(path.join(PROJECT_ROOT, 'prisma', 'migrations'), path.join(root, 'prisma', 'migrations'), { recursive: true });
  return { ...projectLayout(), root };
}

interface RawDb {
  columns(table: string): Promise<Array<{ name: string; notnull: boolean; dflt: string | null }>>;
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
      columns: async (table) => run((db) => (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string; notnull: number; dflt_value: string | null }>)
        .map((c) => ({ name: c.name, notnull: c.notnull === 1, dflt: c.dflt_value }))),
      rows: async (sql) => run((db) => db.prepare(sql).all() as Record<string, unknown>[]),
      applied: async () => run((db) => (db.prepare('SELECT name FROM _fw_migrations ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name)),
    };
  }
  const query = (sql: string, params: unknown[] = []) =>
    withPgClient(tenants.pgUrl(tenants.pgDatabase(tenant)), async (client) => (await client.query(sql, params)).rows as Record<string, unknown>[]);
  return {
    columns: async (table) => (await query(
      'SELECT column_name, is_nullable, column_default FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position', [table],
    )).map((c) => ({ name: c.column_name as string, notnull: c.is_nullable === 'NO', dflt: c.column_default as string | null })),
    rows: query,
    applied: async () => (await query('SELECT name FROM _fw_migrations ORDER BY name')).map((r) => r.name as string),
  };
}

describe.each(PROVIDERS)('migrate generate + upgrade on %s', (provider) => {
  const tenant = 'acme';
  let layout: ProjectLayout;
  let dataDir: string;
  let pgPrefix: string;
  let tenants: TenantDatabases;
  let raw: RawDb;
  /** The schema after the last committed migration. */
  let s0: string;
  const committed = () => readStoredMigrations(projectLayout(), provider).map((m) => m.name);
  const website = () => col(provider, 'website', 'String?', '', 200);
  const tier = () => col(provider, 'tier', 'String', '@default("free")', 20);

  beforeAll(async () => {
    layout = tempProject();
    s0 = fs.readFileSync(path.join(migrationsDir(layout, provider), committed().at(-1)!, 'schema.prisma'), 'utf8');
    dataDir = tempDir('mig-data');
    pgPrefix = uniquePgPrefix();
    // a tenant created by a kernel from the committed migrations, holding data
    const tk = await bootTestKernel({ provider, layout, dataDir, pgPrefix });
    const sys = systemPrincipal(tenant);
    const org = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Acme', code: 'acme' } }, sys);
    await tk.kernel.dispatch('fw.create', { model: 'crm.lead', values: { name: 'Big deal', organization: org.id, expected_revenue: 500 } }, sys);
    await tk.kernel.dispatch('res.user.register', { email: 'ann@acme.test', name: 'Ann', password: 'password-1', organization: org.id }, sys);
    await tk.cleanup();
    tenants = new TenantDatabases({ settings: testSettings({ provider, dataDir, pgPrefix }), migrations: [] });
    raw = rawDb(provider, tenants, tenant);
  });

  afterAll(async () => {
    await tenants?.close();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(layout.root, { recursive: true, force: true });
  });

  const upgrade = () => new TenantDatabases({
    settings: testSettings({ provider, dataDir, pgPrefix }),
    migrations: readStoredMigrations(layout, provider),
  }).upgrade(tenant);

  it('generate with the last recorded schema unchanged writes nothing', async () => {
    expect(await generateMigration(layout, only(provider, s0), { description: 'no change', app: 'base' })).toEqual([]);
    expect(readStoredMigrations(layout, provider).map((m) => m.name)).toEqual(committed());
  });

  it('the tenant created on first use recorded every committed migration', async () => {
    expect(await raw.applied()).toEqual(committed());
  });

  it('adding an optional field to an existing model writes a second migration (ALTER TABLE … ADD COLUMN) with its schema snapshot', async () => {
    const schema = withOrgColumns(s0, [website()]);
    const written = await generateMigration(layout, only(provider, schema), {
      description: 'Add organization website', app: 'base', now: new Date('2020-01-01T00:00:00Z'),
    });
    expect(written).toHaveLength(1);
    const [m] = written;
    expect(m.provider).toBe(provider);
    expect(m.name).toMatch(/^\d{14}_base_add_organization_website$/);
    // named to sort after every existing migration even with a clock behind the last one
    expect(m.name > committed().at(-1)!).toBe(true);
    expect(m.sql).toMatch(/ALTER TABLE "res_organization" ADD COLUMN\s+"website"/);
    const dir = path.join(migrationsDir(layout, provider), m.name);
    expect(fs.readFileSync(path.join(dir, 'schema.prisma'), 'utf8')).toBe(schema);
    expect(fs.readFileSync(path.join(dir, 'migration.sql'), 'utf8')).toMatch(/^-- Add organization website \(app base\)\n/);
    expect(readStoredMigrations(layout, provider).map((x) => x.name)).toEqual([...committed(), m.name]);
  });

  it('generating again without a declaration change writes nothing', async () => {
    const again = await generateMigration(layout, only(provider, withOrgColumns(s0, [website()])), { description: 'again', app: 'base' });
    expect(again).toEqual([]);
  });

  it('upgrade applies only the new migration to a tenant that has rows; the rows are kept and the column exists', async () => {
    const stored = readStoredMigrations(layout, provider).map((m) => m.name);
    expect(await upgrade()).toEqual([stored.at(-1)]);
    expect((await raw.columns('res_organization')).map((c) => c.name)).toContain('website');
    expect(await raw.rows("SELECT name, code, website FROM res_organization WHERE code = 'acme'")).toEqual([{ name: 'Acme', code: 'acme', website: null }]);
    expect(await raw.rows('SELECT name, expected_revenue FROM crm_lead')).toEqual([{ name: 'Big deal', expected_revenue: 500 }]);
    expect((await raw.rows('SELECT count(*) AS n FROM res_country'))[0].n).toEqual(provider === 'sqlite' ? 250 : '250');
    expect(await raw.applied()).toEqual(stored);
  });

  it('rerunning upgrade applies nothing', async () => {
    expect(await upgrade()).toEqual([]);
    expect(await upgrade()).toEqual([]);
  });

  it('a required field with a default added later fills the existing rows', async () => {
    const written = await generateMigration(layout, only(provider, withOrgColumns(s0, [website(), tier()])), { description: 'organization tier', app: 'base' });
    expect(written).toHaveLength(1);
    expect(await upgrade()).toEqual([written[0].name]);
    const tierColumn = (await raw.columns('res_organization')).find((c) => c.name === 'tier');
    expect(tierColumn?.notnull).toBe(true);
    expect(await raw.rows("SELECT name, tier FROM res_organization WHERE code = 'acme'")).toEqual([{ name: 'Acme', tier: 'free' }]);
  });

  it('a kernel booted on the upgraded project still reads and writes the old rows', async () => {
    const tk = await bootTestKernel({ provider, layout, dataDir, pgPrefix });
    try {
      const sys = systemPrincipal(tenant);
      const orgs = await tk.kernel.dispatch<{ items: Array<{ id: string; name: string }> }>('fw.search', { model: 'res.organization', domain: [['code', '=', 'acme']] }, sys);
      expect(orgs.items.map((o) => o.name)).toEqual(['Acme']);
      expect(await tk.kernel.dispatch('fw.count', { model: 'crm.lead' }, sys)).toEqual({ count: 1 });
      await tk.kernel.dispatch('fw.update', { model: 'res.organization', id: orgs.items[0].id, values: { name: 'Acme Inc' } }, sys);
      // the seed ran once per app version: reopening after an upgrade adds no second admin
      expect(await tk.kernel.dispatch('fw.count', { model: 'res.user', domain: [['role', '=', 'admin']] }, sys)).toEqual({ count: 1 });
    } finally {
      await tk.cleanup();
    }
  });

  it.runIf(provider === 'sqlite')('a change that rebuilds a referenced SQLite table keeps its rows and the rows referencing it (cascade is not triggered)', async () => {
    const written = await generateMigration(layout, only(provider, withOrgColumns(s0, [col(provider, 'website', 'String', '@default("https://example.invalid")', 200), tier()])), { description: 'website required', app: 'base' });
    expect(written).toHaveLength(1);
    expect(written[0].sql).toMatch(/^PRAGMA foreign_keys=OFF;$/m);
    expect(written[0].sql).toContain('DROP TABLE "res_organization"');
    expect(await upgrade()).toEqual([written[0].name]);
    expect(await raw.rows("SELECT name, website FROM res_organization WHERE code = 'acme'")).toEqual([{ name: 'Acme Inc', website: 'https://example.invalid' }]);
    // crm.lead.organization cascades on delete: a rebuild with foreign keys on would have deleted the lead
    expect(await raw.rows('SELECT l.name FROM crm_lead l JOIN res_organization o ON o.record_uuid = l.organization')).toEqual([{ name: 'Big deal' }]);
    // res.user.organization is set null on delete: the user keeps its organization
    expect(await raw.rows("SELECT u.email FROM res_user u JOIN res_organization o ON o.record_uuid = u.organization WHERE o.code = 'acme'")).toEqual([{ email: 'ann@acme.test' }]);
    expect(await upgrade()).toEqual([]);
  });
});

describe.each(PROVIDERS)('tenant databases on %s', (provider) => {
  let dataDir: string;
  let pgPrefix: string;
  let tenants: TenantDatabases;
  const all = readStoredMigrations(projectLayout(), provider);

  beforeAll(() => {
    dataDir = tempDir('tenants');
    pgPrefix = uniquePgPrefix();
    tenants = new TenantDatabases({ settings: testSettings({ provider, dataDir, pgPrefix }), migrations: all });
  });
  afterAll(async () => {
    await tenants.close();
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('upgrade of a tenant that does not exist yet creates its database and applies every migration; a second upgrade applies nothing', async () => {
    expect(await tenants.exists('fresh')).toBe(false);
    expect(await tenants.upgrade('fresh')).toEqual(all.map((m) => m.name));
    expect(await tenants.upgrade('fresh')).toEqual([]);
    expect(await tenants.exists('fresh')).toBe(true);
  });

  it('a new tenant is created and migrated on first get, and usable at once', async () => {
    expect(await tenants.list()).not.toContain('first-use');
    const client = await tenants.get('first-use');
    expect(await tenants.list()).toContain('first-use');
    expect(await rawDb(provider, tenants, 'first-use').applied()).toEqual(all.map((m) => m.name));
    const rows = await client.$queryRaw<Array<{ n: number | bigint }>>`SELECT count(*) AS n FROM res_country`;
    expect(Number(rows[0].n)).toBe(0); // migrated but not seeded: seeding is the kernel's onOpen
    expect(await tenants.upgrade('first-use')).toEqual([]);
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
