import {
  DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql,
  type DatabaseIntrospector, type DialectAdapter, type QueryCompiler, type RawBuilder, type SelectQueryBuilder,
} from 'kysely';
import type { ResolvedField, ResolvedModel } from '../../registry/model.js';
import type { Registry } from '../../registry/registry.js';
import type { Where } from '../domain.js';
import { COLLATED_TYPES, POSTGRES_TEXT_COLLATION, SQLITE_SORT_KEY_FUNCTION } from '../collation.js';
import { orderServedByIndex } from './index-order.js';
import { decoderOf, encodeValue, type Dialect } from './values.js';
import { whereToSql } from './where.js';

/*
 * Kysely is used only as a compiler (its DummyDriver never runs anything): it quotes
 * identifiers, numbers placeholders per dialect and keeps values out of the SQL text. The
 * statements run on the tenant's own reader, which caches prepared statements by SQL text.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
function compileOnly(parts: {
  adapter: new () => DialectAdapter; introspector: new (db: AnyDb) => DatabaseIntrospector; compiler: new () => QueryCompiler;
}): AnyDb {
  return new Kysely({
    dialect: {
      createAdapter: () => new parts.adapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new parts.introspector(db),
      createQueryCompiler: () => new parts.compiler(),
    },
  });
}
const builders: Record<Dialect, AnyDb> = {
  sqlite: compileOnly({ adapter: SqliteAdapter, introspector: SqliteIntrospector, compiler: SqliteQueryCompiler }),
  postgresql: compileOnly({ adapter: PostgresAdapter, introspector: PostgresIntrospector, compiler: PostgresQueryCompiler }),
};

export interface CompiledSql { sql: string; params: readonly unknown[] }

/**
 * A Reference read in the same statement as the records pointing at it (`fw.search`'s
 * `include`): LEFT JOINed on its id, with the target's read rules for the caller in the join
 * condition, so a referenced record the caller may not see reads as absent, as it would through
 * its own search.
 */
export interface SearchJoin {
  /** The Reference field of the searched model. */
  field: string;
  target: ResolvedModel;
  /** Stored fields of the target to read, in order; `record_uuid` among them. */
  fields: ResolvedField[];
  /** The target's read rules for the caller, or null when none binds them. */
  where: Where | null;
}

export interface SearchQuery {
  where: Where;
  orderBy: Record<string, 'asc' | 'desc'>[];
  take?: number;
  skip?: number;
  /** Stored fields to read, in order; `record_uuid` among them. */
  fields: ResolvedField[];
  /** References read in the same statement; their columns follow the record's in each row. */
  joins?: SearchJoin[];
}

const ROOT = 't0';
/** Joined targets are j1, j2, …: subqueries of a `where` take t1, t2, … from the shared scope. */
const joinAlias = (i: number) => `j${i + 1}`;

function base(registry: Registry, model: ResolvedModel, where: Where, dialect: Dialect, scope = { registry, dialect, next: { n: 1 } }) {
  const q = builders[dialect].selectFrom(`${model.names.table} as ${ROOT}`);
  return Object.keys(where).length ? q.where((eb) => whereToSql(eb, model, ROOT, where, scope)) : q;
}

export function compileSearch(registry: Registry, model: ResolvedModel, query: SearchQuery, dialect: Dialect): CompiledSql {
  const scope = { registry, dialect, next: { n: 1 } };
  const joins = query.joins ?? [];
  const columns = query.fields.map((f) => `${ROOT}.${f.name}`);
  const joinedColumns = joins.flatMap((j, i) => j.fields.map((f) => `${joinAlias(i)}.${f.name}`));
  if (joins.length && (query.take !== undefined || query.skip) && !(orderServedByIndex(model, query.orderBy) && !query.skip)) {
    // a page with References: the page is chosen first and only its rows are joined. Joined
    // before the ORDER BY … LIMIT, every matching row of the table would be (a 20-row page of
    // 10,000 records looked up 10,000 countries, and sorted them all along). Not for a first
    // page in an order an index serves: read in index order, the join stops with the page, and
    // the page subquery only added its work (61 organizations with their countries on SQLite:
    // 146 µs flat, 174 µs paged, docs/performance.md). An offset keeps the subquery, which skips
    // rows without joining them.
    const keys = sortKeyColumns(model, query.orderBy, dialect);
    let page = base(registry, model, query.where, dialect, scope).select([
      ...columns,
      ...query.orderBy.map((o) => Object.keys(o)[0]!).filter((f) => !query.fields.some((x) => x.name === f)).map((f) => `${ROOT}.${f}`),
      // SQLite's text sort keys are computed once per row here and ordered by again outside
      ...[...keys].map(([field, alias]) => textOrderKey(`${ROOT}.${field}`, dialect).as(alias)),
    ]);
    page = paginate(orderSearch(page, model, query.orderBy, dialect, (field) => (keys.has(field) ? sql.ref(keys.get(field)!) : null)), query, dialect);
    let q = builders[dialect].selectFrom(page.as(ROOT));
    q = joinReferences(q, joins, scope);
    return compiled(orderSearch(q.select([...columns, ...joinedColumns]), model, query.orderBy, dialect, (field) => (keys.has(field) ? sql.ref(`${ROOT}.${keys.get(field)!}`) : null)));
  }
  const q = joinReferences(base(registry, model, query.where, dialect, scope), joins, scope);
  return compiled(paginate(orderSearch(q.select([...columns, ...joinedColumns]), model, query.orderBy, dialect, () => null), query, dialect));
}

/**
 * What a text column is ordered by, as people read it (src/kernel/data/collation.ts): on SQLite
 * its sort key, on PostgreSQL the column in the root collation. The ORDER BY of a search and the
 * sort indexes (src/kernel/db/sort-indexes.ts) both write it here: a database only uses an index
 * on an expression for the very same expression.
 */
function textOrderKey(column: string, dialect: Dialect): RawBuilder<unknown> {
  return dialect === 'sqlite'
    ? sql`${sql.raw(SQLITE_SORT_KEY_FUNCTION)}(${sql.ref(column)})`
    : sql`${sql.ref(column)} collate ${sql.id(POSTGRES_TEXT_COLLATION)}`;
}

/**
 * DDL of a sort index (src/kernel/db/sort-indexes.ts): text columns by `textOrderKey`, then on
 * PostgreSQL `dbid`, the tie-break every order ends with (SQLite's indexes end with the rowid,
 * which `dbid` is).
 */
export const compileSortIndex = {
  create: (i: { name: string; table: string; columns: ReadonlyArray<{ column: string; sortKey: boolean }> }, dialect: Dialect): string => {
    const parts = i.columns.map((c) => (c.sortKey ? textOrderKey(c.column, dialect) : sql.ref(c.column)));
    if (dialect === 'postgresql') parts.push(sql.ref('dbid'));
    return builders[dialect].schema.createIndex(i.name).ifNotExists().on(i.table).expression(sql.join(parts)).compile().sql;
  },
  drop: (name: string, dialect: Dialect): string => builders[dialect].schema.dropIndex(name).ifExists().compile().sql,
};

/** What a Reference's foreign key does when its target row goes (the schema engine's words for each). */
const ON_DELETE_SQL = { cascade: 'cascade', 'set null': 'set null', restrict: 'restrict' } as const;

/**
 * The statements of an `if_loaded` Reference's foreign key (src/kernel/db/optional-keys.ts),
 * shaped as the schema engine writes a Reference's (`ON UPDATE CASCADE`, onto `record_uuid`).
 */
export const compileOptionalKey = {
  /** PostgreSQL: the key added to its table. */
  add: (k: OptionalKeyShape): string => builders.postgresql.schema.alterTable(k.table)
    .addForeignKeyConstraint(k.name, [k.column], k.refTable, ['record_uuid'], (c) => c.onDelete(ON_DELETE_SQL[k.onDelete]).onUpdate('cascade'))
    .compile().sql,
  drop: (k: Pick<OptionalKeyShape, 'table' | 'name'>, ifExists = false): string => {
    const q = builders.postgresql.schema.alterTable(k.table).dropConstraint(k.name);
    return (ifExists ? q.ifExists() : q).compile().sql;
  },
  /** SQLite: the clause that goes into the table's CREATE TABLE (SQLite cannot add a key to a table). */
  clause: (k: OptionalKeyShape): string => sql`CONSTRAINT ${sql.id(k.name)} FOREIGN KEY (${sql.id(k.column)}) REFERENCES ${sql.id(k.refTable)} (${sql.id('record_uuid')}) ON DELETE ${sql.raw(ON_DELETE_SQL[k.onDelete].toUpperCase())} ON UPDATE CASCADE`
    .compile(builders.sqlite).sql,
  /** The column's values (`which`: all of them, or those pointing at no row of the target) set to NULL. */
  nullValues: (k: KeyColumn, dialect: Dialect, which: KeyValues): CompiledSql => {
    const q = builders[dialect].updateTable(k.table).set(k.column, null).where(k.column, 'is not', null);
    return compiled(which === 'all' ? q : q.where((eb) => eb.not(eb.exists(targetRow(k, dialect)))));
  },
  /** How many rows hold a value in the column (`which`: any, or one pointing at no row of the target). */
  countValues: (k: KeyColumn, dialect: Dialect, which: KeyValues): CompiledSql => {
    const q = builders[dialect].selectFrom(k.table).select((eb) => eb.fn.countAll().as('n')).where(k.column, 'is not', null);
    return compiled(which === 'all' ? q : q.where((eb) => eb.not(eb.exists(targetRow(k, dialect)))));
  },
  /**
   * SQLite's rebuild of a table whose CREATE TABLE changed (written into `temp` first): the rows
   * copied column for column (same order), the old table dropped, the new one renamed.
   */
  rebuild: (table: string, temp: string): string[] => [
    builders.sqlite.insertInto(temp).expression(builders.sqlite.selectFrom(table).selectAll()).compile().sql,
    builders.sqlite.schema.dropTable(table).compile().sql,
    builders.sqlite.schema.alterTable(temp).renameTo(table).compile().sql,
  ],
  /** The rows whose column holds a value deleted (`cascade`, its target's table going). */
  deleteReferencing: (k: Pick<OptionalKeyShape, 'table' | 'column'>, dialect: Dialect): CompiledSql =>
    compiled(builders[dialect].deleteFrom(k.table).where(k.column, 'is not', null)),
};

/**
 * The target's row a value of the key's column points at, for `NOT EXISTS`: a `NOT IN` over the
 * target's ids is re-read for every row once it outgrows PostgreSQL's work_mem (300,000 rows a
 * side ran for minutes, under the tenant's migration lock); this is one index probe a row. The
 * target is aliased, so a key onto its own table still compares with the outer row.
 */
function targetRow(k: KeyColumn, dialect: Dialect) {
  return builders[dialect].selectFrom(`${k.refTable} as fw_target`).select(sql.lit(1).as('one'))
    .whereRef('fw_target.record_uuid', '=', `${k.table}.${k.column}`);
}

/** The parts of a foreign key compileOptionalKey writes. */
export interface OptionalKeyShape { name: string; table: string; column: string; refTable: string; onDelete: keyof typeof ON_DELETE_SQL }
type KeyColumn = Pick<OptionalKeyShape, 'table' | 'column' | 'refTable'>;
/** A column's values: all of them, or those pointing at no row of the key's target. */
type KeyValues = 'all' | 'dangling';

/** The statement's text and parameters. */
function compiled(q: { compile(): { sql: string; parameters: readonly unknown[] } }): CompiledSql {
  const c = q.compile();
  return { sql: c.sql, params: c.parameters };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/** The References of a search LEFT JOINed on their ids, each with the target's read rules in its ON clause. */
function joinReferences(q: AnySelect, joins: readonly SearchJoin[], scope: { registry: Registry; dialect: Dialect; next: { n: number } }): AnySelect {
  return joins.reduce((acc, j, i) => {
    const alias = joinAlias(i);
    return acc.leftJoin(`${j.target.names.table} as ${alias}`, (join) => {
      const on = join.onRef(`${alias}.record_uuid`, '=', `${ROOT}.${j.field}`);
      const rules = j.where;
      return rules && Object.keys(rules).length ? on.on((eb) => whereToSql(eb, j.target, alias, rules, scope)) : on;
    });
  }, q);
}

/** SQLite text fields of an order, each with the column its sort key is selected as in a paged subquery. */
function sortKeyColumns(model: ResolvedModel, orderBy: SearchQuery['orderBy'], dialect: Dialect): Map<string, string> {
  const out = new Map<string, string>();
  if (dialect !== 'sqlite') return out;
  for (const o of orderBy) {
    const field = Object.keys(o)[0]!;
    const f = model.fields.get(field);
    if (f && COLLATED_TYPES.has(f.type)) out.set(field, `__sortkey_${out.size}`);
  }
  return out;
}

/**
 * ORDER BY of a search. `given` names an expression already computed for a field (a sort key
 * selected by the page subquery); else enums sort in declaration order, text as people read it
 * (src/kernel/data/collation.ts), the rest by value.
 */
function orderSearch(sel: AnySelect, model: ResolvedModel, orderBy: SearchQuery['orderBy'], dialect: Dialect, given: (field: string) => RawBuilder<unknown> | null): AnySelect {
  let out = sel;
  for (const o of orderBy) {
    const [field, dir] = Object.entries(o)[0]!;
    const column = `${ROOT}.${field}`;
    const f = model.fields.get(field);
    const ready = given(field);
    if (ready) out = out.orderBy(ready, dir);
    // an enum sorts in its declaration order (new, qualified, won, lost), as a pipeline reads:
    // CASE WHEN column = 'new' THEN 0 … END; NULL (or a value no longer declared) ranks NULL
    else if (f?.type === 'enum' && f.values) {
      const values = f.values;
      out = out.orderBy((eb) => values.slice(1)
        .reduce((c, v, i) => c.when(column, '=', v).then(eb.lit<number>(i + 1)), eb.case().when(column, '=', values[0]).then(eb.lit<number>(0)))
        .end(), dir);
    }
    // text sorts as people read it (src/kernel/data/collation.ts), not by its bytes
    else if (!COLLATED_TYPES.has(f?.type ?? '')) out = out.orderBy(column, dir);
    else out = out.orderBy(textOrderKey(column, dialect), dir);
  }
  return out;
}

/** LIMIT and OFFSET; SQLite needs a LIMIT before an OFFSET (-1: none). */
function paginate(sel: AnySelect, query: SearchQuery, dialect: Dialect): AnySelect {
  let out = sel;
  if (query.take !== undefined) out = out.limit(query.take);
  else if (query.skip && dialect === 'sqlite') out = out.limit(-1);
  if (query.skip) out = out.offset(query.skip);
  return out;
}

/**
 * UPDATE of one record by `dbid` (and `revision`, when the caller gave the one it read), with
 * `revision` counted up, RETURNING `fields` in order. `set` holds values as the columns store
 * them (`encodeValue`). Used on a SQLite transaction's own connection (fw.update).
 */
export function compileUpdate(model: ResolvedModel, set: Record<string, unknown>, where: { dbid: number; revision?: number }, fields: ResolvedField[], dialect: Dialect): CompiledSql {
  let q = builders[dialect].updateTable(model.names.table)
    .set({ ...set, revision: sql`${sql.ref('revision')} + 1` })
    .where('dbid', '=', where.dbid);
  if (where.revision !== undefined) q = q.where('revision', '=', where.revision);
  return compiled(q.returning(fields.map((f) => f.name)));
}

/** INSERT of one row (`values` as the columns store them), RETURNING `fields` in order (fw.create). */
export function compileInsert(model: ResolvedModel, values: Record<string, unknown>, fields: ResolvedField[], dialect: Dialect): CompiledSql {
  return compiled(builders[dialect].insertInto(model.names.table).values(values).returning(fields.map((f) => f.name)));
}

export function compileCount(registry: Registry, model: ResolvedModel, where: Where, dialect: Dialect): CompiledSql {
  return compiled(base(registry, model, where, dialect).select(sql<number>`count(*)`.as('n')));
}

/** Turns rows (arrays, in `fields` order) into records: `id` from record_uuid, then every field. */
export function recordBuilder(fields: ResolvedField[], dialect: Dialect): (row: unknown[]) => Record<string, unknown> {
  const plan = fields.map((f) => ({ name: f.name === 'record_uuid' ? 'id' : f.name, decode: decoderOf(f, dialect) }));
  const n = plan.length;
  return (row) => {
    // `id` first, as toRecord puts it: the key is placed here, its value set in the loop
    const out: Record<string, unknown> = { id: null };
    // a plain loop: this runs for every value of every row read
    for (let i = 0; i < n; i++) {
      const p = plan[i];
      const v = row[i];
      out[p.name] = v === null || v === undefined || !p.decode ? (v ?? null) : p.decode(v);
    }
    return out;
  };
}

/** PostgreSQL types of the columns of a record given by its values (`compileMatch`). */
const PG_TYPES: Record<string, string> = {
  uuid: 'uuid', reference: 'uuid', char: 'text', text: 'text', enum: 'text', integer: 'integer',
  float: 'double precision', boolean: 'boolean', datetime: 'timestamptz', json: 'jsonb',
};

/**
 * `SELECT 1` when a record that is no longer stored, given by the values of some of its columns,
 * matches `where`: the values stand in for the row as a one-row derived table, and relation
 * paths and followed references reach the tables as a search's do. Values are as records carry
 * them (datetimes as ISO text).
 */
export function compileMatch(registry: Registry, model: ResolvedModel, where: Where, dialect: Dialect, values: Record<string, unknown>): CompiledSql {
  const cols = Object.entries(values).flatMap(([name, v]) => {
    const f = model.fields.get(name);
    if (!f?.stored) return [];
    const enc = encodeValue(f, f.type === 'datetime' && typeof v === 'string' ? new Date(v) : v, dialect);
    return [dialect === 'postgresql'
      ? sql`CAST(${enc} AS ${sql.raw(PG_TYPES[f.type] ?? 'text')}) AS ${sql.ref(name)}`
      : sql`${enc} AS ${sql.ref(name)}`];
  });
  const scope = { registry, dialect, next: { n: 1 } };
  return compiled(builders[dialect]
    .selectFrom(sql`(SELECT ${sql.join(cols)})`.as(ROOT))
    .select(sql.lit(1).as('one'))
    .where((eb) => whereToSql(eb, model, ROOT, where, scope)));
}
