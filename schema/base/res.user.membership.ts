import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * A user's membership of an organization besides their default one (`res.user.organization`).
 * `$principal.organization_ids` is the default organization and these; a request works in one of
 * them at a time (docs/security.md#organizations). Admins manage memberships on the user form.
 */
export default defineModel({
  key: 'res.user.membership',
  description: 'Organization membership',
  record_name: 'organization',
  default_order: 'dbid asc',
  fields: {
    user: f.reference('res.user', { required: true, on_delete: 'cascade' }),
    organization: f.reference('res.organization', { required: true, on_delete: 'cascade' }),
  },
  access: {
    roles: { admin: 'crud', '*': 'r' },
    // members of an organization see who else belongs to it, and nothing of the others
    rules: [{ ops: ['read'], domain: [['organization', 'in', '$principal.organization_ids']] }],
  },
});
