import { defineModel, f } from '../../src/kernel/declare.js';
import { stepFields } from '../../src/apps/qa/step-fields.js';

/**
 * A frozen step: written by promotion or import; replays run exactly these. A qa user or an admin
 * (who may already rename, deactivate or delete the use case) edits one
 * (target, value, assertion, caption, timeout, screenshot policy) through the generic update, and
 * moves or removes it with its commands; each edit makes a new version of the use case
 * (src/apps/qa/usecase-edit.ts).
 */
export default defineModel({
  key: 'qa.usecase.step',
  description: 'QA use case step',
  record_name: 'kind',
  default_order: 'sequence asc',
  fields: {
    usecase_id: f.reference('qa.usecase', { required: true, on_delete: 'cascade', description: 'Use case' }),
    ...stepFields,
  },
  // visible exactly when its use case is (its organization's, or the tenant's when imported)
  access: { roles: { admin: 'ru', qa: 'ru', '*': 'r' }, rules: [{ follow: 'usecase_id' }] },
});
