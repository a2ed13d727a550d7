import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'res.organization',
  description: 'Organization',
  record_name: 'name',
  default_order: 'name asc',
  name_search_fields: ['name', 'code'],
  fields: {
    name: f.char(200, { required: true }),
    code: f.char(63, { unique: true, description: 'Workspace slug', help: 'Lowercase letters, digits and hyphens; the first part of the workspace\'s addresses.' }),
    country: f.reference('res.country', { on_delete: 'set null' }),
    is_active: f.boolean({ default: true, description: 'Active' }),
    users: f.one2many('res.user', 'organization'),
  },
  access: {
    roles: { admin: 'crud', '*': 'r' },
    // every organization the user belongs to, so a Reference may name any of them (moving a
    // record to an organization the user does not belong to is 422 INVALID_REFERENCE)
    rules: [{ ops: ['read'], domain: [['record_uuid', 'in', '$principal.organization_ids']] }],
  },
});
