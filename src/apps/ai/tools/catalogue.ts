import { randomUUID } from 'node:crypto';
import { canAccess } from '../../../kernel/access.js';
import type { CommandDecl, HookContext, ToolDecl } from '../../../kernel/app.js';
import { runPreHooks } from '../../../kernel/bus/hooks.js';
import { delegateOf } from '../../../kernel/data/delegate.js';
import { systemPrincipal, type Env, type Principal } from '../../../kernel/env.js';
import type { KernelHandle } from '../../../kernel/kernel-handle.js';
import { FwError } from '../../../kernel/errors.js';
import type { Registry } from '../../../kernel/registry/registry.js';
import { aiSettings } from '../settings.js';
import { toolsOfCommands, type ToolBinding } from './carriers.js';

/** A tool as one caller is offered it: the schema narrowed to what that caller may touch. */
export interface CatalogueEntry {
  name: string;
  kind: ToolDecl['kind'];
  read_only: boolean;
  description: string;
  input_schema: Record<string, unknown>;
  /** Writes of proposer tools wait for POST …/confirm. */
  confirmation_required: boolean;
}

export function toolBindings(registry: Registry): ReadonlyMap<string, ToolBinding> {
  return toolsOfCommands.get(registry.commands) ?? new Map();
}

/** Models a generic tool may name: everything but the AI layer's own bookkeeping. */
const isBusinessModel = (registry: Registry, key: string) => registry.model(key).app !== 'ai';

export interface CatalogueOptions {
  /** A skill pack's curated subset (tool names); undefined = every tool. */
  only?: readonly string[];
  /** MCP offers read-only tools only. */
  readOnly?: boolean;
}

/**
 * The tools `principal` may use, each schema narrowed per caller: a tool on a model the caller
 * cannot read is left out, and a `model` argument lists only the models the caller has the
 * tool's operation on. Proposers not on AI_WRITE_TOOLS_ALLOWLIST and tools an admin switched
 * off in this tenant (`ai.tool.is_enabled`) are not offered.
 */
export async function catalogueFor(kernel: KernelHandle, principal: Principal, opts: CatalogueOptions = {}): Promise<CatalogueEntry[]> {
  const registry = kernel.registry;
  const disabled = await disabledTools(kernel, principal.tenant_id);
  const allow = new Set(aiSettings(kernel.settings).AI_WRITE_TOOLS_ALLOWLIST);
  const out: CatalogueEntry[] = [];
  for (const b of toolBindings(registry).values()) {
    const t = b.tool;
    if (disabled.has(t.name) || (opts.only && !opts.only.includes(t.name)) || (opts.readOnly && !t.read_only)) continue;
    if (!t.read_only && !allow.has(t.name)) continue;
    if (t.models?.some((m) => !registry.models.has(m) || !canAccess(registry.model(m), principal, 'read'))) continue;
    let schema = t.input_schema;
    if (t.model_argument) {
      const models = [...registry.models.values()]
        .filter((m) => isBusinessModel(registry, m.key) && canAccess(m, principal, 'read') && canAccess(m, principal, t.model_argument!.op))
        .map((m) => m.key);
      if (!models.length) continue;
      schema = withModelEnum(schema, models);
    }
    out.push({ name: t.name, kind: t.kind, read_only: t.read_only, description: t.description, input_schema: schema, confirmation_required: !t.read_only });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The models a tool's narrowed `model` argument offers this caller, or null when the tool takes
 * no model. Turns and MCP refuse a call naming any other model, so the narrowing is enforced, not
 * only advertised (the AI layer's own bookkeeping models are never a generic tool's target).
 */
function offeredModels(entry: CatalogueEntry): string[] | null {
  const model = (entry.input_schema.properties as Record<string, Record<string, unknown>> | undefined)?.model;
  return Array.isArray(model?.enum) ? (model.enum as unknown[]).map(String) : null;
}

/**
 * Why a call of `entry` with `args` names a model outside the caller's narrowed enum (the
 * AI_TOOL_ARGUMENTS_INVALID message), or null when it may run. Turns and MCP both check with it.
 */
export function modelArgumentProblem(entry: CatalogueEntry, args: Record<string, unknown>): string | null {
  const offered = offeredModels(entry);
  if (!offered || (typeof args.model === 'string' && offered.includes(args.model))) return null;
  const problem = typeof args.model === 'string' ? `cannot be used on model "${args.model}"` : 'needs the argument "model"';
  return `tool ${entry.name} ${problem}; the models it offers you: ${offered.join(', ')}`;
}

function withModelEnum(schema: Record<string, unknown>, models: string[]): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return { ...schema, properties: { ...props, model: { ...(props.model ?? { type: 'string' }), enum: models } } };
}

/** Tenants whose tool rows were written by this process (per kernel). */
const bound = new WeakMap<KernelHandle, Map<string, Promise<void>>>();

async function disabledTools(kernel: KernelHandle, tenant: string): Promise<Set<string>> {
  await ensureBound(kernel, tenant);
  const res = await kernel.dispatch<{ items: Array<{ name: string }> }>('fw.search', {
    model: 'ai.tool', domain: [['is_enabled', '=', false]], fields: ['name'], limit: 500,
  }, systemPrincipal(tenant));
  return new Set(res.items.map((r) => r.name));
}

/** Writes the tenant's `ai.tool` rows once per process, running the bind hooks for each tool. */
export function ensureBound(kernel: KernelHandle, tenant: string): Promise<void> {
  let perTenant = bound.get(kernel);
  if (!perTenant) bound.set(kernel, (perTenant = new Map()));
  let p = perTenant.get(tenant);
  if (!p) {
    p = kernel.dispatch<void>('ai.bind_tools', {}, systemPrincipal(tenant)).catch((err) => {
      perTenant!.delete(tenant);
      throw err;
    });
    perTenant.set(tenant, p);
  }
  return p;
}

/**
 * `pre.ir.tool.registry.bind` runs once per tool binding (payload: name, command, app, kind,
 * read_only, description, input_schema, is_enabled); a hook may veto the binding by throwing an
 * FwError (the tool is then recorded switched off),
 * switch the tool off (`is_enabled: false`) or reword its description. The result is recorded as
 * the tool's `ai.tool` row; an admin's later `is_enabled` choice is kept.
 */
export const bindToolsCommand: CommandDecl = {
  name: 'ai.bind_tools',
  roles: ['system'],
  internal: true,
  returns: 'void',
  description: 'Records the tenant\'s tool bindings (ai.tool rows)',
  handler: async (env: Env) => {
    const model = env.registry.model('ai.tool');
    const rows = delegateOf(env.db, model);
    const existing = new Map((await rows.findMany({ select: { name: true, is_enabled: true } })).map((r) => [String(r.name), r]));
    for (const b of toolBindings(env.registry).values()) {
      const payload: Record<string, unknown> = {
        name: b.tool.name, command: b.command, app: b.app, kind: b.tool.kind, read_only: b.tool.read_only,
        description: b.tool.description, input_schema: b.tool.input_schema, is_enabled: true,
      };
      const ctx: HookContext = { env, model: 'ir.tool.registry', op: 'bind', payload };
      try {
        await runPreHooks(ctx);
      } catch (err) {
        // a veto (a hook throwing one of our errors) leaves the tool unbound in this tenant
        if (!(err instanceof FwError)) throw err;
        ctx.payload.is_enabled = false;
      }
      const values = { command: b.command, app: b.app, kind: b.tool.kind, read_only: b.tool.read_only, description: String(ctx.payload.description), input_schema: b.tool.input_schema };
      const row = existing.get(b.tool.name);
      if (row) await rows.update({ where: { name: b.tool.name }, data: values });
      else await rows.create({ data: { ...values, name: b.tool.name, record_uuid: randomUUID(), is_enabled: ctx.payload.is_enabled !== false } });
    }
  },
};
