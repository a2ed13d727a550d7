import type { HookContext, HookDecl } from '../../kernel/app.js';
import { ValidationError } from '../../kernel/errors.js';
import { checkSchema } from './guards/output.js';
import { toolBindings } from './tools/catalogue.js';

/**
 * A skill pack's `tools` must name known tools and its `answer_schema` must be a JSON Schema:
 * checked when the pack is written, so a typo fails at once instead of at a user's next turn.
 */
function checkPack(ctx: HookContext): void {
  const p = ctx.payload;
  const errors: Array<{ field: string; code: string; message: string }> = [];
  if (p.tools !== undefined && p.tools !== null) {
    const known = toolBindings(ctx.env.registry);
    if (!Array.isArray(p.tools) || p.tools.some((t) => typeof t !== 'string')) {
      errors.push({ field: 'tools', code: 'INVALID_TYPE', message: 'tools is a list of tool names' });
    } else {
      const unknown = (p.tools as string[]).filter((t) => !known.has(t));
      if (unknown.length) errors.push({ field: 'tools', code: 'UNKNOWN_TOOL', message: `unknown tool${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` });
    }
  }
  if (p.answer_schema !== undefined && p.answer_schema !== null) {
    const problem = typeof p.answer_schema === 'object' && !Array.isArray(p.answer_schema)
      ? checkSchema(p.answer_schema as Record<string, unknown>) : 'answer_schema must be a JSON Schema object';
    if (problem) errors.push({ field: 'answer_schema', code: 'INVALID_SCHEMA', message: problem });
  }
  if (errors.length) throw new ValidationError(errors.map((e) => e.message).join('; '), { errors });
}

export const skillPackHooks: HookDecl[] = [
  { point: 'pre.ai.skill.pack.create', handler: checkPack },
  { point: 'pre.ai.skill.pack.update', handler: checkPack },
];
