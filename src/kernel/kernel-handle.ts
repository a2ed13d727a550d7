import type { Principal } from './env.js';
import type { Registry } from './registry/registry.js';
import type { Settings } from './settings.js';

/**
 * The booted kernel as an app sees it through `boot(kernel)`, `routes(server, { kernel })`,
 * `authenticator(kernel)`, `unknown_tenant({ kernel })` and `SubscriptionDecl.topic({ kernel })`.
 *
 * An interface, so that the app contract (app.ts, env.ts) and the public entry points
 * (src/public/) name no part of the kernel's implementation: `Kernel` (kernel.ts) implements it,
 * and only what apps need is here. Tenant databases, transactions of one's own (`execute`) and
 * the event worker stay kernel internals; a foundation app that needs them narrows the handle
 * with `concreteKernel` (kernel.ts).
 */
export interface KernelHandle {
  /** Every loaded model, command, hook and app (the same registry `env.registry` is). */
  readonly registry: Registry;
  readonly settings: Settings;
  readonly provider: 'sqlite' | 'postgresql';
  /** Runs one command for a principal: its own transaction, access checks, hooks and events. */
  dispatch<T = unknown>(command: string, payload: Record<string, unknown>, principal: Principal): Promise<T>;
  /** Live notification to a tenant's subscribers on every server process (never throws). */
  publish(tenant: string, topic: string, message: Record<string, unknown>): Promise<void>;
  /** Listens to a tenant's topic; resolves to the function that stops listening. */
  subscribe(tenant: string, topic: string, handler: (message: unknown) => void): Promise<() => void>;
  log(level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>): void;
}
