import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from 'pg';
import { registerSortKey } from '../data/collation.js';
import {
  applyPostgresMigrations, applySqliteMigrations, inLockedTransaction, MIGRATIONS_TABLE, sha256Hex, withClient,
  type StoredMigration,
} from './runner.js';

/** One tenant database. */
export type SchemaTarget = { provider: 'sqlite'; file: string } | { provider: 'postgresql'; url: string };

export interface UpgradePlan {
  /** The chains of the active apps in apply order: the kernel's, then each app after its dependencies. */
  migrations: StoredMigration[];
  /**
   * The single shared chain of releases before per-app chains. Only a tenant made by such a
   * release (its `_fw_migrations` holds names without an `<app>/` prefix) ever runs it.
   */
  legacy: StoredMigration[];
  /** Each app's first migration with the tables it creates: the baseline of such a tenant. */
  initials: () => Promise<Array<{ migration: StoredMigration; tables: string[] }>>;
  /** Finalised migrations and the `fw dev` drafts each replaced (drafts.ts); none outside a project with such. */
  replacements?: () => Array<{ migration: StoredMigration; replaces: string[] }>;
  /** Under fw dev: the steps undoing drafts the tenant applied that left the chain (drafts.ts); none outside. */
  rewinds?: (applied: readonly string[]) => Promise<StoredMigration[]>;
}

const isLegacyName = (name: string): boolean => !name.includes('/');

/**
 * Brings a tenant's tables up to the active apps' chains; returns what was applied now (a
 * baseline entry reads `<name> (baseline)`).
 *
 * A tenant made by a release with the single shared chain first completes that chain, then
 * records each app's first migration as applied when every table it creates is already there
 * (Django's `--fake-initial`, limited to such tenants): those tables hold the tenant's data and
 * already have the shape the first migration would give them, because the per-app chains were
 * cut from the same declarations the shared chain ended with.
 */
export async function upgradeSchema(target: SchemaTarget, plan: UpgradePlan): Promise<string[]> {
  const out: string[] = [];
  const applied = await appliedMigrations(target);
  if (applied.some(isLegacyName)) {
    out.push(...(await apply(target, plan.legacy)));
    out.push(...(await baseline(target, await plan.initials())).map((n) => `${n} (baseline)`));
  }
  const replacements = plan.replacements?.() ?? [];
  if (replacements.length) out.push(...(await adoptReplacements(target, replacements)).map((n) => `${n} (replaces drafts)`));
  // read again only when the steps above recorded something
  const rewinds = plan.rewinds ? await plan.rewinds(out.length ? await appliedMigrations(target) : applied) : [];
  for (const r of rewinds) {
    await apply(target, [r]);
    out.push(`${r.name} (undid ${r.forgetNames?.join(', ')})`);
  }
  out.push(...(await apply(target, plan.migrations)));
  return out;
}

/**
 * A dev tenant that applied every draft a finalised migration replaces already has its tables:
 * the migration is recorded as applied and the drafts forgotten, in one transaction, instead of
 * running its SQL again. A tenant that applied none of them runs the migration as usual.
 */
async function adoptReplacements(target: SchemaTarget, replacements: NonNullable<ReturnType<NonNullable<UpgradePlan['replacements']>>>): Promise<string[]> {
  if (target.provider === 'sqlite') {
    return withSqlite(target.file, (db) => db.transaction(() => {
      const done: string[] = [];
      const has = (name: string) => db.prepare(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = ?`).get(name) !== undefined;
      for (const { migration, replaces } of replacements) {
        if (!replaces.length || has(migration.name) || !replaces.every(has)) continue;
        for (const r of replaces) db.prepare(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = ?`).run(r);
        db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES (?, ?, ?)`)
          .run(migration.name, migration.checksum, new Date().toISOString());
        done.push(migration.name);
      }
      return done;
    }).immediate());
  }
  return withClient(target.url, (client) => inLockedTransaction(client, async () => {
    const done: string[] = [];
    const has = async (name: string) => ((await client.query(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [name])).rowCount ?? 0) > 0;
    for (const { migration, replaces } of replacements) {
      if (!replaces.length || (await has(migration.name))) continue;
      let all = true;
      for (const r of replaces) if (all && !(await has(r))) all = false;
      if (!all) continue;
      await client.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = ANY($1)`, [replaces]);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES ($1, $2, now())`, [migration.name, migration.checksum]);
      done.push(migration.name);
    }
    return done;
  }));
}

function apply(target: SchemaTarget, migrations: StoredMigration[]): Promise<string[]> {
  return target.provider === 'sqlite' ? applySqliteMigrations(target.file, migrations) : applyPostgresMigrations(target.url, migrations);
}

// ---------------------------------------------------------------------------------------------
// SQLite

function withSqlite<T>(file: string, fn: (db: Database.Database) => T): T {
  mkdirSync(dirname(file), { recursive: true });
  // what runs here may write tables with sort indexes (src/kernel/db/sort-indexes.ts)
  const db = registerSortKey(new Database(file));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 10000');
    db.pragma('foreign_keys = ON');
    db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    return fn(db);
  } finally {
    db.close();
  }
}

const sqliteHasTable = (db: Database.Database, table: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;

// ---------------------------------------------------------------------------------------------
// PostgreSQL

async function pgHasTable(client: Client, table: string): Promise<boolean> {
  const { rowCount } = await client.query(
    'SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1', [table],
  );
  return (rowCount ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------

/** Names recorded in the tenant's `_fw_migrations`, in the order they were applied. */
export async function appliedMigrations(target: SchemaTarget): Promise<string[]> {
  if (target.provider === 'sqlite') {
    return withSqlite(target.file, (db) =>
      (db.prepare(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY rowid`).all() as Array<{ name: string }>).map((r) => r.name));
  }
  return withClient(target.url, (client) => inLockedTransaction(client, async () =>
    (await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY applied_at, name`)).rows.map((r) => r.name)));
}

/** Records each initial migration whose tables all exist as applied (see `upgradeSchema`). */
async function baseline(target: SchemaTarget, initials: Awaited<ReturnType<UpgradePlan['initials']>>): Promise<string[]> {
  if (target.provider === 'sqlite') {
    return withSqlite(target.file, (db) => db.transaction(() => {
      const done: string[] = [];
      for (const { migration, tables } of initials) {
        if (db.prepare(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = ?`).get(migration.name)) continue;
        if (!tables.length || !tables.every((t) => sqliteHasTable(db, t))) continue;
        db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES (?, ?, ?)`)
          .run(migration.name, migration.checksum, new Date().toISOString());
        done.push(migration.name);
      }
      return done;
    }).immediate());
  }
  return withClient(target.url, (client) => inLockedTransaction(client, async () => {
    const done: string[] = [];
    for (const { migration, tables } of initials) {
      const recorded = await client.query(`SELECT 1 FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [migration.name]);
      if ((recorded.rowCount ?? 0) > 0) continue;
      let all = tables.length > 0;
      for (const t of tables) if (all && !(await pgHasTable(client, t))) all = false;
      if (!all) continue;
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES ($1, $2, now())`, [migration.name, migration.checksum]);
      done.push(migration.name);
    }
    return done;
  }));
}

/**
 * Removes an app from a tenant: runs `sql` (the schema engine's diff from "installed" to "not
 * installed": its tables dropped, and on SQLite the dependency tables holding foreign keys to them
 * rebuilt without those keys) and forgets the app's migrations, in one transaction.
 */
export async function dropAppSchema(target: SchemaTarget, app: string, sql: string): Promise<void> {
  const removal: StoredMigration = { name: `${app}/~uninstall`, sql, checksum: sha256Hex(sql), forget: `${app}/` };
  await apply(target, [removal]);
}
