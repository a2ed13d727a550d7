import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'ir.action',
  description: 'Window action',
  record_name: 'name',
  default_order: 'name asc',
  fields: {
    xml_id: f.char(200, { unique: true, description: 'External id (seed key)' }),
    name: f.char(200, { required: true, description: 'Display name' }),
    model_key: f.char(100, { required: true, description: 'Target model key' }),
    view_type: f.enum(['list', 'form', 'kanban'], { default: 'list', description: 'Default view type' }),
    view_id: f.char(200, { description: 'Specific view id' }),
    domain: f.json({ description: 'Default filter domain' }),
  },
  access: { roles: { admin: 'crud', '*': 'r' } },
});
