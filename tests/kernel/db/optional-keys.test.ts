/**
 * The foreign keys of `if_loaded` References (src/kernel/db/optional-keys.ts): no migration chain
 * writes them; each open of a tenant adds the key where the target's table is there and takes it
 * back where it is not, keeping every row, column and index of the table; values pointing nowhere
 * get what the key would do to them (set null), or the key waits (cascade, restrict). Real
 * SQLite files and real PostgreSQL databases.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropAppWithKeys, ensureOptionalKeys, optionalKeysOf, referencingRows, releasedKeysOf, type OptionalKey } from '../../../src/kernel/db/optional-keys.ts';
import { f } from '../../../src/kernel/declare.ts';
import { resolveModel } from '../../../src/kernel/registry/model.ts';
import { ensurePostgresDatabase } from '../../../src/kernel/migrate/runner.ts';
import { snapshotDiff } from '../../../src/kernel/migrate/chains.ts';
import { kernelApp } from '../../../src/kernel/kernel-app.ts';
import type { SchemaTarget } from '../../../src/kernel/migrate/upgrade.ts';
import { loadAllApps, projectLayout } from '../../../src/kernel/modules/loader.ts';
import {
  bootTestKernel, dropPgDatabases, expectFwError, PG_URL, pgDatabaseUrl, PROVIDERS, tempDir, uniquePgPrefix, withPgClient, withSqliteFile,
} from '../../helpers/kernel.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DOC_A = '00000000-0000-4000-8000-00000000000a';
const NOWHERE = '00000000-0000-4000-8000-0000000000ff';
const KEY: OptionalKey = { name: 'item_doc_id_fkey', table: 'item', column: 'doc_id', refTable: 'doc', onDelete: 'set null' };

/** A declaring table as the schema engine writes one: a key of its own, a unique and a plain index. */
const SCHEMA: Record<'sqlite' | 'postgresql', string[]> = {
  sqlite: [
    'CREATE TABLE "owner" ("dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "record_uuid" TEXT NOT NULL)',
    'CREATE UNIQUE INDEX "owner_record_uuid_key" ON "owner"("record_uuid")',
    `CREATE TABLE "item" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT 'x',
    "owner_id" TEXT NOT NULL,
    "doc_id" TEXT,
    CONSTRAINT "item_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "owner" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
)`,
    'CREATE UNIQUE INDEX "item_record_uuid_key" ON "item"("record_uuid")',
    'CREATE INDEX "item_doc_id_idx" ON "item"("doc_id")',
    'CREATE TABLE "doc" ("dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "record_uuid" TEXT NOT NULL)',
    'CREATE UNIQUE INDEX "doc_record_uuid_key" ON "doc"("record_uuid")',
    // the item's own children: one goes with it, one keeps it
    'CREATE TABLE "line" ("id" INTEGER PRIMARY KEY, "item_id" TEXT NOT NULL REFERENCES "item" ("record_uuid") ON DELETE CASCADE)',
    'CREATE TABLE "pin" ("id" INTEGER PRIMARY KEY, "item_id" TEXT REFERENCES "item" ("record_uuid") ON DELETE RESTRICT)',
    // a key written by hand, column-level, which fw does not rewrite on SQLite
    'CREATE TABLE "odd" ("id" INTEGER PRIMARY KEY, "doc_id" TEXT REFERENCES "doc" ("record_uuid"))',
  ],
  postgresql: [
    'CREATE TABLE "owner" ("dbid" SERIAL PRIMARY KEY, "record_uuid" UUID NOT NULL UNIQUE)',
    `CREATE TABLE "item" ("dbid" SERIAL PRIMARY KEY, "record_uuid" UUID NOT NULL UNIQUE, "name" TEXT NOT NULL DEFAULT 'x',
      "owner_id" UUID NOT NULL REFERENCES "owner" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE, "doc_id" UUID)`,
    'CREATE INDEX "item_doc_id_idx" ON "item"("doc_id")',
    'CREATE TABLE "doc" ("dbid" SERIAL PRIMARY KEY, "record_uuid" UUID NOT NULL UNIQUE)',
    'CREATE TABLE "line" ("id" SERIAL PRIMARY KEY, "item_id" UUID NOT NULL REFERENCES "item" ("record_uuid") ON DELETE CASCADE)',
    'CREATE TABLE "pin" ("id" SERIAL PRIMARY KEY, "item_id" UUID REFERENCES "item" ("record_uuid") ON DELETE RESTRICT)',
    'CREATE TABLE "odd" ("id" SERIAL PRIMARY KEY, "doc_id" UUID REFERENCES "doc" ("record_uuid"))',
  ],
};

describe('which keys are optional, and who writes them', () => {
  it('every stored if_loaded Reference has a key to its target\'s table, whether that app is loaded or not', async () => {
    for (const modules of ['base,auth,presentation,connectors,storage', 'base,auth,presentation,connectors']) {
      const tk = await bootTestKernel({ settings: { ACTIVE_MODULES: modules, ACTIVE_DOMAINS: '' } });
      try {
        expect(optionalKeysOf(tk.kernel.registry.models.values()), modules).toEqual([
          { name: 'ir_connector_param_file_id_fkey', table: 'ir_connector_param', column: 'file_id', refTable: 'storage_document', onDelete: 'set null' },
        ]);
      } finally {
        await tk.cleanup();
      }
    }
  });

  it('every stored column declared without a Reference is released (its fw-named key goes at the open); References, if_loaded or not, and unstored fields are not', () => {
    const model = resolveModel({
      key: 'shop.item', description: 'Item',
      fields: { name: f.char(20), doc_id: f.uuid(), owner_id: f.reference('shop.owner'), file_id: f.reference('shop.file', { if_loaded: true }), lines: f.one2many('shop.line', 'item_id') },
    }, 'shop');
    expect(releasedKeysOf([model]).map((k) => k.column)).toEqual(expect.arrayContaining(['name', 'doc_id']));
    expect(releasedKeysOf([model]).filter((k) => ['owner_id', 'file_id', 'lines'].includes(k.column))).toEqual([]);
    expect(releasedKeysOf([model]).find((k) => k.column === 'doc_id')).toEqual({ name: 'shop_item_doc_id_fkey', table: 'shop_item', column: 'doc_id' });
  });

  it("no migration writes an if_loaded Reference's key: storage's diff never touches connectors' table, on either engine", async () => {
    const all = [kernelApp(), ...(await loadAllApps(projectLayout(ROOT)))];
    const storage = all.find((a) => a.name === 'storage')!;
    for (const provider of PROVIDERS) {
      const sql = await snapshotDiff(all, storage, [], storage.models, provider);
      expect(sql, provider).toContain('CREATE TABLE "storage_document"');
      expect(sql, provider).not.toContain('ir_connector_param');
    }
  });
});

describe.each(PROVIDERS)('keys of if_loaded References on %s', (provider) => {
  let dir: string;
  let prefix: string;
  let target: SchemaTarget;
  const run = async (sqlText: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> => {
    if (target.provider === 'postgresql') return withPgClient(target.url, async (c) => (await c.query(sqlText, params)).rows);
    const db = new Database(target.file);
    try {
      db.pragma('foreign_keys = ON');
      const st = db.prepare(sqlText);
      return (st.reader ? st.all(...params) : (st.run(...params), [])) as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  };
  /** The item table's keys as `column>table`. */
  const keys = async (): Promise<string[]> => (provider === 'sqlite'
    ? await run(`SELECT "from" || '>' || "table" AS k FROM pragma_foreign_key_list('item')`)
    : await run(`SELECT a.attname || '>' || r.relname AS k FROM pg_constraint c JOIN pg_class r ON r.oid = c.confrelid
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] WHERE c.contype = 'f' AND c.conrelid = 'item'::regclass`))
    .map((r) => String(r.k)).sort();
  const indexes = async (): Promise<string[]> => (provider === 'sqlite'
    ? await run("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item' AND sql IS NOT NULL")
    : await run("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'item'"))
    .map((r) => String(r.name)).sort();
  const items = async () => (await run('SELECT record_uuid, name, owner_id, doc_id FROM item ORDER BY dbid'))
    .map((r) => ({ ...r, record_uuid: String(r.record_uuid), owner_id: String(r.owner_id), doc_id: r.doc_id === null ? null : String(r.doc_id) }));
  const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

  beforeAll(async () => {
    dir = tempDir('optional-keys');
    prefix = uniquePgPrefix();
    if (provider === 'sqlite') {
      target = { provider, file: path.join(dir, 'keys.db') };
    } else {
      await ensurePostgresDatabase(PG_URL, `${prefix}keys`);
      target = { provider, url: pgDatabaseUrl(`${prefix}keys`) };
    }
    for (const statement of SCHEMA[provider]) await run(statement);
    await run(provider === 'sqlite' ? 'INSERT INTO owner (record_uuid) VALUES (?)' : 'INSERT INTO owner (record_uuid) VALUES ($1)', [uuid(1)]);
    await run(provider === 'sqlite' ? 'INSERT INTO doc (record_uuid) VALUES (?)' : 'INSERT INTO doc (record_uuid) VALUES ($1)', [DOC_A]);
    for (const [i, doc] of [[2, DOC_A], [3, NOWHERE], [4, null]] as const) {
      await run(provider === 'sqlite' ? 'INSERT INTO item (record_uuid, owner_id, doc_id) VALUES (?, ?, ?)' : 'INSERT INTO item (record_uuid, owner_id, doc_id) VALUES ($1, $2, $3)', [uuid(i), uuid(1), doc]);
    }
  });
  afterAll(async () => {
    if (provider === 'postgresql') await dropPgDatabases(prefix);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const none = { added: [], dropped: [], nulled: {}, deleted: {}, skipped: [] };
  const insertItem = (n: number, doc: string | null) => run(provider === 'sqlite'
    ? 'INSERT INTO item (record_uuid, owner_id, doc_id) VALUES (?, ?, ?)' : 'INSERT INTO item (record_uuid, owner_id, doc_id) VALUES ($1, $2, $3)', [uuid(n), uuid(1), doc]);

  it('a key whose values point nowhere and cannot be set to NULL (cascade) is not added, and says so; the tenant still opens, nothing changed', async () => {
    expect(await ensureOptionalKeys(target, [{ ...KEY, onDelete: 'cascade' }])).toEqual({
      ...none, skipped: [{ key: 'item_doc_id_fkey', why: '1 row of item point at no doc row, and on delete cascade cannot empty them' }],
    });
    expect(await keys()).toEqual(['owner_id>owner']);
    expect((await items()).map((r) => r.doc_id)).toEqual([DOC_A, NOWHERE, null]);
  });

  it('the key is added where the target table is there: values pointing nowhere set to NULL, every row, column and index kept', async () => {
    const before = await items();
    const idx = await indexes();
    const changes = await ensureOptionalKeys(target, [KEY]);
    expect(changes).toEqual({ ...none, added: ['item_doc_id_fkey'], nulled: { 'item.doc_id': 1 } });
    expect(await keys()).toEqual(['doc_id>doc', 'owner_id>owner']);
    expect(await items()).toEqual(before.map((r) => (r.doc_id === NOWHERE ? { ...r, doc_id: null } : r)));
    expect(await indexes()).toEqual(idx);
    // a second open finds nothing to do
    expect(await ensureOptionalKeys(target, [KEY])).toEqual(none);
  });

  it('the key then does what it declares: a value pointing nowhere is refused, deleting the target sets it to NULL', async () => {
    await expect(insertItem(9, NOWHERE)).rejects.toThrow(/foreign key/i);
    await run(provider === 'sqlite' ? 'DELETE FROM doc WHERE record_uuid = ?' : 'DELETE FROM doc WHERE record_uuid = $1', [DOC_A]);
    expect((await items()).map((r) => r.doc_id)).toEqual([null, null, null]);
    await run(provider === 'sqlite' ? 'INSERT INTO doc (record_uuid) VALUES (?)' : 'INSERT INTO doc (record_uuid) VALUES ($1)', [DOC_A]);
    await run(provider === 'sqlite' ? 'UPDATE item SET doc_id = ? WHERE record_uuid = ?' : 'UPDATE item SET doc_id = $1 WHERE record_uuid = $2', [DOC_A, uuid(2)]);
  });

  it('a key that is not the declared one (another on_delete) is replaced by it', async () => {
    const cascade = { ...KEY, onDelete: 'cascade' as const };
    expect(await ensureOptionalKeys(target, [cascade])).toEqual({ ...none, added: ['item_doc_id_fkey'], dropped: ['item_doc_id_fkey'] });
    await run(provider === 'sqlite' ? 'DELETE FROM doc WHERE record_uuid = ?' : 'DELETE FROM doc WHERE record_uuid = $1', [DOC_A]);
    expect((await items()).map((r) => r.record_uuid)).toEqual([uuid(3), uuid(4)]);
    expect(await ensureOptionalKeys(target, [KEY])).toEqual({ ...none, added: ['item_doc_id_fkey'], dropped: ['item_doc_id_fkey'] });
    expect(await keys()).toEqual(['doc_id>doc', 'owner_id>owner']);
    await run(provider === 'sqlite' ? 'INSERT INTO doc (record_uuid) VALUES (?)' : 'INSERT INTO doc (record_uuid) VALUES ($1)', [DOC_A]);
  });

  it.runIf(provider === 'sqlite')('a rebuild keeps the AUTOINCREMENT counter: an id once given is not given again', async () => {
    await insertItem(5, DOC_A);
    const top = Number((await run('SELECT max(dbid) AS m FROM item'))[0]!.m);
    await run('DELETE FROM item WHERE dbid = ?', [top]);
    // replacing the key rebuilds the table
    expect((await ensureOptionalKeys(target, [{ ...KEY, onDelete: 'cascade' }])).added).toEqual(['item_doc_id_fkey']);
    await insertItem(6, null);
    expect(Number((await run('SELECT max(dbid) AS m FROM item'))[0]!.m)).toBe(top + 1);
    await ensureOptionalKeys(target, [KEY]);
  });

  it("the target's table about to go (an uninstall): the key is taken back and its values set to NULL; the table's own key stays", async () => {
    await run(provider === 'sqlite' ? 'UPDATE item SET doc_id = ? WHERE record_uuid = ?' : 'UPDATE item SET doc_id = $1 WHERE record_uuid = $2', [DOC_A, uuid(3)]);
    const changes = await ensureOptionalKeys(target, [KEY], new Set(['doc']));
    expect(changes).toEqual({ ...none, dropped: ['item_doc_id_fkey'], nulled: { 'item.doc_id': 1 } });
    expect(await keys()).toEqual(['owner_id>owner']);
    expect((await items()).every((r) => r.doc_id === null)).toBe(true);
    expect(await indexes()).toContain('item_doc_id_idx');
  });

  it('a set-null column whose target table is going is emptied even where it has no key', async () => {
    await run(provider === 'sqlite' ? 'UPDATE item SET doc_id = ? WHERE record_uuid = ?' : 'UPDATE item SET doc_id = $1 WHERE record_uuid = $2', [DOC_A, uuid(3)]);
    expect(await ensureOptionalKeys(target, [KEY], new Set(['doc']))).toEqual({ ...none, nulled: { 'item.doc_id': 1 } });
    expect((await items()).every((r) => r.doc_id === null)).toBe(true);
  });

  it("the target's table going under restrict: refused while a row holds a value (409 APP_STILL_REFERENCED), nothing changed", async () => {
    await run(provider === 'sqlite' ? 'UPDATE item SET doc_id = ? WHERE record_uuid = ?' : 'UPDATE item SET doc_id = $1 WHERE record_uuid = $2', [DOC_A, uuid(3)]);
    const restrict = { ...KEY, onDelete: 'restrict' as const };
    expect([...(await referencingRows(target, [restrict])).values()]).toEqual([1]);
    const err = await expectFwError(ensureOptionalKeys(target, [restrict], new Set(['doc'])), 409, 'APP_STILL_REFERENCED');
    expect(err.details).toEqual({ table: 'item', column: 'doc_id', references: 'doc', rows: 1 });
    expect((await items()).map((r) => r.doc_id)).toContain(DOC_A);
  });

  it("under cascade the rows holding a value go, with their own cascading children; a child that restricts refuses it first (409), nothing changed", async () => {
    const cascade = { ...KEY, onDelete: 'cascade' as const };
    const insert = provider === 'sqlite' ? 'INSERT INTO %t (item_id) VALUES (?)' : 'INSERT INTO %t (item_id) VALUES ($1)';
    await run(insert.replace('%t', 'line'), [uuid(3)]);
    await run(insert.replace('%t', 'pin'), [uuid(3)]);
    const left = (await items()).length;
    const err = await expectFwError(ensureOptionalKeys(target, [cascade], new Set(['doc'])), 409, 'APP_STILL_REFERENCED');
    expect(err.message).toContain('referenced by a key that restricts');
    expect((await items()).length).toBe(left);
    expect((await run('SELECT count(*) AS n FROM line'))[0]!.n).toEqual(provider === 'sqlite' ? 1 : '1');
    await run('DELETE FROM pin');
    expect(await ensureOptionalKeys(target, [cascade], new Set(['doc']))).toEqual({ ...none, deleted: { 'item.doc_id': 1 } });
    expect((await items()).length).toBe(left - 1);
    expect((await run('SELECT count(*) AS n FROM line'))[0]!.n).toEqual(provider === 'sqlite' ? 0 : '0');
  });

  it('a key written otherwise than fw writes one is replaced on PostgreSQL; on SQLite, where it would be rewritten by hand, it is left as it is and said so, and the open goes on', async () => {
    const odd: OptionalKey = { name: 'odd_doc_id_fkey', table: 'odd', column: 'doc_id', refTable: 'doc', onDelete: 'set null' };
    const changes = await ensureOptionalKeys(target, [odd]);
    if (provider === 'sqlite') {
      expect(changes).toEqual({ ...none, skipped: [{ key: 'odd_doc_id_fkey', why: 'the key on odd.doc_id is not written as fw writes one; change it by hand' }] });
    } else {
      expect(changes).toEqual({ ...none, added: ['odd_doc_id_fkey'], dropped: ['odd_doc_id_fkey'] });
      expect(await ensureOptionalKeys(target, [odd])).toEqual(none);
    }
  });

  it('a released column (declared without a Reference) loses a key fw named, rows and indexes kept; a key named otherwise stays, and nothing is said', async () => {
    const byHand = { name: 'item_owner_id_by_hand', table: 'item', column: 'owner_id' };
    expect(await ensureOptionalKeys(target, [], new Set(), [byHand])).toEqual(none);
    expect(await keys()).toContain('owner_id>owner');
    const before = await items();
    const idx = await indexes();
    expect(await ensureOptionalKeys(target, [], new Set(), [{ ...byHand, name: 'item_owner_id_fkey' }])).toEqual({ ...none, dropped: ['item_owner_id_fkey'] });
    expect(await keys()).not.toContain('owner_id>owner');
    expect(await items()).toEqual(before);
    expect(await indexes()).toEqual(idx);
    expect(await ensureOptionalKeys(target, [], new Set(), [{ ...byHand, name: 'item_owner_id_fkey' }])).toEqual(none);
  });

  it('a table or column the tenant lacks is left alone', async () => {
    const absent: OptionalKey = { ...KEY, name: 'ghost_doc_id_fkey', table: 'ghost' };
    const noColumn: OptionalKey = { ...KEY, name: 'item_nothing_fkey', column: 'nothing' };
    expect(await ensureOptionalKeys(target, [absent, noColumn])).toEqual(none);
    expect(await referencingRows(target, [absent, noColumn])).toEqual(new Map());
  });

  it("another server's open between the release and the drop puts the key back; the app's removal takes it again, and the column then takes any value", async () => {
    expect((await ensureOptionalKeys(target, [KEY])).added).toEqual(['item_doc_id_fkey']);
    expect((await ensureOptionalKeys(target, [KEY], new Set(['doc']))).dropped).toEqual(['item_doc_id_fkey']);
    // the other server still sees doc: it adds the key again
    expect((await ensureOptionalKeys(target, [KEY])).added).toEqual(['item_doc_id_fkey']);
    await dropAppWithKeys(target, 'docs', 'DROP TABLE "odd";\nDROP TABLE "doc";', [KEY]);
    expect(await keys()).not.toContain('doc_id>doc');
    await insertItem(7, NOWHERE);
    expect((await items()).map((r) => r.doc_id)).toContain(NOWHERE);
  });
});

describe('a SQLite rebuild of a table written by hand', () => {
  let dir: string;
  let file: string;
  const withDb = <T>(fn: (db: Database.Database) => T): T => withSqliteFile(file, fn);

  beforeAll(() => {
    dir = tempDir('optional-keys-by-hand');
    file = path.join(dir, 'keys.db');
    // keys off while writing the row that breaks one (better-sqlite3 turns them on)
    withDb((db) => db.exec(`
      PRAGMA foreign_keys = OFF;
      CREATE TABLE "owner" ("dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "record_uuid" TEXT NOT NULL UNIQUE);
      CREATE TABLE "doc" ("dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "record_uuid" TEXT NOT NULL UNIQUE);
      CREATE TABLE "item" (
        "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
        "record_uuid" TEXT NOT NULL,
        "owner_id" TEXT,
        "doc_id" TEXT, -- the document, when storage is installed
        CONSTRAINT "item_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "owner" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
        -- nothing after the last key
      );
      CREATE VIEW "item_v" AS SELECT record_uuid, doc_id FROM item;
      CREATE TRIGGER "doc_touch" AFTER UPDATE ON doc BEGIN UPDATE item SET doc_id = NEW.record_uuid WHERE doc_id = OLD.record_uuid; END;
      INSERT INTO doc (record_uuid) VALUES ('${DOC_A}');
      INSERT INTO item (record_uuid, owner_id, doc_id) VALUES ('${uuidOf(1)}', '${NOWHERE}', '${DOC_A}');
    `));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a view or another table\'s trigger naming the table, trailing comments and a row already breaking another key do not stop the open adding the key', async () => {
    expect(await ensureOptionalKeys({ provider: 'sqlite', file }, [KEY])).toEqual({ added: ['item_doc_id_fkey'], dropped: [], nulled: {}, deleted: {}, skipped: [] });
    withDb((db) => {
      expect(db.prepare<[], { from: string; table: string }>("SELECT \"from\", \"table\" FROM pragma_foreign_key_list('item') ORDER BY \"from\"").all())
        .toEqual([{ from: 'doc_id', table: 'doc' }, { from: 'owner_id', table: 'owner' }]);
      // the row that broke the owner key was copied as it was
      expect(db.prepare('SELECT record_uuid, owner_id, v.doc_id FROM item_v AS v JOIN item USING (record_uuid)').all()).toEqual([{ record_uuid: uuidOf(1), owner_id: NOWHERE, doc_id: DOC_A }]);
      // the trigger still works on the rebuilt table
      db.prepare('UPDATE doc SET record_uuid = ?').run(uuidOf(2));
      expect(db.prepare('SELECT doc_id FROM item').pluck().get()).toBe(uuidOf(2));
    });
    expect(await ensureOptionalKeys({ provider: 'sqlite', file }, [KEY])).toMatchObject({ added: [], dropped: [] });
  });
});

function uuidOf(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}
