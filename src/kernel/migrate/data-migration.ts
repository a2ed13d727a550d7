import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Client } from 'pg';
import type { DataMigrationContext, DataMigration } from './data-context.js';

/**
 * Data migrations: a migration folder may hold `data.ts` beside its SQL files, its default export
 * run in the same transaction as the SQL. It runs where a line `-- fw:data` stands in the SQL
 * (statements above it first, those below after), or after all of the SQL when there is no such
 * line — so one migration can add a nullable column, fill it, then make it NOT NULL.
 */
export const DATA_FILE = 'data.ts';

const MARKER = /^[ \t]*--[ \t]*fw:data[ \t]*$/m;
export const DATA_MARKER_LINE = '-- fw:data';

/** A migration's data step as stored: the file to import and its text (part of the checksum). */
export interface DataStep { file: string; source: string }

export function readDataStep(dir: string): DataStep | undefined {
  const file = path.join(dir, DATA_FILE);
  return fs.existsSync(file) ? { file, source: fs.readFileSync(file, 'utf8') } : undefined;
}

/**
 * sha256 of the SQL, and of the data step after it when there is one: editing an applied
 * data.ts is refused like editing its SQL. A migration without data.ts keeps the checksum of its
 * SQL alone, as recorded by every tenant so far.
 */
export function migrationChecksum(sql: string, data?: Pick<DataStep, 'source'>): string {
  return createHash('sha256').update(data ? `${sql}\n-- ${DATA_FILE}\n${data.source}` : sql, 'utf8').digest('hex');
}

/** The SQL before the data step and after it. */
export function splitAtDataStep(sql: string): [string, string] {
  const m = MARKER.exec(sql);
  return m ? [sql.slice(0, m.index), sql.slice(m.index + m[0].length)] : [sql, ''];
}

export async function loadDataStep(step: DataStep): Promise<DataMigration> {
  const mod: { default?: unknown } = await import(pathToFileURL(step.file).href);
  const fn = mod.default;
  if (typeof fn !== 'function') throw new Error(`${step.file} must export a default async function (db: DataMigrationContext)`);
  return async (ctx) => { await fn(ctx); };
}

type Db = DataMigrationContext['db'];

/**
 * A Kysely on the migration's open better-sqlite3 connection: statements run on it, inside the
 * transaction the runner began. Never destroyed: that would close the runner's connection.
 */
export function sqliteDataDb(db: Database.Database): Db {
  return new Kysely({ dialect: new SqliteDialect({ database: db }) });
}

/** A Kysely whose one "pooled" connection is the runner's client, inside its locked transaction. */
export function postgresDataDb(client: Client): Db {
  const connection = Object.assign(client, { release: () => {} });
  return new Kysely({ dialect: new PostgresDialect({ pool: { connect: async () => connection, end: async () => {}, options: {} } }) });
}

/** The stub `fw migrate generate --data` writes. */
export const DATA_STUB = `import type { DataMigrationContext } from 'fw/app';

/**
 * Runs inside this migration's transaction, where the line "${DATA_MARKER_LINE}" stands in its SQL
 * files (after all of the SQL without one). Tables and columns are the database's names.
 */
export default async function ({ db }: DataMigrationContext): Promise<void> {
  // e.g. fill a new column from another before a later statement makes it NOT NULL:
  // await db.updateTable('crm_lead').set((eb) => ({ deadline: eb.ref('due_at') })).where('deadline', 'is', null).execute();
  void db;
}
`;
