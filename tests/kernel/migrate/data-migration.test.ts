/**
 * A migration's data.ts runs in the migration's transaction where "-- fw:data" stands in its SQL
 * (after all of it without the marker), on both engines; its text is part of the checksum; and a
 * failure anywhere rolls the SQL and the data step back together.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f } from '../../../src/kernel/declare.ts';
import { chainDir, generateAppMigration, readChain } from '../../../src/kernel/migrate/chains.ts';
import { DATA_STUB, migrationChecksum } from '../../../src/kernel/migrate/data-migration.ts';
import { sha256Hex } from '../../../src/kernel/migrate/runner.ts';
import { PROVIDERS } from '../../helpers/kernel.ts';
import { ITEM_FIELDS, shopApp, shopRoot, shopTenant, type ShopTenant } from './shop-app.ts';

/** Fills the new `label` column from `name` through the Kysely the step is given. */
const BACKFILL = `import type { DataMigrationContext } from '../../../../../src/kernel/migrate/data-context.ts';

export default async function ({ db }: DataMigrationContext): Promise<void> {
  const rows = await db.selectFrom('shop_item').select(['record_uuid', 'name']).where('label', 'is', null).execute();
  for (const row of rows) {
    await db.updateTable('shop_item').set({ label: String(row.name).toUpperCase() }).where('record_uuid', '=', row.record_uuid).execute();
  }
}
`;

const THROWS = `export default async function ({ db }: { db: { deleteFrom(t: string): { execute(): Promise<unknown> } } }): Promise<void> {
  await db.deleteFrom('shop_item').execute();
  throw new Error('the data step gave up');
}
`;

describe.each(PROVIDERS)('data migrations on %s', (provider) => {
  let root: string;
  let tenant: ShopTenant;
  const withLabel = { ...ITEM_FIELDS, label: f.char(200) };

  beforeAll(async () => {
    root = shopRoot();
    await generateAppMigration(root, [shopApp(root)], 'shop', { description: 'initial' });
    tenant = await shopTenant(provider);
    await tenant.upgrade(shopApp(root));
    await tenant.exec(`INSERT INTO shop_item (record_uuid, name, revision, updated_at_utc) VALUES
      ('00000000-0000-4000-8000-000000000001', 'lamp', 1, '2024-05-01T10:00:00.000Z'),
      ('00000000-0000-4000-8000-000000000002', 'desk', 1, '2024-05-01T10:00:00.000Z')`);
  });
  afterAll(async () => {
    await tenant?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('--data writes a data.ts stub and the marker after the SQL; the checksum covers data.ts', async () => {
    const written = await generateAppMigration(root, [shopApp(root, withLabel)], 'shop', { description: 'label', data: true });
    const dir = path.join(chainDir(root, 'shop'), written!.folder);
    expect(fs.readFileSync(path.join(dir, 'data.ts'), 'utf8')).toBe(DATA_STUB);
    const sql = fs.readFileSync(path.join(dir, `${provider}.sql`), 'utf8');
    expect(sql).toMatch(/ADD COLUMN\s+"label"[\s\S]*\n-- fw:data\n$/);
    fs.writeFileSync(path.join(dir, 'data.ts'), BACKFILL);
    const m = readChain(shopApp(root), provider).at(-1)!;
    expect(m.data?.source).toBe(BACKFILL);
    expect(m.checksum).toBe(migrationChecksum(sql, { source: BACKFILL }));
    expect(m.checksum).not.toBe(sha256Hex(sql));
  });

  it('the backfill runs after the column is added and before a later migration makes it NOT NULL: every row keeps a value', async () => {
    expect(await tenant.upgrade(shopApp(root, withLabel))).toHaveLength(1);
    expect(await tenant.rows('SELECT name, label FROM shop_item ORDER BY name')).toEqual([{ name: 'desk', label: 'DESK' }, { name: 'lamp', label: 'LAMP' }]);
    const required = shopApp(root, { ...ITEM_FIELDS, label: f.char(200, { required: true }) });
    await generateAppMigration(root, [required], 'shop', { description: 'label required' });
    expect(await tenant.upgrade(required)).toHaveLength(1);
    expect(await tenant.rows('SELECT label FROM shop_item ORDER BY label')).toEqual([{ label: 'DESK' }, { label: 'LAMP' }]);
  });

  it('statements below the marker run after the data step, in the same migration', async () => {
    const app = shopApp(root, { ...ITEM_FIELDS, label: f.char(200, { required: true }), code2: f.char(20) });
    const written = await generateAppMigration(root, [app], 'shop', { description: 'code2', data: true });
    const dir = path.join(chainDir(root, 'shop'), written!.folder);
    const file = path.join(dir, `${provider}.sql`);
    // below the marker: it sees the values the data step wrote (above it, code2 was still null)
    fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}UPDATE "shop_item" SET "code2" = upper("code2");\n`);
    fs.writeFileSync(path.join(dir, 'data.ts'), BACKFILL.replaceAll("'label'", "'code2'").replace('label: String(row.name).toUpperCase()', 'code2: String(row.name).slice(0, 2)'));
    expect(await tenant.upgrade(app)).toEqual([`shop/${written!.folder}`]);
    expect(await tenant.rows('SELECT code2 FROM shop_item ORDER BY code2')).toEqual([{ code2: 'DE' }, { code2: 'LA' }]);
  });

  it('a data step that throws rolls back its own writes and the SQL before it; the migration is not recorded', async () => {
    const app = shopApp(root, { ...ITEM_FIELDS, label: f.char(200, { required: true }), code2: f.char(20), color: f.char(20) });
    const written = await generateAppMigration(root, [app], 'shop', { description: 'color', data: true });
    fs.writeFileSync(path.join(chainDir(root, 'shop'), written!.folder, 'data.ts'), THROWS);
    await expect(tenant.upgrade(app)).rejects.toThrow(new RegExp(`Migration "shop/${written!.folder}" failed and was rolled back: the data step gave up`));
    expect(await tenant.columns('shop_item')).not.toContain('color');
    expect(await tenant.rows('SELECT count(*) AS n FROM shop_item')).toEqual([{ n: provider === 'postgresql' ? '2' : 2 }]);
  });
});
