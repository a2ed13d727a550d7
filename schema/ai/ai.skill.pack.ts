import { defineModel, f } from '../../src/kernel/declare.js';

/** A prompt template with a curated subset of the tools: what a conversation is started with. */
export default defineModel({
  key: 'ai.skill.pack',
  description: 'Skill pack',
  record_name: 'name',
  default_order: 'key asc',
  name_search_fields: ['key', 'name'],
  fields: {
    key: f.char(100, { required: true, unique: true }),
    name: f.char(200, { required: true }),
    description: f.text(),
    template_id: f.reference('ai.prompt.template', { required: true, on_delete: 'restrict', description: 'Prompt template' }),
    tools: f.json({ description: 'Tool names offered (a list); empty = every tool the caller may use' }),
    answer_schema: f.json({ description: 'JSON Schema final answers must match (checked per AI_OUTPUT_VALIDATION_MODE); empty = free text' }),
    is_active: f.boolean({ default: true }),
  },
  access: { roles: { admin: 'crud', '*': 'r' } },
});
