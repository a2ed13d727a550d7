import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyPostgresMigrations,
  dropPostgresDatabase,
  ensurePostgresDatabase,
  listPostgresDatabases,
  type StoredMigration,
} from '../../../src/kernel/migrate/runner.ts';
import { withPgClient } from '../../helpers/kernel.ts';
import { engineMigrations, migration } from './fixtures.ts';

const SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const PREFIX = `fwtest_mig_${randomBytes(4).toString('hex')}_`;

let migrations: StoredMigration[];
let dbCounter = 0;

function dbUrl(dbName: string): string {
  return `postgresql://postgres@127.0.0.1:5432/${dbName}`;
}

async function freshDatabase(): Promise<{ name: string; url: string }> {
  const name = `${PREFIX}${++dbCounter}`;
  expect(await ensurePostgresDatabase(SERVER_URL, name)).toBe(true);
  return { name, url: dbUrl(name) };
}

function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  return withPgClient(url, async (client) => (await client.query<T>(sql)).rows);
}

async function recordedNames(url: string): Promise<string[]> {
  const rows = await query<{ name: string }>(url, 'SELECT name FROM _fw_migrations ORDER BY name');
  return rows.map((r) => r.name);
}

async function tableNames(url: string): Promise<string[]> {
  const rows = await query<{ tablename: string }>(
    url,
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  return rows.map((r) => r.tablename);
}

beforeAll(async () => {
  migrations = await engineMigrations('postgresql');
});

afterAll(async () => {
  for (const name of await listPostgresDatabases(SERVER_URL, PREFIX)) {
    await dropPostgresDatabase(SERVER_URL, name);
  }
});

describe('applyPostgresMigrations', () => {
  it('applies every migration in the order given and a rerun applies nothing', async () => {
    const { url } = await freshDatabase();
    expect(await applyPostgresMigrations(url, migrations)).toEqual([
      '0001_init',
      '0002_author_bio',
      '0003_author_name_required',
    ]);
    expect(await applyPostgresMigrations(url, migrations)).toEqual([]);
    expect(await recordedNames(url)).toEqual(migrations.map((m) => m.name));
    expect(await tableNames(url)).toEqual(['_fw_migrations', 'authors', 'books']);
    const [column] = await query<{ is_nullable: string; column_default: string }>(
      url,
      "SELECT is_nullable, column_default FROM information_schema.columns WHERE table_name = 'authors' AND column_name = 'name'",
    );
    expect(column).toEqual({ is_nullable: 'NO', column_default: "'anonymous'::text" });
  });

  it('records each migration with its checksum and a timestamptz applied_at', async () => {
    const { url } = await freshDatabase();
    await applyPostgresMigrations(url, migrations.slice(0, 1));
    const rows = await query<{ name: string; checksum: string; applied_at: Date }>(
      url,
      'SELECT name, checksum, applied_at FROM _fw_migrations',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].checksum).toBe(migrations[0].checksum);
    expect(rows[0].applied_at).toBeInstanceOf(Date);
  });

  it('an applied migration whose checksum changed is refused with its name, and nothing else is applied', async () => {
    const { url } = await freshDatabase();
    await applyPostgresMigrations(url, migrations.slice(0, 1));
    const edited = migration('0001_init', `${migrations[0].sql}\nCREATE TABLE "sneaky" ("id" INTEGER);\n`);
    await expect(applyPostgresMigrations(url, [edited, ...migrations.slice(1)])).rejects.toThrow(
      /Migration "0001_init" was already applied with checksum [0-9a-f]{64}/,
    );
    await expect(applyPostgresMigrations(url, [edited])).rejects.toMatchObject({ code: 'MIGRATION_CHANGED', status: 500, details: { migration: '0001_init' } });
    expect(await recordedNames(url)).toEqual(['0001_init']);
    expect(await tableNames(url)).not.toContain('sneaky');
  });

  it('a migration rewritten with its earlier checksum listed (earlier-checksums.json) stays applied where the earlier text ran: not run again, the rest applied', async () => {
    const { url } = await freshDatabase();
    await applyPostgresMigrations(url, migrations.slice(0, 1));
    const rewritten = { ...migration('0001_init', `${migrations[0].sql}\nCREATE TABLE "sneaky" ("id" INTEGER);\n`), earlier: [migrations[0].checksum] };
    expect(await applyPostgresMigrations(url, [rewritten, ...migrations.slice(1)])).toEqual(['0002_author_bio', '0003_author_name_required']);
    expect(await tableNames(url)).not.toContain('sneaky');
    expect(await recordedNames(url)).toEqual(['0001_init', '0002_author_bio', '0003_author_name_required']);
  });

  it('a failing migration rolls back its DDL and is not recorded', async () => {
    const { url } = await freshDatabase();
    const bad = migration('0002_bad', 'CREATE TABLE "half" ("id" INTEGER);\nINSERT INTO "nope" VALUES (1);\n');
    await expect(applyPostgresMigrations(url, [migrations[0], bad])).rejects.toThrow(
      /Migration "0002_bad" failed and was rolled back: relation "nope" does not exist/,
    );
    expect(await tableNames(url)).not.toContain('half');
    expect(await recordedNames(url)).toEqual(['0001_init']);
  });

  it('two concurrent runs on the same fresh database apply each migration exactly once', async () => {
    const { url } = await freshDatabase();
    const [first, second] = await Promise.all([
      applyPostgresMigrations(url, migrations),
      applyPostgresMigrations(url, migrations),
    ]);
    expect([...first, ...second].sort()).toEqual(migrations.map((m) => m.name));
    expect(await recordedNames(url)).toEqual(migrations.map((m) => m.name));
  });
});

describe('PostgreSQL database management', () => {
  it('ensurePostgresDatabase called twice concurrently: both succeed and exactly one creates', async () => {
    const name = `${PREFIX}${++dbCounter}`;
    const results = await Promise.all([
      ensurePostgresDatabase(SERVER_URL, name),
      ensurePostgresDatabase(SERVER_URL, name),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await ensurePostgresDatabase(SERVER_URL, name)).toBe(false);
    expect(await listPostgresDatabases(SERVER_URL, PREFIX)).toContain(name);
  });

  it('listPostgresDatabases matches the prefix literally ("_" is not a wildcard)', async () => {
    const inside = `${PREFIX}list_a`;
    const lookalike = `${PREFIX.slice(0, -1)}x${'list_b'}`; // same text except the trailing '_'
    await ensurePostgresDatabase(SERVER_URL, inside);
    await ensurePostgresDatabase(SERVER_URL, lookalike);
    try {
      const listed = await listPostgresDatabases(SERVER_URL, `${PREFIX}list_`);
      expect(listed).toEqual([inside]);
    } finally {
      await dropPostgresDatabase(SERVER_URL, lookalike);
    }
  });

  it('dropPostgresDatabase removes a database even while a session is connected to it, and is idempotent', async () => {
    const { name, url } = await freshDatabase();
    const idle = new pg.Client({ connectionString: url });
    idle.on('error', () => {}); // the forced drop terminates this session
    await idle.connect();
    try {
      await dropPostgresDatabase(SERVER_URL, name);
      expect(await listPostgresDatabases(SERVER_URL, name)).toEqual([]);
      await dropPostgresDatabase(SERVER_URL, name);
    } finally {
      await idle.end().catch(() => {});
    }
  });

  it.each([
    ['upper case', 'Tenant_1'],
    ['a hyphen', 'tenant-1'],
    ['a leading digit', '1tenant'],
    ['SQL injection', 'x"; DROP DATABASE postgres; --'],
    ['a space', 'tenant 1'],
    ['the empty string', ''],
    ['64 characters', 'a'.repeat(64)],
  ])('an invalid database name (%s) is refused by ensure and drop', async (_label, name) => {
    await expect(ensurePostgresDatabase(SERVER_URL, name)).rejects.toThrow(/Invalid database name/);
    await expect(dropPostgresDatabase(SERVER_URL, name)).rejects.toThrow(/Invalid database name/);
  });
});

describe('a PostgreSQL server that cannot be reached', () => {
  it('is refused with 503 DATABASE_UNREACHABLE naming DATABASE_URL and the address, never the password', async () => {
    const err = await listPostgresDatabases('postgresql://postgres:s3cret@127.0.0.1:1/postgres', 'fw_').then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'DATABASE_UNREACHABLE', status: 503, details: { url: 'postgresql://postgres:***@127.0.0.1:1/postgres' } });
    expect((err as Error).message).toMatch(/^cannot connect to PostgreSQL at postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/postgres \(from DATABASE_URL\): connect ECONNREFUSED 127\.0\.0\.1:1; start it, or correct DATABASE_URL$/);
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('a login the server refuses is said the same way; a database that does not exist is not this error', async () => {
    const u = new URL(SERVER_URL);
    u.username = 'no_such_role_fw';
    expect(await listPostgresDatabases(u.href, 'fw_').then(() => null, (e: unknown) => e)).toMatchObject({ code: 'DATABASE_UNREACHABLE' });
    u.username = new URL(SERVER_URL).username;
    u.pathname = '/no_such_database_fw';
    const missing = await listPostgresDatabases(u.href, 'fw_').then(() => null, (e: unknown) => e);
    expect(missing).toMatchObject({ code: '3D000' });
  });
});
