import { defineModel, f } from '../../src/kernel/declare.js';

/** The outcome of one use case within a run. */
export default defineModel({
  key: 'qa.run.result',
  description: 'QA run result',
  record_name: 'usecase_key',
  default_order: 'dbid asc',
  fields: {
    run_id: f.reference('qa.run', { required: true, on_delete: 'cascade', description: 'Run' }),
    usecase_id: f.reference('qa.usecase', { on_delete: 'set null', description: 'Use case' }),
    usecase_key: f.char(100, { required: true, index: true }),
    usecase_version: f.integer(),
    module: f.char(100, { required: true, index: true }),
    status: f.enum(['passed', 'failed', 'error'], { required: true }),
    started_at: f.datetime(),
    finished_at: f.datetime({ index: true }),
    duration_ms: f.integer(),
    failed_step: f.integer({ description: 'Sequence of the first failed step' }),
    error: f.text(),
    trace_path: f.char(500, { description: 'The run\'s Playwright trace (relative to QA_E2E_TRACE_DIR): the trace of every use case of the run' }),
    steps: f.one2many('qa.run.step', 'result_id'),
  },
  // a use case's outcome is seen where the use case is (a result whose use case was deleted: admins only)
  access: { roles: { admin: 'r', qa: 'r', '*': 'r' }, rules: [{ follow: 'usecase_id' }] },
});
