/**
 * Sort indexes: the text columns of a model's default order indexed the way lists sort them, so
 * a page in that order is read in index order instead of sorting every matching row.
 *
 * - SQLite has no ICU, so text is ordered by `fw_sortkey(column)` (src/kernel/data/collation.ts),
 *   a JavaScript function SQLite called for every row an ORDER BY read: a 20-row page of a
 *   10,000-row table computed 10,000 keys and sorted them. With an index on the same expression,
 *   SQLite reads the page in index order and takes the keys from the index: no call, no sort.
 *   The price: every connection writing a tenant's file must have `fw_sortkey`
 *   (`registerSortKey`: the reader, Prisma's adapter in ./clients.ts, the migration runner).
 * - PostgreSQL orders text `COLLATE "und-x-icu"`, which no plain index serves: the index is on
 *   the column in that collation, then `dbid`.
 *
 * Only the default order gets one (what every list without an explicit order reads); other
 * orders still work, by sorting.
 *
 * A SQLite index stores keys, so it is only right for the keys of the version that built it:
 * its name carries `sortKeyVersion()` (key format, ICU weights, Unicode version) and its
 * definition. Each time a process that loaded the models opens or upgrades a tenant, after its
 * migrations, the `fw_sk_` indexes it no longer wants are dropped and the missing ones built
 * (./tenants.ts). A missing index (a migration rebuilt the table) only costs speed until then.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { registerSortKey, sortKeyVersion } from '../data/collation.js';
import { compileSortIndex } from '../data/sql/compile.js';
import { sortIndexColumns, type SortIndexColumn } from '../data/sql/index-order.js';
import type { Dialect } from '../data/sql/values.js';
import { inLockedTransaction, withClient } from '../migrate/runner.js';
import type { SchemaTarget } from '../migrate/upgrade.js';
import type { ResolvedModel } from '../registry/model.js';
import { postgresTableColumns, sqliteTableColumns, type TableColumns } from './catalogue.js';

/** One wanted index: its name says what it holds, so an index of that name is that index. */
export interface SortIndex {
  name: string;
  table: string;
  /** The default order's leading columns, up to its last text one (`sortIndexColumns`). */
  columns: SortIndexColumn[];
}

const PREFIX = 'fw_sk_';

/**
 * The sort index of each model whose default order starts with plain columns and has a text
 * one among them (`sortIndexColumns`; pure: models in, definitions out). On SQLite the name
 * carries the key version (`version`, default this process's).
 */
export function sortIndexesOf(models: Iterable<ResolvedModel>, dialect: Dialect, version: string = dialect === 'sqlite' ? sortKeyVersion() : ''): SortIndex[] {
  const out: SortIndex[] = [];
  for (const model of models) {
    const kept = sortIndexColumns(model);
    if (!kept) continue;
    const table = model.names.table;
    const hash = createHash('sha256').update(JSON.stringify([dialect, version, table, kept])).digest('hex').slice(0, 10);
    out.push({ name: `${PREFIX}${table}_${hash}`, table, columns: kept });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** What an ensure changed. */
export interface SortIndexChanges { created: string[]; dropped: string[] }

/** The tables of a database with their columns, and its `fw_sk_` indexes. */
interface Present { columns: TableColumns; indexes: readonly string[] }

const presentOf = (columns: TableColumns, indexes: readonly string[]): Present => ({ columns, indexes: indexes.filter((name) => name.startsWith(PREFIX)) });

/**
 * Drop the `fw_sk_` indexes not wanted (another key version, another default order, a model
 * gone); create the missing ones whose table has their columns. A table or column the tenant
 * lacks (an app it does not have, a default order on a field not migrated yet) gets no index
 * rather than failing the tenant's open.
 */
function planFor(present: Present, wanted: readonly SortIndex[]): { drop: string[]; create: SortIndex[] } {
  const want = wanted.filter((w) => w.columns.every((c) => present.columns.get(w.table)?.has(c.column)));
  return {
    drop: present.indexes.filter((name) => !want.some((w) => w.name === name)),
    create: want.filter((w) => !present.indexes.includes(w.name)),
  };
}
const nothingToDo = (p: ReturnType<typeof planFor>) => !p.drop.length && !p.create.length;

/** Brings a tenant's sort indexes to `wanted`; checking costs two reads of the catalogue. */
export async function ensureSortIndexes(target: SchemaTarget, wanted: readonly SortIndex[]): Promise<SortIndexChanges> {
  return target.provider === 'sqlite' ? ensureSqliteSortIndexes(target.file, wanted) : ensurePostgresSortIndexes(target.url, wanted);
}

/** SQLite: in one write transaction, planned again inside it (another process may have done it meanwhile). */
export function ensureSqliteSortIndexes(file: string, wanted: readonly SortIndex[]): SortIndexChanges {
  const db = registerSortKey(new Database(file, { fileMustExist: true, timeout: 10_000 }));
  try {
    const present = (): Present => presentOf(
      sqliteTableColumns(db),
      db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all(),
    );
    if (nothingToDo(planFor(present(), wanted))) return { created: [], dropped: [] };
    return db.transaction((): SortIndexChanges => {
      const { drop, create } = planFor(present(), wanted);
      for (const name of drop) db.exec(compileSortIndex.drop(name, 'sqlite'));
      for (const w of create) db.exec(compileSortIndex.create(w, 'sqlite'));
      return { created: create.map((w) => w.name), dropped: drop };
    }).immediate();
  } finally {
    db.close();
  }
}

/**
 * PostgreSQL: under the tenant's migration lock (instances opening one tenant at once would
 * race on the same names), planned again inside it. Building an index on a large table holds
 * its writes for the build, as a migration's would.
 */
export async function ensurePostgresSortIndexes(url: string, wanted: readonly SortIndex[]): Promise<SortIndexChanges> {
  return withClient(url, async (client) => {
    const present = async (): Promise<Present> => presentOf(
      await postgresTableColumns(client),
      (await client.query<{ name: string }>("SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'i'")).rows.map((r) => r.name),
    );
    if (nothingToDo(planFor(await present(), wanted))) return { created: [], dropped: [] };
    return inLockedTransaction(client, async () => {
      const { drop, create } = planFor(await present(), wanted);
      for (const name of drop) await client.query(compileSortIndex.drop(name, 'postgresql'));
      for (const w of create) await client.query(compileSortIndex.create(w, 'postgresql'));
      return { created: create.map((w) => w.name), dropped: drop };
    });
  });
}
