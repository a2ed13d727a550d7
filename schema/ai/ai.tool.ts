import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * The one carrier model of the AI tools. Every tool runs as the command `ai.tool.<name>` of this
 * model (no table per tool); its rows record each tool's binding in the tenant (written when the
 * tenant first uses the AI layer, after the `pre.ir.tool.registry.bind` hooks), and an admin
 * turns a tool off for the tenant with `is_enabled`.
 */
export default defineModel({
  key: 'ai.tool',
  description: 'AI tool',
  record_name: 'name',
  default_order: 'name asc',
  fields: {
    name: f.char(100, { required: true, unique: true }),
    command: f.char(200, { required: true, readonly: true, description: 'Command the tool dispatches' }),
    app: f.char(100, { readonly: true }),
    kind: f.enum(['informer', 'proposer', 'insight'], { required: true, readonly: true }),
    read_only: f.boolean({ default: true, readonly: true, description: 'Proven read-only at boot' }),
    description: f.text({ readonly: true }),
    input_schema: f.json({ readonly: true, description: 'JSON Schema of the arguments' }),
    is_enabled: f.boolean({ default: true, description: 'Offered in this tenant' }),
  },
  access: { roles: { admin: 'rud', '*': 'r' } },
});
