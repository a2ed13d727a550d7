import type { AppManifest, AppModule, CommandDecl, EventHandlerDecl, HookDecl } from '../app.js';
import type { ModelDecl } from '../declare.js';
import { BootError, NotFound } from '../errors.js';
import { collectOutputTypes, type NamedShape } from '../output.js';
import { didYouMean } from './closest.js';
import { checkEventHandlers, knownEvents } from './events.js';
import { checkModelGraph, resolveField, resolveModel, type ResolvedField, type ResolvedModel } from './model.js';
import { resolveGroups, type Groups } from './groups.js';

/** An app as the loader found it: manifest, code and model declarations. */
export interface LoadedApp {
  name: string;
  /** Null for foundation apps; the domain for `<domain>.<app>` apps. */
  domain: string | null;
  manifest: AppManifest;
  module: AppModule;
  models: ModelDecl[];
  /** Absolute paths of the manifest's `data` entries, resolved by the loader. */
  dataFiles: string[];
  /** Absolute paths of the manifest's `i18n/<lang>.json` entries (not in `dataFiles`). */
  translationFiles?: string[];
  /**
   * The root (a project or the installed fw) holding the app; its migration chain lives in
   * `<root>/prisma/migrations/<app>/`. Test fixture apps have none, and so no tables.
   */
  root?: string;
}

export interface ResolvedCommand extends CommandDecl {
  app: string;
  kernel: boolean;
  op: NonNullable<CommandDecl['op']>;
  mutates: boolean;
  record: boolean;
  /** `input` normalised like model fields; undefined = the payload is free-form. */
  inputFields?: ReadonlyMap<string, ResolvedField>;
}

export interface ResolvedHook extends HookDecl {
  app: string;
}

const FRAMEWORK_PREFIXES = ['res.', 'ir.'];

/**
 * The registry: built once at boot from the active apps, then frozen. Every layer (data,
 * GraphQL, REST, views, AI tools) reads model and command metadata from here only.
 */
export class Registry {
  readonly apps: readonly LoadedApp[];
  readonly models: ReadonlyMap<string, ResolvedModel>;
  readonly commands: ReadonlyMap<string, ResolvedCommand>;
  /** The named types of the commands' `output` shapes, once per name (checked at boot). */
  readonly outputTypes: ReadonlyMap<string, NamedShape>;
  private readonly hooks: ReadonlyMap<string, readonly ResolvedHook[]>;
  private readonly handlers: ReadonlyMap<string, readonly EventHandlerDecl[]>;
  readonly handlersById: ReadonlyMap<string, EventHandlerDecl>;
  /** The groups the apps declare, and what each principal holds (docs/security.md#groups). */
  readonly groups: Groups;

  constructor(apps: LoadedApp[], kernelCommands: CommandDecl[]) {
    this.apps = Object.freeze([...apps]);
    const models = new Map<string, ResolvedModel>();
    for (const app of apps) {
      for (const decl of app.models) {
        checkModelOwnership(app, decl.key);
        if (models.has(decl.key)) {
          throw new BootError(`model ${decl.key} is declared by both ${models.get(decl.key)!.app} and ${app.name}`);
        }
        models.set(decl.key, resolveModel(decl, app.name));
      }
    }
    checkModelGraph(models);
    this.models = models;

    const commands = new Map<string, ResolvedCommand>();
    for (const c of kernelCommands) commands.set(c.name, resolveCommand(c, 'kernel', true, models));
    for (const app of apps) {
      for (const c of app.module.commands ?? []) {
        if (c.name.startsWith('fw.')) throw new BootError(`app ${app.name}: command ${c.name} uses the reserved fw.* prefix`);
        if (commands.has(c.name)) throw new BootError(`app ${app.name}: command ${c.name} is already registered by ${commands.get(c.name)!.app}`);
        const resolved = resolveCommand(c, app.name, false, models);
        // the domain rule first: it holds whether or not the model it names exists
        if (app.domain) checkDomainCommand(app, resolved);
        if (resolved.model && !models.has(resolved.model)) {
          throw new BootError(`app ${app.name}: command ${c.name} targets unknown model ${resolved.model}${didYouMean(resolved.model, models.keys())}`);
        }
        commands.set(c.name, resolved);
      }
    }
    for (const app of apps) {
      for (const c of app.module.deriveCommands?.(commands) ?? []) {
        if (commands.has(c.name)) throw new BootError(`app ${app.name}: derived command ${c.name} is already registered by ${commands.get(c.name)!.app}`);
        const resolved = resolveCommand(c, app.name, false, models);
        if (resolved.model && !models.has(resolved.model)) {
          throw new BootError(`app ${app.name}: command ${c.name} targets unknown model ${resolved.model}${didYouMean(resolved.model, models.keys())}`);
        }
        commands.set(c.name, resolved);
      }
    }
    for (const c of commands.values()) {
      if (c.record && !c.model) throw new BootError(`app ${c.app}: command ${c.name} is a record command (record: true) without a model`);
      checkEffects(c, commands, models);
    }
    this.commands = commands;
    this.groups = resolveGroups(apps, roleValues(models));
    checkAccessNames(this.groups, models, commands);
    this.outputTypes = checkOutputs(commands, apps, models);
    for (const m of models.values()) {
      if (m.createCommand && !commands.has(m.createCommand)) {
        throw new BootError(`model ${m.key}: create_command ${m.createCommand} is not a registered command`);
      }
    }

    const points = hookPoints(apps, models, commands);
    const hooks = new Map<string, ResolvedHook[]>();
    for (const app of apps) {
      for (const h of app.module.hooks ?? []) {
        const m = HOOK_POINT.exec(h.point);
        if (!m) throw new BootError(`app ${app.name}: hook point "${h.point}" must read pre.<model>.<op> or post.<model>.<op>`);
        if (h.track_fields?.length) {
          const model = models.get(m[2]);
          if (m[1] !== 'post' || !model) throw new BootError(`app ${app.name}: track_fields needs a post hook on a loaded model (${h.point})`);
          for (const f of h.track_fields) {
            if (!model.fields.get(f)?.stored) {
              throw new BootError(`app ${app.name}: ${h.point} tracks unknown field ${f}${didYouMean(f, storedFields(model))}`);
            }
          }
        }
        if (!points.has(h.point)) {
          throw new BootError(`app ${app.name}: hook point "${h.point}" never runs: ${models.has(m[2])
            ? `model ${m[2]} has no operation "${m[3]}" (create, update, delete, the verb of one of its commands, or read for a post hook)`
            : `no loaded model is named ${m[2]} and no app declares it in hookPoints${didYouMean(m[2], models.keys())}`}`);
        }
        const list = hooks.get(h.point) ?? [];
        list.push({ ...h, app: app.name });
        hooks.set(h.point, list);
      }
    }
    for (const list of hooks.values()) list.sort((a, b) => (a.sequence ?? 10) - (b.sequence ?? 10));
    this.hooks = hooks;

    const handlers = new Map<string, EventHandlerDecl[]>();
    const byId = new Map<string, EventHandlerDecl>();
    for (const app of apps) {
      for (const h of app.module.eventHandlers ?? []) {
        if (byId.has(h.id)) throw new BootError(`app ${app.name}: event handler id ${h.id} is used twice`);
        byId.set(h.id, h);
        handlers.set(h.event, [...(handlers.get(h.event) ?? []), h]);
      }
    }
    checkEventHandlers(apps, knownEvents(apps, commands));
    this.handlers = handlers;
    this.handlersById = byId;
    Object.freeze(this);
  }

  model(key: string): ResolvedModel {
    const m = this.models.get(key);
    if (!m) throw new NotFound(`Unknown model "${key}"`, { model: key }, 'UNKNOWN_MODEL');
    return m;
  }

  command(name: string): ResolvedCommand {
    const c = this.commands.get(name);
    if (!c) throw new NotFound(`Unknown command "${name}"`, { command: name }, 'UNKNOWN_COMMAND');
    return c;
  }

  hooksAt(point: string): readonly ResolvedHook[] {
    return this.hooks.get(point) ?? [];
  }

  handlersFor(event: string): readonly EventHandlerDecl[] {
    return this.handlers.get(event) ?? [];
  }
}

const HOOK_POINT = /^(pre|post)\.(.+)\.([a-z_]+)$/;

/**
 * Every hook point that runs: create, update and delete of each model (the generic record
 * commands), the verb of each command on a model (the bus runs `pre/post.<model>.<verb>` around
 * it), and the points apps declare because they run them themselves.
 */
function hookPoints(apps: LoadedApp[], models: ReadonlyMap<string, ResolvedModel>, commands: ReadonlyMap<string, ResolvedCommand>): Set<string> {
  const points = new Set<string>();
  const add = (model: string, op: string) => { points.add(`pre.${model}.${op}`); points.add(`post.${model}.${op}`); };
  for (const m of models.keys()) for (const op of ['create', 'update', 'delete']) add(m, op);
  // what generic reads answer with passes post.<model>.read (masking values: runReadHooks)
  for (const m of models.keys()) points.add(`post.${m}.read`);
  for (const c of commands.values()) if (c.model) add(c.model, c.name.slice(c.name.lastIndexOf('.') + 1));
  for (const app of apps) {
    for (const p of app.module.hookPoints ?? []) {
      if (!HOOK_POINT.test(p)) throw new BootError(`app ${app.name}: declared hook point "${p}" must read pre.<name>.<op> or post.<name>.<op>`);
      points.add(p);
    }
  }
  return points;
}

/** A command named `<model key>.<verb>` belongs to that model unless it says otherwise. */
function resolveCommand(c: CommandDecl, app: string, kernel: boolean, models: ReadonlyMap<string, ResolvedModel>): ResolvedCommand {
  let model = c.model;
  if (!model && !kernel) {
    const prefix = c.name.slice(0, c.name.lastIndexOf('.'));
    if (models.has(prefix)) model = prefix;
  }
  return {
    ...c,
    model,
    app,
    kernel,
    op: c.op ?? 'update',
    mutates: c.mutates ?? true,
    record: c.record ?? false,
    inputFields: c.input
      ? new Map(Object.entries(c.input).map(([n, f]) => [n, resolveField(`command ${c.name}`, n, f)]))
      : undefined,
  };
}

/** Output shapes of commands and subscriptions: one shape per type name, no clash with a model's GraphQL names. */
function checkOutputs(commands: ReadonlyMap<string, ResolvedCommand>, apps: readonly LoadedApp[], models: ReadonlyMap<string, ResolvedModel>): Map<string, NamedShape> {
  const outputs = [...commands.values()].filter((c) => c.output);
  for (const c of outputs) {
    if (c.returns === 'record') throw new BootError(`app ${c.app}: command ${c.name} declares both output and returns: 'record'`);
  }
  const shapes = [
    ...outputs.map((c) => ({ owner: `app ${c.app}: command ${c.name}`, shape: c.output! })),
    ...apps.flatMap((a) => (a.module.subscriptions ?? []).filter((s) => s.output).map((s) => ({ owner: `app ${a.name}: subscription ${s.name}`, shape: s.output! }))),
  ];
  let types: Map<string, NamedShape>;
  try {
    types = collectOutputTypes(shapes, (key) => models.has(key));
  } catch (err) {
    throw new BootError((err as Error).message);
  }
  const taken = new Map<string, string>();
  for (const m of models.values()) {
    const n = m.names;
    for (const name of [n.typeName, n.whereInput, n.createInput, n.updateInput, n.orderByInput, n.groupByField,
      `${n.typeName}Connection`, `${n.typeName}Edge`, `${n.typeName}Change`, `${n.typeName}RefFilter`, `${n.typeName}ListFilter`]) {
      taken.set(name, m.key);
    }
  }
  for (const name of types.keys()) {
    if (taken.has(name)) throw new BootError(`output type ${name} clashes with a GraphQL name of model ${taken.get(name)}`);
  }
  return types;
}

/** Declared effects must name things that exist, so a proof over them cannot be fooled by a typo. */
function checkEffects(c: ResolvedCommand, commands: ReadonlyMap<string, ResolvedCommand>, models: ReadonlyMap<string, ResolvedModel>): void {
  for (const e of c.effects ?? []) {
    const where = `command ${c.name}: effect ${JSON.stringify(e)}`;
    if ('dispatch' in e && !commands.has(e.dispatch)) throw new BootError(`${where} names an unknown command${didYouMean(e.dispatch, commands.keys())}`);
    if ('read' in e && !models.has(e.read)) throw new BootError(`${where} names an unknown model${didYouMean(e.read, models.keys())}`);
    if ('write' in e && !models.has(e.write)) throw new BootError(`${where} names an unknown model${didYouMean(e.write, models.keys())}`);
  }
}

const storedFields = (m: ResolvedModel): string[] => [...m.fields.values()].filter((f) => f.stored).map((f) => f.name);

/** The rule comes first in each message: the reader learns what holds, then what broke it. */
function checkModelOwnership(app: LoadedApp, key: string): void {
  if (app.domain) {
    const file = `schema/${app.name}/${key}.ts`;
    if (FRAMEWORK_PREFIXES.some((p) => key.startsWith(p))) {
      throw new BootError(`app ${app.name}: res.* and ir.* belong to the foundation; user-domain apps cannot declare ${key} (${file})`,
        { app: app.name, model: key });
    }
    if (!key.startsWith(`${app.domain}.`)) {
      throw new BootError(`app ${app.name}: models of domain ${app.domain} are named ${app.domain}.<name>; model ${key} must be named ${app.domain}.<name> (${file})`,
        { app: app.name, model: key });
    }
  }
}

/**
 * A user-domain app's commands live in its domain: their name and the model they target start
 * with `<domain>.`, never res.* or ir.* (framework) nor another domain — checked on the name as
 * well as the model, so `res.partner.merge` is refused even where no res.partner model exists.
 */
function checkDomainCommand(app: LoadedApp, c: ResolvedCommand): void {
  const where = `app ${app.name} (src/apps/${app.name}/index.ts)`;
  for (const [what, name] of [['command', c.name], ['model', c.model]] as const) {
    if (name === undefined) continue;
    const subject = what === 'command' ? `command ${name}` : `command ${c.name} targets ${name}`;
    if (FRAMEWORK_PREFIXES.some((p) => name.startsWith(p))) {
      throw new BootError(`${where}: res.* and ir.* are framework models; user-domain apps must not add commands to them (${subject})`,
        { app: app.name, command: c.name });
    }
    if (!name.startsWith(`${app.domain}.`)) {
      throw new BootError(`${where}: a user-domain app's commands are named ${app.domain}.<…>; ${subject}, outside domain ${app.domain}`,
        { app: app.name, command: c.name });
    }
  }
}

/** The values of `res.user.role`: the roles that existed before groups, valid wherever access names groups. */
function roleValues(models: ReadonlyMap<string, ResolvedModel>): string[] {
  const role = models.get('res.user')?.fields.get('role');
  return role?.type === 'enum' ? [...(role.values ?? [])] : [];
}

/** Every group or role that model access, field access, record rules and commands name is declared. */
function checkAccessNames(groups: Groups, models: ReadonlyMap<string, ResolvedModel>, commands: ReadonlyMap<string, ResolvedCommand>): void {
  for (const m of models.values()) {
    for (const name of Object.keys(m.access.roles)) if (!groups.known(name)) throw groups.unknown(name, `model ${m.key} (app ${m.app}) access`);
    for (const [field, rule] of Object.entries(m.access.fields)) {
      for (const name of [...(rule.read ?? []), ...(rule.write ?? [])]) if (!groups.known(name)) throw groups.unknown(name, `model ${m.key} field ${field} access`);
    }
    for (const rule of m.access.rules) {
      for (const name of rule.roles ?? []) if (!groups.known(name)) throw groups.unknown(name, `model ${m.key} record rule`);
    }
  }
  for (const c of commands.values()) {
    for (const name of c.roles ?? []) if (!groups.known(name)) throw groups.unknown(name, `command ${c.name} (app ${c.app})`);
  }
}
