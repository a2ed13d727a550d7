import { defineModel, f } from '../../src/kernel/declare.js';

const BACKENDS = ['local', 'cloud_drive', 'object_store_a', 'object_store_b', 'object_store_c'] as const;

export default defineModel({
  key: 'storage.document',
  description: 'Document',
  record_name: 'name',
  default_order: 'updated_at_utc desc',
  name_search_fields: ['name', 'original_filename', 'tags'],
  // a document is born with its content: generic creates (REST POST, GraphQL) upload base64 content
  create_command: 'storage.document.upload',
  fields: {
    name: f.char(255, { required: true }),
    original_filename: f.char(255, { required: true, description: 'Original file name' }),
    content_type: f.char(120, { readonly: true, description: 'MIME type' }),
    file_size: f.integer({ readonly: true, description: 'Size (bytes)' }),
    checksum: f.char(64, { readonly: true, description: 'SHA-256' }),
    storage_backend: f.enum(BACKENDS, { default: 'local', readonly: true }),
    connector_id: f.reference('ir.connector', { on_delete: 'restrict', readonly: true, description: 'Connector (empty = local filesystem)' }),
    storage_key: f.char(1024, { readonly: true, description: 'Key of the current version' }),
    storage_object_id: f.char(1024, { readonly: true, description: 'Backend-native id' }),
    owner_id: f.reference('res.user', { on_delete: 'set null', readonly: true, description: 'Uploader' }),
    organization_id: f.reference('res.organization', { on_delete: 'cascade', readonly: true, description: 'Organization' }),
    owner_model: f.char(100, { readonly: true, description: 'Model of the owning record' }),
    owner_record_uuid: f.uuid({ readonly: true, index: true, description: 'Owning record' }),
    description: f.text(),
    tags: f.char(512, { description: 'Comma-separated tags' }),
    // moving a document = changing its folder; a folder holding documents cannot be deleted
    folder: f.reference('storage.folder', { on_delete: 'restrict', description: 'Folder (empty = top level)' }),
    is_active: f.boolean({ default: true, description: 'Active' }),
    version_count: f.integer({ default: 1, readonly: true }),
    current_version: f.integer({ default: 1, readonly: true }),
    versions: f.one2many('storage.document_version', 'document_id'),
  },
  access: {
    roles: { admin: 'crud', user: 'crud', qa: 'crud' },
    rules: [{ domain: [['organization_id', '=', '$principal.organization_id']] }],
  },
});
