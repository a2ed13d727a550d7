import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Client, DatabaseError, escapeIdentifier } from 'pg';
import { registerSortKey } from '../data/collation.js';
import type { DataMigration } from './data-context.js';
import {
  loadDataStep, migrationChecksum, postgresDataDb, splitAtDataStep, sqliteDataDb, type DataStep,
} from './data-migration.js';
import { DatabaseUnreachable, MigrationRefused } from '../errors.js';
import { explainFailure } from './failure.js';

export interface StoredMigration {
  /** Unique among the migrations applied to a database (`<app>/<folder>` for app chains). */
  name: string;
  sql: string;
  /** sha256 hex of `sql` (and of `data`'s text when there is one: data-migration.ts). */
  checksum: string;
  /** The migration's `data.ts`, run inside its transaction (data-migration.ts). */
  data?: DataStep;
  /**
   * A removal (uninstalling an app): instead of being recorded, the run forgets every recorded
   * migration whose name starts with this prefix, in the same transaction as the SQL, so the
   * tables and the record of them never disagree.
   */
  forget?: string;
  /** A rewind of fw dev's drafts (drafts.ts): instead of being recorded, the run forgets these recorded migrations. */
  forgetNames?: readonly string[];
  /**
   * Checksums of earlier texts of this migration that a tenant may have applied: a shipped
   * migration rewritten so that new tenants run something else, while tenants that ran the
   * earlier text are where the new one would bring them (chains.ts, `earlier-checksums.json`).
   */
  earlier?: readonly string[];
}

/** Whether a recorded checksum is this migration's, or one of its earlier texts'. */
const isChecksumOf = (m: StoredMigration, recorded: string): boolean => recorded === m.checksum || (m.earlier?.includes(recorded) ?? false);

export const MIGRATIONS_TABLE = '_fw_migrations';

/**
 * Serialises concurrent upgrades of one tenant. Advisory locks are scoped to the current
 * database, so tenants never wait on each other even though the key is shared.
 */
export const PG_MIGRATION_LOCK_KEY = 4_611_720_231_055_873n; // arbitrary, only needs to be stable

export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Database names end up in DDL that cannot take bind parameters, so only plain identifiers pass. */
function assertDatabaseName(dbName: string): void {
  if (!DATABASE_NAME.test(dbName)) {
    throw new Error(
      `Invalid database name ${JSON.stringify(dbName)}: expected lowercase letters, digits and '_', ` +
        'not starting with a digit, at most 63 characters',
    );
  }
}

/**
 * The list in apply order, as given: chains come in dependency order (an app after the apps it
 * depends on), which no sort of the names could reproduce. A duplicate name or a checksum that
 * does not match its SQL means the stored migrations themselves are broken, which must stop the
 * run before anything is applied.
 */
function prepareMigrations(migrations: StoredMigration[]): StoredMigration[] {
  const seen = new Set<string>();
  for (const m of migrations) {
    if (seen.has(m.name)) throw new MigrationRefused(`Duplicate migration name "${m.name}"`, { migration: m.name }, 'MIGRATION_DUPLICATE');
    seen.add(m.name);
    if (migrationChecksum(m.sql, m.data) !== m.checksum) {
      throw new MigrationRefused(`Migration "${m.name}": stored checksum does not match its SQL (corrupted migration store?)`, { migration: m.name }, 'MIGRATION_CORRUPT');
    }
  }
  return [...migrations];
}

function checksumMismatch(name: string, applied: string, stored: string): MigrationRefused {
  return new MigrationRefused(
    `Migration "${name}" was already applied with checksum ${applied}, but the stored migration now has ` +
      `checksum ${stored}; applied migrations must never change (write a new migration instead)`,
    { migration: name, applied, stored },
    'MIGRATION_CHANGED',
  );
}

function assertAppliedChecksums(ordered: StoredMigration[], applied: Map<string, string>): void {
  for (const m of ordered) {
    const recorded = applied.get(m.name);
    if (recorded !== undefined && !isChecksumOf(m, recorded)) throw checksumMismatch(m.name, recorded, m.checksum);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function migrationFailed(name: string, error: unknown): Error {
  return new Error(`Migration "${name}" failed and was rolled back: ${explainFailure(errorMessage(error))}`, { cause: error });
}

// ---------------------------------------------------------------------------------------------
// SQLite

/** Matches the engine's `PRAGMA foreign_keys=OFF;` that opens every table-rebuild migration. */
const SQLITE_FK_OFF = /^\s*PRAGMA\s+foreign_keys\s*=\s*(?:OFF|0|FALSE|NO)\s*;?\s*$/im;

/**
 * Foreign-key pragmas are no-ops inside a transaction, and leaving them in would suggest they
 * work; the runner applies their intent around the transaction instead.
 */
const SQLITE_FK_PRAGMA_LINE = /^\s*PRAGMA\s+(?:defer_)?foreign_keys\s*=\s*\w+\s*;?\s*$/gim;

interface ForeignKeyViolation {
  table: string;
  rowid: number | null;
  parent: string;
  fkid: number;
}

function describeViolations(violations: ForeignKeyViolation[]): string {
  const byTable = new Map<string, number>();
  for (const v of violations) {
    const key = `${v.table} -> ${v.parent}`;
    byTable.set(key, (byTable.get(key) ?? 0) + 1);
  }
  return [...byTable].map(([key, count]) => `${key} (${count} row${count === 1 ? '' : 's'})`).join(', ');
}

async function applyOneSqlite(db: Database.Database, m: StoredMigration): Promise<boolean> {
  const disablesForeignKeys = SQLITE_FK_OFF.test(m.sql);
  const [before, after] = splitAtDataStep(m.sql.replace(SQLITE_FK_PRAGMA_LINE, ''));
  // imported before the transaction: nothing slow happens while it holds the write lock
  const data = m.data ? await loadDataStep(m.data) : undefined;

  // Must happen outside the transaction, where SQLite honours it.
  if (disablesForeignKeys) db.pragma('foreign_keys = OFF');
  try {
    // BEGIN/COMMIT by hand rather than db.transaction(): a data step is async. IMMEDIATE takes
    // the write lock up front, so the re-check below cannot race another writer.
    db.exec('BEGIN IMMEDIATE');
    try {
      const applied = await applyInSqliteTransaction(db, m, before, after, data, disablesForeignKeys);
      db.exec('COMMIT');
      return applied;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    if (disablesForeignKeys) db.pragma('foreign_keys = ON');
  }
}

async function applyInSqliteTransaction(
  db: Database.Database, m: StoredMigration, before: string, after: string, data: DataMigration | undefined, disablesForeignKeys: boolean,
): Promise<boolean> {
  // Re-read under the write lock: another process may have applied it since we last looked.
  const row = db.prepare(`SELECT checksum FROM ${MIGRATIONS_TABLE} WHERE name = ?`).get(m.name) as
    | { checksum: string }
    | undefined;
  if (row) {
    if (!isChecksumOf(m, row.checksum)) throw checksumMismatch(m.name, row.checksum, m.checksum);
    return false;
  }
  try {
    db.exec(before);
    if (data) await data({ db: sqliteDataDb(db), provider: 'sqlite', migration: m.name });
    if (after.trim()) db.exec(after);
    if (disablesForeignKeys) {
      // With enforcement off nothing stopped the rebuild from orphaning rows; check before COMMIT.
      const violations = db.pragma('foreign_key_check') as ForeignKeyViolation[];
      if (violations.length > 0) {
        throw new Error(`PRAGMA foreign_key_check reports violations: ${describeViolations(violations)}`);
      }
    }
  } catch (error) {
    throw migrationFailed(m.name, error);
  }
  if (m.forget !== undefined) {
    db.prepare(`DELETE FROM ${MIGRATIONS_TABLE} WHERE substr(name, 1, ?) = ?`).run(m.forget.length, m.forget);
    return true;
  }
  if (m.forgetNames) {
    for (const name of m.forgetNames) db.prepare(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = ?`).run(name);
    return true;
  }
  db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES (?, ?, ?)`).run(
    m.name,
    m.checksum,
    new Date().toISOString(),
  );
  return true;
}

/** Applies the not yet applied migrations to one SQLite file; returns the names applied now. */
export async function applySqliteMigrations(dbFile: string, migrations: StoredMigration[]): Promise<string[]> {
  const ordered = prepareMigrations(migrations);
  mkdirSync(dirname(dbFile), { recursive: true });
  // data migrations write tables with sort indexes (src/kernel/db/sort-indexes.ts)
  const db = registerSortKey(new Database(dbFile));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    // Hand-written data migrations must not be able to orphan rows either.
    db.pragma('foreign_keys = ON');
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        name TEXT PRIMARY KEY,
        checksum TEXT NOT NULL,
        applied_at TEXT NOT NULL
      )`,
    );
    const rows = db.prepare(`SELECT name, checksum FROM ${MIGRATIONS_TABLE}`).all() as {
      name: string;
      checksum: string;
    }[];
    // Refuse before applying anything, so an edited history never leaves a half-upgraded tenant.
    assertAppliedChecksums(ordered, new Map(rows.map((r) => [r.name, r.checksum])));

    const appliedNow: string[] = [];
    for (const m of ordered) {
      if (await applyOneSqlite(db, m)) appliedNow.push(m.name);
    }
    return appliedNow;
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** Connection failures that mean the server is not there, not ready, or refuses the login. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', '57P03', '28P01', '28000']);

export async function withClient<T>(connectionString: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString });
  // Without a listener, a connection dropped by the server while idle (e.g. DROP DATABASE ...
  // WITH (FORCE) from elsewhere) would crash the process; pending queries still reject.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    // a server that is not there or refuses the login: said with the address and the setting
    // ("connect ECONNREFUSED 127.0.0.1:5432" alone named neither); a missing database is the caller's
    if (UNREACHABLE.has(String((err as { code?: unknown }).code))) throw new DatabaseUnreachable(connectionString, err);
    throw err;
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs fn in a transaction holding the tenant's migration lock; rolls back if fn throws. */
export async function inLockedTransaction<T>(client: Client, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${PG_MIGRATION_LOCK_KEY})`);
    // Inside the lock, so concurrent first runs do not race on creating the table.
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        name TEXT PRIMARY KEY,
        checksum TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL
      )`,
    );
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A broken connection cannot roll back; the server discards the transaction anyway.
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function appliedChecksums(client: Client): Promise<Map<string, string>> {
  const { rows } = await client.query<{ name: string; checksum: string }>(
    `SELECT name, checksum FROM ${MIGRATIONS_TABLE}`,
  );
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

/** Applies the not yet applied migrations to one PostgreSQL database; returns the names applied now. */
export async function applyPostgresMigrations(connectionString: string, migrations: StoredMigration[]): Promise<string[]> {
  const ordered = prepareMigrations(migrations);
  return withClient(connectionString, async (client) => {
    const applied = await inLockedTransaction(client, () => appliedChecksums(client));
    // Refuse before applying anything, so an edited history never leaves a half-upgraded tenant.
    assertAppliedChecksums(ordered, applied);

    const appliedNow: string[] = [];
    for (const m of ordered) {
      if (applied.has(m.name)) continue;
      const data = m.data ? await loadDataStep(m.data) : undefined;
      const didApply = await inLockedTransaction(client, async () => {
        // Re-read under the lock: a concurrent run may have applied it while we waited.
        const current = await client.query<{ checksum: string }>(
          `SELECT checksum FROM ${MIGRATIONS_TABLE} WHERE name = $1`,
          [m.name],
        );
        const recorded = current.rows[0]?.checksum;
        if (recorded !== undefined) {
          if (!isChecksumOf(m, recorded)) throw checksumMismatch(m.name, recorded, m.checksum);
          return false;
        }
        try {
          const [before, after] = splitAtDataStep(m.sql);
          // No bind values: sent as a simple query, which may hold several statements.
          await client.query(before);
          if (data) await data({ db: postgresDataDb(client), provider: 'postgresql', migration: m.name });
          if (after.trim()) await client.query(after);
        } catch (error) {
          throw migrationFailed(m.name, error);
        }
        if (m.forget !== undefined) {
          await client.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE starts_with(name, $1)`, [m.forget]);
          return true;
        }
        if (m.forgetNames) {
          await client.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = ANY($1)`, [m.forgetNames]);
          return true;
        }
        await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES ($1, $2, now())`, [
          m.name,
          m.checksum,
        ]);
        return true;
      });
      if (didApply) appliedNow.push(m.name);
    }
    return appliedNow;
  });
}

/** CREATE DATABASE if missing; true if this call created it. Safe under concurrent callers. */
export async function ensurePostgresDatabase(serverUrl: string, dbName: string): Promise<boolean> {
  assertDatabaseName(dbName);
  return withClient(serverUrl, async (client) => {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if ((existing.rowCount ?? 0) > 0) return false;
    try {
      await client.query(`CREATE DATABASE ${escapeIdentifier(dbName)}`);
      return true;
    } catch (error) {
      // A concurrent caller won the race between our check and CREATE. PostgreSQL reports 42P04
      // duplicate_database only if the other CREATE committed before ours started; truly
      // concurrent ones (measured on PG 15) collide on pg_database's unique index instead.
      if (
        error instanceof DatabaseError &&
        (error.code === '42P04' || (error.code === '23505' && error.constraint === 'pg_database_datname_index'))
      ) {
        return false;
      }
      throw error;
    }
  });
}

/** Drops the database, disconnecting its sessions (for tests and tenant removal). */
export async function dropPostgresDatabase(serverUrl: string, dbName: string): Promise<void> {
  assertDatabaseName(dbName);
  await withClient(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(dbName)} WITH (FORCE)`);
  });
}

/** Names of the (non-template) databases starting with `prefix`, sorted. */
export async function listPostgresDatabases(serverUrl: string, prefix: string): Promise<string[]> {
  return withClient(serverUrl, async (client) => {
    // starts_with rather than LIKE: '_' is a LIKE wildcard and common in our prefixes.
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE NOT datistemplate AND starts_with(datname, $1) ORDER BY datname',
      [prefix],
    );
    return rows.map((r) => r.datname);
  });
}
