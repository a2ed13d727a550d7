/**
 * A one-model app with its own chain in a temp project, and a real tenant database (SQLite file
 * or PostgreSQL database) its chain is applied to: enough to generate migrations from changed
 * declarations and apply them to rows, without booting a kernel.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FieldDecl } from '../../../src/kernel/declare.ts';
import { f } from '../../../src/kernel/declare.ts';
import { readChain, type ChainApp } from '../../../src/kernel/migrate/chains.ts';
import type { SchemaTarget } from '../../../src/kernel/migrate/upgrade.ts';
import { applyPostgresMigrations, applySqliteMigrations, dropPostgresDatabase, ensurePostgresDatabase } from '../../../src/kernel/migrate/runner.ts';
import { PG_URL, tempDir, uniquePgPrefix, withPgClient, withSqliteFile, type Provider } from '../../helpers/kernel.ts';

export const ITEM_FIELDS: Record<string, FieldDecl> = {
  name: f.char(200, { required: true }),
  code: f.char(20, { unique: true }),
  due_at: f.datetime(),
  note: f.text(),
  price: f.float(),
};

export function shopApp(root: string, fields: Record<string, FieldDecl> = ITEM_FIELDS, extra: ChainApp['models'] = []): ChainApp {
  return {
    name: 'shop', domain: null, root,
    manifest: { name: 'shop', summary: 'Shop', description: 'Test shop', author: 'fw', category: 'test', version: '1.0.0', depends: [], data: [] },
    models: [{ key: 'shop.item', description: 'Item', fields }, ...extra],
  };
}

export interface ShopTenant {
  /** The database, as the runner and the tenant's open name it. */
  target: SchemaTarget;
  upgrade(app: ChainApp): Promise<string[]>;
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  exec(sql: string): Promise<void>;
  columns(table: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function shopTenant(provider: Provider): Promise<ShopTenant> {
  if (provider === 'sqlite') {
    const dir = tempDir('shop-tenant');
    const file = path.join(dir, 'tenant.db');
    const withDb = <T>(fn: (db: Database.Database) => T): T => withSqliteFile(file, fn);
    return {
      target: { provider, file },
      upgrade: (app) => applySqliteMigrations(file, readChain(app, provider)),
      rows: async (sql) => withDb((db) => db.prepare(sql).all() as Array<Record<string, unknown>>),
      exec: async (sql) => withDb((db) => { db.exec(sql); }),
      columns: async (table) => withDb((db) => (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name)),
      close: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `${uniquePgPrefix()}shop`;
  await ensurePostgresDatabase(PG_URL, name);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const query = (sql: string, params: unknown[] = []) =>
    withPgClient(url.href, async (client) => (await client.query(sql, params)).rows as Array<Record<string, unknown>>);
  return {
    target: { provider, url: url.href },
    upgrade: (app) => applyPostgresMigrations(url.href, readChain(app, provider)),
    rows: (sql) => query(sql),
    exec: async (sql) => { await query(sql); },
    columns: async (table) => (await query(
      'SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position', [table],
    )).map((c) => String(c.column_name)),
    close: () => dropPostgresDatabase(PG_URL, name),
  };
}

/** A temp project root with an empty chain folder. */
export const shopRoot = (): string => tempDir('shop-project');
