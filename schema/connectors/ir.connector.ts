import { CONNECTOR_CATEGORIES } from '../../src/apps/connectors/providers/types.js';
import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * An admin-configured connector instance of one organization. `status`, `status_message` (and its
 * id and values), `last_tested_at` and `is_enabled` are written only by the connector commands (test_connection,
 * activate, deactivate). The three private `oauth_state_*` fields hold the pending OAuth nonce
 * (SHA-256 only) of ir.connector.oauth_start; generic reads, GraphQL and filters never see them.
 */
export default defineModel({
  key: 'ir.connector',
  description: 'Connector',
  record_name: 'name',
  default_order: 'name asc',
  name_search_fields: ['name', 'provider_type'],
  fields: {
    name: f.char(255, { required: true }),
    category: f.enum(CONNECTOR_CATEGORIES, { required: true }),
    provider_type: f.char(64, { required: true, description: 'Provider identifier' }),
    config: f.json({ description: 'Legacy configuration; param_ids is the primary source' }),
    param_ids: f.one2many('ir.connector.param', 'connector_id', { description: 'Parameters' }),
    organization_id: f.reference('res.organization', { on_delete: 'set null', description: 'Organization' }),
    is_enabled: f.boolean({ default: false, readonly: true, description: 'Enabled' }),
    is_default: f.boolean({ default: false, description: 'Default of its category' }),
    status: f.enum(['draft', 'connected', 'error'], { default: 'draft', readonly: true }),
    status_message: f.char(512, { readonly: true, description: 'Message of the last test' }),
    // the message's id and values, when the test's text is one of the connectors app's own: the
    // form shows it in the reader's language (docs/decisions.md, "Command result messages")
    status_message_id: f.char(100, { readonly: true, description: 'Message id of the last test' }),
    status_message_values: f.json({ readonly: true, description: 'Values of the last test\'s message' }),
    last_tested_at: f.datetime({ readonly: true, description: 'Time of the last test' }),
    oauth_state_hash: f.char(64, { private: true, description: 'SHA-256 of the pending OAuth state nonce' }),
    oauth_state_expires_at: f.datetime({ private: true }),
    oauth_state_used_at: f.datetime({ private: true }),
  },
  access: {
    roles: { admin: 'crud', '*': 'r' },
    // the legacy config is for those who may read the config route; secrets in it read as the
    // mask even then (post.ir.connector.read, src/apps/connectors/hooks.ts)
    fields: { config: { read: ['admin'] } },
    rules: [{ ops: ['read'], domain: [['organization_id', '=', '$principal.organization_id']] }],
  },
});
