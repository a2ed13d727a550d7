/**
 * A migration failing on existing rows names the user's table and column — never SQLite's
 * temporary rebuild table "new_<table>" — and says what to do; the tenant is left as it was.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f } from '../../../src/kernel/declare.ts';
import { generateAppMigration } from '../../../src/kernel/migrate/chains.ts';
import { explainFailure } from '../../../src/kernel/migrate/failure.ts';
import { PROVIDERS } from '../../helpers/kernel.ts';
import { ITEM_FIELDS, shopApp, shopRoot, shopTenant, type ShopTenant } from './shop-app.ts';

describe('explainFailure', () => {
  it("maps SQLite's rebuild table back to the user's and names the column of a NOT NULL or UNIQUE failure", () => {
    expect(explainFailure('NOT NULL constraint failed: new_crm_lead.title')).toBe(
      'table crm_lead, column title: a row has no value for it; fill it first in a data step (data.ts, docs/migrations.md), or give the field a default (NOT NULL constraint failed: crm_lead.title)',
    );
    expect(explainFailure('UNIQUE constraint failed: new_crm_lead.code')).toMatch(/^table crm_lead, column code: two rows share a value; .*\(UNIQUE constraint failed: crm_lead\.code\)$/);
  });

  it("names PostgreSQL's table and column of a NOT NULL failure; other messages pass unchanged", () => {
    expect(explainFailure('column "title" of relation "crm_lead" contains null values')).toMatch(/^table crm_lead, column title: a row has no value for it;/);
    expect(explainFailure('relation "nope" does not exist')).toBe('relation "nope" does not exist');
  });
});

describe.each(PROVIDERS)('a migration failing on existing rows on %s', (provider) => {
  let root: string;
  let tenant: ShopTenant;

  beforeAll(async () => {
    root = shopRoot();
    await generateAppMigration(root, [shopApp(root)], 'shop', { description: 'initial' });
    tenant = await shopTenant(provider);
    await tenant.upgrade(shopApp(root));
    await tenant.exec("INSERT INTO shop_item (record_uuid, name, revision, updated_at_utc) VALUES ('00000000-0000-4000-8000-000000000001', 'lamp', 1, '2024-05-01T10:00:00.000Z')");
  });
  afterAll(async () => {
    await tenant?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('making a field with empty rows required fails naming shop_item and note, and leaves the tenant as it was', async () => {
    const app = shopApp(root, { ...ITEM_FIELDS, note: f.text({ required: true }) });
    const written = await generateAppMigration(root, [app], 'shop', { description: 'note required' });
    if (provider === 'sqlite') expect(written!.sql.sqlite).toContain('"new_shop_item"');
    const err = await tenant.upgrade(app).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const message = err instanceof Error ? err.message : '';
    expect(message).toMatch(new RegExp(`^Migration "shop/${written!.folder}" failed and was rolled back: table shop_item, column note: a row has no value for it; fill it first in a data step`));
    expect(message).not.toContain('new_shop_item');
    expect(await tenant.rows('SELECT name, note FROM shop_item')).toEqual([{ name: 'lamp', note: null }]);
  });
});
