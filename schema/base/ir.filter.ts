import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * A saved search of an action (Odoo's favorites, `ir.filters`): the search bar's text, field
 * texts, filters, archived switch, group-by and order under a name. Each person keeps their own;
 * one shared with the organization is listed for everyone working in it, and only its owner
 * changes or deletes it. At most one default per person and action: the search an action opens
 * with when its URL names none (docs/web-client.md#saved-filters).
 */
export default defineModel({
  key: 'ir.filter',
  description: 'Saved filter',
  record_name: 'name',
  default_order: 'name asc',
  fields: {
    name: f.char(200, { required: true, description: 'Name shown in the Favorites menu' }),
    action_key: f.char(100, { required: true, index: true, description: 'Action whose search this is' }),
    search: f.json({ required: true, description: 'The search: q, field, filter, archived, group_by, order' }),
    user: f.reference('res.user', { required: true, on_delete: 'cascade', default_principal: 'user_id', description: 'Owner' }),
    organization: f.reference('res.organization', { required: true, on_delete: 'cascade', default_principal: 'organization_id' }),
    shared: f.boolean({ default: false, description: 'Listed for everyone in the organization' }),
    is_default: f.boolean({ default: false, description: 'Applied when the action opens without a search' }),
  },
  access: {
    roles: { '*': 'crud' },
    rules: [
      // one's own, and those shared with the organization one works in now
      { ops: ['read'], domain: ['|', ['user', '=', '$principal.user_id'], '&', ['shared', '=', true], ['organization', '=', '$principal.organization_id']] },
      // only the owner writes, in an organization they belong to
      { ops: ['create', 'update', 'delete'], domain: [['user', '=', '$principal.user_id'], ['organization', 'in', '$principal.organization_ids']] },
    ],
  },
});
