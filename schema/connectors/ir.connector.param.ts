import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * One key/value of a connector's configuration. Secrets (params whose key the provider's
 * config_schema marks `secret`) are stored encrypted (AES-256-GCM) in the private field
 * `secret_value`, and `value` holds only the mask `********`: generic reads, lists, filters,
 * group-bys and GraphQL read `value`, so they can never return a secret, whatever the caller.
 * The pre create/update hooks of the connectors app do the encryption; only
 * ir.connector.get_config decrypts, for the system principal.
 */
export default defineModel({
  key: 'ir.connector.param',
  description: 'Connector parameter',
  record_name: 'key',
  default_order: 'sequence asc',
  name_search_fields: ['key'],
  fields: {
    connector_id: f.reference('ir.connector', { required: true, on_delete: 'cascade', description: 'Connector' }),
    key: f.char(255, { required: true, description: 'Dot-notation key, e.g. installed.client_id' }),
    value: f.text({ description: 'Value (value_type text)' }),
    file_id: f.reference('storage.document', { on_delete: 'set null', if_loaded: true, description: 'File (value_type file)' }),
    value_type: f.enum(['text', 'file'], { default: 'text' }),
    sequence: f.integer({ default: 10 }),
    secret_value: f.text({ private: true, description: 'Encrypted value of a secret param' }),
  },
  access: { roles: { admin: 'crud' } },
});
