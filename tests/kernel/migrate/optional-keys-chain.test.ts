/**
 * An `if_loaded` Reference through an app's own chain, on a real tenant of each engine: no
 * migration holds its key; the tenant's open adds it; a later migration of the app that rebuilds
 * the table on SQLite loses it and the next open puts it back, rows and new columns kept; when
 * the Reference stops being `if_loaded`, the migration takes over the key (on PostgreSQL it first
 * drops the one the open added, which the engine's ADD CONSTRAINT would otherwise find there).
 * When it becomes a plain uuid column, the key goes (on SQLite by the next open, since no diff
 * rebuilds the table) and the column takes any value.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOptionalKeys, optionalKeysOf, releasedKeysOf } from '../../../src/kernel/db/optional-keys.ts';
import { f, type FieldDecl, type ModelDecl } from '../../../src/kernel/declare.ts';
import { ddlShape, generateAppMigration, pendingChanges, readChain, type ChainApp } from '../../../src/kernel/migrate/chains.ts';
import { resolveModel } from '../../../src/kernel/registry/model.ts';
import { PROVIDERS } from '../../helpers/kernel.ts';
import { ITEM_FIELDS, shopApp, shopRoot, shopTenant, type ShopTenant } from './shop-app.ts';

const DOC: ModelDecl = { key: 'shop.doc', description: 'Document', fields: { title: f.char(50) } };
const DOC_ID = '00000000-0000-4000-8000-0000000000d1';
const ITEM_ID = '00000000-0000-4000-8000-0000000000a1';

describe.each(PROVIDERS)('an if_loaded Reference through its app\'s chain on %s', (provider) => {
  let root: string;
  let tenant: ShopTenant;
  const app = (fields: Record<string, FieldDecl>): ChainApp => shopApp(root, fields, [DOC]);
  const keysOf = (a: ChainApp) => optionalKeysOf(a.models.map((d) => resolveModel(d, 'shop')));
  /** shop_item's foreign keys as `column>table`. */
  const itemKeys = async (): Promise<string[]> => (provider === 'sqlite'
    ? await tenant.rows(`SELECT "from" || '>' || "table" AS k FROM pragma_foreign_key_list('shop_item')`)
    : await tenant.rows(`SELECT a.attname || '>' || r.relname AS k FROM pg_constraint c JOIN pg_class r ON r.oid = c.confrelid
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] WHERE c.contype = 'f' AND c.conrelid = 'shop_item'::regclass`))
    .map((r) => String(r.k)).sort();
  const step1 = { ...ITEM_FIELDS, doc_id: f.reference('shop.doc', { if_loaded: true }) };
  const step2 = { ...step1, note: f.text({ required: true, default: '' }), color: f.char(20) };
  const step3 = { ...step2, doc_id: f.reference('shop.doc') };

  beforeAll(async () => {
    root = shopRoot();
    tenant = await shopTenant(provider);
  });
  afterAll(async () => {
    await tenant.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('no migration holds the key; the open adds it', async () => {
    await generateAppMigration(root, [app(step1)], 'shop', { description: 'initial' });
    expect(readChain(app(step1), provider)[0]!.sql).not.toMatch(/shop_item_doc_id_fkey|FOREIGN KEY \("doc_id"\)/);
    await tenant.upgrade(app(step1));
    expect(await itemKeys()).toEqual([]);
    expect((await ensureOptionalKeys(tenant.target, keysOf(app(step1)))).added).toEqual(['shop_item_doc_id_fkey']);
    expect(await itemKeys()).toEqual(['doc_id>shop_doc']);
    await tenant.exec(`INSERT INTO shop_doc (record_uuid, updated_at_utc, title) VALUES ('${DOC_ID}', CURRENT_TIMESTAMP, 'Spec')`);
    await tenant.exec(`INSERT INTO shop_item (record_uuid, updated_at_utc, name, note, doc_id) VALUES ('${ITEM_ID}', CURRENT_TIMESTAMP, 'Bolt', 'M8', '${DOC_ID}')`);
  });

  it("changing an if_loaded Reference's on_delete or target needs no migration (nothing pending, so the server boots) and the open replaces the key", async () => {
    const other: ModelDecl = { key: 'shop.sheet', description: 'Sheet', fields: { title: f.char(50) } };
    const cascade = { ...step1, doc_id: f.reference('shop.doc', { if_loaded: true, on_delete: 'cascade' }) };
    const elsewhere = { ...step1, doc_id: f.reference('shop.sheet', { if_loaded: true }) };
    expect(pendingChanges(app(cascade))).toBeNull();
    // the generated client prints it as a relation: for it, the change still asks for fw generate
    expect(ddlShape(app(cascade).models, 'client')).not.toEqual(ddlShape(app(step1).models, 'client'));
    expect(pendingChanges(shopApp(root, elsewhere, [DOC, other]))).toBe('shop.sheet added');
    expect(await generateAppMigration(root, [app(cascade)], 'shop', { description: 'cascade' })).toBeNull();
    expect(await ensureOptionalKeys(tenant.target, keysOf(app(cascade)))).toMatchObject({ added: ['shop_item_doc_id_fkey'], dropped: ['shop_item_doc_id_fkey'] });
    // back as step 1 declares it, for the steps below
    expect(await ensureOptionalKeys(tenant.target, keysOf(app(step1)))).toMatchObject({ added: ['shop_item_doc_id_fkey'], dropped: ['shop_item_doc_id_fkey'] });
  });

  it("the app's next migration (a rebuild on SQLite) and the open after it: the key is there, with the rows and the new column", async () => {
    await generateAppMigration(root, [app(step2)], 'shop', { description: 'note required, color' });
    await tenant.upgrade(app(step2));
    // SQLite rebuilt shop_item from the chain's declarations, which have no key
    expect(await itemKeys()).toEqual(provider === 'sqlite' ? [] : ['doc_id>shop_doc']);
    expect((await ensureOptionalKeys(tenant.target, keysOf(app(step2)))).added).toEqual(provider === 'sqlite' ? ['shop_item_doc_id_fkey'] : []);
    expect(await itemKeys()).toEqual(['doc_id>shop_doc']);
    expect(await tenant.columns('shop_item')).toEqual(expect.arrayContaining(['note', 'color', 'doc_id']));
    expect((await tenant.rows('SELECT name, doc_id FROM shop_item')).map((r) => [r.name, String(r.doc_id)])).toEqual([['Bolt', DOC_ID]]);
  });

  it('the Reference no longer if_loaded: its migration takes the key over and applies on a tenant where the open had added it', async () => {
    const written = await generateAppMigration(root, [app(step3)], 'shop', { description: 'doc always there' });
    expect(written!.sql.postgresql).toContain('alter table "shop_item" drop constraint if exists "shop_item_doc_id_fkey"');
    expect(written!.sql.sqlite).not.toContain('drop constraint');
    await tenant.upgrade(app(step3));
    expect(await itemKeys()).toEqual(['doc_id>shop_doc']);
    expect(keysOf(app(step3))).toEqual([]);
    expect((await tenant.rows('SELECT doc_id FROM shop_item')).map((r) => String(r.doc_id))).toEqual([DOC_ID]);
  });
});

describe.each(PROVIDERS)('an if_loaded Reference that becomes a plain uuid column on %s', (provider) => {
  let root: string;
  let tenant: ShopTenant;
  const app = (fields: Record<string, FieldDecl>): ChainApp => shopApp(root, fields, [DOC]);
  const models = (a: ChainApp) => a.models.map((d) => resolveModel(d, 'shop'));
  /** What a tenant's open does after its migrations. */
  const open = (a: ChainApp) => ensureOptionalKeys(tenant.target, optionalKeysOf(models(a)), new Set(), releasedKeysOf(models(a)));
  const itemKeyCount = async (): Promise<number> => Number((await tenant.rows(provider === 'sqlite'
    ? "SELECT count(*) AS n FROM pragma_foreign_key_list('shop_item')"
    : "SELECT count(*) AS n FROM pg_constraint WHERE contype = 'f' AND conrelid = 'shop_item'::regclass"))[0]!.n);
  const referencing = { ...ITEM_FIELDS, doc_id: f.reference('shop.doc', { if_loaded: true }) };
  const plain = { ...ITEM_FIELDS, doc_id: f.uuid() };

  beforeAll(async () => {
    root = shopRoot();
    tenant = await shopTenant(provider);
    await generateAppMigration(root, [app(referencing)], 'shop', { description: 'initial' });
    await tenant.upgrade(app(referencing));
    expect((await open(app(referencing))).added).toEqual(['shop_item_doc_id_fkey']);
  });
  afterAll(async () => {
    await tenant.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the key goes (on SQLite the open takes it back: the migration only drops the index), and the column then takes a value that points nowhere', async () => {
    const written = await generateAppMigration(root, [app(plain)], 'shop', { description: 'doc id is a plain uuid' });
    expect(written!.sql.sqlite).not.toMatch(/CREATE TABLE/);
    await tenant.upgrade(app(plain));
    expect(await itemKeyCount()).toBe(provider === 'sqlite' ? 1 : 0);
    expect(await open(app(plain))).toMatchObject({ dropped: provider === 'sqlite' ? ['shop_item_doc_id_fkey'] : [], skipped: [] });
    expect(await itemKeyCount()).toBe(0);
    await tenant.exec(`INSERT INTO shop_item (record_uuid, updated_at_utc, name, doc_id) VALUES ('${ITEM_ID}', CURRENT_TIMESTAMP, 'Bolt', '00000000-0000-4000-8000-0000000000ff')`);
    expect((await tenant.rows('SELECT doc_id FROM shop_item')).map((r) => String(r.doc_id))).toEqual(['00000000-0000-4000-8000-0000000000ff']);
    // and the next open has nothing to do
    expect(await open(app(plain))).toMatchObject({ added: [], dropped: [] });
  });
});
