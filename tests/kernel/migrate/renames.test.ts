/**
 * A field declared renamed_from becomes a column rename, never drop + add: the rows keep their
 * values on both engines, a renamed_from left in place writes nothing more, and one naming a
 * field that never existed is an error.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f } from '../../../src/kernel/declare.ts';
import { generateAppMigration, type ChainApp } from '../../../src/kernel/migrate/chains.ts';
import { effectLine } from '../../../src/kernel/migrate/safety.ts';
import { expectFwError, PROVIDERS } from '../../helpers/kernel.ts';
import { ITEM_FIELDS, shopApp, shopRoot, shopTenant, type ShopTenant } from './shop-app.ts';

describe.each(PROVIDERS)('renamed_from on %s', (provider) => {
  let root: string;
  let tenant: ShopTenant;
  const { due_at: _due, code: _code, ...others } = ITEM_FIELDS;
  const renamed = {
    ...others,
    deadline: f.datetime({ renamed_from: 'due_at' }),
    sku: f.char(40, { unique: true, renamed_from: 'code' }),
  };
  const line = (fields: ChainApp['models'][number]['fields']): ChainApp['models'] => [{ key: 'shop.line', description: 'Line', fields }];
  const lineBefore = line({ item: f.reference('shop.item', { on_delete: 'cascade' }) });
  const lineAfter = line({ product: f.reference('shop.item', { on_delete: 'cascade', renamed_from: 'item' }) });

  beforeAll(async () => {
    root = shopRoot();
    await generateAppMigration(root, [shopApp(root, ITEM_FIELDS, lineBefore)], 'shop', { description: 'initial' });
    tenant = await shopTenant(provider);
    await tenant.upgrade(shopApp(root, ITEM_FIELDS, lineBefore));
    await tenant.exec("INSERT INTO shop_item (record_uuid, name, code, due_at, revision, updated_at_utc) VALUES ('00000000-0000-4000-8000-000000000001', 'Lamp', 'L-1', '2024-05-01T10:00:00.000Z', 1, '2024-05-01T10:00:00.000Z')");
    await tenant.exec("INSERT INTO shop_line (record_uuid, item, revision, updated_at_utc) VALUES ('00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-000000000001', 1, '2024-05-01T10:00:00.000Z')");
  });
  afterAll(async () => {
    await tenant?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the migration renames the columns first (no DROP COLUMN), and says their data is kept', async () => {
    const written = await generateAppMigration(root, [shopApp(root, renamed, lineAfter)], 'shop', { description: 'rename due_at and code' });
    const sql = written!.sql[provider];
    expect(sql).toMatch(/^-- shop\.item\.due_at renamed to deadline: the column keeps its data\nalter table "shop_item" rename column "due_at" to "deadline";/);
    expect(sql).toContain('alter table "shop_item" rename column "code" to "sku";');
    expect(sql).not.toMatch(/DROP COLUMN/i);
    // the unique index is re-created under the new column's name
    expect(sql).toContain('drop index "shop_item_code_key";');
    expect(sql).toMatch(/CREATE UNIQUE INDEX "shop_item_sku_key"/);
    // a Reference's index and (PostgreSQL) foreign key too
    expect(sql).toContain('drop index "shop_line_item_idx";');
    expect(sql).toMatch(/CREATE INDEX "shop_line_product_idx"/);
    if (provider === 'postgresql') expect(sql).toContain('alter table "shop_line" drop constraint if exists "shop_line_item_fkey";');
    expect(written!.effects.map(effectLine)).toEqual([
      'shop.item.deadline: column renamed from due_at — its data is kept',
      'shop.item.sku: column renamed from code — its data is kept',
      'shop.line.product: column renamed from item — its data is kept',
      'shop.item.sku: type widened (Char(20) → Char(40)) — values are kept',
    ]);
  });

  it('upgrading keeps the row values under the new names, and the new unique index holds', async () => {
    expect(await tenant.upgrade(shopApp(root, renamed, lineAfter))).toHaveLength(1);
    const columns = await tenant.columns('shop_item');
    expect(columns).toEqual(expect.arrayContaining(['deadline', 'sku']));
    expect(columns).not.toContain('due_at');
    const [row] = await tenant.rows('SELECT name, sku, deadline FROM shop_item');
    expect(row.name).toBe('Lamp');
    expect(row.sku).toBe('L-1');
    expect(new Date(String(row.deadline instanceof Date ? row.deadline.toISOString() : row.deadline)).toISOString()).toBe('2024-05-01T10:00:00.000Z');
    await expect(tenant.exec("INSERT INTO shop_item (record_uuid, name, sku, revision, updated_at_utc) VALUES ('00000000-0000-4000-8000-000000000002', 'Dup', 'L-1', 1, '2024-05-01T10:00:00.000Z')"))
      .rejects.toThrow(/unique|duplicate/i);
    expect(await tenant.rows('SELECT product FROM shop_line')).toEqual([{ product: '00000000-0000-4000-8000-000000000001' }]);
    // the foreign key now holds on the renamed column, and still cascades
    await expect(tenant.exec("INSERT INTO shop_line (record_uuid, product, revision, updated_at_utc) VALUES ('00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-0000000000ff', 1, '2024-05-01T10:00:00.000Z')"))
      .rejects.toThrow(/foreign key/i);
  });

  it('leaving renamed_from in place after the rename migration writes nothing more', async () => {
    expect(await generateAppMigration(root, [shopApp(root, renamed, lineAfter)], 'shop', { description: 'again' })).toBeNull();
  });

  it('renamed_from naming a field that never existed is RENAMED_FROM_UNKNOWN, as is one whose old field is still declared', async () => {
    await expectFwError(generateAppMigration(root, [shopApp(root, { ...renamed, color: f.char(20, { renamed_from: 'colour' }) })], 'shop', { description: 'x' }), 400, 'RENAMED_FROM_UNKNOWN');
    await expectFwError(generateAppMigration(root, [shopApp(root, { ...renamed, title: f.char(200, { renamed_from: 'name' }) })], 'shop', { description: 'x' }), 400, 'RENAMED_FROM_UNKNOWN');
  });
});
