/**
 * What a tenant's database has, read from its own catalogue: what the tenant's open compares with
 * what the models want (./sort-indexes.ts, ./optional-keys.ts), so a table or column the tenant
 * lacks is left alone rather than failing its open.
 */
import type Database from 'better-sqlite3';
import type { Client } from 'pg';

/** Each table with its columns. */
export type TableColumns = ReadonlyMap<string, ReadonlySet<string>>;

function byTable(rows: ReadonlyArray<{ tbl: string; col: string }>): TableColumns {
  const columns = new Map<string, Set<string>>();
  for (const r of rows) columns.set(r.tbl, (columns.get(r.tbl) ?? new Set()).add(r.col));
  return columns;
}

export function sqliteTableColumns(db: Database.Database): TableColumns {
  return byTable(db.prepare<[], { tbl: string; col: string }>("SELECT m.name AS tbl, c.name AS col FROM sqlite_master AS m, pragma_table_info(m.name) AS c WHERE m.type = 'table'").all());
}

/** The current schema's tables; from the catalogue itself: information_schema.columns took ~15 ms a tenant. */
export async function postgresTableColumns(client: Client): Promise<TableColumns> {
  return byTable((await client.query<{ tbl: string; col: string }>(`SELECT c.relname AS tbl, a.attname AS col FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`)).rows);
}
