import type { CommandDecl, ToolDecl } from '../../../kernel/app.js';
import { BootError } from '../../../kernel/errors.js';
import { checkSchema } from '../guards/output.js';
import { propose } from '../writes/proposals.js';
import { checkToolArguments } from './arguments.js';
import { mutationOf } from './proof.js';

type Cmd = CommandDecl & { app: string; kernel: boolean; mutates: boolean };

/** A tool as the AI layer knows it: its declaration and the command it runs. */
export interface ToolBinding { tool: ToolDecl; command: string; app: string; carrier: string }

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const KINDS = new Set(['informer', 'proposer', 'insight']);

/** Tool bindings of a registry's commands, by tool name (filled by `carrierCommands`). */
export const toolsOfCommands = new WeakMap<ReadonlyMap<string, unknown>, Map<string, ToolBinding>>();

/**
 * The ai app's `deriveCommands`: every command declaring a `tool`, in any loaded app, becomes
 * the carrier command `ai.tool.<name>` of model `ai.tool`. The boot stops on a malformed tool,
 * a duplicate name, a writing tool that is not a proposer, and a read-only tool whose command
 * can mutate (naming the mutation).
 */
export function carrierCommands(commands: ReadonlyMap<string, Cmd>): CommandDecl[] {
  const out: CommandDecl[] = [];
  const bindings = new Map<string, ToolBinding>();
  for (const cmd of commands.values()) {
    const tool = cmd.tool;
    if (!tool) continue;
    const where = `tool ${tool.name} (command ${cmd.name}, app ${cmd.app})`;
    if (!TOOL_NAME.test(tool.name)) throw new BootError(`${where}: a tool name is lower_snake_case, at most 64 characters`, undefined, 'AI_TOOL_INVALID');
    if (!KINDS.has(tool.kind)) throw new BootError(`${where}: kind must be informer, proposer or insight`, undefined, 'AI_TOOL_INVALID');
    if (!tool.description?.trim()) throw new BootError(`${where}: a description is required (the model chooses tools by it)`, undefined, 'AI_TOOL_INVALID');
    const schemaProblem = checkSchema(tool.input_schema) ?? (tool.input_schema.type === 'object' ? null : 'input_schema must be an object schema');
    if (schemaProblem) throw new BootError(`${where}: ${schemaProblem}`, undefined, 'AI_TOOL_INVALID');
    if (bindings.has(tool.name)) throw new BootError(`${where}: the tool name is also used by command ${bindings.get(tool.name)!.command}`, undefined, 'AI_TOOL_INVALID');
    if (tool.read_only) {
      if (tool.kind === 'proposer') throw new BootError(`${where}: a proposer tool proposes a write, so it cannot be read_only`, undefined, 'AI_TOOL_INVALID');
      const mutation = mutationOf(cmd.name, commands);
      if (mutation) throw new BootError(`${where} is marked read_only but can mutate: ${mutation}`, { tool: tool.name, command: cmd.name, mutation }, 'AI_TOOL_NOT_READ_ONLY');
    } else if (tool.kind !== 'proposer') {
      throw new BootError(`${where}: only proposer tools may write (their writes wait for a confirmation); mark it read_only or make it a proposer`, undefined, 'AI_TOOL_INVALID');
    }
    const carrier = `ai.tool.${tool.name}`;
    bindings.set(tool.name, { tool, command: cmd.name, app: cmd.app, carrier });
    out.push(tool.read_only
      ? {
        name: carrier, model: 'ai.tool', op: 'read', mutates: false, internal: true, description: tool.description,
        effects: [{ dispatch: cmd.name }],
        handler: async (env, payload) => env.dispatch(cmd.name, checkToolArguments(env, tool, payload)),
      }
      : {
        name: carrier, model: 'ai.tool', op: 'read', mutates: true, internal: true, description: tool.description,
        // fw.read_one: a proposal shows each field's current value beside the proposed one
        effects: [{ write: 'ai.write.proposal' }, { dispatch: 'fw.read_one' }],
        handler: async (env, payload) => propose(env, { tool, command: cmd.name, app: cmd.app, carrier }, checkToolArguments(env, tool, payload)),
      });
  }
  toolsOfCommands.set(commands, bindings);
  return out;
}
