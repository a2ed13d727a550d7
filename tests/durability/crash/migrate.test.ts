/**
 * Durability §1 (issue 17), crash during a migration: `fw migrate upgrade -t <t>` runs on a tenant
 * whose database exists but is empty (what `assertExists` accepts: an empty SQLite file / an empty
 * PostgreSQL database), so it applies the chains of every active app (kernel first); it is
 * killed with SIGKILL as soon as k = 0 … 4 migrations are recorded (polled from another
 * connection), i.e. while the next one is in flight. After each kill:
 * - `_fw_migrations` and the schema agree exactly: the tables and indexes present are those the
 *   recorded migrations create (simulated from their SQL: CREATE/DROP TABLE, RENAME TO,
 *   CREATE/DROP INDEX), none of an unrecorded migration: each migration applied whole or not at all;
 * - the recorded migrations are a prefix of the chain;
 * - a second `fw migrate upgrade` applies exactly the rest, and a third applies nothing.
 * Both engines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelApp } from '../../../src/kernel/kernel-app.ts';
import { chainsOf } from '../../../src/kernel/migrate/chains.ts';
import { loadActiveApps, projectLayout } from '../../../src/kernel/modules/loader.ts';
import { loadSettings } from '../../../src/kernel/settings.ts';
import { cleanup, fw, fwRun, makeEnv, openDb, pgAdmin, pgDbName, sqliteFile, type Env, type Provider } from './proc.ts';

interface Mig {
  name: string;
  sql: string;
}
/** The migrations an upgrade applies with the default settings, in apply order. */
async function chain(provider: Provider): Promise<Mig[]> {
  const apps = [kernelApp(), ...(await loadActiveApps(projectLayout(), loadSettings({})))];
  return chainsOf(apps, provider).map((m) => ({ name: m.name, sql: m.sql }));
}

/** Tables and indexes after applying `migs` in order (tables → their indexes). */
function expectedSchema(migs: Mig[]): { tables: string[]; indexes: string[] } {
  const tables = new Map<string, Set<string>>();
  const indexOf = new Map<string, string>();
  for (const m of migs) {
    const stmts = m.sql.split(/;\s*\n/);
    for (const raw of stmts) {
      const s = raw.replace(/^\s*--.*$/gm, '').trim();
      let x: RegExpMatchArray | null;
      if ((x = s.match(/^CREATE TABLE "([^"]+)"/))) tables.set(x[1], new Set());
      else if ((x = s.match(/^DROP TABLE "([^"]+)"/))) {
        for (const i of tables.get(x[1]) ?? []) indexOf.delete(i);
        tables.delete(x[1]);
      } else if ((x = s.match(/^ALTER TABLE "([^"]+)" RENAME TO "([^"]+)"/))) {
        const idx = tables.get(x[1]) ?? new Set();
        tables.delete(x[1]);
        tables.set(x[2], idx);
        for (const i of idx) indexOf.set(i, x[2]);
      } else if ((x = s.match(/^CREATE (?:UNIQUE )?INDEX "([^"]+)" ON "([^"]+)"/))) {
        tables.get(x[2])?.add(x[1]);
        indexOf.set(x[1], x[2]);
      } else if ((x = s.match(/^DROP INDEX "([^"]+)"/))) {
        const t = indexOf.get(x[1]);
        if (t) tables.get(t)?.delete(x[1]);
        indexOf.delete(x[1]);
      }
    }
  }
  return { tables: [...tables.keys()].sort(), indexes: [...indexOf.keys()].sort() };
}

async function actualSchema(env: Env, tenant: string): Promise<{ recorded: string[]; tables: string[]; indexes: string[] }> {
  const db = await openDb(env, tenant);
  try {
    const tables = await db.tables();
    const recorded = tables.includes('_fw_migrations') ? (await db.all<{ name: string }>(`SELECT name FROM _fw_migrations ORDER BY ${env.provider === 'sqlite' ? 'rowid' : 'applied_at, name'}`)).map((r) => r.name) : [];
    const indexes = env.provider === 'sqlite'
      ? (await db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' AND tbl_name <> '_fw_migrations'`)).map((r) => r.name)
      // PostgreSQL: primary keys are constraints with an index of their own; the SQL names them in CREATE TABLE
      : (await db.all<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_fw_migrations' AND indexname NOT LIKE '%\\_pkey'`)).map((r) => r.indexname);
    return { recorded, tables: tables.filter((t) => t !== '_fw_migrations'), indexes: indexes.sort() };
  } finally {
    await db.close();
  }
}

/** Creates the tenant's database empty, as `assertExists` accepts it (no migration applied). */
async function emptyTenant(env: Env, tenant: string): Promise<void> {
  if (env.provider === 'sqlite') {
    fs.mkdirSync(path.dirname(sqliteFile(env, tenant)), { recursive: true });
    fs.writeFileSync(sqliteFile(env, tenant), '');
  } else {
    await pgAdmin((c) => c.query(`CREATE DATABASE "${pgDbName(env, tenant)}"`));
  }
}

/** Resolves once the upgrade process has opened the tenant's database (or after `ms`). */
async function touched(env: Env, tenant: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  const file = sqliteFile(env, tenant);
  while (Date.now() < deadline) {
    if (env.provider === 'sqlite') {
      if (fs.existsSync(`${file}-wal`) || fs.existsSync(`${file}-journal`) || (fs.existsSync(file) && fs.statSync(file).size > 0)) return true;
      await new Promise((r) => setImmediate(r));
    } else {
      const n = await pgAdmin(async (c) => (await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [pgDbName(env, tenant)])).rows[0].n as number);
      if (n > 0) return true;
    }
  }
  return false;
}

/** Resolves once `_fw_migrations` holds at least `k` rows (or after `ms`). */
async function recorded(env: Env, tenant: string, k: number, ms: number): Promise<void> {
  if (k === 0) return;
  const db = await openDb(env, tenant);
  try {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const n = await db.all<{ n: number | string }>(`SELECT count(*) AS n FROM _fw_migrations`).then((r) => Number(r[0].n), () => 0);
      if (n >= k) return;
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    await db.close();
  }
}

describe.each(['sqlite', 'postgresql'] as Provider[])('kill -9 during fw migrate upgrade (%s)', (provider) => {
  let env: Env;
  let migs: Mig[];
  let full: ReturnType<typeof expectedSchema>;

  beforeAll(async () => {
    env = makeEnv(provider);
    migs = await chain(provider);
    full = expectedSchema(migs);
  });
  afterAll(async () => {
    if (env) await cleanup(env);
  });

  it('applies each migration whole or not at all; the next upgrade finishes, the one after applies nothing', async () => {
    expect(migs.length).toBeGreaterThan(1);
    // after the first touch of the database: SQLite applies the chain in ~20 ms, PostgreSQL takes longer
    // kill as soon as k migrations are recorded (k = 0 … 4), so the next one is in flight
    const delays = [0, 1, 2, 3, 4];
    const outcomes: string[] = [];
    const tenants: string[] = [];
    for (const [i, delay] of delays.entries()) {
      const t = `mig${i}`;
      tenants.push(t);
      await emptyTenant(env, t);
      const p = fw(env, ['migrate', 'upgrade', '-t', t]);
      const hit = await touched(env, t, 20_000);
      await recorded(env, t, delay, 20_000);
      await p.kill9();
      const s = await actualSchema(env, t);
      // recorded = a prefix of the chain
      expect(s.recorded).toEqual(migs.slice(0, s.recorded.length).map((m) => m.name));
      // the schema is exactly what the recorded migrations make: nothing of a half-applied one
      const want = expectedSchema(migs.slice(0, s.recorded.length));
      expect(s.tables).toEqual(want.tables);
      expect(s.indexes).toEqual(want.indexes);
      outcomes.push(`${t}: touched=${hit} after ${delay} recorded → ${s.recorded.length}/${migs.length} recorded (${(await p.exited).signal ?? 'exited ' + (await p.exited).code})`);
    }
    console.log(`[crash/migrate ${provider}]\n  ${outcomes.join('\n  ')}`);

    // second upgrade finishes each (in parallel, they are separate tenants), third applies nothing
    await Promise.all(tenants.map(async (t) => {
      const before = (await actualSchema(env, t)).recorded;
      const second = await fwRun(env, ['migrate', 'upgrade', '-t', t]);
      const rest = migs.slice(before.length).map((m) => m.name);
      if (rest.length) expect(second).toContain(`applied ${rest.join(', ')}`);
      else expect(second).toContain('already up to date');
      const s = await actualSchema(env, t);
      expect(s.recorded).toEqual(migs.map((m) => m.name));
      expect(s.tables).toEqual(full.tables);
      expect(s.indexes).toEqual(full.indexes);
      expect(await fwRun(env, ['migrate', 'upgrade', '-t', t])).toContain('already up to date');
    }));
  }, 90_000);
});
