import type { Reader } from './db/readers/types.js';
import type { Registry } from './registry/registry.js';
import type { Settings } from './settings.js';
import type { CommandName, CreateOf, ModelKey, PayloadOf, RecordOf, ResultOf, UpdateOf } from './typed-app.js';

/**
 * Who is running a command. `system` bypasses access control (seeds, CLI, the event worker);
 * `anonymous` may only run commands declared `public` (login, refresh).
 */
export interface Principal {
  kind: 'user' | 'system' | 'anonymous';
  user_id: string | null;
  tenant_id: string;
  role: string;
  /** Groups given to the user beyond those of its role (`res.user.groups`). */
  groups?: readonly string[];
  /**
   * Every group and role name the principal holds (Registry.groups.namesOf): its role, its
   * groups and all they imply. Filled by the session check and by dispatch; access compares names.
   */
  names?: readonly string[];
  /**
   * The organization the caller works in for this request (`$principal.organization_id`): the one
   * the request names (`X-Fw-Organization`, docs/security.md#organizations) if the user belongs to
   * it, else the user's default organization.
   */
  organization_id?: string | null;
  /** Every organization the user belongs to (`$principal.organization_ids`): the default one and the memberships. */
  organization_ids?: readonly string[];
  /**
   * The user's language (`res.user.lang`), when the principal came from a session (cached with
   * it, dropped with it when the user's preferences change): what translated answers read.
   * Absent elsewhere; null for a user without one.
   */
  lang?: string | null;
  /** Session id of the access token, when the principal came from one. */
  sid?: string;
  /** The calling client as the transport saw it (HTTP), for sessions and throttling. */
  client?: { ip: string | null; user_agent: string | null };
}

export function systemPrincipal(tenant: string): Principal {
  return { kind: 'system', user_id: null, tenant_id: tenant, role: 'system', organization_id: null, organization_ids: [] };
}

export function anonymousPrincipal(tenant: string): Principal {
  return { kind: 'anonymous', user_id: null, tenant_id: tenant, role: 'anonymous', organization_id: null, organization_ids: [] };
}

/** An event as handlers see it; `payload` and `tenant_id` are the spec's envelope. */
export interface FwEvent {
  id: string;
  name: string;
  payload: Record<string, unknown>;
  tenant_id: string;
  emitted_at: string;
  /** Command that caused it, for tracing. */
  source?: string;
}

/**
 * A Prisma model delegate as the kernel uses it. Models are declared at run time, so the kernel
 * reaches delegates by their registry name; the generated clients carry the precise types.
 */
export interface Delegate {
  findMany(args: object): Promise<Record<string, unknown>[]>;
  findFirst(args: object): Promise<Record<string, unknown> | null>;
  findUnique(args: object): Promise<Record<string, unknown> | null>;
  count(args: object): Promise<number>;
  create(args: object): Promise<Record<string, unknown>>;
  update(args: object): Promise<Record<string, unknown>>;
  updateMany(args: object): Promise<{ count: number }>;
  delete(args: object): Promise<Record<string, unknown>>;
  deleteMany(args: object): Promise<{ count: number }>;
  groupBy(args: object): Promise<Record<string, unknown>[]>;
}

export interface DbClient {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number>;
}

export interface RootDbClient extends DbClient {
  $transaction<T>(fn: (tx: DbClient) => Promise<T>, options?: { maxWait?: number; timeout?: number }): Promise<T>;
  $disconnect(): Promise<void>;
}

/** The generic commands `Env.dispatch` types by their payload's `model`. */
type TypedCrud = 'fw.create' | 'fw.update' | 'fw.read_one';

/** What every command handler and hook receives. */
export interface Env {
  readonly principal: Principal;
  readonly tenant: string;
  readonly registry: Registry;
  readonly settings: Settings;
  /** The transaction the command runs in. */
  readonly db: DbClient;
  /**
   * Set only when the command runs outside a transaction (read-only commands): plain reads go
   * through it as compiled SQL instead of Prisma. Inside a transaction reads must see its own
   * writes, so they stay on `db`.
   */
  readonly reader?: Reader;
  readonly provider: 'sqlite' | 'postgresql';
  /**
   * The tenant creates records with deterministic uuids (a sandbox where reruns of the same flow
   * must give the same ids: `Kernel.useDeterministicIds`).
   */
  readonly deterministicIds?: boolean;
  /**
   * Run another command inside the same transaction (its own access checks and hooks apply).
   * Typed from the project's generated/fw-types.ts (docs/app-api.md#typed-app-code): fw.create,
   * fw.update and fw.read_one by their `model`, every other known command by its name. The last
   * form takes a name the generated file does not know, or any name with an explicit result type
   * (`dispatch<T>(…)`); it refuses a known name without one, so a payload that does not fit the
   * typed form is an error rather than a silent fall-back.
   */
  dispatch<M extends ModelKey>(command: 'fw.create', payload: { model: M; values: CreateOf<M> }): Promise<RecordOf<M>>;
  dispatch<M extends ModelKey>(command: 'fw.update', payload: { model: M; id: string; values: UpdateOf<M>; revision?: number }): Promise<RecordOf<M>>;
  dispatch<M extends ModelKey>(command: 'fw.read_one', payload: { model: M; id: string }): Promise<RecordOf<M>>;
  /**
   * fw.create/update/read_one with a payload the typed forms above do not take: a model known only
   * at run time (`model.key`), or untyped values (`p.id` of an untyped handler). Deliberately
   * lenient: fw's own foundation apps pass such payloads; a wrong field in `values` of a typed
   * model is therefore not an error here (docs/app-api.md#typed-app-code).
   */
  dispatch<T = unknown>(command: TypedCrud, payload: Record<string, unknown>): Promise<T>;
  dispatch<C extends Exclude<CommandName, TypedCrud>>(command: C, payload: PayloadOf<C>): Promise<ResultOf<C>>;
  dispatch<T = unknown, C extends string = string>(command: C extends CommandName ? never : C, payload?: Record<string, unknown>): Promise<T>;
  /** Queue an event; it is written to the outbox in this transaction and delivered after commit. */
  emit(name: string, payload: Record<string, unknown>): void;
  /** The same transaction as the system principal (access control off). */
  sudo(): Env;
  /** Runs after the transaction commits (never on rollback): cache invalidation, notifications. */
  afterCommit(fn: () => void): void;
  /**
   * Undoes work done outside the database if the transaction this env writes in rolls back: an
   * object stored for a row that never commits (a batch whose later item fails). Runs, newest
   * first and awaited, before the error reaches the caller; a callback that fails is logged and
   * does not mask the error. Forgotten once the transaction commits, except that a transaction
   * nested in another (`transaction()` inside one: a savepoint) hands it to the outer one, whose
   * rollback still takes the rows. Registered outside any transaction (a `transaction: false`
   * command's own env), it runs when the top-level command fails.
   */
  onRollback(fn: () => Promise<void> | void): void;
  /**
   * For commands declared `transaction: false` (slow I/O such as uploads must not hold a database
   * transaction open): run the database part atomically. Inside a transaction already, it nests
   * (Prisma makes it a savepoint: its failure undoes its own writes, the outer rollback all of them).
   */
  transaction<T>(fn: (env: Env) => Promise<T>): Promise<T>;
  /** Live notification to this tenant's subscribers (every server process), sent after commit. */
  publish(topic: string, message: Record<string, unknown>): void;
}
