import { defineModel, f } from '../../src/kernel/declare.js';

/** Which app versions a tenant has initialised (seeded), like Odoo's ir.module.module. */
export default defineModel({
  key: 'ir.module',
  description: 'Installed app',
  record_name: 'name',
  default_order: 'name asc',
  fields: {
    name: f.char(100, { required: true, unique: true }),
    version: f.char(32, { required: true }),
    seeded_at: f.datetime({ default: 'now' }),
  },
  access: { roles: { admin: 'r' } },
});
