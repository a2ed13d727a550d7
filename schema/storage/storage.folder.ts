import { defineModel, f } from '../../src/kernel/declare.js';

export default defineModel({
  key: 'storage.folder',
  description: 'Folder',
  record_name: 'name',
  default_order: 'sequence asc, name asc',
  fields: {
    name: f.char(200, { required: true }),
    // a folder that still holds subfolders cannot be deleted (pre.storage.folder.delete answers
    // FOLDER_NOT_EMPTY first; restrict is the database's backstop)
    parent: f.reference('storage.folder', { on_delete: 'restrict', description: 'Parent folder (empty = top level)' }),
    // set by the server: the parent's organization, or the creator's for a top-level folder
    organization: f.reference('res.organization', { on_delete: 'cascade', readonly: true, description: 'Organization' }),
    sequence: f.integer({ default: 10 }),
    // hash of (organization, parent, trimmed lower-case name), kept by the storage hooks: the
    // database refuses two siblings with the same name even when two writers race
    sibling_key: f.char(64, { private: true, unique: true, description: 'Sibling name key' }),
    children: f.one2many('storage.folder', 'parent', { description: 'Subfolders' }),
    documents: f.one2many('storage.document', 'folder'),
  },
  access: {
    roles: { admin: 'crud', user: 'crud', qa: 'crud' },
    rules: [{ domain: [['organization', '=', '$principal.organization_id']] }],
  },
});
