import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'storage.document_version',
  description: 'Document version',
  record_name: 'original_filename',
  default_order: 'version_number desc',
  fields: {
    document_id: f.reference('storage.document', { required: true, on_delete: 'cascade' }),
    version_number: f.integer({ required: true }),
    original_filename: f.char(255, { required: true }),
    content_type: f.char(120),
    file_size: f.integer(),
    checksum: f.char(64),
    storage_backend: f.enum(['local', 'cloud_drive', 'object_store_a', 'object_store_b', 'object_store_c'], { default: 'local' }),
    connector_id: f.reference('ir.connector', { on_delete: 'restrict' }),
    storage_key: f.char(1024, { required: true }),
    storage_object_id: f.char(1024),
    change_note: f.char(512),
    uploaded_by: f.reference('res.user', { on_delete: 'set null' }),
  },
  unique_together: [['document_id', 'version_number']],
  access: {
    // versions are written by the storage commands only (as the system, after checks)
    roles: { admin: 'r', user: 'r', qa: 'r' },
    // a version is visible exactly when its document is (storage.document's rules, followed)
    rules: [{ follow: 'document_id' }],
  },
});
