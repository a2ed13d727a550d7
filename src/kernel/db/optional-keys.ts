/**
 * The foreign keys of `if_loaded` References (`ir.connector.param.file_id` → `storage.document`):
 * a Reference to a model whose app may be absent. No migration chain writes them (chains.ts
 * diffs such a Reference as a plain uuid column), so every key on such a column is this module's:
 * each time a process opens or upgrades a tenant, after its migrations, the key is added where
 * the target's table is there, replaced where it differs from the declaration (another target,
 * another `on_delete`), and taken back where the target's table is not. Uninstalling the target's
 * app takes them back first, with the tables about to go named `gone`.
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
import type { SchemaTarget } from '../migrate/upgrade.js';
import type { ResolvedModel } from '../registry/model.js';
import { modelNames } from '../registry/names.js';

/** One `if_loaded` Reference's key: named as the schema engine names a Reference's (`<table>_<column>_fkey`). */
export type OptionalKey = OptionalKeyShape;

/** The key of every stored `if_loaded` Reference of `models`, its target's app there or not (pure). */
export function optionalKeysOf(models: Iterable<ResolvedModel>): OptionalKey[] {
  const out: OptionalKey[] = [];
  for (const m of models) {
    for (const f of m.fields.values()) {
      if (!f.ifLoaded || !f.stored) continue;
      const table = m.names.table;
      out.push({ name: `${table}_${f.name}_fkey`, table, column: f.name, refTable: modelNames(f.ifLoaded.target).table, onDelete: f.ifLoaded.onDelete });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

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
  skipped: Array<{ key: string; rows: number }>;
}
const noChanges = (): OptionalKeyChanges => ({ added: [], dropped: [], nulled: {}, deleted: {}, skipped: [] });

/** A foreign key the database has on one column: its name (PostgreSQL), the table it references, what it does on delete. */
interface PresentKey { name?: string; refTable: string; onDelete: OnDelete | 'other' }

/** The tenant's tables with their columns, and its one-column foreign keys by `<table>.<column>`. */
interface Present { columns: ReadonlyMap<string, ReadonlySet<string>>; keys: ReadonlyMap<string, PresentKey> }

interface Plan {
  add: OptionalKey[];
  drop: Array<{ key: OptionalKey; present: PresentKey }>;
  /** Columns whose target's table is going: their rows get the key's `on_delete`, key or no key. */
  gone: OptionalKey[];
}

/**
 * A key is wanted where its table has the column and the target's table is there (and not
 * `gone`); a key on the column that is not the declared one is replaced.
 */
function planFor(present: Present, wanted: readonly OptionalKey[], gone: ReadonlySet<string>): Plan {
  const plan: Plan = { add: [], drop: [], gone: [] };
  for (const k of wanted) {
    if (!present.columns.get(k.table)?.has(k.column)) continue;
    const there = present.columns.has(k.refTable) && !gone.has(k.refTable);
    const key = present.keys.get(`${k.table}.${k.column}`);
    const right = key?.refTable === k.refTable && key.onDelete === k.onDelete;
    if (key && !(there && right)) plan.drop.push({ key: k, present: key });
    if (there && !right) plan.add.push(k);
    if (gone.has(k.refTable)) plan.gone.push(k);
  }
  return plan;
}
const nothingToDo = (p: Plan): boolean => !p.add.length && !p.drop.length && !p.gone.length;

/** Uninstalling the target's app while rows of a `restrict` Reference still point at its records. */
export class StillReferenced extends Conflict {
  constructor(k: OptionalKey, rows: number) {
    super(
      `${k.table}.${k.column} (on delete restrict) holds ${rows} value${rows === 1 ? '' : 's'} pointing at ${k.refTable}: clear ${rows === 1 ? 'it' : 'them'} before removing that table`,
      { table: k.table, column: k.column, references: k.refTable, rows },
      'APP_STILL_REFERENCED',
    );
  }
}

/** Brings a tenant's `if_loaded` keys to its tables (`gone`: tables about to be dropped). */
export async function ensureOptionalKeys(target: SchemaTarget, wanted: readonly OptionalKey[], gone: ReadonlySet<string> = new Set()): Promise<OptionalKeyChanges> {
  if (!wanted.length) return noChanges();
  return target.provider === 'sqlite' ? ensureSqlite(target.file, wanted, gone) : ensurePostgres(target.url, wanted, gone);
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
        const q = compileOptionalKey.countReferencing(k, 'sqlite');
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
      const q = compileOptionalKey.countReferencing(k, 'postgresql');
      out.set(k, Number((await client.query<{ n: string }>(q.sql, [...q.params])).rows[0]!.n));
    }
    return out;
  });
}

/**
 * The row work of a plan, on either engine (`run` gives a statement's affected rows, `count` a
 * count's result); returns the keys to add (those whose rows allow it) with what was done.
 */
async function applyRows(plan: Plan, run: (q: CompiledSql) => Promise<number>, count: (q: CompiledSql) => Promise<number>, dialect: 'sqlite' | 'postgresql'): Promise<{ add: OptionalKey[]; changes: OptionalKeyChanges }> {
  const changes = noChanges();
  const add: OptionalKey[] = [];
  for (const k of plan.add) {
    const n = await count(compileOptionalKey.countDangling(k, dialect));
    if (n && k.onDelete !== 'set null') {
      changes.skipped.push({ key: k.name, rows: n });
      continue;
    }
    if (n) changes.nulled[`${k.table}.${k.column}`] = await run(compileOptionalKey.nullDangling(k, dialect));
    add.push(k);
  }
  for (const k of plan.gone) {
    const where = `${k.table}.${k.column}`;
    if (k.onDelete === 'set null') changes.nulled[where] = await run(compileOptionalKey.nullDangling(k, dialect, true));
    else if (k.onDelete === 'cascade') changes.deleted[where] = await run(compileOptionalKey.deleteReferencing(k, dialect));
    else {
      const n = await count(compileOptionalKey.countReferencing(k, dialect));
      if (n) throw new StillReferenced(k, n);
    }
  }
  changes.added = add.map((k) => k.name);
  changes.dropped = plan.drop.map((d) => d.key.name);
  return { add, changes };
}

// ---------------------------------------------------------------------------------------------
// SQLite

const SQLITE_ON_DELETE: Record<string, OnDelete> = { 'SET NULL': 'set null', CASCADE: 'cascade', RESTRICT: 'restrict' };

function presentSqlite(db: Database.Database): Present {
  const columns = new Map<string, Set<string>>();
  for (const r of db.prepare<[], { tbl: string; col: string }>("SELECT m.name AS tbl, c.name AS col FROM sqlite_master AS m, pragma_table_info(m.name) AS c WHERE m.type = 'table'").all()) {
    columns.set(r.tbl, (columns.get(r.tbl) ?? new Set()).add(r.col));
  }
  const keys = new Map<string, PresentKey>();
  const rows = db.prepare<[], { tbl: string; id: number; col: string; ref: string; del: string }>(
    "SELECT m.name AS tbl, f.id AS id, f.\"from\" AS col, f.\"table\" AS ref, f.on_delete AS del FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table'",
  ).all();
  const width = new Map<string, number>();
  for (const r of rows) width.set(`${r.tbl}#${r.id}`, (width.get(`${r.tbl}#${r.id}`) ?? 0) + 1);
  for (const r of rows) {
    if (width.get(`${r.tbl}#${r.id}`) === 1) keys.set(`${r.tbl}.${r.col}`, { refTable: r.ref, onDelete: SQLITE_ON_DELETE[r.del.toUpperCase()] ?? 'other' });
  }
  return { columns, keys };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The table's CREATE TABLE without the key on `column` to `refTable`, as the schema engine and
 * `compileOptionalKey.clause` write one (`, CONSTRAINT "…" FOREIGN KEY ("col") REFERENCES "ref" ("…") ON …`).
 */
function withoutClause(create: string, table: string, column: string, refTable: string): string {
  const clause = new RegExp(
    `,\\s*CONSTRAINT\\s+"[^"]+"\\s+FOREIGN\\s+KEY\\s*\\("${escapeRegExp(column)}"\\)\\s*REFERENCES\\s+"${escapeRegExp(refTable)}"\\s*\\("[^"]+"\\)(?:\\s+ON\\s+(?:DELETE|UPDATE)\\s+(?:SET\\s+NULL|SET\\s+DEFAULT|CASCADE|RESTRICT|NO\\s+ACTION))*(?=\\s*[,)])`,
    'i',
  );
  if (!clause.test(create)) throw new Error(`${table}: its foreign key on ${column} to ${refTable} is not written as fw writes one; take it out by hand`);
  return create.replace(clause, '');
}

/**
 * SQLite cannot add or drop a key of a table: the table is rebuilt from its own CREATE TABLE
 * with the change (SQLite's documented procedure): rows copied, indexes and triggers made again
 * from theirs, and the AUTOINCREMENT counter kept, so an id once given is never given again.
 * Table names come from the registry (snake_case), and SQLite takes no parameter for them.
 */
function rebuildSqlite(db: Database.Database, table: string, add: readonly OptionalKey[], drop: ReadonlyArray<{ key: OptionalKey; present: PresentKey }>): void {
  const row = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!row) throw new Error(`no table ${table}`);
  let create = row.sql;
  for (const d of drop) create = withoutClause(create, table, d.key.column, d.present.refTable);
  if (add.length) {
    const close = create.lastIndexOf(')');
    create = `${create.slice(0, close).trimEnd()},\n    ${add.map((k) => compileOptionalKey.clause(k)).join(',\n    ')}\n${create.slice(close)}`;
  }
  const hasSequence = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
  const seq = hasSequence ? db.prepare<[string], number>('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table) : undefined;
  const temp = `fw_rebuild_${table}`;
  const others = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(table);
  db.exec(`CREATE TABLE "${temp}" ${create.slice(create.indexOf('('))}`);
  for (const statement of compileOptionalKey.rebuild(table, temp)) db.exec(statement);
  for (const statement of others) db.exec(statement);
  if (seq !== undefined) {
    db.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(table);
    db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table, seq);
  }
}

async function ensureSqlite(file: string, wanted: readonly OptionalKey[], gone: ReadonlySet<string>): Promise<OptionalKeyChanges> {
  const db = registerSortKey(new Database(file, { fileMustExist: true, timeout: SQLITE_BUSY_TIMEOUT_MS }));
  try {
    if (nothingToDo(planFor(presentSqlite(db), wanted, gone))) return noChanges();
    // a pragma without effect inside a transaction: off around it, as the migration runner does
    db.pragma('foreign_keys = OFF');
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        // planned again under the write lock: another process may have done it meanwhile
        const plan = planFor(presentSqlite(db), wanted, gone);
        const { add, changes } = await applyRows(
          plan,
          async (q) => db.prepare(q.sql).run(...q.params).changes,
          async (q) => Number(db.prepare(q.sql).pluck().get(...q.params) as number | bigint),
          'sqlite',
        );
        for (const t of [...new Set([...add, ...plan.drop.map((d) => d.key)].map((k) => k.table))]) {
          rebuildSqlite(db, t, add.filter((k) => k.table === t), plan.drop.filter((d) => d.key.table === t));
          const violations = db.prepare(`PRAGMA foreign_key_check("${t}")`).all();
          if (violations.length) throw new Error(`${t}: ${violations.length} rows break its foreign keys after its rebuild`);
        }
        db.exec('COMMIT');
        return changes;
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      db.pragma('foreign_keys = ON');
    }
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

const PG_ON_DELETE: Record<string, OnDelete> = { n: 'set null', c: 'cascade', r: 'restrict' };

async function presentPostgres(client: Client): Promise<Present> {
  const columns = new Map<string, Set<string>>();
  const cols = await client.query<{ tbl: string; col: string }>(`SELECT c.relname AS tbl, a.attname AS col FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`);
  for (const r of cols.rows) columns.set(r.tbl, (columns.get(r.tbl) ?? new Set()).add(r.col));
  const keys = new Map<string, PresentKey>();
  const fks = await client.query<{ name: string; tbl: string; col: string; ref: string; del: string }>(`SELECT k.conname AS name, t.relname AS tbl, a.attname AS col, r.relname AS ref, k.confdeltype AS del
    FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 AND t.relnamespace = current_schema()::regnamespace`);
  for (const r of fks.rows) keys.set(`${r.tbl}.${r.col}`, { name: r.name, refTable: r.ref, onDelete: PG_ON_DELETE[r.del] ?? 'other' });
  return { columns, keys };
}

async function ensurePostgres(url: string, wanted: readonly OptionalKey[], gone: ReadonlySet<string>): Promise<OptionalKeyChanges> {
  return withClient(url, async (client) => {
    if (nothingToDo(planFor(await presentPostgres(client), wanted, gone))) return noChanges();
    // under the tenant's migration lock: instances opening one tenant at once would race on the keys
    return inLockedTransaction(client, async () => {
      const plan = planFor(await presentPostgres(client), wanted, gone);
      for (const { key, present } of plan.drop) await client.query(compileOptionalKey.drop({ table: key.table, name: present.name! }));
      const { add, changes } = await applyRows(
        plan,
        async (q) => (await client.query(q.sql, [...q.params])).rowCount ?? 0,
        async (q) => Number((await client.query<{ n: string }>(q.sql, [...q.params])).rows[0]!.n),
        'postgresql',
      );
      for (const k of add) await client.query(compileOptionalKey.add(k));
      return changes;
    });
  });
}
