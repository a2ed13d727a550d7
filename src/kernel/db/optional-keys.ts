/**
 * The foreign keys of `if_loaded` References (`ir.connector.param.file_id` → `storage.document`):
 * a Reference to a model whose app may be absent. No migration chain writes them (chains.ts
 * diffs such a Reference as a plain uuid column), so every key on such a column is this module's:
 * each time a process opens or upgrades a tenant, after its migrations, the key is added where
 * the target's table is there, replaced where it differs from the declaration (another target,
 * another `on_delete`), and taken back where the target's table is not. Uninstalling the target's
 * app takes them back first, with the tables about to go named `gone`. When a Reference stops
 * being one (an `if_loaded` Reference declared as a plain uuid from then on), its key is
 * `released`: the open takes it back, since no chain can on SQLite (the diff sees a uuid column
 * both before and after, so nothing rebuilds the table, and the left key would refuse writes).
 *
 * Why not in a chain: the declaring app's chain cannot know whether the target will be there, and
 * the target app's chain wrote the key on SQLite as a rebuild of the declaring app's table with
 * its columns as of when that migration was written; a column the declaring app added since was
 * dropped on a new tenant, and the declaring app's next rebuild (whose diff lacks the target)
 * dropped the key again. Here the key follows the tenant's tables as they are.
 *
 * Rows are treated as the key would treat them:
 * - adding a key over values that point at no row (written while the target was absent):
 *   `set null` sets them to NULL; under `cascade` or `restrict` the key is not added and the
 *   open goes on (`skipped`, which the kernel logs): a tenant is never closed over one column;
 * - the target's table going (`gone`): `set null` empties the column, `cascade` deletes the rows
 *   holding a value, `restrict` refuses while any row holds one (409 `APP_STILL_REFERENCED`).
 */
import Database from 'better-sqlite3';
import type { Client } from 'pg';
import { registerSortKey } from '../data/collation.js';
import { compileOptionalKey, type CompiledSql, type OptionalKeyShape } from '../data/sql/compile.js';
import type { OnDelete } from '../declare.js';
import { Conflict } from '../errors.js';
import { inLockedTransaction, SQLITE_BUSY_TIMEOUT_MS, withClient } from '../migrate/runner.js';
import { dropAppSchema, type SchemaTarget } from '../migrate/upgrade.js';
import type { ResolvedModel } from '../registry/model.js';
import { columnObjectName, modelNames } from '../registry/names.js';
import { postgresTableColumns, sqliteTableColumns, type TableColumns } from './catalogue.js';

/** One `if_loaded` Reference's key: named as the schema engine names a Reference's (`<table>_<column>_fkey`). */
export type OptionalKey = OptionalKeyShape;

/** The key of every stored `if_loaded` Reference of `models`, its target's app there or not (pure). */
export function optionalKeysOf(models: Iterable<ResolvedModel>): OptionalKey[] {
  const out: OptionalKey[] = [];
  for (const m of models) {
    for (const f of m.fields.values()) {
      if (!f.ifLoaded || !f.stored) continue;
      const table = m.names.table;
      out.push({ name: columnObjectName(table, f.name, 'fkey'), table, column: f.name, refTable: modelNames(f.ifLoaded.target).table, onDelete: f.ifLoaded.onDelete });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * A stored column declared without a Reference: a key on it named as fw names one can only be an
 * `if_loaded` key the open added before the Reference became a plain column (a chain drops the key
 * of a Reference that stops being one), so the open takes it back. A key named otherwise is not
 * fw's and is left alone.
 */
export interface ReleasedKey { name: string; table: string; column: string }

/** The keys that may be left on each stored column declared without a Reference (pure). */
export function releasedKeysOf(models: Iterable<ResolvedModel>): ReleasedKey[] {
  const out: ReleasedKey[] = [];
  for (const m of models) {
    for (const f of m.fields.values()) {
      if (f.ifLoaded || f.type === 'reference' || !f.stored) continue;
      const table = m.names.table;
      out.push({ name: columnObjectName(table, f.name, 'fkey'), table, column: f.name });
    }
  }
  return out;
}

/** What a tenant's open brings its keys to: the `if_loaded` keys wanted and the columns whose key goes. */
export interface OptionalKeySet { wanted: readonly OptionalKey[]; released: readonly ReleasedKey[] }

/**
 * What an ensure changed: keys added and dropped (a replaced key is in both), rows changed per
 * `<table>.<column>` (values set to NULL, or rows deleted under `cascade`), and keys not added
 * because rows point nowhere under `cascade` or `restrict`.
 */
export interface OptionalKeyChanges {
  added: string[];
  dropped: string[];
  nulled: Record<string, number>;
  deleted: Record<string, number>;
  /** Keys left as they are, and why: rows pointing nowhere, or a key written in a form fw does not rewrite. */
  skipped: Array<{ key: string; why: string }>;
}
const noChanges = (): OptionalKeyChanges => ({ added: [], dropped: [], nulled: {}, deleted: {}, skipped: [] });

/**
 * A foreign key the database has on one column: its name (on SQLite, from the table's CREATE
 * TABLE when written `CONSTRAINT "…"`), the table it references, what it does on delete.
 */
interface PresentKey { name?: string; refTable: string; onDelete: OnDelete | 'other' }

/** The tenant's tables with their columns, and its one-column foreign keys by `<table>.<column>`. */
interface Present { columns: TableColumns; keys: ReadonlyMap<string, PresentKey> }

/** A key to take off a column: `name` is the one fw gives it (what `dropped` reports). */
interface Drop { table: string; column: string; name: string; present: PresentKey }

interface Plan {
  add: OptionalKey[];
  drop: Drop[];
  /** Columns whose target's table is going: their rows get the key's `on_delete`, key or no key. */
  gone: OptionalKey[];
}

/**
 * A key is wanted where its table has the column and the target's table is there (and not
 * `gone`); a key on the column that is not the declared one is replaced. A released column's key
 * goes if fw named it.
 */
function planFor(present: Present, keys: OptionalKeySet, gone: ReadonlySet<string>): Plan {
  const plan: Plan = { add: [], drop: [], gone: [] };
  for (const k of keys.wanted) {
    if (!present.columns.get(k.table)?.has(k.column)) continue;
    const there = present.columns.has(k.refTable) && !gone.has(k.refTable);
    const key = present.keys.get(`${k.table}.${k.column}`);
    const right = key?.refTable === k.refTable && key.onDelete === k.onDelete;
    if (key && !(there && right)) plan.drop.push({ table: k.table, column: k.column, name: k.name, present: key });
    if (there && !right) plan.add.push(k);
    if (gone.has(k.refTable)) plan.gone.push(k);
  }
  for (const r of keys.released) {
    const key = present.keys.get(`${r.table}.${r.column}`);
    if (key?.name === r.name) plan.drop.push({ ...r, present: key });
  }
  return plan;
}
const nothingToDo = (p: Plan): boolean => !p.add.length && !p.drop.length && !p.gone.length;

/** Uninstalling the target's app while rows of a `restrict` Reference still point at its records. */
export class StillReferenced extends Conflict {
  constructor(k: OptionalKey, rows: number, why = `on delete ${k.onDelete}`) {
    super(
      `${k.table}.${k.column} holds ${rows} value${rows === 1 ? '' : 's'} for ${k.refTable} (${why}): clear ${rows === 1 ? 'it' : 'them'} before removing that table`,
      { table: k.table, column: k.column, references: k.refTable, rows },
      'APP_STILL_REFERENCED',
    );
  }
}

/**
 * Brings a tenant's `if_loaded` keys to its tables (`gone`: tables about to be dropped), and takes
 * back fw's keys on the `released` columns.
 */
export async function ensureOptionalKeys(target: SchemaTarget, wanted: readonly OptionalKey[], gone: ReadonlySet<string> = new Set(), released: readonly ReleasedKey[] = []): Promise<OptionalKeyChanges> {
  if (!wanted.length && !released.length) return noChanges();
  const keys: OptionalKeySet = { wanted, released };
  return target.provider === 'sqlite' ? ensureSqlite(target.file, keys, gone) : ensurePostgres(target.url, keys, gone);
}

/**
 * An app's removal SQL (`fw app uninstall`), after its `keys` (those onto its tables) were
 * released. Another server opening the tenant between the release and this finds the app's
 * tables still there and puts the keys back: on PostgreSQL, where that key would refuse the drop,
 * they are dropped again first in the removal's own locked transaction (which an open waits for);
 * on SQLite, where the drop would leave a key onto a table that is gone, refusing every value
 * written to the column, they are taken back after it.
 */
export async function dropAppWithKeys(target: SchemaTarget, app: string, sql: string, keys: readonly OptionalKey[]): Promise<void> {
  if (target.provider === 'postgresql') {
    const drops = keys.map((k) => `${compileOptionalKey.drop(k, true)};`);
    await dropAppSchema(target, app, [...drops, sql].join('\n'));
    return;
  }
  await dropAppSchema(target, app, sql);
  await ensureOptionalKeys(target, keys);
}

/** How many rows of each key's table hold a value in its column (a table or column the tenant lacks: none). */
export async function referencingRows(target: SchemaTarget, keys: readonly OptionalKey[]): Promise<Map<OptionalKey, number>> {
  const out = new Map<OptionalKey, number>();
  if (!keys.length) return out;
  if (target.provider === 'sqlite') {
    const db = new Database(target.file, { readonly: true, fileMustExist: true, timeout: SQLITE_BUSY_TIMEOUT_MS });
    try {
      const present = presentSqlite(db);
      for (const k of keys) {
        if (!present.columns.get(k.table)?.has(k.column)) continue;
        const q = compileOptionalKey.countValues(k, 'sqlite', 'all');
        out.set(k, Number(db.prepare(q.sql).pluck().get(...q.params) as number | bigint));
      }
    } finally {
      db.close();
    }
    return out;
  }
  return withClient(target.url, async (client) => {
    const present = await presentPostgres(client);
    for (const k of keys) {
      if (!present.columns.get(k.table)?.has(k.column)) continue;
      const q = compileOptionalKey.countValues(k, 'postgresql', 'all');
      out.set(k, Number((await client.query<{ n: string }>(q.sql, [...q.params])).rows[0]!.n));
    }
    return out;
  });
}

/** A statement's affected rows, and a count's result, on one engine's connection. */
interface RowWork { run(q: CompiledSql): Promise<number>; count(q: CompiledSql): Promise<number>; dialect: 'sqlite' | 'postgresql' }

/**
 * A delete refused by a foreign key onto the deleted rows: PostgreSQL's 23503; SQLite's
 * FOREIGN KEY failure (code SQLITE_CONSTRAINT_TRIGGER for a RESTRICT key, _FOREIGNKEY otherwise).
 */
const isForeignKeyRefusal = (e: unknown): boolean => {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  return code === '23503' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && /FOREIGN KEY/i.test(String(message)));
};

/**
 * The rows of columns whose target's table is going get its `on_delete` (`changes`): emptied,
 * deleted, or a refusal. Run with foreign keys enforced, so a cascade reaches the deleted rows'
 * own children and a key onto them that restricts refuses it.
 */
async function goneRows(keys: readonly OptionalKey[], w: RowWork, changes: OptionalKeyChanges): Promise<void> {
  for (const k of keys) {
    const where = `${k.table}.${k.column}`;
    if (k.onDelete === 'set null') {
      changes.nulled[where] = await w.run(compileOptionalKey.nullValues(k, w.dialect, 'all'));
    } else if (k.onDelete === 'cascade') {
      // counted first: after a refusal PostgreSQL answers nothing more in the transaction
      const n = await w.count(compileOptionalKey.countValues(k, w.dialect, 'all'));
      try {
        changes.deleted[where] = await w.run(compileOptionalKey.deleteReferencing(k, w.dialect));
      } catch (e) {
        if (!isForeignKeyRefusal(e)) throw e;
        throw new StillReferenced(k, n, 'its rows are themselves referenced by a key that restricts');
      }
    } else {
      const n = await w.count(compileOptionalKey.countValues(k, w.dialect, 'all'));
      if (n) throw new StillReferenced(k, n);
    }
  }
}

/** The keys of `add` whose rows allow them (values pointing nowhere emptied under `set null`); the others go to `skipped`. */
async function addable(add: readonly OptionalKey[], w: RowWork, changes: OptionalKeyChanges): Promise<OptionalKey[]> {
  const out: OptionalKey[] = [];
  for (const k of add) {
    const n = await w.count(compileOptionalKey.countValues(k, w.dialect, 'dangling'));
    if (n && k.onDelete !== 'set null') {
      changes.skipped.push({ key: k.name, why: `${n} row${n === 1 ? '' : 's'} of ${k.table} point at no ${k.refTable} row, and on delete ${k.onDelete} cannot empty them` });
      continue;
    }
    if (n) changes.nulled[`${k.table}.${k.column}`] = await w.run(compileOptionalKey.nullValues(k, w.dialect, 'dangling'));
    out.push(k);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// SQLite

const SQLITE_ON_DELETE: Record<string, OnDelete> = { 'SET NULL': 'set null', CASCADE: 'cascade', RESTRICT: 'restrict' };

function presentSqlite(db: Database.Database): Present {
  const keys = new Map<string, PresentKey>();
  const rows = db.prepare<[], { tbl: string; ddl: string; id: number; col: string; ref: string; del: string }>(
    "SELECT m.name AS tbl, m.sql AS ddl, f.id AS id, f.\"from\" AS col, f.\"table\" AS ref, f.on_delete AS del FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table'",
  ).all();
  const width = new Map<string, number>();
  for (const r of rows) width.set(`${r.tbl}#${r.id}`, (width.get(`${r.tbl}#${r.id}`) ?? 0) + 1);
  for (const r of rows) {
    if (width.get(`${r.tbl}#${r.id}`) !== 1) continue;
    const named = new RegExp(`CONSTRAINT\\s+"([^"]+)"\\s+FOREIGN\\s+KEY\\s*\\("${escapeRegExp(r.col)}"\\)`, 'i').exec(r.ddl);
    keys.set(`${r.tbl}.${r.col}`, { ...(named ? { name: named[1]! } : {}), refTable: r.ref, onDelete: SQLITE_ON_DELETE[r.del.toUpperCase()] ?? 'other' });
  }
  return { columns: sqliteTableColumns(db), keys };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The table's CREATE TABLE without the key on `column` to `refTable`, as the schema engine and
 * `compileOptionalKey.clause` write one (`, CONSTRAINT "…" FOREIGN KEY ("col") REFERENCES "ref" ("…") ON …`);
 * null when it is written otherwise (a column-level REFERENCES, DEFERRABLE …): fw does not rewrite that.
 */
function withoutClause(create: string, column: string, refTable: string): string | null {
  const clause = new RegExp(
    `,\\s*CONSTRAINT\\s+"[^"]+"\\s+FOREIGN\\s+KEY\\s*\\("${escapeRegExp(column)}"\\)\\s*REFERENCES\\s+"${escapeRegExp(refTable)}"\\s*\\("[^"]+"\\)(?:\\s+ON\\s+(?:DELETE|UPDATE)\\s+(?:SET\\s+NULL|SET\\s+DEFAULT|CASCADE|RESTRICT|NO\\s+ACTION))*(?=\\s*[,)])`,
    'i',
  );
  return clause.test(create) ? create.replace(clause, '') : null;
}

/**
 * SQLite cannot add or drop a key of a table: the table is rebuilt from its own CREATE TABLE
 * with the change (SQLite's documented procedure): rows copied, indexes and triggers made again
 * from theirs, and the AUTOINCREMENT counter kept, so an id once given is never given again.
 * Table names come from the registry (snake_case), and SQLite takes no parameter for them.
 * A key fw cannot take out of the CREATE TABLE is left as it is (`skipped`), with its replacement.
 */
function rebuildSqlite(db: Database.Database, table: string, add: readonly OptionalKey[], drop: readonly Drop[], changes: OptionalKeyChanges): void {
  const row = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!row) throw new Error(`no table ${table}`);
  let create = row.sql;
  const kept = new Set<string>();
  for (const d of drop) {
    const without = withoutClause(create, d.column, d.present.refTable);
    if (without === null) {
      kept.add(d.column);
      changes.skipped.push({ key: d.name, why: `the key on ${table}.${d.column} is not written as fw writes one; change it by hand` });
    } else {
      create = without;
      changes.dropped.push(d.name);
    }
  }
  const adding = add.filter((k) => !kept.has(k.column));
  if (adding.length) {
    // each clause on a line of its own, its comma first: the last column's line may end in a comment
    const close = create.lastIndexOf(')');
    create = `${create.slice(0, close).trimEnd()}\n    ${adding.map((k) => `, ${compileOptionalKey.clause(k)}`).join('\n    ')}\n${create.slice(close)}`;
  }
  changes.added.push(...adding.map((k) => k.name));
  if (create === row.sql) return;
  const hasSequence = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
  const seq = hasSequence ? db.prepare<[string], number>('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table) : undefined;
  const temp = `fw_rebuild_${table}`;
  const others = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(table);
  db.exec(`CREATE TABLE "${temp}" ${create.slice(create.indexOf('('))}`);
  // SQLite >= 3.26 checks every view and trigger when a table is renamed, and one that names the
  // table just dropped would fail it; under the legacy rule the rename checks nothing, and the
  // table is back under its name before anything reads it
  db.pragma('legacy_alter_table = ON');
  try {
    for (const statement of compileOptionalKey.rebuild(table, temp)) db.exec(statement);
  } finally {
    db.pragma('legacy_alter_table = OFF');
  }
  for (const statement of others) db.exec(statement);
  if (seq !== undefined) {
    db.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(table);
    db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table, seq);
  }
  // only the keys added here: a row that already broke another key of the table was copied as it
  // was, and is not this open's to refuse
  const added = new Set(adding.map((k) => k.column));
  const columnOf = new Map(db.prepare<[string], { id: number; from: string }>('SELECT id, "from" FROM pragma_foreign_key_list(?)').all(table).map((r) => [r.id, r.from]));
  const violations = db.prepare<[string], { fkid: number }>('SELECT fkid FROM pragma_foreign_key_check(?)').all(table)
    .filter((v) => added.has(columnOf.get(v.fkid) ?? ''));
  if (violations.length) throw new Error(`${table}: ${violations.length} rows break its foreign keys after its rebuild`);
}

const sqliteWork = (db: Database.Database): RowWork => ({
  run: async (q) => db.prepare(q.sql).run(...q.params).changes,
  count: async (q) => Number(db.prepare(q.sql).pluck().get(...q.params) as number | bigint),
  dialect: 'sqlite',
});

/** `fn` in a write transaction (BEGIN IMMEDIATE: the plan made inside it cannot race another writer). */
async function inSqliteTransaction<T>(db: Database.Database, fn: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = await fn();
    db.exec('COMMIT');
    return out;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

async function ensureSqlite(file: string, keys: OptionalKeySet, gone: ReadonlySet<string>): Promise<OptionalKeyChanges> {
  const db = registerSortKey(new Database(file, { fileMustExist: true, timeout: SQLITE_BUSY_TIMEOUT_MS }));
  try {
    if (nothingToDo(planFor(presentSqlite(db), keys, gone))) return noChanges();
    const changes = noChanges();
    // first the rows of tables whose target is going, with foreign keys on: a cascade reaches
    // their own children, a key onto them that restricts refuses
    db.pragma('foreign_keys = ON');
    await inSqliteTransaction(db, () => goneRows(planFor(presentSqlite(db), keys, gone).gone, sqliteWork(db), changes));
    // then the keys: a rebuild copies rows, with foreign keys off (a pragma without effect inside a
    // transaction), checked on the rebuilt table after
    db.pragma('foreign_keys = OFF');
    try {
      await inSqliteTransaction(db, async () => {
        // planned again under the write lock: another process may have done it meanwhile
        const plan = planFor(presentSqlite(db), keys, gone);
        const add = await addable(plan.add, sqliteWork(db), changes);
        for (const t of [...new Set([...add, ...plan.drop].map((k) => k.table))]) {
          rebuildSqlite(db, t, add.filter((k) => k.table === t), plan.drop.filter((d) => d.table === t), changes);
        }
      });
    } finally {
      db.pragma('foreign_keys = ON');
    }
    return changes;
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const PG_ON_DELETE: Record<string, OnDelete> = { n: 'set null', c: 'cascade', r: 'restrict' };

async function presentPostgres(client: Client): Promise<Present> {
  const columns = await postgresTableColumns(client);
  const keys = new Map<string, PresentKey>();
  const fks = await client.query<{ name: string; tbl: string; col: string; ref: string; del: string }>(`SELECT k.conname AS name, t.relname AS tbl, a.attname AS col, r.relname AS ref, k.confdeltype AS del
    FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 AND t.relnamespace = current_schema()::regnamespace`);
  for (const r of fks.rows) keys.set(`${r.tbl}.${r.col}`, { name: r.name, refTable: r.ref, onDelete: PG_ON_DELETE[r.del] ?? 'other' });
  return { columns, keys };
}

async function ensurePostgres(url: string, keys: OptionalKeySet, gone: ReadonlySet<string>): Promise<OptionalKeyChanges> {
  return withClient(url, async (client) => {
    if (nothingToDo(planFor(await presentPostgres(client), keys, gone))) return noChanges();
    // under the tenant's migration lock: instances opening one tenant at once would race on the keys
    return inLockedTransaction(client, async () => {
      const plan = planFor(await presentPostgres(client), keys, gone);
      const work: RowWork = {
        run: async (q) => (await client.query(q.sql, [...q.params])).rowCount ?? 0,
        count: async (q) => Number((await client.query<{ n: string }>(q.sql, [...q.params])).rows[0]!.n),
        dialect: 'postgresql',
      };
      const changes = noChanges();
      await goneRows(plan.gone, work, changes);
      for (const d of plan.drop) await client.query(compileOptionalKey.drop({ table: d.table, name: d.present.name! }));
      changes.dropped = plan.drop.map((d) => d.name);
      const add = await addable(plan.add, work, changes);
      for (const k of add) await client.query(compileOptionalKey.add(k));
      changes.added = add.map((k) => k.name);
      return changes;
    });
  });
}
