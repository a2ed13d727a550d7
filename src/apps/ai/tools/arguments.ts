import type { ToolDecl } from '../../../kernel/app.js';
import type { Env } from '../../../kernel/env.js';
import { ValidationError } from '../../../kernel/errors.js';
import { kernelOf } from '../context.js';
import { validateAgainst } from '../guards/output.js';
import { aiSettings } from '../settings.js';

/**
 * Tool arguments against the tool's input_schema, per AI_OUTPUT_VALIDATION_MODE: `strict`
 * refuses (422 AI_TOOL_ARGUMENTS_INVALID; in a turn the model is told why and may retry),
 * `warn` logs and lets the command's own input checks decide, `disabled` skips the check.
 */
export function checkToolArguments(env: Env, tool: ToolDecl, args: Record<string, unknown>): Record<string, unknown> {
  const mode = aiSettings(env.settings).AI_OUTPUT_VALIDATION_MODE;
  if (mode === 'disabled') return args;
  const issues = validateAgainst(tool.input_schema, args);
  if (!issues.length) return args;
  if (mode === 'strict') {
    throw new ValidationError(`arguments of tool ${tool.name} do not match its schema: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`,
      { tool: tool.name, errors: issues.map((i) => ({ field: i.path, code: 'SCHEMA', message: i.message })) }, 'AI_TOOL_ARGUMENTS_INVALID');
  }
  kernelOf(env.registry).log('warn', 'AI tool arguments do not match the schema', { tool: tool.name, issues });
  return args;
}
