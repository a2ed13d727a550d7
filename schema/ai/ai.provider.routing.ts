import { defineModel, f } from '../../src/kernel/declare.js';

/** Routing rules, first match by sequence: which provider serves a call. */
export default defineModel({
  key: 'ai.provider.routing',
  description: 'AI provider routing rule',
  default_order: 'sequence asc',
  fields: {
    name: f.char(200, { required: true }),
    sequence: f.integer({ default: 10 }),
    skill_pack_id: f.reference('ai.skill.pack', { on_delete: 'cascade', description: 'Only calls of this skill pack (empty = any)' }),
    role: f.char(64, { description: "Only callers with this role (empty = any)" }),
    provider: f.char(64, { required: true }),
    model: f.char(100, { description: 'Model override' }),
    is_active: f.boolean({ default: true }),
  },
  access: { roles: { admin: 'crud' } },
});
