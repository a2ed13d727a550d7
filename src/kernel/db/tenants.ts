import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { RootDbClient } from '../env.js';
import { BadRequest, NotFound } from '../errors.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import { dropPostgresDatabase, ensurePostgresDatabase, listPostgresDatabases } from '../migrate/runner.js';
import { upgradeSchema, type SchemaTarget, type UpgradePlan } from '../migrate/upgrade.js';
import type { Settings } from '../settings.js';
import { ConnectionBudget } from './budget.js';
import { closeConnection, createConnection, sharedPrismaClients, type TenantConnection } from './clients.js';
import { dropAppWithKeys, ensureOptionalKeys, type OptionalKey, type OptionalKeyChanges, type OptionalKeySet } from './optional-keys.js';
import type { Reader } from './readers/types.js';
import type { SharedPrismaClients } from './shared-prisma.js';
import { ensureSortIndexes, type SortIndex } from './sort-indexes.js';

/** Tenant keys are slugs: lowercase letters and digits, single hyphens inside. */
const TENANT_RE = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,39}$/;

export function checkTenantKey(key: string): string {
  if (!TENANT_RE.test(key)) {
    throw new BadRequest(`invalid tenant "${key}": use 1–40 lowercase letters, digits and single inner hyphens`, { tenant: key }, 'INVALID_TENANT');
  }
  return key;
}

export interface TenantDatabasesOptions {
  settings: Settings;
  /** What every tenant's tables are brought to when it is opened or upgraded. */
  plan: UpgradePlan;
  /** The folder holding the project's generated Prisma clients (`<project>/generated/prisma`). */
  clientsDir: string;
  /** Runs once per process each time a tenant database is opened (seeds new app versions). */
  onOpen?: (tenant: string, client: RootDbClient) => Promise<void>;
  /**
   * The sort indexes every tenant gets once its tables are up to date (./sort-indexes.ts). Only
   * a process that loaded the models knows them: without it (`fw migrate upgrade`, which reads
   * manifests alone) a tenant's sort indexes are left as they are, never taken for unwanted.
   */
  sortIndexes?: () => readonly SortIndex[];
  /**
   * The keys of the loaded models' `if_loaded` References, and the columns declared without a
   * Reference whose fw-named key goes (./optional-keys.ts), brought to each tenant's tables after
   * its migrations; without (`fw migrate upgrade`) they are left as they are.
   */
  optionalKeys?: () => OptionalKeySet;
  /** Where the tenant's open says what it changed beyond migrations (rows an optional key emptied, keys it could not add). */
  log?: (level: 'warn', msg: string, extra?: Record<string, unknown>) => void;
}

/**
 * One database per tenant: a SQLite file under DATA_DIR, or a database on the PostgreSQL server
 * of DATABASE_URL. `get` creates a tenant if needed and applies pending migrations (provisioning);
 * `getExisting` opens only a tenant that exists. Open clients are kept in a bounded LRU.
 */
export class TenantDatabases {
  readonly provider: DbProvider;
  private readonly settings: Settings;
  private readonly plan: UpgradePlan;
  private readonly clientsDir: string;
  private readonly onOpen?: TenantDatabasesOptions['onOpen'];
  private readonly sortIndexes: (() => readonly SortIndex[]) | null;
  private readonly optionalKeys: (() => OptionalKeySet) | null;
  private readonly log: NonNullable<TenantDatabasesOptions['log']>;
  /** The keys left as they were that a warning already named (`reportKeys`). */
  private readonly keysLeftSaid = new Set<string>();
  private readonly opening = new Map<string, Promise<RootDbClient>>();
  private readonly clients: LRUCache<string, TenantConnection>;
  private readonly conns = new WeakMap<RootDbClient, TenantConnection>();
  /** Callers inside `hold`, per client. */
  private readonly users = new Map<RootDbClient, number>();
  /** Evicted connections that close once nobody holds them. */
  private readonly retired = new Map<RootDbClient, TenantConnection>();
  /** Closes of evicted connections still running (close() waits for them). */
  private readonly closing = new Set<Promise<void>>();
  /**
   * PostgreSQL: the connections of every tenant pool of this process together stay within
   * PG_MAX_CONNECTIONS_PER_PROCESS (./budget.ts). Null on SQLite.
   */
  readonly budget: ConnectionBudget | null;
  /** PostgreSQL: the Prisma clients every tenant of this process borrows (./shared-prisma.ts). */
  private shared: Promise<SharedPrismaClients> | null = null;
  /** Closes the tenants idle for TENANT_IDLE_SECONDS. */
  private readonly idleSweep: NodeJS.Timeout | null;

  constructor(opts: TenantDatabasesOptions) {
    this.settings = opts.settings;
    this.provider = opts.settings.DATABASE_URL ? 'postgresql' : 'sqlite';
    if (this.provider === 'postgresql' && !/^postgres(ql)?:\/\//.test(opts.settings.DATABASE_URL)) {
      throw new BadRequest('DATABASE_URL must be a postgresql:// URL (or empty for embedded SQLite)');
    }
    this.budget = this.provider === 'postgresql'
      ? new ConnectionBudget(opts.settings.PG_MAX_CONNECTIONS_PER_PROCESS, opts.settings.PG_CONNECTION_WAIT_MS)
      : null;
    this.plan = opts.plan;
    this.clientsDir = opts.clientsDir;
    this.onOpen = opts.onOpen;
    const wanted = opts.sortIndexes;
    let indexes: readonly SortIndex[] | null = null;
    // computed on the first open: on SQLite the key version ranks ICU's weights once
    this.sortIndexes = wanted ? () => (indexes ??= wanted()) : null;
    const optional = opts.optionalKeys;
    let keys: OptionalKeySet | null = null;
    // the registry does not change in a process: worked out on the first open, as the sort indexes
    this.optionalKeys = optional ? () => (keys ??= optional()) : null;
    this.log = opts.log ?? (() => {});
    const idleMs = opts.settings.TENANT_IDLE_SECONDS * 1000;
    this.clients = new LRUCache<string, TenantConnection>({
      max: opts.settings.TENANT_CACHE_MAX,
      // a tenant idle this long is closed: `get` counts as use, `peek` (the event sweep) does not
      ...(idleMs > 0 ? { ttl: idleMs, updateAgeOnGet: true, updateAgeOnHas: true } : {}),
      dispose: (conn, _tenant, reason) => {
        if (reason === 'evict' || reason === 'expire') this.retire(conn);
      },
    });
    // looked at every half idle time (at most every 30 s): a tenant closes between its idle time
    // and half as much again after it; the timer never keeps the process alive
    this.idleSweep = idleMs > 0 ? setInterval(() => this.clients.purgeStale(), Math.min(30_000, Math.max(50, idleMs / 2))) : null;
    this.idleSweep?.unref();
  }

  /** PostgreSQL: the process's shared Prisma clients, built on the first tenant opened. */
  private sharedClients(): Promise<SharedPrismaClients> {
    this.shared ??= sharedPrismaClients(this.clientsDir, this.settings.PRISMA_SPARE_CLIENTS);
    return this.shared;
  }

  sqliteFile(tenant: string): string {
    return path.join(this.settings.DATA_DIR, 'tenants', `${tenant}.db`);
  }

  pgDatabase(tenant: string): string {
    return `${this.settings.PG_DATABASE_PREFIX}${tenant.replace(/-/g, '_')}`;
  }

  pgUrl(database: string): string {
    const url = new URL(this.settings.DATABASE_URL);
    url.pathname = `/${database}`;
    return url.toString();
  }

  /**
   * The tenant's client, creating, migrating and seeding its database if it does not exist: the
   * provisioning path (`fw tenant create`, `fw serve`'s default tenant, the QA sandbox) and
   * in-process callers. Requests never reach it for a tenant that does not exist: anonymous ones
   * open tenants with `getExisting`, and a token naming an unknown tenant is refused when it is
   * verified (SessionService.authenticate).
   */
  async get(tenant: string): Promise<RootDbClient> {
    const cached = this.clients.get(tenant);
    if (cached) return cached.client;
    let pending = this.opening.get(tenant);
    if (!pending) {
      pending = this.open(checkTenantKey(tenant)).finally(() => this.opening.delete(tenant));
      this.opening.set(tenant, pending);
    }
    return pending;
  }

  /**
   * Runs `fn` with `client` held open: a connection evicted from the LRU meanwhile closes only
   * after the last holder is done. The kernel holds the client for each command it executes and
   * the event worker for each drain, so a long upload or delivery never loses its connection,
   * and churn through many tenants never keeps more than the LRU plus the held ones open.
   */
  async hold<T>(client: RootDbClient, fn: () => Promise<T>): Promise<T> {
    this.users.set(client, (this.users.get(client) ?? 0) + 1);
    try {
      const conn = this.conns.get(client);
      return await (conn ? conn.enter(fn) : fn());
    } finally {
      const left = this.users.get(client)! - 1;
      if (left > 0) this.users.set(client, left);
      else {
        this.users.delete(client);
        if (this.retired.has(client)) this.closeWhenUnused(client);
        else this.idleWhenUnused(client);
      }
    }
  }

  /**
   * On a later turn, if nobody holds the tenant again meanwhile: its shared Prisma client goes
   * back (PostgreSQL), so clients in use follow the commands in flight, not the tenants open.
   */
  private idleWhenUnused(client: RootDbClient): void {
    setImmediate(() => {
      if (!this.users.has(client)) this.conns.get(client)?.idle();
    });
  }

  /** The tenant's client, held open while `fn` runs (several commands on one client, the worker's drain). */
  async withClient<T>(tenant: string, fn: (client: RootDbClient) => Promise<T>): Promise<T> {
    const client = await this.get(tenant);
    return this.hold(client, () => fn(client));
  }

  private retire(conn: TenantConnection): void {
    this.retired.set(conn.client, conn);
    this.closeWhenUnused(conn.client);
  }

  /**
   * Checked on a later turn of the event loop: a caller that got the client just before it was
   * evicted, or that runs two commands one after the other with it (a download's lookup, then its
   * open), holds it again within the same turn and keeps it open.
   */
  private closeWhenUnused(client: RootDbClient): void {
    setImmediate(() => {
      const conn = this.retired.get(client);
      if (!conn || this.users.has(client)) return;
      this.retired.delete(client);
      const done = closeConnection(conn).catch(() => undefined).finally(() => this.closing.delete(done));
      this.closing.add(done);
    });
  }

  /** The read connection that belongs to a client this class opened (reads outside transactions). */
  readerFor(client: RootDbClient): Reader {
    const conn = this.conns.get(client);
    if (!conn) throw new Error('readerFor: this client was not opened by TenantDatabases');
    return conn.reader;
  }

  /**
   * Statements on the connection of the client's transaction whose callback runs now
   * (./transaction-sql.ts), if its engine lets them join it.
   */
  transactionSqlFor(client: RootDbClient): Reader | undefined {
    return this.conns.get(client)?.transactionSql?.();
  }

  /** Opens a write transaction of the client (`open`) so that `transactionSqlFor` finds its connection. */
  openTransaction<T>(client: RootDbClient, open: () => Promise<T>): Promise<T> {
    const opener = this.conns.get(client)?.openTransaction;
    return opener ? opener(open) : open();
  }

  /** The tenant's database for the migration runner. */
  schemaTarget(tenant: string): SchemaTarget {
    return this.provider === 'sqlite'
      ? { provider: 'sqlite', file: this.sqliteFile(tenant) }
      : { provider: 'postgresql', url: this.pgUrl(this.pgDatabase(tenant)) };
  }

  private async open(tenant: string): Promise<RootDbClient> {
    if (this.provider === 'postgresql') await ensurePostgresDatabase(this.settings.DATABASE_URL, this.pgDatabase(tenant));
    const target = this.schemaTarget(tenant);
    await this.bringUp(target);
    const conn = await createConnection(this.provider, target.provider === 'sqlite' ? target.file : target.url, this.settings, this.clientsDir, this.budget ?? undefined, this.provider === 'postgresql' ? this.sharedClients() : undefined);
    this.conns.set(conn.client, conn);
    try {
      await this.onOpen?.(tenant, conn.client);
    } catch (err) {
      await closeConnection(conn);
      throw err;
    }
    this.clients.set(tenant, conn);
    return conn.client;
  }

  /**
   * The client of a tenant that already exists; never creates one. Anonymous requests (login,
   * refresh) come through here, so naming a new tenant in `X-Tenant` cannot create a database.
   */
  async getExisting(tenant: string): Promise<RootDbClient> {
    if (this.clients.has(tenant) || this.opening.has(tenant)) return this.get(tenant);
    await this.assertExists(tenant);
    return this.get(tenant);
  }

  /**
   * 404 UNKNOWN_TENANT unless the tenant's database exists (400 INVALID_TENANT for a bad key).
   * Everything but provisioning checks this first, so a mistyped tenant is refused instead of
   * created empty.
   */
  async assertExists(tenant: string): Promise<void> {
    checkTenantKey(tenant);
    if (this.clients.has(tenant)) return;
    const exists = this.provider === 'sqlite'
      ? fs.existsSync(this.sqliteFile(tenant))
      : (await listPostgresDatabases(this.settings.DATABASE_URL, this.pgDatabase(tenant))).includes(this.pgDatabase(tenant));
    if (!exists) throw new NotFound(`unknown tenant "${tenant}"`, { tenant }, 'UNKNOWN_TENANT');
  }

  /** Applies pending migrations to a tenant (the `fw migrate upgrade -t` path); returns names applied. */
  async upgrade(tenant: string): Promise<string[]> {
    checkTenantKey(tenant);
    if (this.provider === 'postgresql') await ensurePostgresDatabase(this.settings.DATABASE_URL, this.pgDatabase(tenant));
    return this.bringUp(this.schemaTarget(tenant));
  }

  /**
   * Pending migrations, then the keys of `if_loaded` References and the sort indexes (a migration
   * may have rebuilt a table without them); returns the migrations applied now.
   */
  private async bringUp(target: SchemaTarget): Promise<string[]> {
    const applied = await upgradeSchema(target, this.plan);
    if (this.optionalKeys) {
      const { wanted, released } = this.optionalKeys();
      this.reportKeys(target, await ensureOptionalKeys(target, wanted, new Set(), released));
    }
    if (this.sortIndexes) await ensureSortIndexes(target, this.sortIndexes());
    return applied;
  }

  /**
   * What an open did to rows beyond its migrations, and the keys it left as they were: warnings.
   * Keys added or dropped are routine (every new tenant with the target gets one) and say nothing.
   */
  private reportKeys(target: SchemaTarget, changes: OptionalKeyChanges): void {
    const where = target.provider === 'sqlite' ? target.file : new URL(target.url).pathname.slice(1);
    for (const [column, rows] of Object.entries(changes.nulled)) {
      this.log('warn', `${column}: ${rows} value(s) pointing at no row set to NULL while adding its if_loaded key`, { column, rows, where });
    }
    for (const { key, why } of changes.skipped) {
      // a tenant is opened again after each eviction: the same refusal is said once per process
      const said = `${where}\u0000${key}\u0000${why}`;
      if (this.keysLeftSaid.has(said)) continue;
      this.keysLeftSaid.add(said);
      this.log('warn', `if_loaded key ${key} left as it is: ${why}; each open tries again (said once per process)`, { key, why, where });
    }
  }

  /**
   * Before an app's tables go (`fw app uninstall`): the keys of other apps' `if_loaded`
   * References to them are taken back (PostgreSQL refuses to drop a table another one's key
   * references, and SQLite would keep a key to nothing) and their rows get the key's on_delete.
   */
  async releaseOptionalKeys(tenant: string, keys: readonly OptionalKey[], tables: readonly string[]): Promise<OptionalKeyChanges> {
    await this.assertExists(tenant);
    return ensureOptionalKeys(this.schemaTarget(tenant), keys, new Set(tables));
  }

  /**
   * Runs an app's removal SQL in an existing tenant and forgets its migrations (`fw app
   * uninstall`); the caller has checked that nothing installed depends on it and released the
   * keys onto its tables (`keys`: any an open put back meanwhile go with the drop, `dropAppWithKeys`).
   */
  async dropApp(tenant: string, app: string, sql: string, keys: readonly OptionalKey[]): Promise<void> {
    await this.assertExists(tenant);
    await dropAppWithKeys(this.schemaTarget(tenant), app, sql, keys);
  }

  async exists(tenant: string): Promise<boolean> {
    return (await this.list()).includes(tenant);
  }

  async list(): Promise<string[]> {
    if (this.provider === 'sqlite') {
      const dir = path.join(this.settings.DATA_DIR, 'tenants');
      if (!fs.existsSync(dir)) return [];
      return fs.readdirSync(dir).filter((f) => f.endsWith('.db')).map((f) => f.slice(0, -3)).sort();
    }
    const prefix = this.settings.PG_DATABASE_PREFIX;
    return (await listPostgresDatabases(this.settings.DATABASE_URL, prefix))
      .map((d) => d.slice(prefix.length).replace(/_/g, '-'))
      .sort();
  }

  /**
   * The client of a tenant open right now, or null; never opens one and leaves its place in the
   * least-recently-used order alone (the event sweep looks at every open tenant: that is not use).
   * Hold it (`hold`) before the next turn of the event loop.
   */
  peek(tenant: string): RootDbClient | null {
    return this.clients.peek(tenant)?.client ?? null;
  }

  /** Open clients right now, for sweeps that should not open every tenant. */
  openTenants(): string[] {
    return [...this.clients.keys()];
  }

  async drop(tenant: string): Promise<void> {
    checkTenantKey(tenant);
    const conn = this.clients.get(tenant);
    if (conn) {
      this.clients.delete(tenant);
      await closeConnection(conn);
    }
    if (this.provider === 'sqlite') {
      const file = this.sqliteFile(tenant);
      if (!fs.existsSync(file)) throw new NotFound(`tenant ${tenant} does not exist`);
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    } else {
      await dropPostgresDatabase(this.settings.DATABASE_URL, this.pgDatabase(tenant));
    }
  }

  async close(): Promise<void> {
    if (this.idleSweep) clearInterval(this.idleSweep);
    const all = [...this.clients.values(), ...this.retired.values()];
    this.clients.clear();
    this.retired.clear();
    await Promise.all([...all.map(closeConnection), ...this.closing]);
    await (await this.shared)?.close();
  }

  /** PostgreSQL: the shared Prisma clients lent, spare and built so far (tests, the benchmark). */
  async prismaClients(): Promise<{ lent: number; spare: number; built: number } | null> {
    return this.shared ? (await this.shared).stats() : null;
  }

  /** Connections open right now: the LRU's and the evicted ones still held (tests, diagnostics). */
  openConnections(): number {
    return this.clients.size + this.retired.size;
  }
}
