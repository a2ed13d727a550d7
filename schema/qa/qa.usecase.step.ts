import { defineModel, f } from '../../src/kernel/declare.js';
import { stepFields } from '../../src/apps/qa/step-fields.js';

/** A frozen step: written only by promotion or import; replays run exactly these. */
export default defineModel({
  key: 'qa.usecase.step',
  description: 'QA use case step',
  record_name: 'kind',
  default_order: 'sequence asc',
  fields: {
    usecase_id: f.reference('qa.usecase', { required: true, on_delete: 'cascade', description: 'Use case' }),
    ...stepFields,
  },
  access: { roles: { admin: 'r', qa: 'r', '*': 'r' } },
});
