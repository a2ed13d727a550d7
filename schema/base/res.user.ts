import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'res.user',
  description: 'User',
  record_name: 'name',
  default_order: 'name asc',
  name_search_fields: ['name', 'email'],
  create_command: 'res.user.register',
  fields: {
    email: f.char(255, { required: true, unique: true, description: 'Email (login)' }),
    name: f.char(200, { required: true, description: 'Display name' }),
    password_hash: f.char(255, { private: true, description: 'bcrypt hash' }),
    is_active: f.boolean({ default: true, description: 'Active' }),
    role: f.enum(['admin', 'user', 'qa'], { default: 'user', description: 'Role', labels: { qa: 'QA tester' } }),
    groups: f.json({ description: 'Additional groups', help: 'Groups beyond the role; each brings the groups it implies' }),
    organization: f.reference('res.organization', { on_delete: 'set null', description: 'Default organization' }),
    memberships: f.one2many('res.user.membership', 'user', { description: 'Other organizations' }),
    // preferences: each user changes their own through res.user.set_preferences (docs/web-client.md#preferences)
    lang: f.enum(['en', 'fr'], { default: 'en', description: 'Language' }),
    tz: f.char(64, { description: 'Time zone', help: 'An IANA zone name (Europe/Paris); dates are shown in it. Empty: the browser\'s' }),
    theme: f.enum(['system', 'light', 'dark'], { default: 'system', description: 'Theme' }),
  },
  access: {
    roles: { admin: 'crud', '*': 'r' },
    fields: { role: { write: ['admin'] }, groups: { write: ['admin'] }, is_active: { write: ['admin'] } },
    // the users of the organization the caller works in: those for whom it is the default and its members
    rules: [{ ops: ['read'], domain: ['|', ['organization', '=', '$principal.organization_id'], ['memberships', 'any', [['organization', '=', '$principal.organization_id']]]] }],
  },
});
