/**
 * `fw migrate generate` says what each change does to existing rows, read from the declarations,
 * and refuses without --allow-data-loss a dropped table or column, a narrowed type, and a
 * required column without a default added to a table that may have rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { f } from '../../../src/kernel/declare.ts';
import { chainDir, generateAppMigration } from '../../../src/kernel/migrate/chains.ts';
import { dataEffects, effectLine } from '../../../src/kernel/migrate/safety.ts';
import { expectFwError } from '../../helpers/kernel.ts';
import { ITEM_FIELDS, shopApp, shopRoot } from './shop-app.ts';

const roots: string[] = [];
afterAll(() => { for (const r of roots) fs.rmSync(r, { recursive: true, force: true }); });

/** A project whose shop app has its first migration (ITEM_FIELDS). */
async function started(): Promise<string> {
  const root = shopRoot();
  roots.push(root);
  await generateAppMigration(root, [shopApp(root)], 'shop', { description: 'initial' });
  return root;
}

const lines = (before: typeof ITEM_FIELDS, after: typeof ITEM_FIELDS): string[] =>
  dataEffects(shopApp('').models.map((m) => ({ ...m, fields: before })), shopApp('', after).models, []).map(effectLine);

describe('data effects of a change, from the declarations', () => {
  it('a removed field is a dropped column whose data is lost, one line naming it', () => {
    const { due_at: _, ...rest } = ITEM_FIELDS;
    expect(lines(ITEM_FIELDS, rest)).toEqual(['shop.item.due_at: column dropped — its data is lost']);
  });

  it('narrowed types are named with both types (Char(200) → Char(50), text → char, float → integer); widened ones keep values', () => {
    const narrowed = { ...ITEM_FIELDS, name: f.char(50, { required: true }), note: f.char(100), price: f.integer() };
    expect(lines(ITEM_FIELDS, narrowed)).toEqual([
      'shop.item.name: type narrowed (Char(200) → Char(50)) — values that do not fit are cut or lost',
      'shop.item.note: type narrowed (text → Char(100)) — values that do not fit are cut or lost',
      'shop.item.price: type narrowed (float → integer) — values that do not fit are cut or lost',
    ]);
    const widened = { ...ITEM_FIELDS, code: f.text({ unique: true }), name: f.char(400, { required: true }) };
    expect(dataEffects(shopApp('').models, shopApp('', widened).models, []).map((e) => [effectLine(e), e.loses])).toEqual([
      ['shop.item.name: type widened (Char(200) → Char(400)) — values are kept', false],
      ['shop.item.code: type widened (Char(20) → text) — values are kept', false],
    ]);
  });

  it('an added column says what existing rows hold; required without a default on an existing table loses, in a new table it does not', () => {
    const added = { ...ITEM_FIELDS, color: f.char(20), size: f.integer({ required: true, default: 1 }), sku: f.char(20, { required: true }) };
    const effects = dataEffects(shopApp('').models, shopApp('', added).models, []);
    expect(effects.map((e) => [effectLine(e), e.loses])).toEqual([
      ['shop.item.color: column added — existing rows hold null', false],
      ['shop.item.size: column added — existing rows get 1', false],
      [expect.stringMatching(/^shop\.item\.sku: required column added without a default — the upgrade fails on a table with rows/), true],
    ]);
    const newModel = shopApp('', ITEM_FIELDS, [{ key: 'shop.tag', description: 'Tag', fields: { label: f.char(20, { required: true }) } }]);
    expect(dataEffects(shopApp('').models, newModel.models, []).map((e) => [effectLine(e), e.loses])).toEqual([['shop.tag: table created', false]]);
  });

  it('a removed model is a dropped table; a field becoming required or unique is named but not refused (the upgrade fails instead)', () => {
    const before = shopApp('', ITEM_FIELDS, [{ key: 'shop.tag', description: 'Tag', fields: { label: f.char(20) } }]).models;
    const after = shopApp('', { ...ITEM_FIELDS, note: f.text({ required: true, unique: true }) }).models;
    expect(dataEffects(before, after, []).map((e) => [effectLine(e), e.loses])).toEqual([
      ['shop.item.note: becomes required — the upgrade fails if a row has no value; fill them first in a data step', false],
      ['shop.item.note: becomes unique — the upgrade fails if two rows share a value', false],
      ['shop.tag: table dropped — its rows are lost', true],
    ]);
  });
});

describe('fw migrate generate refuses data loss without --allow-data-loss', () => {
  it('a dropped column is refused with MIGRATION_LOSES_DATA (409) listing it, and nothing is written', async () => {
    const root = await started();
    const { due_at: _, ...rest } = ITEM_FIELDS;
    const before = fs.readdirSync(chainDir(root, 'shop'));
    const err = await expectFwError(generateAppMigration(root, [shopApp(root, rest)], 'shop', { description: 'drop due' }), 409, 'MIGRATION_LOSES_DATA');
    expect(err.message).toContain('shop.item.due_at: column dropped — its data is lost');
    expect(err.details).toEqual({ app: 'shop', effects: ['shop.item.due_at: column dropped — its data is lost'] });
    expect(fs.readdirSync(chainDir(root, 'shop'))).toEqual(before);
  });

  it('a narrowed type and a required column without default are refused together; --allow-data-loss writes the migration with its effects', async () => {
    const root = await started();
    const changed = shopApp(root, { ...ITEM_FIELDS, name: f.char(50, { required: true }), sku: f.char(20, { required: true }) });
    const err = await expectFwError(generateAppMigration(root, [changed], 'shop', { description: 'narrow' }), 409, 'MIGRATION_LOSES_DATA');
    expect(err.details?.effects).toEqual([
      'shop.item.name: type narrowed (Char(200) → Char(50)) — values that do not fit are cut or lost',
      expect.stringMatching(/^shop\.item\.sku: required column added without a default/),
    ]);
    const written = await generateAppMigration(root, [changed], 'shop', { description: 'narrow', allowDataLoss: true });
    expect(written?.effects.filter((e) => e.loses)).toHaveLength(2);
    expect(fs.existsSync(path.join(chainDir(root, 'shop'), written!.folder, 'postgresql.sql'))).toBe(true);
    expect(written!.sql.postgresql).toMatch(/VARCHAR\(50\)/);
  });

  it('an Enum value removed is refused though no SQL changes (rows holding it would no longer read as a declared value); allowed, a migration without SQL records it; a value added needs no migration', async () => {
    const root = await started();
    const withStage = shopApp(root, { ...ITEM_FIELDS, stage: f.enum(['low', 'normal', 'high'], { default: 'normal' }) });
    await generateAppMigration(root, [withStage], 'shop', { description: 'stage' });
    const more = shopApp(root, { ...ITEM_FIELDS, stage: f.enum(['low', 'normal', 'high', 'urgent'], { default: 'normal' }) });
    expect(await generateAppMigration(root, [more], 'shop', { description: 'urgent' })).toBeNull();
    const fewer = shopApp(root, { ...ITEM_FIELDS, stage: f.enum(['normal', 'urgent'], { default: 'normal' }) });
    const before = fs.readdirSync(chainDir(root, 'shop'));
    const err = await expectFwError(generateAppMigration(root, [fewer], 'shop', { description: 'fewer' }), 409, 'MIGRATION_LOSES_DATA');
    expect(err.details?.effects).toEqual([
      'shop.item.stage: enum values removed (low, high) — rows holding them keep a value the model no longer declares; move them to another value in a data step (--data)',
    ]);
    expect(fs.readdirSync(chainDir(root, 'shop'))).toEqual(before);
    const written = await generateAppMigration(root, [fewer], 'shop', { description: 'fewer', allowDataLoss: true, data: true });
    expect(written!.sql.sqlite.trim()).toBe('');
    expect(fs.readFileSync(path.join(chainDir(root, 'shop'), written!.folder, 'sqlite.sql'), 'utf8')).toMatch(/-- nothing to change on sqlite/);
    // recorded: the next run finds nothing to do
    expect(await generateAppMigration(root, [fewer], 'shop', { description: 'again' })).toBeNull();
  });

  it('changes that keep data are written without the option', async () => {
    const root = await started();
    const written = await generateAppMigration(root, [shopApp(root, { ...ITEM_FIELDS, color: f.char(20) })], 'shop', { description: 'color' });
    expect(written?.effects.map(effectLine)).toEqual(['shop.item.color: column added — existing rows hold null']);
  });
});
