/**
 * The foreign keys of `if_loaded` References (`ir.connector.param.file_id` → `storage.document`):
 * a Reference to a model whose app may be absent. No migration chain writes them (chains.ts
 * diffs such a Reference as a plain uuid column); each time a process opens or upgrades a
 * tenant, after its migrations, the key is added where the target's table is there and taken
 * back where it is not (`ensureOptionalKeys`). Uninstalling the target's app takes them back
 * first, with the tables about to go named `gone`.
 *
 * Why not in a chain: the declaring app's chain cannot know whether the target will be there, and
 * the target app's chain wrote the key on SQLite as a rebuild of the declaring app's table with
 * its columns as of when that migration was written; a column the declaring app added since was
 * dropped on a new tenant, and the declaring app's next rebuild (whose diff lacks the target)
 * dropped the key again. Here the key follows the tenant's tables as they are.
 *
 * Values that point at no row when the key is added (written while the target was absent, or
 * left by an uninstall) get what the key would have done to them: `set null` sets them to NULL;
 * under `cascade` or `restrict` the key is refused with the count, and nothing changes.
 */
import Database from 'better-sqlite3';
import type { Client } from 'pg';
import { registerSortKey } from '../data/collation.js';
import { compileOptionalKey, type OptionalKeyShape } from '../data/sql/compile.js';
import { Conflict } from '../errors.js';
import { inLockedTransaction, withClient } from '../migrate/runner.js';
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

/** What an ensure changed: keys added and dropped, and values set to NULL (`<table>.<column>`: rows). */
export interface OptionalKeyChanges { added: string[]; dropped: string[]; nulled: Record<string, number> }

/** A foreign key the database has on one column: its name (PostgreSQL) and the table it references. */
interface PresentKey { name?: string; refTable: string }

/** The tenant's tables with their columns, and its one-column foreign keys by `<table>.<column>`. */
interface Present { columns: ReadonlyMap<string, ReadonlySet<string>>; keys: ReadonlyMap<string, PresentKey> }

interface Plan {
  add: OptionalKey[];
  drop: Array<{ key: OptionalKey; present: PresentKey }>;
  /** `set null` columns whose target table is going: every value of theirs becomes NULL, key or no key. */
  clear: OptionalKey[];
}

/**
 * A key is wanted where its table has the column and the target's table is there (and not
 * `gone`). A key on the column to another table is not ours and stays.
 */
function planFor(present: Present, wanted: readonly OptionalKey[], gone: ReadonlySet<string>): Plan {
  const plan: Plan = { add: [], drop: [], clear: [] };
  for (const k of wanted) {
    if (!present.columns.get(k.table)?.has(k.column)) continue;
    const there = present.columns.has(k.refTable) && !gone.has(k.refTable);
    const key = present.keys.get(`${k.table}.${k.column}`);
    if (there && !key) plan.add.push(k);
    if (!there && key?.refTable === k.refTable) plan.drop.push({ key: k, present: key });
    if (gone.has(k.refTable) && k.onDelete === 'set null') plan.clear.push(k);
  }
  return plan;
}
const nothingToDo = (p: Plan): boolean => !p.add.length && !p.drop.length && !p.clear.length;

/** Values pointing nowhere under a key that cannot set them to NULL. */
export class OptionalKeyRefused extends Conflict {
  constructor(k: OptionalKey, rows: number) {
    super(
      `${k.table}.${k.column}: ${rows} row${rows === 1 ? '' : 's'} point at no ${k.refTable} row, and its key (on delete ${k.onDelete}) cannot be added over them: set them to NULL or to existing rows, then open the tenant again`,
      { table: k.table, column: k.column, references: k.refTable, rows },
      'DANGLING_REFERENCES',
    );
  }
}

/** Brings a tenant's `if_loaded` keys to its tables (`gone`: tables about to be dropped). */
export async function ensureOptionalKeys(target: SchemaTarget, wanted: readonly OptionalKey[], gone: ReadonlySet<string> = new Set()): Promise<OptionalKeyChanges> {
  if (!wanted.length) return { added: [], dropped: [], nulled: {} };
  return target.provider === 'sqlite' ? ensureSqlite(target.file, wanted, gone) : ensurePostgres(target.url, wanted, gone);
}

// ---------------------------------------------------------------------------------------------
// SQLite

function presentSqlite(db: Database.Database): Present {
  const columns = new Map<string, Set<string>>();
  for (const r of db.prepare<[], { tbl: string; col: string }>("SELECT m.name AS tbl, c.name AS col FROM sqlite_master AS m, pragma_table_info(m.name) AS c WHERE m.type = 'table'").all()) {
    columns.set(r.tbl, (columns.get(r.tbl) ?? new Set()).add(r.col));
  }
  const keys = new Map<string, PresentKey>();
  const rows = db.prepare<[], { tbl: string; id: number; col: string; ref: string }>(
    "SELECT m.name AS tbl, f.id AS id, f.\"from\" AS col, f.\"table\" AS ref FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table'",
  ).all();
  const width = new Map<string, number>();
  for (const r of rows) width.set(`${r.tbl}#${r.id}`, (width.get(`${r.tbl}#${r.id}`) ?? 0) + 1);
  for (const r of rows) if (width.get(`${r.tbl}#${r.id}`) === 1) keys.set(`${r.tbl}.${r.col}`, { refTable: r.ref });
  return { columns, keys };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The table's CREATE TABLE without the key on `column` to `refTable`, as the schema engine and
 * `compileOptionalKey.clause` write one (`, CONSTRAINT "…" FOREIGN KEY ("col") REFERENCES "ref" ("…") ON …`).
 */
function withoutClause(create: string, table: string, column: string, refTable: string): string {
  const clause = new RegExp(
    `,\\s*CONSTRAINT\\s+"[^"]+"\\s+FOREIGN\\s+KEY\\s*\\("${escapeRegExp(column)}"\\)\\s*REFERENCES\\s+"${escapeRegExp(refTable)}"\\s*\\("[^"]+"\\)(?:\\s+ON\\s+(?:DELETE|UPDATE)\\s+(?:SET\\s+NULL|SET\\s+DEFAULT|CASCADE|RESTRICT|NO\\s+ACTION))*`,
    'i',
  );
  if (!clause.test(create)) throw new Error(`${table}: its foreign key on ${column} to ${refTable} is not written as fw writes one; take it out by hand`);
  return create.replace(clause, '');
}

/**
 * SQLite cannot add or drop a key of a table: the table is rebuilt from its own CREATE TABLE
 * with the change (SQLite's documented procedure), its indexes and triggers made again from
 * theirs, with foreign keys off for the copy and checked on the table after.
 */
function rebuildSqlite(db: Database.Database, table: string, add: readonly OptionalKey[], drop: readonly OptionalKey[]): void {
  const row = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!row) throw new Error(`no table ${table}`);
  let create = row.sql;
  for (const k of drop) create = withoutClause(create, table, k.column, k.refTable);
  if (add.length) {
    const close = create.lastIndexOf(')');
    create = `${create.slice(0, close).trimEnd()},\n    ${add.map((k) => compileOptionalKey.clause(k)).join(',\n    ')}\n${create.slice(close)}`;
  }
  const temp = `fw_rebuild_${table}`;
  const others = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(table) as unknown as string[];
  db.exec(`CREATE TABLE "${temp}" ${create.slice(create.indexOf('('))}`);
  for (const statement of compileOptionalKey.rebuild(table, temp)) db.exec(statement);
  for (const statement of others) db.exec(statement);
}

function ensureSqlite(file: string, wanted: readonly OptionalKey[], gone: ReadonlySet<string>): OptionalKeyChanges {
  const db = registerSortKey(new Database(file, { fileMustExist: true, timeout: 10_000 }));
  try {
    if (nothingToDo(planFor(presentSqlite(db), wanted, gone))) return { added: [], dropped: [], nulled: {} };
    // a pragma without effect inside a transaction: off around it, as the migration runner does
    db.pragma('foreign_keys = OFF');
    try {
      return db.transaction((): OptionalKeyChanges => {
        const plan = planFor(presentSqlite(db), wanted, gone);
        const nulled: Record<string, number> = {};
        for (const k of plan.add) {
          const n = Number((db.prepare(compileOptionalKey.countDangling(k, 'sqlite').sql).pluck().get() as number | bigint));
          if (!n) continue;
          if (k.onDelete !== 'set null') throw new OptionalKeyRefused(k, n);
          const q = compileOptionalKey.nullDangling(k, 'sqlite');
          nulled[`${k.table}.${k.column}`] = db.prepare(q.sql).run(...q.params).changes;
        }
        for (const k of plan.clear) {
          const q = compileOptionalKey.nullDangling(k, 'sqlite', true);
          nulled[`${k.table}.${k.column}`] = db.prepare(q.sql).run(...q.params).changes;
        }
        const tables = [...new Set([...plan.add, ...plan.drop.map((d) => d.key)].map((k) => k.table))];
        for (const t of tables) {
          rebuildSqlite(db, t, plan.add.filter((k) => k.table === t), plan.drop.filter((d) => d.key.table === t).map((d) => d.key));
          const violations = db.prepare(`PRAGMA foreign_key_check("${t}")`).all();
          if (violations.length) throw new Error(`${t}: ${violations.length} rows break its foreign keys after its rebuild`);
        }
        return { added: plan.add.map((k) => k.name), dropped: plan.drop.map((d) => d.key.name), nulled };
      }).immediate();
    } finally {
      db.pragma('foreign_keys = ON');
    }
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

async function presentPostgres(client: Client): Promise<Present> {
  const columns = new Map<string, Set<string>>();
  const cols = await client.query<{ tbl: string; col: string }>(`SELECT c.relname AS tbl, a.attname AS col FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`);
  for (const r of cols.rows) columns.set(r.tbl, (columns.get(r.tbl) ?? new Set()).add(r.col));
  const keys = new Map<string, PresentKey>();
  const fks = await client.query<{ name: string; tbl: string; col: string; ref: string }>(`SELECT k.conname AS name, t.relname AS tbl, a.attname AS col, r.relname AS ref
    FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 AND t.relnamespace = current_schema()::regnamespace`);
  for (const r of fks.rows) keys.set(`${r.tbl}.${r.col}`, { name: r.name, refTable: r.ref });
  return { columns, keys };
}

async function ensurePostgres(url: string, wanted: readonly OptionalKey[], gone: ReadonlySet<string>): Promise<OptionalKeyChanges> {
  return withClient(url, async (client) => {
    if (nothingToDo(planFor(await presentPostgres(client), wanted, gone))) return { added: [], dropped: [], nulled: {} };
    // under the tenant's migration lock: instances opening one tenant at once would race on the keys
    return inLockedTransaction(client, async () => {
      const plan = planFor(await presentPostgres(client), wanted, gone);
      const nulled: Record<string, number> = {};
      for (const k of plan.add) {
        const count = compileOptionalKey.countDangling(k, 'postgresql');
        const n = Number((await client.query<{ n: string }>(count.sql, [...count.params])).rows[0]!.n);
        if (n) {
          if (k.onDelete !== 'set null') throw new OptionalKeyRefused(k, n);
          const q = compileOptionalKey.nullDangling(k, 'postgresql');
          nulled[`${k.table}.${k.column}`] = (await client.query(q.sql, [...q.params])).rowCount ?? 0;
        }
        await client.query(compileOptionalKey.add(k));
      }
      for (const { key: k, present } of plan.drop) await client.query(compileOptionalKey.drop({ table: k.table, name: present.name! }));
      for (const k of plan.clear) {
        const q = compileOptionalKey.nullDangling(k, 'postgresql', true);
        nulled[`${k.table}.${k.column}`] = (await client.query(q.sql, [...q.params])).rowCount ?? 0;
      }
      return { added: plan.add.map((k) => k.name), dropped: plan.drop.map((d) => d.key.name), nulled };
    });
  });
}
