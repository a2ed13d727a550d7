import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * A live capture from the web client's recorder (or `fw e2e record`): live → finalised → promoted.
 * It belongs to the organization of the person who started it; its steps follow it.
 */
export default defineModel({
  key: 'qa.recording',
  description: 'QA recording',
  record_name: 'name',
  default_order: 'dbid desc',
  create_command: 'qa.recording.start',
  fields: {
    name: f.char(200, { required: true }),
    usecase_key: f.char(100, { required: true, description: 'Use case it is meant to become' }),
    module: f.char(100, { required: true, description: 'App the flow belongs to (base, crm.sales, …)' }),
    start_path: f.char(500, { default: '/', description: 'Page the flow starts on' }),
    status: f.enum(['live', 'finalised', 'promoted'], { default: 'live', readonly: true }),
    started_by: f.uuid({ readonly: true }),
    organization_id: f.reference('res.organization', { on_delete: 'set null', readonly: true, description: 'Organization of the person who started it' }),
    finalised_at: f.datetime({ readonly: true }),
    promoted_usecase_id: f.reference('qa.usecase', { on_delete: 'set null', readonly: true, description: 'Use case' }),
    steps: f.one2many('qa.recording.step', 'recording_id'),
  },
  access: {
    roles: { admin: 'crud', qa: 'crud' },
    // a recording belongs to the organization of the person who started it (admins see all)
    rules: [{ domain: [['organization_id', '=', '$principal.organization_id']] }],
  },
});
