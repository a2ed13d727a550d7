import { defineModel, f } from '../../src/kernel/declare.js';

/** What one step did in a replay: timings, the locator that matched, attempts, error, screenshot. */
export default defineModel({
  key: 'qa.run.step',
  description: 'QA run step',
  record_name: 'kind',
  default_order: 'sequence asc',
  fields: {
    result_id: f.reference('qa.run.result', { required: true, on_delete: 'cascade', description: 'Result' }),
    sequence: f.integer({ required: true }),
    kind: f.char(32, { required: true }),
    caption: f.char(500),
    status: f.enum(['passed', 'failed', 'skipped'], { required: true }),
    started_at: f.datetime(),
    action_ms: f.float({ description: 'Time of the action itself, without narration or screenshots' }),
    matched_locator: f.json({ description: '{ candidate, chain } that found the element' }),
    tried_locators: f.json({ description: 'Every candidate tried, in order, with why it did not match' }),
    attempts: f.integer({ default: 1 }),
    error: f.text(),
    screenshot_path: f.char(1000),
  },
  // its screenshot shows the use case's pages: seen where the result is
  access: { roles: { admin: 'r', qa: 'r', '*': 'r' }, rules: [{ follow: 'result_id' }] },
});
