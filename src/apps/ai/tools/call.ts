import type { CommandDecl, HookContext } from '../../../kernel/app.js';
import { runPostHooks, runPreHooks } from '../../../kernel/bus/hooks.js';
import type { Env } from '../../../kernel/env.js';
import { BadRequest } from '../../../kernel/errors.js';
import { kernelOf, turnContext, type TurnContext } from '../context.js';
import type { Proposal } from '../writes/proposals.js';

type Rec = Record<string, unknown>;

/** Where a tool call comes from when no caller said so (an in-process dispatch). */
const NO_CONTEXT: TurnContext = { conversation_id: null, prompt_version_id: null, source: 'api' };

export const isProposal = (v: unknown): v is Proposal =>
  typeof v === 'object' && v !== null && (v as Rec).status === 'confirmation_required' && typeof (v as Rec).token === 'string';

/**
 * What a tool result looks like to the model and to `post.ai.tool_call` hooks: a proposal loses
 * its confirmation token (the token goes to the person, never to the model); anything else is
 * unchanged.
 */
export function forModel(result: unknown): unknown {
  if (!isProposal(result)) return result;
  return { status: 'confirmation_required', proposal_id: result.proposal_id, summary: result.summary, expires_at: result.expires_at, note: 'The person must confirm this change; it is not applied yet.' };
}

/**
 * Runs one tool call as `env.principal`: the `pre.ai.tool_call` hooks (a hook vetoes by throwing,
 * and may rewrite `arguments`), then the carrier `ai.tool.<tool>` as a top-level dispatch, then
 * the `post.ai.tool_call` hooks, which see the result as the model gets it in `after.result`.
 * The hook payload is `{ tool, arguments, conversation_id, source }` (`source`: `turn`, `invoke`
 * or `mcp`, from the caller's `turnContext`). Returns the carrier's raw result (a proposal keeps
 * its token for the caller to hand to the person). The one place tool-call hooks run: turns and
 * MCP both reach it through the command `ai.call_tool`.
 */
export async function runToolCall(env: Env, tool: string, args: Rec): Promise<unknown> {
  const ctx = turnContext.getStore() ?? NO_CONTEXT;
  const hook: HookContext = { env, model: 'ai', op: 'tool_call', payload: { tool, arguments: args, conversation_id: ctx.conversation_id, source: ctx.source } };
  await runPreHooks(hook);
  const result = await turnContext.run(ctx, () => kernelOf(env.registry).dispatch(`ai.tool.${tool}`, (hook.payload.arguments ?? {}) as Rec, env.principal));
  await runPostHooks({ ...hook, after: { result: forModel(result) } });
  return result;
}

/**
 * The command bus entry of every tool call (turns, `/api/ai/invoke`, MCP over HTTP and stdio):
 * `{ tool, arguments }`, run by `runToolCall`. Internal (no REST or GraphQL route). Outside a
 * transaction, like a turn: the carrier runs in its own, and a hook's writes are its own.
 */
export const callToolCommand: CommandDecl = {
  name: 'ai.call_tool',
  internal: true,
  mutates: false,
  transaction: false,
  returns: 'json',
  description: 'Runs one AI tool call for the caller, with the pre/post.ai.tool_call hooks',
  handler: async (env, p) => {
    if (typeof p.tool !== 'string' || !p.tool) throw new BadRequest('tool is required', { field: 'tool' }, 'VALIDATION_FAILED');
    const args = p.arguments ?? {};
    if (typeof args !== 'object' || Array.isArray(args)) throw new BadRequest('arguments must be a JSON object', { field: 'arguments' }, 'VALIDATION_FAILED');
    return runToolCall(env, p.tool, args as Rec);
  },
};
