import { defineModel, f } from '../../src/kernel/declare.js';
import { stepFields } from '../../src/apps/qa/step-fields.js';

/** One captured step of a live recording, appended by `qa.recording.step.create`. */
export default defineModel({
  key: 'qa.recording.step',
  description: 'QA recording step',
  record_name: 'kind',
  default_order: 'sequence asc',
  create_command: 'qa.recording.step.create',
  fields: {
    recording_id: f.reference('qa.recording', { required: true, on_delete: 'cascade', description: 'Recording' }),
    ...stepFields,
  },
  access: {
    roles: { admin: 'crud', qa: 'crud' },
    // a step is visible exactly when its recording is
    rules: [{ follow: 'recording_id' }],
  },
});
