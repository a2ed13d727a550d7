/**
 * Helpers for the crash tests (issue 17 §1): real `fw` processes (`node --import tsx src/cli.ts …`)
 * on a temp DATA_DIR (SQLite) or a unique PG_DATABASE_PREFIX (PostgreSQL), killed with SIGKILL,
 * and direct database access (better-sqlite3 / pg) to inspect what the crash left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { registerSortKey } from '../../../src/kernel/data/collation.ts';

export type Provider = 'sqlite' | 'postgresql';
export const PG_URL = process.env.FW_TEST_PG_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'crash-admin-pass-1';
const ROOT = path.resolve(import.meta.dirname, '../../..');

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const rand = (n = 4) => crypto.randomBytes(n).toString('hex');

export interface Env {
  provider: Provider;
  dataDir: string;
  pgPrefix: string;
  vars: Record<string, string>;
}

export function makeEnv(provider: Provider, extra: Record<string, string> = {}): Env {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-crash-'));
  const pgPrefix = `fwcrash_${rand()}_`;
  return {
    provider,
    dataDir,
    pgPrefix,
    vars: {
      DATA_DIR: dataDir,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'warn',
      DATABASE_URL: provider === 'postgresql' ? PG_URL : '',
      PG_DATABASE_PREFIX: pgPrefix,
      ...extra,
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill9(): Promise<void>;
}

export function fw(env: Env, args: string[], extra: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env.vars, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  child.stdout!.on('data', (d) => (buf += d));
  child.stderr!.on('data', (d) => (buf += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return {
    child,
    out: () => buf,
    exited,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs an fw command to its end; throws with its output unless it exits 0. */
export async function fwRun(env: Env, args: string[], extra: Record<string, string> = {}): Promise<string> {
  const p = fw(env, args, extra);
  const { code, signal } = await p.exited;
  if (code !== 0) throw new Error(`fw ${args.join(' ')} exited ${code ?? signal}:\n${p.out()}`);
  return p.out();
}

export interface Server extends Proc {
  base: string;
}

/** `fw serve` on a free port; resolves once /health answers. */
export async function serve(env: Env, extra: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const p = fw(env, ['serve'], { PORT: String(port), HOST: '127.0.0.1', ...extra });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 40_000;
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`fw serve exited ${p.child.exitCode}:\n${p.out()}`);
    try {
      const r = await fetch(`${base}/health`);
      if (r.status < 500) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await p.kill9();
      throw new Error(`fw serve did not answer:\n${p.out()}`);
    }
    await sleep(100);
  }
  return { ...p, base };
}

export async function login(base: string, tenant = 'default'): Promise<string> {
  const r = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant': tenant },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  const body = (await r.json()) as { access_token?: string };
  if (r.status !== 200 || !body.access_token) throw new Error(`login ${r.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Tenant database access for inspection: all(sql) with `?` placeholders on both engines. */
export interface Db {
  all<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<void>;
  tables(): Promise<string[]>;
  close(): Promise<void>;
}

export function pgDbName(env: Env, tenant: string): string {
  return env.pgPrefix + tenant.replace(/-/g, '_');
}
export function pgUrlFor(db: string): string {
  const u = new URL(PG_URL);
  u.pathname = `/${db}`;
  return u.toString();
}
export function sqliteFile(env: Env, tenant: string): string {
  return path.join(env.dataDir, 'tenants', `${tenant}.db`);
}

export async function openDb(env: Env, tenant: string): Promise<Db> {
  if (env.provider === 'sqlite') {
    const db = registerSortKey(new Database(sqliteFile(env, tenant)));
    db.pragma('busy_timeout = 10000');
    return {
      async all(sql, params = []) {
        return db.prepare(sql).all(...(params as any[])) as any;
      },
      async run(sql, params = []) {
        db.prepare(sql).run(...(params as any[]));
      },
      async tables() {
        return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((r) => r.name).sort();
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: pgUrlFor(pgDbName(env, tenant)) });
  await client.connect();
  const conv = (sql: string) => {
    let i = 0;
    return sql.replace(/\?/g, () => `$${++i}`);
  };
  return {
    async all(sql, params = []) {
      return (await client.query(conv(sql), params as any[])).rows;
    },
    async run(sql, params = []) {
      await client.query(conv(sql), params as any[]);
    },
    async tables() {
      const r = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
      return r.rows.map((x) => x.table_name as string).sort();
    },
    async close() {
      await client.end();
    },
  };
}

export async function pgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Removes the temp folder and (PostgreSQL) every database under the env's prefix. */
export async function cleanup(env: Env): Promise<void> {
  fs.rmSync(env.dataDir, { recursive: true, force: true });
  if (env.provider !== 'postgresql') return;
  await pgAdmin(async (c) => {
    const r = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${env.pgPrefix}%`]);
    for (const { datname } of r.rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}

/** Every file under a folder (relative paths), hidden ones included. */
export function walkFiles(dir: string): string[] {
  const out: string[] = [];
  const rec = (d: string, rel: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) rec(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  rec(dir, '');
  return out.sort();
}
