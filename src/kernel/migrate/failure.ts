/**
 * A failed migration's driver message, said in the user's terms. SQLite changes most columns by
 * rebuilding the table: the engine's SQL creates "new_<table>", copies the rows into it, drops
 * the old table and renames the new one, so a constraint failing on existing rows names
 * "new_crm_lead.title" — a table the user never declared. The message names the table and column
 * the user knows, and says what to do.
 */
const REBUILD_TABLE = /\bnew_(\w+)\./g;

const SQLITE_CONSTRAINT = /\b(NOT NULL|UNIQUE) constraint failed: (\w+)\.(\w+)/;
const PG_NOT_NULL = /column "([^"]+)" of relation "([^"]+)" contains null values|null value in column "([^"]+)" of relation "([^"]+)"/;

const NO_VALUE = 'a row has no value for it; fill it first in a data step (data.ts, docs/migrations.md), or give the field a default';
const DUPLICATES = 'two rows share a value; make them distinct first in a data step (data.ts, docs/migrations.md)';

export function explainFailure(message: string): string {
  const sqlite = SQLITE_CONSTRAINT.exec(message);
  if (sqlite) {
    const [, kind, rawTable, column] = sqlite;
    const table = rawTable.replace(/^new_/, '');
    const original = message.replace(REBUILD_TABLE, '$1.');
    return `table ${table}, column ${column}: ${kind === 'UNIQUE' ? DUPLICATES : NO_VALUE} (${original})`;
  }
  const pg = PG_NOT_NULL.exec(message);
  if (pg) return `table ${pg[2] ?? pg[4]}, column ${pg[1] ?? pg[3]}: ${NO_VALUE} (${message})`;
  return message.replace(REBUILD_TABLE, '$1.');
}
