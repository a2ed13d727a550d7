import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySqliteMigrations, sha256Hex, type StoredMigration } from '../../../src/kernel/migrate/runner.ts';
import { engineMigrations, migration } from './fixtures.ts';

let tmp: string;
let migrations: StoredMigration[];
let fileCounter = 0;

function freshDbFile(): string {
  return path.join(tmp, `tenant-${++fileCounter}.db`);
}

function open(file: string): Database.Database {
  return new Database(file);
}

function recorded(file: string): { name: string; checksum: string }[] {
  const db = open(file);
  try {
    return db.prepare('SELECT name, checksum FROM _fw_migrations ORDER BY name').all() as {
      name: string;
      checksum: string;
    }[];
  } finally {
    db.close();
  }
}

function tableNames(file: string): string[] {
  const db = open(file);
  try {
    const rows = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[];
    return rows.map((r) => r.name);
  } finally {
    db.close();
  }
}

function seed(file: string): void {
  const db = open(file);
  try {
    db.prepare("INSERT INTO authors (record_uuid, name) VALUES ('a-1', 'Ada'), ('a-2', NULL)").run();
    db.prepare(
      "INSERT INTO books (record_uuid, title, author_uuid) VALUES ('b-1', 'Notes', 'a-1'), ('b-2', 'Letters', 'a-1'), ('b-3', 'Untitled', 'a-2')",
    ).run();
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-mig-sqlite-'));
  migrations = await engineMigrations('sqlite');
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('applySqliteMigrations', () => {
  it('applies every migration in the order given (chains come in dependency order), records each with its checksum, and uses WAL', async () => {
    const file = freshDbFile();
    const applied = await applySqliteMigrations(file, migrations);
    expect(applied).toEqual(['0001_init', '0002_author_bio', '0003_author_name_required']);
    expect(recorded(file)).toEqual(migrations.map((m) => ({ name: m.name, checksum: m.checksum })));
    expect(tableNames(file)).toEqual(['_fw_migrations', 'authors', 'books']);
    const db = open(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('keeps the given order rather than sorting names: a later name given first runs first', async () => {
    const file = freshDbFile();
    const m = (name: string, sql: string) => ({ name, sql, checksum: sha256Hex(sql) });
    // z/ creates the table a/ alters: sorted by name, a/ would run first and fail
    const applied = await applySqliteMigrations(file, [m('z/0001_t', 'CREATE TABLE t (x INTEGER)'), m('a/0001_t_y', 'ALTER TABLE t ADD COLUMN y INTEGER')]);
    expect(applied).toEqual(['z/0001_t', 'a/0001_t_y']);
  });

  it('a second run applies nothing', async () => {
    const file = freshDbFile();
    await applySqliteMigrations(file, migrations);
    expect(await applySqliteMigrations(file, migrations)).toEqual([]);
    expect(recorded(file)).toHaveLength(3);
  });

  it('a later run applies only the migrations added since', async () => {
    const file = freshDbFile();
    expect(await applySqliteMigrations(file, migrations.slice(0, 1))).toEqual(['0001_init']);
    expect(await applySqliteMigrations(file, migrations)).toEqual(['0002_author_bio', '0003_author_name_required']);
  });

  it("creates the database file's directory when it is missing", async () => {
    const file = path.join(tmp, 'nested', 'deeper', 'tenant.db');
    expect(await applySqliteMigrations(file, migrations.slice(0, 1))).toEqual(['0001_init']);
    expect(fs.existsSync(file)).toBe(true);
  });

  it('an applied migration whose checksum changed is refused with its name, and nothing else is applied', async () => {
    const file = freshDbFile();
    await applySqliteMigrations(file, migrations.slice(0, 1));
    const edited = migration('0001_init', `${migrations[0].sql}\nCREATE TABLE "sneaky" ("id" INTEGER);\n`);
    await expect(applySqliteMigrations(file, [edited, ...migrations.slice(1)])).rejects.toThrow(
      /Migration "0001_init" was already applied with checksum [0-9a-f]{64}/,
    );
    await expect(applySqliteMigrations(file, [edited])).rejects.toMatchObject({ code: 'MIGRATION_CHANGED', status: 500, details: { migration: '0001_init' } });
    expect(recorded(file).map((r) => r.name)).toEqual(['0001_init']);
    expect(tableNames(file)).not.toContain('sneaky');
  });

  it('a migration rewritten with its earlier checksum listed (earlier-checksums.json) stays applied where the earlier text ran: not run again, the rest applied', async () => {
    const file = freshDbFile();
    await applySqliteMigrations(file, migrations.slice(0, 1));
    const rewritten = { ...migration('0001_init', `${migrations[0].sql}\nCREATE TABLE "sneaky" ("id" INTEGER);\n`), earlier: [migrations[0].checksum] };
    expect(await applySqliteMigrations(file, [rewritten, ...migrations.slice(1)])).toEqual(['0002_author_bio', '0003_author_name_required']);
    expect(tableNames(file)).not.toContain('sneaky');
    expect(recorded(file).map((r) => r.name)).toEqual(['0001_init', '0002_author_bio', '0003_author_name_required']);
  });

  it('a stored migration whose checksum does not match its SQL is refused before touching the database', async () => {
    const file = path.join(tmp, 'never-created', 'tenant.db');
    const corrupt = { ...migrations[0], checksum: '0'.repeat(64) };
    await expect(applySqliteMigrations(file, [corrupt])).rejects.toThrow(/Migration "0001_init": stored checksum/);
    await expect(applySqliteMigrations(file, [corrupt])).rejects.toMatchObject({ code: 'MIGRATION_CORRUPT' });
    await expect(applySqliteMigrations(file, [migrations[0], migrations[0]])).rejects.toMatchObject({ code: 'MIGRATION_DUPLICATE', details: { migration: '0001_init' } });
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });

  it('a failing migration is rolled back entirely and not recorded', async () => {
    const file = freshDbFile();
    const bad = migration('0002_bad', 'CREATE TABLE "half" ("id" INTEGER);\nINSERT INTO "nope" VALUES (1);\n');
    await expect(applySqliteMigrations(file, [migrations[0], bad])).rejects.toThrow(
      /Migration "0002_bad" failed and was rolled back: no such table: nope/,
    );
    expect(tableNames(file)).not.toContain('half');
    expect(recorded(file).map((r) => r.name)).toEqual(['0001_init']);
  });

  it('SQLite ignores PRAGMA foreign_keys inside a transaction, where the rebuild cascades its DROP TABLE and loses rows (why the runner lifts it)', async () => {
    const file = freshDbFile();
    await applySqliteMigrations(file, migrations.slice(0, 2));
    seed(file);
    const db = open(file);
    try {
      db.pragma('foreign_keys = ON');
      db.transaction(() => db.exec(migrations[2].sql))();
      // No error at all: DROP TABLE "authors" did an implicit DELETE that cascaded to books.
      expect(db.prepare('SELECT count(*) AS n FROM books').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('a table-rebuild migration (PRAGMA foreign_keys=OFF) keeps the data of referenced and referencing tables and leaves foreign keys ON', async () => {
    const file = freshDbFile();
    await applySqliteMigrations(file, migrations.slice(0, 2));
    seed(file);
    expect(migrations[2].sql).toMatch(/^PRAGMA foreign_keys=OFF;$/m);

    // The extra migration after the rebuild would orphan a book: it must fail, which proves the
    // runner switched enforcement back on after the rebuild.
    const orphan = migration(
      '0004_orphan_book',
      "INSERT INTO books (record_uuid, title, author_uuid) VALUES ('b-x', 'Orphan', 'no-such-author');",
    );
    await expect(applySqliteMigrations(file, [...migrations, orphan])).rejects.toThrow(
      /Migration "0004_orphan_book" failed and was rolled back: FOREIGN KEY constraint failed/,
    );
    expect(recorded(file).map((r) => r.name)).toEqual(['0001_init', '0002_author_bio', '0003_author_name_required']);

    const db = open(file);
    try {
      expect(db.prepare('SELECT record_uuid, name FROM authors ORDER BY id').all()).toEqual([
        { record_uuid: 'a-1', name: 'Ada' },
        { record_uuid: 'a-2', name: 'anonymous' },
      ]);
      expect(db.prepare('SELECT record_uuid, author_uuid FROM books ORDER BY id').all()).toEqual([
        { record_uuid: 'b-1', author_uuid: 'a-1' },
        { record_uuid: 'b-2', author_uuid: 'a-1' },
        { record_uuid: 'b-3', author_uuid: 'a-2' },
      ]);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      // The rebuilt table still anchors the relation.
      db.pragma('foreign_keys = ON');
      expect(() =>
        db.prepare("INSERT INTO books (record_uuid, title, author_uuid) VALUES ('b-y', 'Orphan', 'a-9')").run(),
      ).toThrow(/FOREIGN KEY constraint failed/);
    } finally {
      db.close();
    }
  });

  it('a foreign-keys-off migration that leaves violations is rolled back with an error naming it', async () => {
    const file = freshDbFile();
    await applySqliteMigrations(file, migrations.slice(0, 2));
    seed(file);
    // With enforcement off the delete does not cascade, so it orphans a-1's two books.
    const breaking = migration(
      '0004_drop_authors',
      "PRAGMA foreign_keys=OFF;\nDELETE FROM authors WHERE record_uuid = 'a-1';\nPRAGMA foreign_keys=ON;\n",
    );
    await expect(applySqliteMigrations(file, [...migrations, breaking])).rejects.toThrow(
      /Migration "0004_drop_authors" failed and was rolled back: PRAGMA foreign_key_check reports violations: books -> authors \(2 rows\)/,
    );
    const db = open(file);
    try {
      expect(db.prepare('SELECT count(*) AS n FROM authors').get()).toEqual({ n: 2 });
      expect(db.prepare('SELECT count(*) AS n FROM books').get()).toEqual({ n: 3 });
    } finally {
      db.close();
    }
    // The migrations before it in the same run stay applied; only the failing one is undone.
    expect(recorded(file).map((r) => r.name)).toEqual(migrations.map((m) => m.name));
  });
});
