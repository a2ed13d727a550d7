import type { CommandEffect } from '../app.js';
import type { DbClient, Env } from '../env.js';
import { UndeclaredEffect } from '../errors.js';
import type { Registry, ResolvedCommand } from '../registry/registry.js';

/** Prisma delegate methods that only read. Anything else on a delegate is a write. */
const READ_METHODS = new Set(['findMany', 'findFirst', 'findUnique', 'findFirstOrThrow', 'findUniqueOrThrow', 'count', 'aggregate', 'groupBy']);

interface Allowed { dispatch: Set<string>; read: Set<string>; write: Set<string>; emit: Set<string>; publish: Set<string> }

/** What the effects allow, by kind (a handful of entries: built per guarded env, not cached). */
function allowedOf(effects: CommandEffect[]): Allowed {
  const a: Allowed = { dispatch: new Set(), read: new Set(), write: new Set(), emit: new Set(), publish: new Set() };
  for (const e of effects) {
    if ('dispatch' in e) a.dispatch.add(e.dispatch);
    else if ('read' in e) a.read.add(e.read);
    else if ('write' in e) a.write.add(e.write);
    else if ('emit' in e) a.emit.add(e.emit);
    else if ('publish' in e) a.publish.add(e.publish);
  }
  return a;
}

/** Model key of each Prisma delegate name. */
const delegateModels = (registry: Registry): Map<string, string> =>
  new Map([...registry.models.values()].map((model) => [model.names.delegate, model.key]));

/**
 * The env of a command that declares its effects: everything it (and its hooks) may do beyond
 * them is refused with UNDECLARED_EFFECT. This is what makes a proof over declared effects (the
 * AI layer's read-only gate) hold at run time instead of trusting the declaration.
 */
export function guardEnv(env: Env, cmd: ResolvedCommand): Env {
  const a = allowedOf(cmd.effects!);
  const refuse = (what: string): never => {
    throw new UndeclaredEffect(`${cmd.name} ${what}, which its declared effects do not allow`, { command: cmd.name, effect: what });
  };
  const guarded: Env = {
    principal: env.principal,
    tenant: env.tenant,
    registry: env.registry,
    settings: env.settings,
    provider: env.provider,
    deterministicIds: env.deterministicIds,
    reader: env.reader,
    db: guardDb(env.db, env.registry, a, refuse),
    // generic, untyped form: the guard forwards whatever the typed overloads of Env.dispatch let through
    dispatch: <T>(command: string, payload?: Record<string, unknown>): Promise<T> =>
      (a.dispatch.has(command) ? env.dispatch<T>(command, payload) : refuse(`dispatches ${command}`)),
    emit: (name, payload) => (a.emit.has(name) ? env.emit(name, payload) : refuse(`emits ${name}`)),
    publish: (topic, message) => (a.publish.has(topic) ? env.publish(topic, message) : refuse(`publishes on ${topic}`)),
    sudo: () => guardEnv(env.sudo(), cmd),
    afterCommit: (fn) => env.afterCommit(fn),
    onRollback: (fn) => env.onRollback(fn),
    transaction: (fn) => (a.write.size ? env.transaction((tx) => fn(guardEnv(tx, cmd))) : refuse('opens a write transaction')),
  };
  return guarded;
}

function guardDb(db: DbClient, registry: Registry, a: Allowed, refuse: (what: string) => never): DbClient {
  const models = delegateModels(registry);
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string') return value;
      const model = models.get(prop);
      if (model) return guardDelegate(value as object, model, a, refuse);
      // raw SQL cannot be classified: only a command declaring writes may use it
      if (prop.startsWith('$queryRaw') || prop.startsWith('$executeRaw')) {
        if (!a.write.size) return () => refuse(`runs raw SQL (${prop})`);
      }
      if (prop === '$transaction' && !a.write.size) return () => refuse('opens a write transaction');
      return typeof value === 'function' ? (value as (...x: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function guardDelegate(delegate: object, model: string, a: Allowed, refuse: (what: string) => never): object {
  return new Proxy(delegate, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      const reads = READ_METHODS.has(prop);
      if (reads ? !(a.read.has(model) || a.write.has(model)) : !a.write.has(model)) {
        return () => refuse(`${reads ? 'reads' : 'writes'} ${model} (${prop})`);
      }
      return (value as (...x: unknown[]) => unknown).bind(target);
    },
  });
}
