/**
 * `fw/app`: what an app's `src/apps/<app>/index.ts` and `manifest.ts` are written against.
 * Re-exports of the app contract only (app.ts, env.ts, kernel-handle.ts, and the context of a
 * migration's data.ts: migrate/data-context.ts), never the kernel's
 * implementation: tests/public/api.test.ts walks this file's imports to keep it so. Documented
 * in docs/app-api.md.
 */
export { defineApp, sendsEvents, sendsFile, serves, servesRecords, speaksJsonRpc } from '../kernel/app.js';
export type {
  AppManifest, AppModule, CommandDecl, CommandEffect, EventHandlerDecl, EventStream, FileAnswer, HookContext, HookDecl, JsonRpcEndpoint, RouteContext,
  RouteDescription, SeedFn, SubscriptionDecl, ToolDecl,
} from '../kernel/app.js';
export type { Env, FwEvent, Principal } from '../kernel/env.js';
export type { KernelHandle } from '../kernel/kernel-handle.js';
export type { DataMigration, DataMigrationContext } from '../kernel/migrate/data-context.js';
export { defineCommand, defineHook } from '../kernel/typed-app.js';
export type {
  CommandName, CreateOf, FwCommands, FwModels, HookContextAt, HookContexts, ModelKey, PayloadOf, RecordOf, ResultOf,
  TypedCommandDecl, TypedHookContext, UpdateOf,
} from '../kernel/typed-app.js';
