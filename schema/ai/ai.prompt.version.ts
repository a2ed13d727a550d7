import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * One text of a template. Resolution (spec "Prompt resolution"): the highest `version` flagged
 * `is_default`; a tenant overrides a shipped prompt by adding a higher version row.
 */
export default defineModel({
  key: 'ai.prompt.version',
  description: 'Prompt version',
  record_name: 'version',
  default_order: 'version desc',
  fields: {
    template_id: f.reference('ai.prompt.template', { required: true, on_delete: 'cascade', description: 'Template' }),
    version: f.integer({ required: true, min: 1 }),
    body: f.text({ required: true, description: 'Prompt text' }),
    is_default: f.boolean({ default: false }),
    change_note: f.char(255),
  },
  unique_together: [['template_id', 'version']],
  access: { roles: { admin: 'crud', '*': 'r' } },
});
