import { defineModel, f } from '../../src/kernel/declare.js';

/** A frozen, replayable scenario: promoted from a finalised recording or imported from a script. */
export default defineModel({
  key: 'qa.usecase',
  description: 'QA use case',
  record_name: 'name',
  default_order: 'key asc',
  name_search_fields: ['key', 'name'],
  fields: {
    key: f.char(100, { required: true, unique: true }),
    name: f.char(200, { required: true }),
    module: f.char(100, { required: true, description: 'App the flow belongs to; the gate checks a module\'s use cases' }),
    start_path: f.char(500, { default: '/' }),
    source: f.enum(['recording', 'import'], { required: true, readonly: true }),
    recording_id: f.uuid({ readonly: true, description: 'Recording it was promoted from' }),
    version: f.integer({ default: 1, readonly: true, description: 'Raised each time it is promoted or imported again' }),
    replay_role: f.enum(['admin', 'user', 'qa'], { default: 'admin', description: 'Role of the sandbox user the replay signs in as' }),
    variables: f.json({ description: 'Default values of {{variables}}' }),
    is_active: f.boolean({ default: true }),
    organization_id: f.reference('res.organization', { on_delete: 'set null', readonly: true, description: 'Organization of the people who recorded it (empty: imported, for the whole tenant)' }),
    steps: f.one2many('qa.usecase.step', 'usecase_id'),
  },
  // created by promotion or import only (qa.recording.promote, qa.usecase.import); admins and qa
  // users may rename, deactivate, change the replay role or delete one
  access: {
    roles: { admin: 'rud', qa: 'rud', '*': 'r' },
    // a use case promoted from a recording belongs to the recording's organization (what its
    // steps typed and its screenshots show is that organization's); an imported one to the tenant
    rules: [{ domain: ['|', ['organization_id', '=', '$principal.organization_id'], ['organization_id', '=', null]] }],
  },
});
