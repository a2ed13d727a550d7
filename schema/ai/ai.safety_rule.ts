import { defineModel, f } from '../../src/kernel/declare.js';

/** A tenant's own guard: a pattern that blocks, masks or flags text going to or coming from a model. */
export default defineModel({
  key: 'ai.safety_rule',
  description: 'AI safety rule',
  default_order: 'sequence asc',
  fields: {
    name: f.char(200, { required: true }),
    pattern: f.char(500, { required: true, description: 'Regular expression (case-insensitive)' }),
    applies_to: f.enum(['input', 'tool_result'], { default: 'input' }),
    action: f.enum(['block', 'mask', 'warn'], { default: 'block' }),
    sequence: f.integer({ default: 10 }),
    is_active: f.boolean({ default: true }),
  },
  access: { roles: { admin: 'crud' } },
});
