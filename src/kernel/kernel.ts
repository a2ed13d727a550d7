import crypto from 'node:crypto';
import type { EventHandlerDecl } from './app.js';
import { copyCommand } from './commands/copy.js';
import { crudCommands } from './commands/crud.js';
import { importCommands } from './commands/import-batch.js';
import { checkAnonymousCall, makeEnv, newSink, runCommand, runRollback, validateInput, type EnvCore, type Sink } from './bus/pipeline.js';
import { BootError, FwError } from './errors.js';
import { TenantDatabases } from './db/tenants.js';
import { optionalKeysOf, releasedKeysOf } from './db/optional-keys.js';
import { sortIndexesOf } from './db/sort-indexes.js';
import { systemPrincipal, type Env, type FwEvent, type Principal, type RootDbClient } from './env.js';
import { writeOutbox } from './events/outbox.js';
import { bindTransactionSql } from './db/transaction-sql.js';
import { EventWorker } from './events/worker.js';
import { kernelApp } from './kernel-app.js';
import path from 'node:path';
import { checkGeneratedClient } from './generate/index.js';
import { pendingChanges, pendingMessage } from './migrate/chains.js';
import { tenantPlan } from './migrate/plan.js';
import { refuseDrafts } from './migrate/drafts.js';
import { DevSeededFiles } from './dev/seeded-files.js';
import { loadActiveApps, loadAllApps, projectLayout, type ProjectLayout } from './modules/loader.js';
import type { KernelHandle } from './kernel-handle.js';
import { delegateOf } from './data/delegate.js';
import { countRecords, searchRecords, type SqlReadContext } from './data/sql/reads.js';
import { loadDataFile } from './seed-data.js';
import { Registry, type LoadedApp, type ResolvedCommand } from './registry/registry.js';
import { createMemoryPubSub } from './pubsub/memory/index.js';
import { RedisName } from './pubsub/names.js';
import type { PubSub } from './pubsub/types.js';
import { loadSettings, type Settings } from './settings.js';

export interface KernelOptions {
  settings?: Settings;
  layout?: ProjectLayout;
  /** Start the event worker (default: the EVENT_WORKER setting). */
  worker?: boolean;
  log?: (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;
  /** Extra apps appended after the loaded ones (test fixtures: hooks, event handlers, commands). */
  apps?: LoadedApp[];
}

/** Builds the registry every layer reads: the kernel's own models and commands, then the apps. */
export function createRegistry(apps: LoadedApp[]): Registry {
  return new Registry([kernelApp(), ...apps], [...crudCommands, ...importCommands, copyCommand]);
}

const TX_OPTIONS = { maxWait: 10_000, timeout: 60_000 };

/** Where the kernel's lines go without a logger of the caller's: the console, prefixed. */
const consoleLog: NonNullable<KernelOptions['log']> = (level, msg, extra) => console[level === 'info' ? 'log' : level](`[fw] ${msg}`, extra ?? '');

/**
 * The booted platform: registry, tenant databases, command bus and event worker. HTTP, GraphQL,
 * the CLI and the AI bridge all go through `dispatch`.
 */
export class Kernel implements EnvCore, KernelHandle {
  readonly registry: Registry;
  readonly settings: Settings;
  readonly layout: ProjectLayout;
  readonly tenants: TenantDatabases;
  readonly worker: EventWorker;
  readonly provider: 'sqlite' | 'postgresql';
  readonly pubsub: PubSub;
  /** Tenants whose new records get deterministic uuids (`useDeterministicIds`). */
  readonly deterministicIds = new Set<string>();
  private readonly logFn: NonNullable<KernelOptions['log']>;

  private constructor(registry: Registry, settings: Settings, layout: ProjectLayout, pubsub: PubSub, opts: KernelOptions) {
    this.registry = registry;
    this.settings = settings;
    this.layout = layout;
    this.logFn = opts.log ?? consoleLog;
    const provider = settings.DATABASE_URL ? 'postgresql' : 'sqlite';
    this.tenants = new TenantDatabases({
      settings,
      plan: tenantPlan(
        layout.fwRoot, registry.apps, provider, async () => [kernelApp(), ...(await loadAllApps(layout))],
        // what fw dev undoes is said where fw dev's own lines go (the child's stderr)
        settings.FW_DEV ? { apps: registry.apps, dataDir: settings.DATA_DIR, say: (line) => process.stderr.write(`${line}\n`) } : undefined,
      ),
      clientsDir: path.join(layout.root, 'generated', 'prisma'),
      sortIndexes: () => sortIndexesOf(registry.models.values(), provider),
      optionalKeys: () => ({ wanted: optionalKeysOf(registry.models.values()), released: releasedKeysOf(registry.models.values()) }),
      log: (level, msg, extra) => this.log(level, msg, extra),
      onOpen: async (tenant, client) => {
        await this.initialiseTenant(tenant, client);
        // deliveries left behind by a process that stopped before handing them over; looked
        // for on the reader, so a tenant without any never builds its Prisma client
        if (await this.hasOpenDeliveries(client)) this.worker.kick(tenant);
      },
    });
    this.provider = this.tenants.provider;
    this.pubsub = pubsub;
    this.worker = new EventWorker({
      registry, settings, provider: this.provider,
      withClient: (t, fn) => this.tenants.withClient(t, fn),
      deliver: (tenant, event, handler) => this.deliverEvent(tenant, event, handler),
      log: (level, msg, extra) => this.logFn(level, msg, extra),
      openTenants: () => this.tenants.openTenants(),
      hasOpenDeliveries: async (tenant) => {
        const client = this.tenants.peek(tenant);
        return client ? this.tenants.hold(client, () => this.hasOpenDeliveries(client)) : false;
      },
    });
  }

  static async boot(opts: KernelOptions = {}): Promise<Kernel> {
    const settings = opts.settings ?? loadSettings();
    const layout = opts.layout ?? projectLayout();
    const registry = createRegistry([...(await loadActiveApps(layout, settings)), ...(opts.apps ?? [])]);
    // declarations ahead of their app's chain would answer every write with a database error
    for (const app of registry.apps) {
      const pending = pendingChanges(app);
      if (pending) throw new BootError(pendingMessage(app.name, pending));
    }
    // drafts written by fw dev are for the server it supervises only, never applied silently elsewhere
    if (!settings.FW_DEV) refuseDrafts(registry.apps);
    checkGeneratedClient(layout, registry.apps);
    // ioredis is imported only when Redis is configured: a single process (and every CLI
    // command) skips loading it (bench/cli.ts)
    const pubsub = settings.REDIS_URL
      ? await (await import('./pubsub/redis/index.js')).createRedisPubSub(settings.REDIS_URL, settings.REDIS_PREFIX, opts.log ?? consoleLog)
      : createMemoryPubSub();
    const kernel = new Kernel(registry, settings, layout, pubsub, opts);
    for (const app of registry.apps) await app.module.boot?.(kernel);
    if (opts.worker ?? settings.EVENT_WORKER) kernel.worker.start();
    return kernel;
  }

  /**
   * From now on, records this process creates in `tenant` get uuids derived from their model and
   * their position (the n-th record of the model), so the same flow replayed on a freshly reset
   * tenant creates the same ids. For sandboxes only: ids become guessable.
   */
  useDeterministicIds(tenant: string): void {
    this.deterministicIds.add(tenant);
  }

  log(level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>): void {
    this.logFn(level, msg, extra);
  }

  /** Runs one command for a principal: its own transaction, outbox write, then notifications. */
  async dispatch<T = unknown>(command: string, payload: Record<string, unknown>, given: Principal): Promise<T> {
    const cmd = this.registry.command(command);
    // what the principal holds, once, for every check the command and its hooks make
    const principal = given.names || given.kind === 'system' ? given : { ...given, names: this.registry.groups.namesOf(given.role, given.groups ?? []) };
    const client = principal.kind === 'anonymous'
      ? await this.anonymousClient(cmd, payload, principal)
      // a principal with a session comes from a request's token, whose tenant was found to exist
      // when it was verified: opened as existing, so not even a tenant dropped since is created
      : principal.sid
        ? await this.tenants.getExisting(principal.tenant_id)
        : await this.tenants.get(principal.tenant_id);
    return this.execute(client, principal, (env, sink) => runCommand(env, sink, command, payload), cmd.transaction ?? cmd.mutates) as Promise<T>;
  }

  /**
   * The existing tenant of an anonymous caller: anonymous requests never create a tenant, and
   * whether one exists must not show. So the checks that need no database come first (a private
   * command is 401 either way), and for an unknown tenant a public command's `unknown_tenant`
   * answers what bad credentials would (login, refresh, OAuth callback); else 404 UNKNOWN_TENANT.
   */
  private async anonymousClient(cmd: ResolvedCommand, payload: Record<string, unknown>, principal: Principal): Promise<RootDbClient> {
    checkAnonymousCall(cmd, payload, principal);
    try {
      return await this.tenants.getExisting(principal.tenant_id);
    } catch (err) {
      if (!cmd.unknown_tenant || !(err instanceof FwError && err.code === 'UNKNOWN_TENANT')) throw err;
      return cmd.unknown_tenant({ kernel: this, principal, payload: validateInput(cmd, payload) });
    }
  }

  /**
   * Runs `fn` with an env on `client`: in a transaction when it writes, with events and change
   * notices handled. `origin` is the source recorded for events `fn` emits outside any command
   * (else "unknown").
   */
  execute<T>(client: RootDbClient, principal: Principal, fn: (env: Env, sink: Sink) => Promise<T>, write = true, origin?: string): Promise<T> {
    return this.tenants.hold(client, () => this.executeHeld(client, principal, fn, write, origin));
  }

  private async executeHeld<T>(client: RootDbClient, principal: Principal, fn: (env: Env, sink: Sink) => Promise<T>, write: boolean, origin?: string): Promise<T> {
    const sink = newSink(write, origin);
    const tenant = principal.tenant_id;
    let result: T;
    let wrote = 0;
    try {
      if (write) {
        result = await this.tenants.openTransaction(client, () => client.$transaction(async (tx) => {
          // commands may run compiled statements on the transaction's own connection
          const direct = this.tenants.transactionSqlFor(client);
          if (direct) bindTransactionSql(tx, direct);
          const r = await fn(makeEnv(this, tx, principal, sink), sink);
          wrote = await writeOutbox(tx, this.registry, tenant, sink.events);
          return r;
        }, TX_OPTIONS));
      } else {
        result = await fn(makeEnv(this, client, principal, sink, this.tenants.readerFor(client)), sink);
        if (sink.events.length) wrote = await writeOutbox(client, this.registry, tenant, sink.events);
      }
    } catch (err) {
      // rolled back (or, outside a transaction, failed): undo what was done outside the database
      await runRollback(this, sink.rollback);
      throw err;
    }
    for (const fn of sink.afterCommit) fn();
    if (wrote || sink.changes.some((c) => c.model === 'ir.event')) this.worker.kick(tenant);
    if (sink.changes.length) {
      for (const c of sink.changes) void this.publish(tenant, `changed:${c.model}`, { ...c });
    }
    return result;
  }

  /** Live notification to a tenant's subscribers on every server process. */
  async publish(tenant: string, topic: string, message: Record<string, unknown>): Promise<void> {
    try {
      await this.pubsub.publish(RedisName.tenantChannel(tenant, topic), message);
    } catch (err) {
      this.log('warn', 'publish failed', { tenant, topic, err: String(err) });
    }
  }

  subscribe(tenant: string, topic: string, handler: (message: unknown) => void): Promise<() => void> {
    return this.pubsub.subscribe(RedisName.tenantChannel(tenant, topic), handler);
  }

  private async deliverEvent(tenant: string, event: FwEvent, handler: EventHandlerDecl): Promise<void> {
    const client = await this.tenants.get(tenant);
    await this.execute(client, systemPrincipal(tenant), (env) => handler.handler(env, event), true, `handler:${handler.id}`);
  }

  /** Plain reads of the kernel itself on a tenant's reader (no Prisma client needed). */
  private sqlReads(client: RootDbClient): SqlReadContext {
    return { registry: this.registry, dialect: this.provider, reader: this.tenants.readerFor(client) };
  }

  private async hasOpenDeliveries(client: RootDbClient): Promise<boolean> {
    const where = { status: { in: ['pending', 'processing'] } };
    return (await countRecords(this.sqlReads(client), this.registry.model('ir.event'), where)) > 0;
  }

  /** Seeds every active app whose version this tenant has not initialised yet, in load order. */
  private async initialiseTenant(tenant: string, client: RootDbClient): Promise<void> {
    // a plain read on the tenant's reader: opening a tenant whose apps are all seeded never
    // starts Prisma's query compiler (memory per open tenant, first-request latency)
    const irModule = this.registry.model('ir.module');
    const rows = await searchRecords(this.sqlReads(client), irModule, {
      where: {}, orderBy: [], fields: ['record_uuid', 'name', 'version'].map((f) => irModule.fields.get(f)!),
    });
    const installed = new Map(rows.map((r) => [r.name as string, r.version as string]));
    // under fw dev an edited data file (a menu, an action) applies without a version bump: the
    // data files changed since they were last loaded are loaded again (they upsert by their
    // ids); the app's seed function is not run again
    const dev = this.settings.FW_DEV ? new DevSeededFiles(this.settings.DATA_DIR, tenant) : null;
    for (const app of this.registry.apps) {
      const version = app.manifest.version;
      const seeded = installed.get(app.name) === version;
      const json = app.dataFiles.filter((f) => f.endsWith('.json'));
      const files = seeded ? (dev?.changed(json) ?? []) : json;
      if (seeded && !files.length) continue;
      await this.execute(client, systemPrincipal(tenant), async (env) => {
        if (!seeded) await app.module.seed?.(env);
        for (const file of files) await loadDataFile(env, file);
        const m = delegateOf(env.db, this.registry.model('ir.module'));
        if (seeded) return;
        if (installed.has(app.name)) {
          await m.update({ where: { name: app.name }, data: { version, seeded_at: new Date() } });
        } else {
          await m.create({ data: { record_uuid: crypto.randomUUID(), name: app.name, version } });
        }
      }, true, `seed:${app.name}`);
      dev?.loaded(files);
    }
  }

  async close(): Promise<void> {
    await this.worker.stop();
    await this.pubsub.close();
    await this.tenants.close();
  }
}

/**
 * The kernel behind a `KernelHandle`, for the foundation apps that reach its internals (tenant
 * databases, `execute` on a client of their own): the app contract hands apps the interface, and
 * every handle the kernel hands out is the kernel itself (or an object derived from it, as the QA
 * replay's server kernel is). Anything else is a programming error, refused where it is narrowed.
 */
export function concreteKernel(handle: KernelHandle): Kernel {
  if (handle instanceof Kernel) return handle;
  throw new FwError('KERNEL_REQUIRED', 500, 'this app needs the fw kernel itself, not another KernelHandle implementation');
}
