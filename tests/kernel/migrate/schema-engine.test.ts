import { describe, expect, it } from 'vitest';
import { diffDatamodels, type DbProvider } from '../../../src/kernel/migrate/schema-engine.ts';
import { schemaV } from './fixtures.ts';

const providers: DbProvider[] = ['sqlite', 'postgresql'];

describe('diffDatamodels', () => {
  describe.each(providers)('%s', (provider) => {
    it('a diff from the empty database creates every mapped table, unique index and foreign key', async () => {
      const sql = await diffDatamodels(provider, null, schemaV(provider, 1));
      expect(sql).toMatch(/CREATE TABLE "authors"/);
      expect(sql).toMatch(/CREATE TABLE "books"/);
      expect(sql).toMatch(/CREATE UNIQUE INDEX "authors_record_uuid_key" ON "authors"\s*\("record_uuid"\)/);
      expect(sql).toMatch(/FOREIGN KEY \("author_uuid"\) REFERENCES "authors"\s*\("record_uuid"\)/);
      // The dialect follows the datamodel, not the engine's (SQLite) connection.
      if (provider === 'postgresql') expect(sql).toMatch(/"id" SERIAL NOT NULL/);
      else expect(sql).toMatch(/"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT/);
    });

    it('a diff between identical datamodels is the empty string', async () => {
      expect(await diffDatamodels(provider, schemaV(provider, 2), schemaV(provider, 2))).toBe('');
    });

    it('adding an optional field to an existing model yields an ALTER TABLE ADD COLUMN', async () => {
      const sql = await diffDatamodels(provider, schemaV(provider, 1), schemaV(provider, 2));
      expect(sql).toMatch(/ALTER TABLE "authors" ADD COLUMN\s+"bio" TEXT;/);
      expect(sql).not.toMatch(/CREATE TABLE/);
    });
  });

  it('on SQLite, making a referenced column required is a table rebuild wrapped in PRAGMA foreign_keys=OFF/ON', async () => {
    const sql = await diffDatamodels('sqlite', schemaV('sqlite', 2), schemaV('sqlite', 3));
    expect(sql).toMatch(/^PRAGMA foreign_keys=OFF;$/m);
    expect(sql).toMatch(/CREATE TABLE "new_authors"/);
    expect(sql).toMatch(/DROP TABLE "authors";/);
    expect(sql).toMatch(/^PRAGMA foreign_keys=ON;$/m);
  });

  it('an invalid datamodel throws an Error carrying the engine validation message', async () => {
    const broken = schemaV('sqlite', 1).replace('title       String', 'title       Strng');
    const error = await diffDatamodels('sqlite', null, broken).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('Type "Strng" is neither a built-in type');
    // The file name in the engine's message tells which side of the diff is invalid.
    expect(message).toContain('to.prisma');
    // The Rust span trace the engine appends is dropped.
    expect(message).not.toContain('schema_engine_wasm::');
  });

  it('an invalid "from" datamodel is reported against from.prisma', async () => {
    const broken = schemaV('postgresql', 1).replace('@@map("books")', '@@map(books)');
    await expect(diffDatamodels('postgresql', broken, schemaV('postgresql', 1))).rejects.toThrow(/from\.prisma/);
  });

  it('a datamodel without a datasource is refused with the engine message', async () => {
    await expect(diffDatamodels('sqlite', null, 'model X {\n  id Int @id\n}\n')).rejects.toThrow(
      'There is no datasource in the schema.',
    );
  });

  it('a datamodel whose datasource provider differs from the requested provider is refused', async () => {
    await expect(diffDatamodels('sqlite', null, schemaV('postgresql', 1))).rejects.toThrow(
      /declares provider "postgresql", expected "sqlite"/,
    );
    await expect(diffDatamodels('postgresql', schemaV('sqlite', 1), schemaV('postgresql', 1))).rejects.toThrow(
      /'from' datamodel declares provider "sqlite"/,
    );
  });

  it('concurrent diffs on the shared engine each return their own result', async () => {
    const results = await Promise.all(
      [1, 2, 3, 1, 2, 3].map((v) => diffDatamodels('postgresql', null, schemaV('postgresql', v as 1 | 2 | 3))),
    );
    expect(results[0]).toBe(results[3]);
    expect(results[1]).toMatch(/"bio" TEXT/);
    expect(results[0]).not.toMatch(/"bio"/);
    expect(results[2]).toMatch(/DEFAULT 'anonymous'/);
  });
});
