import { defineModel, f } from '../../src/kernel/declare.js';

/** One replay: running → passed | failed | error (a step failed vs. the run itself could not run). */
export default defineModel({
  key: 'qa.run',
  description: 'QA run',
  default_order: 'dbid desc',
  fields: {
    sandbox_tenant: f.char(100, { required: true }),
    browser: f.char(32, { default: 'chromium' }),
    headless: f.boolean({ default: true }),
    status: f.enum(['running', 'passed', 'failed', 'error'], { default: 'running' }),
    started_at: f.datetime({ default: 'now' }),
    finished_at: f.datetime(),
    duration_ms: f.integer(),
    usecase_count: f.integer({ default: 0 }),
    passed_count: f.integer({ default: 0 }),
    failed_count: f.integer({ default: 0 }),
    trace_path: f.char(1000),
    error: f.text(),
    results: f.one2many('qa.run.result', 'run_id'),
  },
  access: { roles: { admin: 'r', qa: 'r', '*': 'r' } },
});
