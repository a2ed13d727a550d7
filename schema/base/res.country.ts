import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'res.country',
  description: 'Country',
  record_name: 'name',
  default_order: 'name asc',
  name_search_fields: ['name', 'code', 'code3'],
  fields: {
    name: f.char(100, { required: true, unique: true }),
    code: f.char(3, { required: true, unique: true, description: 'ISO 3166-1 alpha-2 code' }),
    code3: f.char(3, { unique: true, description: 'ISO 3166-1 alpha-3 code' }),
    numeric: f.char(3, { description: 'ISO 3166-1 numeric code' }),
  },
  access: { roles: { admin: 'crud', '*': 'r' } },
});
