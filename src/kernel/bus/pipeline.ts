import { checkAccess, holdsAny } from '../access.js';
import { coerceScalar } from '../data/values.js';
import { systemPrincipal, type DbClient, type Env, type Principal, type RootDbClient } from '../env.js';
import { AccessDenied, AuthenticationRequired, BadRequest, ValidationError } from '../errors.js';
import type { Reader } from '../db/readers/types.js';
import { didYouMean } from '../registry/closest.js';
import type { Registry, ResolvedCommand } from '../registry/registry.js';
import type { Settings } from '../settings.js';
import { DELETED_VALUES, findScoped } from '../commands/crud.js';
import { guardEnv } from './effects.js';
import { runPostHooks, runPreHooks } from './hooks.js';

export interface EmittedEvent { name: string; payload: Record<string, unknown>; source: string }
export interface RecordChange {
  model: string;
  op: 'create' | 'update' | 'delete';
  id: string;
  /**
   * A delete of a model with record rules: the values of the fields its rules read, so each
   * subscriber's rules decide whether the notice reaches it (`fw.could_read_deleted`).
   */
  before?: Record<string, unknown>;
}

/** What one top-level dispatch collects while it runs, acted on after commit. */
export interface Sink {
  events: EmittedEvent[];
  changes: RecordChange[];
  /** Command currently running (or the sink's origin below them), recorded as the source of events. */
  current: string[];
  afterCommit: Array<() => void>;
  /** Undo steps of the transaction this sink's envs write in (Env.onRollback). */
  rollback: Array<() => Promise<void> | void>;
  /** The envs of this sink write inside a database transaction (else: a command with `transaction: false`). */
  inTransaction: boolean;
}

export interface EnvCore {
  registry: Registry;
  settings: Settings;
  provider: 'sqlite' | 'postgresql';
  publish(tenant: string, topic: string, message: Record<string, unknown>): Promise<void>;
  /** Tenants whose new records get deterministic uuids (see Env.deterministicIds). */
  deterministicIds: ReadonlySet<string>;
  log(level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>): void;
}

/**
 * `origin` names what runs when no command does, recorded as the source of the events it emits
 * directly: `handler:<event handler id>` for an event handler, `seed:<app>` for an app's seed.
 */
export const newSink = (inTransaction: boolean, origin?: string): Sink =>
  ({ events: [], changes: [], current: origin ? [origin] : [], afterCommit: [], rollback: [], inTransaction });

/**
 * Runs the undo steps of a transaction that rolled back, newest first, each awaited; a failing
 * step is logged and the others still run. The list is emptied, so no step runs twice.
 */
export async function runRollback(core: Pick<EnvCore, 'log'>, steps: Sink['rollback']): Promise<void> {
  for (const step of steps.splice(0).reverse()) {
    try {
      await step();
    } catch (err) {
      core.log('warn', 'an undo step after a rollback failed', { err: String(err) });
    }
  }
}

/** The env a command sees; `dispatch` nests in the same transaction and sink. */
export function makeEnv(core: EnvCore, db: DbClient, principal: Principal, sink: Sink, reader?: Reader): Env {
  const env: Env = {
    principal,
    tenant: principal.tenant_id,
    registry: core.registry,
    settings: core.settings,
    provider: core.provider,
    deterministicIds: core.deterministicIds.has(principal.tenant_id) || undefined,
    db,
    reader,
    dispatch: <T>(command: string, payload: Record<string, unknown> = {}) => runCommand(env, sink, command, payload) as Promise<T>,
    emit: (name, payload) => { sink.events.push({ name, payload, source: sink.current.at(-1) ?? 'unknown' }); },
    sudo: () => (principal.kind === 'system' ? env : makeEnv(core, db, systemPrincipal(principal.tenant_id), sink, reader)),
    afterCommit: (fn) => { sink.afterCommit.push(fn); },
    onRollback: (fn) => { sink.rollback.push(fn); },
    transaction: (fn) => {
      // a Prisma transaction client has $transaction too: nested, it opens a savepoint
      const root = db as RootDbClient;
      // what runs in it registers its undo steps here: run if it rolls back; once it commits,
      // dropped, unless it is nested in an outer transaction (a savepoint, in Prisma), whose
      // rollback still takes its rows, so the steps go up to the outer one
      const inner: Sink = { ...sink, rollback: [], inTransaction: true };
      return root.$transaction((tx) => fn(makeEnv(core, tx, principal, inner)), { maxWait: 10_000, timeout: 60_000 })
        .then((result) => {
          if (sink.inTransaction) sink.rollback.push(...inner.rollback);
          return result;
        }, async (err: unknown) => {
          await runRollback(core, inner.rollback);
          throw err;
        });
    },
    publish: (topic, message) => { sink.afterCommit.push(() => void core.publish(principal.tenant_id, topic, message)); },
  };
  return env;
}

/** The commands whose commit is announced on `changed:<model>` (batch forms dispatch these). */
const RECORD_WRITES = new Map<string, RecordChange['op']>([['fw.create', 'create'], ['fw.update', 'update'], ['fw.delete', 'delete']]);

/** The one pipeline every command runs through, whatever the entry point. */
export async function runCommand(env: Env, sink: Sink, name: string, payload: Record<string, unknown>): Promise<unknown> {
  const cmd = env.registry.command(name);
  checkAnonymousCall(cmd, payload, env.principal);
  if (cmd.roles && !holdsAny(env.principal, cmd.roles)) {
    throw new AccessDenied(`role "${env.principal.role}" may not run ${name}`, { command: name });
  }
  sink.current.push(name);
  try {
    // a command that declares its effects gets an env (for its hooks too) that refuses the rest
    const result = cmd.kernel ? await cmd.handler(env, payload) : await runModelCommand(cmd.effects ? guardEnv(env, cmd) : env, cmd, payload);
    const op = RECORD_WRITES.get(name);
    // these have checked that payload.model names a model, and return the record's id
    if (op) {
      const before = (result as Record<symbol, Record<string, unknown> | undefined>)[DELETED_VALUES];
      sink.changes.push({ model: payload.model as string, op, id: (result as { id: string }).id, ...(before ? { before } : {}) });
    }
    return result;
  } finally {
    sink.current.pop();
  }
}

async function runModelCommand(env: Env, cmd: ResolvedCommand, payload: Record<string, unknown>): Promise<unknown> {
  const model = cmd.model ? env.registry.model(cmd.model) : undefined;
  if (model) checkAccess(model, env.principal, cmd.op);
  const input = validateInput(cmd, payload);
  let before: Record<string, unknown> | undefined;
  // the registry refuses a record command without a model at boot
  if (cmd.record && model) {
    const row = await findScoped(env, model, payload.id, cmd.op, { record_uuid: true });
    before = { id: row.record_uuid };
  }
  const verb = cmd.name.slice(cmd.name.lastIndexOf('.') + 1);
  const ctx = { env, model: model?.key ?? cmd.app, op: verb, payload: input, before };
  if (model) await runPreHooks(ctx);
  const result = await cmd.handler(env, ctx.payload);
  if (model) {
    await runPostHooks({ ...ctx, after: isRecord(result) ? result : undefined });
  }
  return result;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The checks that come before any database: the payload is an object, and an anonymous caller
 * runs only public commands. Kernel.dispatch runs them before it opens an anonymous caller's
 * tenant too, so the answer does not depend on whether the tenant exists.
 */
export function checkAnonymousCall(cmd: ResolvedCommand, payload: unknown, principal: Principal): asserts payload is Record<string, unknown> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new BadRequest('a command payload is a JSON object', undefined, 'INVALID_PAYLOAD');
  }
  if (principal.kind === 'anonymous' && !cmd.public) {
    throw new AuthenticationRequired(`${cmd.name} needs an authenticated caller`);
  }
}

const FILE_KEYS = new Set(['stream', 'filename', 'content_type', 'declared_size']);

/** Checks a command payload against its declared `input` fields; `id` is always allowed. */
export function validateInput(cmd: ResolvedCommand, payload: Record<string, unknown>): Record<string, unknown> {
  if (!cmd.inputFields) return { ...payload };
  const out: Record<string, unknown> = {};
  const errors: Array<{ field: string; code: string; message: string }> = [];
  for (const [k, v] of Object.entries(payload)) {
    // the transport fills these for file-upload commands; they are not part of the declared input
    if (cmd.file_upload && FILE_KEYS.has(k)) {
      out[k] = v;
      continue;
    }
    const f = cmd.inputFields.get(k);
    if (!f) {
      if (k === 'id' && cmd.record) out.id = v;
      else errors.push({ field: k, code: 'UNKNOWN_FIELD', message: `${cmd.name} takes no "${k}"${didYouMean(k, cmd.inputFields.keys())}` });
      continue;
    }
    if (v === null || v === undefined) {
      if (f.required) errors.push({ field: k, code: 'REQUIRED', message: `"${k}" is required` });
      continue;
    }
    try {
      const c = coerceScalar(f, v);
      out[k] = c instanceof Date ? c.toISOString() : c;
    } catch (err) {
      errors.push({ field: k, code: 'INVALID_TYPE', message: `"${k}": ${(err as Error).message}` });
    }
  }
  for (const f of cmd.inputFields.values()) {
    if (out[f.name] === undefined && f.default !== undefined) out[f.name] = f.default;
    if (f.required && out[f.name] === undefined && !errors.some((e) => e.field === f.name)) {
      errors.push({ field: f.name, code: 'REQUIRED', message: `"${f.name}" is required` });
    }
  }
  if (errors.length) throw new ValidationError(errors.map((e) => e.message).join('; '), { command: cmd.name, errors });
  return out;
}
