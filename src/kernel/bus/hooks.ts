import type { HookContext } from '../app.js';

/**
 * Runs `pre.<model>.<op>` hooks. A hook vetoes by throwing; it may rewrite `ctx.payload`.
 */
export async function runPreHooks(ctx: HookContext): Promise<void> {
  for (const hook of ctx.env.registry.hooksAt(`pre.${ctx.model}.${ctx.op}`)) {
    await hook.handler?.(ctx);
  }
}

/**
 * Runs `post.<model>.<op>` hooks. A hook declaring `track_fields` sees the tracked fields that
 * changed in `ctx.changes` and makes the kernel emit one `<model>.field_changed` event each.
 */
export async function runPostHooks(ctx: HookContext): Promise<void> {
  const emitted = new Set<string>();
  for (const hook of ctx.env.registry.hooksAt(`post.${ctx.model}.${ctx.op}`)) {
    if (hook.track_fields?.length) {
      const changes = hook.track_fields
        .filter((f) => ctx.before && ctx.after && !sameValue(ctx.before[f], ctx.after[f]))
        .map((f) => ({ field: f, old_value: ctx.before![f] ?? null, new_value: ctx.after![f] ?? null }));
      if (!changes.length) continue;
      for (const c of changes) {
        if (emitted.has(c.field)) continue;
        emitted.add(c.field);
        ctx.env.emit(`${ctx.model}.field_changed`, { ...c, record_id: ctx.after!.id, model: ctx.model });
      }
      await hook.handler?.({ ...ctx, changes });
    } else {
      await hook.handler?.(ctx);
    }
  }
}

/**
 * Runs `post.<model>.read` hooks on each record a generic read or write answers with (read_one,
 * search, and the record create and update return), so every path (REST, GraphQL, subscriptions,
 * the AI tools, MCP) shows the same: a hook may mask or drop values of `ctx.after` in place
 * (connector secrets). It must not write. The system principal gets the records as stored.
 */
export async function runReadHooks(env: HookContext['env'], model: string, records: Array<Record<string, unknown>>): Promise<void> {
  if (env.principal.kind === 'system') return;
  const hooks = env.registry.hooksAt(`post.${model}.read`);
  if (!hooks.length) return;
  for (const after of records) for (const hook of hooks) await hook.handler?.({ env, model, op: 'read', payload: {}, after });
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
