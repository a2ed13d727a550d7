/**
 * Booting real kernels in tests: SQLite files in a temp folder, or PostgreSQL databases with a
 * prefix unique to the caller, always cleaned up. Also small helpers every kernel suite needs
 * (principals, fixture apps, error assertions, polling with a deadline).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { expect } from 'vitest';
import type { AppManifest, AppModule } from '../../src/kernel/app.ts';
import type { ModelDecl } from '../../src/kernel/declare.ts';
import type { Principal } from '../../src/kernel/env.ts';
import { FwError } from '../../src/kernel/errors.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { dropPostgresDatabase, listPostgresDatabases } from '../../src/kernel/migrate/runner.ts';
import { loadAllApps, projectLayout, type ProjectLayout } from '../../src/kernel/modules/loader.ts';
import { kernelApp } from '../../src/kernel/kernel-app.ts';
import { generateAppMigration, upgradePlan, type ChainApp } from '../../src/kernel/migrate/chains.ts';
import type { UpgradePlan } from '../../src/kernel/migrate/upgrade.ts';
import type { LoadedApp } from '../../src/kernel/registry/registry.ts';
import { loadSettings, type Settings } from '../../src/kernel/settings.ts';
import { uniqueRedisPrefix } from './redis.ts';

export type Provider = 'sqlite' | 'postgresql';
export const PROVIDERS: Provider[] = ['sqlite', 'postgresql'];

/** The machine's PostgreSQL (trust auth); `.ci/run` passes it as DATABASE_URL (FW_TEST_PG_URL wins if set). */
export const PG_URL = process.env.FW_TEST_PG_URL || process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-pass-1';

const rand = (bytes = 4) => crypto.randomBytes(bytes).toString('hex');

/** `fwt_<random>_`: every PostgreSQL database a test creates starts with it, so afterAll can drop them. */
export const uniquePgPrefix = (): string => `fwt_${rand()}_`;

/** The URL of `database` on the test PostgreSQL server (PG_URL with another path). */
export function pgDatabaseUrl(database: string): string {
  const u = new URL(PG_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A fresh temp folder (removed by the caller, or by a TestKernel's cleanup). */
export const tempDir = (label = 'kernel'): string => fs.mkdtempSync(path.join(os.tmpdir(), `fw-${label}-`));

/** A tenant key nobody else in this file uses. */
export const uniqueTenant = (label = 't'): string => `${label}-${rand(3)}`;

/** Runs `fn` on a connection of its own to `url` (as another process would), then closes it. */
/** `fn` on a connection of its own to the SQLite file, closed after. */
export function withSqliteFile<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropPgDatabases(prefix: string): Promise<void> {
  for (const db of await listPostgresDatabases(PG_URL, prefix)) await dropPostgresDatabase(PG_URL, db);
}

/** The settings a test kernel runs with: small bcrypt cost, fast event polling, quiet logs. */
export function testSettings(opts: { provider: Provider; dataDir: string; pgPrefix: string; settings?: Record<string, string> }): Settings {
  return loadSettings({
    DATA_DIR: opts.dataDir,
    ACTIVE_MODULES: 'base,auth',
    ACTIVE_DOMAINS: 'crm',
    BCRYPT_COST: '4',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    EVENT_POLL_INTERVAL_MS: '50',
    EVENT_RETRY_BASE_MS: '20',
    LOG_LEVEL: 'silent',
    // keys of this process only, as an operator's would be (the public placeholder is refused)
    JWT_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
    CONNECTOR_SECRET_KEY: crypto.randomBytes(32).toString('base64url'),
    DATABASE_URL: opts.provider === 'postgresql' ? PG_URL : '',
    PG_DATABASE_PREFIX: opts.pgPrefix,
    // a deployment of its own on a shared Redis (tests/helpers/redis.ts)
    REDIS_PREFIX: uniqueRedisPrefix(),
    ...opts.settings,
  });
}

export interface TestKernelOptions {
  provider?: Provider;
  /** Extra settings (strings, as from the environment). */
  settings?: Record<string, string>;
  /** Run the event worker (default false). */
  worker?: boolean;
  /** Fixture apps appended after the loaded ones. */
  apps?: LoadedApp[];
  layout?: ProjectLayout;
  /** Share storage with another kernel ("another process"); the owner of the storage cleans it up. */
  dataDir?: string;
  pgPrefix?: string;
  log?: (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;
}

export interface TestKernel {
  kernel: Kernel;
  provider: Provider;
  dataDir: string;
  pgPrefix: string;
  /** Closes the kernel; removes the temp folder and drops the PostgreSQL databases it created itself. */
  cleanup(): Promise<void>;
}

export async function bootTestKernel(opts: TestKernelOptions = {}): Promise<TestKernel> {
  const provider = opts.provider ?? 'sqlite';
  const ownsDir = !opts.dataDir;
  const ownsPrefix = !opts.pgPrefix;
  const dataDir = opts.dataDir ?? tempDir(provider);
  const pgPrefix = opts.pgPrefix ?? uniquePgPrefix();
  const kernel = await Kernel.boot({
    settings: testSettings({ provider, dataDir, pgPrefix, settings: opts.settings }),
    worker: opts.worker ?? false,
    apps: opts.apps,
    layout: opts.layout,
    log: opts.log ?? (() => {}),
  });
  let cleaned = false;
  return {
    kernel, provider, dataDir, pgPrefix,
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await kernel.close();
      if (ownsPrefix && provider === 'postgresql') await dropPgDatabases(pgPrefix);
      if (ownsDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function userPrincipal(tenant: string, o: { user_id?: string; role?: string; organization_id?: string | null } = {}): Principal {
  return {
    kind: 'user',
    user_id: o.user_id ?? crypto.randomUUID(),
    tenant_id: tenant,
    role: o.role ?? 'user',
    organization_id: o.organization_id ?? null,
  };
}

export const adminPrincipal = (tenant: string, organization_id: string | null = null): Principal =>
  userPrincipal(tenant, { role: 'admin', organization_id });

const MANIFEST: Omit<AppManifest, 'name'> = {
  summary: 'test fixture', description: 'test fixture app', author: 'tests', category: 'Test',
  version: '1.0.0', depends: [], data: [],
};

/** A LoadedApp built in memory, for registry tests and for kernels with test hooks/handlers. */
export function fixtureApp(name: string, o: Partial<Omit<AppModule, 'manifest'>> & {
  models?: ModelDecl[];
  domain?: string | null;
  depends?: string[];
} = {}): LoadedApp {
  const { models = [], domain, depends = [], ...mod } = o;
  const manifest: AppManifest = { ...MANIFEST, name, depends };
  return {
    name,
    domain: domain !== undefined ? domain : name.includes('.') ? name.slice(0, name.indexOf('.')) : null,
    manifest,
    module: { manifest, ...mod },
    models,
    dataFiles: [],
  };
}

/**
 * A fixture app that declares tables, given its own migration chain as `fw migrate generate`
 * writes it for a team's app (in a temp project root): boot refuses declarations that are ahead
 * of their app's chain, and a fixture must go through the same path. The caller removes `root`.
 */
export async function withChain(app: LoadedApp): Promise<LoadedApp & { root: string }> {
  const root = tempDir('chain');
  const chained = { ...app, root };
  const apps = [kernelApp(), ...(await loadAllApps(projectLayout())).filter((a) => a.name !== app.name), chained];
  await generateAppMigration(root, apps, app.name, { description: 'fixture tables' });
  return chained;
}

/** Awaits a rejection that must be an FwError with this status and code; returns it for more checks. */
export async function expectFwError(p: Promise<unknown>, status: number, code: string): Promise<FwError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (err === undefined) throw new Error(`expected ${status} ${code}, but the call succeeded`);
  if (!(err instanceof FwError)) throw err;
  expect({ status: err.status, code: err.code, message: err.message }).toMatchObject({ status, code });
  return err;
}

/** The `details.errors` codes of a validation error, by field. */
export const errorCodes = (err: FwError): Record<string, string> =>
  Object.fromEntries(((err.details?.errors ?? []) as Array<{ field: string; code: string }>).map((e) => [e.field, e.code]));

/**
 * Polls `fn` until it returns a truthy value or the deadline passes (then fails with `what`).
 * Asynchronous effects are asserted this way, never after a fixed sleep.
 */
export async function waitFor<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 10_000, intervalMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * What the repository's tenants are upgraded to (every app's chain, in load order) and where its
 * generated clients are: the options a bare `TenantDatabases` needs in tests.
 */
export async function repoTenantOptions(provider: Provider, apps?: ChainApp[]): Promise<{ plan: UpgradePlan; clientsDir: string }> {
  const layout = projectLayout();
  const all: ChainApp[] = apps ?? [kernelApp(), ...(await loadAllApps(layout))];
  return { plan: upgradePlan(layout.fwRoot, all, provider, async () => all), clientsDir: path.join(layout.root, 'generated', 'prisma') };
}
