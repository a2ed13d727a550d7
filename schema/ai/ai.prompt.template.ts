import { defineModel, f } from '../../src/kernel/declare.js';

/** A named prompt; its text lives in versions (`ai.prompt.version`). */
export default defineModel({
  key: 'ai.prompt.template',
  description: 'Prompt template',
  record_name: 'name',
  default_order: 'key asc',
  name_search_fields: ['key', 'name'],
  fields: {
    key: f.char(100, { required: true, unique: true }),
    name: f.char(200, { required: true }),
    description: f.text(),
    versions: f.one2many('ai.prompt.version', 'template_id'),
  },
  access: { roles: { admin: 'crud', '*': 'r' } },
});
