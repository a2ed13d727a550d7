/**
 * A tenant's database as the floors that read it open it (`db-floor.ts`, `yoga-db-floor.ts`):
 * statements run as fw's readers run them, and nothing else.
 * - SQLite: the file read-only for reads and writable for writes, both with `fw_sortkey`,
 *   statements prepared once, rows as arrays.
 * - PostgreSQL: a pool of 5 (fw's `PG_POOL_MAX` default: one connection would queue round trips
 *   fw runs side by side), statements named (prepared once per connection, as fw's reader
 *   prepares them with its default PG_STATEMENT_CACHE; `FLOOR_PG_UNNAMED=1` sends them unnamed,
 *   for a server run with PG_STATEMENT_CACHE=0), under fw's statement names, rows as arrays,
 *   values parsed by fw's reader's own parsers (timestamps kept as text, decoded as fw decodes them).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { registerSortKey } from '../../src/kernel/data/collation.ts';
import { readerTypes } from '../../src/kernel/db/readers/postgresql/index.ts';
import { arrayRows, statementNames } from '../../src/kernel/db/readers/postgresql/statements.ts';

export type Dialect = 'sqlite' | 'postgresql';

export interface TenantDb {
  /** A read's rows (SQLite answers at once, without a promise). */
  rows(sql: string, params: unknown[]): unknown[][] | Promise<unknown[][]>;
  /** The one row a write returns. */
  write(sql: string, params: unknown[]): unknown[] | undefined | Promise<unknown[] | undefined>;
}

/** `?` placeholders as the dialect writes them (`$1`, `$2`, … on PostgreSQL). */
export function placeholders(dialect: Dialect, sql: string): string {
  let n = 0;
  return dialect === 'postgresql' ? sql.replace(/\?/g, () => `$${++n}`) : sql;
}

/** `where`: the SQLite file, or the PostgreSQL database's URL. */
export function openTenantDb(dialect: Dialect, where: string): TenantDb {
  return dialect === 'postgresql' ? postgresDb(where) : sqliteDb(where);
}

function sqliteDb(file: string): TenantDb {
  const read = registerSortKey(new Database(file, { readonly: true }));
  let write: Database.Database | undefined;
  const prepared = new Map<Database.Database, Map<string, Database.Statement<unknown[], unknown[]>>>();
  const statement = (db: Database.Database, sql: string) => {
    const of = prepared.get(db) ?? new Map<string, Database.Statement<unknown[], unknown[]>>();
    prepared.set(db, of);
    let st = of.get(sql);
    if (!st) of.set(sql, (st = db.prepare<unknown[], unknown[]>(sql).raw(true)));
    return st;
  };
  return {
    rows: (sql, params) => statement(read, sql).all(...params) as unknown[][],
    // opened on the first write: a floor that only reads holds no writable connection
    write: (sql, params) => statement((write ??= registerSortKey(new Database(file))), sql).get(...params) as unknown[] | undefined,
  };
}

function postgresDb(url: string): TenantDb {
  const pool = new pg.Pool({ connectionString: url, max: 5 });
  const nameOf = process.env.FLOOR_PG_UNNAMED === '1' ? () => undefined : statementNames();
  const rows = (text: string, values: unknown[]) => arrayRows(pool, text, values, readerTypes, nameOf(text));
  return { rows, write: async (sql, params) => (await rows(sql, params))[0] };
}
