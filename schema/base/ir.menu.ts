import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'ir.menu',
  description: 'Menu entry',
  record_name: 'name',
  default_order: 'sequence asc',
  fields: {
    xml_id: f.char(200, { unique: true, description: 'External id (seed key)' }),
    name: f.char(200, { required: true, description: 'Menu label' }),
    parent: f.reference('ir.menu', { on_delete: 'cascade', description: 'Parent menu' }),
    action: f.reference('ir.action', { on_delete: 'set null' }),
    sequence: f.integer({ default: 10 }),
    icon: f.char(100),
    category: f.char(50, { description: 'Menu category (e.g. application, settings)' }),
    roles: f.char(200, { description: 'Comma-separated roles that see the entry; empty = everyone' }),
    children: f.one2many('ir.menu', 'parent'),
  },
  access: { roles: { admin: 'crud', '*': 'r' } },
});
