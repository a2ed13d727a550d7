import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../../kernel/env.js';
import { toErrorBody } from '../../../kernel/errors.js';
import type { KernelHandle } from '../../../kernel/kernel-handle.js';
import { turnContext, type TurnContext } from '../context.js';
import { catalogueFor, modelArgumentProblem, type CatalogueEntry } from '../tools/catalogue.js';

/**
 * What MCP clients are told of every tool we offer. Only tools the boot proved read-only (their
 * command and everything it dispatches cannot write, emit, publish or call out) are in the
 * read-only catalogue, which is where `readOnlyHint` comes from; the same arguments read the
 * same rows, and nothing outside this server is reached.
 */
export const MCP_TOOL_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The caller, fixed (HTTP: one server per request) or looked up per MCP request (stdio: the token is re-checked each time). */
export type PrincipalSource = Principal | (() => Promise<Principal>);

const MCP_CONTEXT: TurnContext = { conversation_id: null, prompt_version_id: null, source: 'mcp' };

type Rec = Record<string, unknown>;

/**
 * An MCP server offering exactly the caller's read-only tools: the per-caller catalogue of
 * `catalogueFor(…, { readOnly: true })` (schemas narrowed to what the caller may read, tools an
 * admin switched off left out). `tools/call` runs the carrier command `ai.tool.<name>` as the
 * caller through `ai.call_tool` (the tool-call hooks of turns included), so RBAC, record rules,
 * field access and hooks apply as for REST, GraphQL and turns. Failures
 * are tool results with `isError: true` and our error envelope, never protocol errors.
 */
export function createMcpServer(kernel: KernelHandle, principal: PrincipalSource): Server {
  const caller = typeof principal === 'function' ? principal : async () => principal;
  const server = new Server(
    { name: 'fw', title: 'fw read-only tools', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: 'Read-only access to the records you may read in this fw tenant. Every tool only reads; writes are not offered over MCP.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await catalogueFor(kernel, await caller(), { readOnly: true });
    return { tools: tools.map(toMcpTool) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    let who: Principal;
    try {
      who = await caller();
    } catch (err) {
      return errorResult(err, kernel, request.params.name);
    }
    return callTool(kernel, who, request.params.name, request.params.arguments ?? {});
  });
  return server;
}

export function toMcpTool(t: CatalogueEntry): Tool {
  return {
    name: t.name,
    description: t.description,
    inputSchema: t.input_schema as Tool['inputSchema'],
    annotations: { ...MCP_TOOL_ANNOTATIONS },
  };
}

/**
 * One tool call as `principal`. The tool must be in the caller's read-only catalogue (else
 * AI_TOOL_UNKNOWN), and a `model` argument must be one its narrowed enum offers. It then runs
 * through `ai.call_tool`, so the `pre/post.ai.tool_call` hooks apply as in turns: a veto is an
 * `isError` result with the hook's error code.
 */
export async function callTool(kernel: KernelHandle, principal: Principal, name: string, args: Rec): Promise<CallToolResult> {
  try {
    const entry = (await catalogueFor(kernel, principal, { readOnly: true })).find((t) => t.name === name);
    if (!entry || !entry.read_only) return failure('AI_TOOL_UNKNOWN', `there is no tool "${name}" in your read-only catalogue`);
    const problem = modelArgumentProblem(entry, args);
    if (problem) return failure('AI_TOOL_ARGUMENTS_INVALID', problem, { tool: name, field: 'model' });
    // ai.call_tool runs the pre/post.ai.tool_call hooks around the carrier, exactly as in turns
    const result = await turnContext.run(MCP_CONTEXT, () => kernel.dispatch('ai.call_tool', { tool: name, arguments: args }, principal));
    return success(result);
  } catch (err) {
    return errorResult(err, kernel, name);
  }
}

function success(result: unknown): CallToolResult {
  const out: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(result ?? null) }] };
  // structuredContent is a JSON object: records and pages are; a bare count or list is not
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) out.structuredContent = result as Rec;
  return out;
}

function failure(code: string, message: string, details?: Rec): CallToolResult {
  const error: Rec = { code, message, ...(details ? { details } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/** FwErrors keep their code, message and details; anything else is masked, as REST does. */
function errorResult(err: unknown, kernel: KernelHandle, tool: string): CallToolResult {
  const { status, body } = toErrorBody(err);
  if (status >= 500) kernel.log('error', 'MCP tool call failed', { tool, err: err instanceof Error ? err.stack ?? err.message : String(err) });
  return failure(body.error.code, body.error.message, body.error.details);
}
