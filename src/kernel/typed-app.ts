/**
 * Typed app code (docs/app-api.md#typed-app-code). `FwModels` and `FwCommands` are empty here;
 * a project's `generated/fw-types.ts` (printed by `fw generate`, src/kernel/generate/app-types.ts)
 * fills them by module augmentation of `fw/app`, the way Keystone and Payload type a project from
 * its own generated file. Everything below reads them through conditional types, so a name the
 * generated file does not know (a command added since the last `fw generate`, a project that
 * never ran it) falls back to the untyped shapes instead of failing to compile.
 */
import type { CommandDecl, HookContext, HookDecl } from './app.js';
import type { Env } from './env.js';

/** Model key → `{ record, create, update }`; filled by generated/fw-types.ts. */
export interface FwModels {}
/** Command name → `{ payload, result, model? }`; filled by generated/fw-types.ts. */
export interface FwCommands {}

export type ModelKey = keyof FwModels & string;
export type CommandName = keyof FwCommands & string;

type Part<T, K, P extends string> = K extends keyof T ? (T[K] extends { [k in P]: infer V } ? V : never) : never;
type AnyRecord = Record<string, unknown>;

/** A record of model `M` as the API returns it. */
export type RecordOf<M extends string> = M extends ModelKey ? Part<FwModels, M, 'record'> : AnyRecord;
/** The `values` fw.create accepts for `M`. */
export type CreateOf<M extends string> = M extends ModelKey ? Part<FwModels, M, 'create'> : AnyRecord;
/** The `values` fw.update accepts for `M`. */
export type UpdateOf<M extends string> = M extends ModelKey ? Part<FwModels, M, 'update'> : AnyRecord;
/** The payload command `C` takes. */
export type PayloadOf<C extends string> = C extends CommandName ? Part<FwCommands, C, 'payload'> : AnyRecord;
/** What command `C` resolves to. */
export type ResultOf<C extends string> = C extends CommandName ? Part<FwCommands, C, 'result'> : unknown;

/** Commands that belong to a model and so run its hooks (`pre.<command>`). */
type ModelCommand = { [C in CommandName]: FwCommands[C] extends { model: string } ? C : never }[CommandName];

/** A hook's payload on create/update: the input shape, plus any stored field (hooks may add read-only ones). */
type HookValues<M extends string, V> = V & Partial<Omit<RecordOf<M>, 'id'>>;

/** A `HookContext` whose payload, before and after have the shapes of one hook point. */
export type TypedHookContext<Payload, Before = undefined, After = undefined> =
  Omit<HookContext, 'payload' | 'before' | 'after'> & {
    payload: Payload;
    before: Before;
    after: After;
  };

type ObjectResult<R> = R extends object ? (R extends readonly unknown[] ? undefined : R | undefined) : undefined;

/** Every known hook point → its context (per docs/app-api.md#hooks). */
export type HookContexts =
  & { [M in ModelKey as `pre.${M}.create`]: TypedHookContext<HookValues<M, CreateOf<M>>> }
  & { [M in ModelKey as `post.${M}.create`]: TypedHookContext<HookValues<M, CreateOf<M>>, undefined, RecordOf<M>> }
  & { [M in ModelKey as `pre.${M}.update`]: TypedHookContext<HookValues<M, UpdateOf<M>>, RecordOf<M>> }
  & { [M in ModelKey as `post.${M}.update`]: TypedHookContext<HookValues<M, UpdateOf<M>>, RecordOf<M>, RecordOf<M>> }
  & { [M in ModelKey as `pre.${M}.delete` | `post.${M}.delete`]: TypedHookContext<{ model: string; id: string }, RecordOf<M>> }
  & { [C in ModelCommand as `pre.${C}`]: TypedHookContext<PayloadOf<C>, { id: string } | undefined> }
  & { [C in ModelCommand as `post.${C}`]: TypedHookContext<PayloadOf<C>, { id: string } | undefined, ObjectResult<ResultOf<C>>> };

/** The context a handler of `point` receives; an unknown point (an app's own `hookPoints`) gets the untyped one. */
export type HookContextAt<P extends string> = P extends keyof HookContexts ? HookContexts[P] : HookContext;

/**
 * A hook whose context is typed from its point: `defineHook('pre.crm.lead.create', (ctx) => …)`
 * types `ctx.payload` as the lead's create values, so reading a field the model lacks fails `tsc`.
 */
export function defineHook<P extends string>(
  point: P,
  handler: (ctx: HookContextAt<P>) => Promise<void> | void,
  options: Omit<HookDecl, 'point' | 'handler'> = {},
): HookDecl {
  return { ...options, point, handler };
}

/** A void result lets the handler resolve to anything (its value is dropped). */
type HandlerResult<R> = [R] extends [void] ? unknown : R;

/** A command declaration whose handler is typed from the generated `FwCommands[name]`. */
export type TypedCommandDecl<C extends string> = Omit<CommandDecl, 'name' | 'handler'> & {
  handler(env: Env, payload: PayloadOf<C>): Promise<HandlerResult<ResultOf<C>>>;
};

/**
 * `defineCommand('crm.lead.mark_won', { record: true, returns: 'record', handler: async (env, p) => … })`:
 * `p` has the payload the command's `input` declares (plus `id` for record commands) and the
 * handler must resolve to its `returns`/`output` type, as of the last `fw generate`.
 */
export function defineCommand<C extends string>(name: C, decl: TypedCommandDecl<C>): CommandDecl {
  return { ...decl, name };
}
