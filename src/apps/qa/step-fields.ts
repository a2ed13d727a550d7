import { f } from '../../kernel/declare.js';
import { DEFAULT_SCREENSHOT_POLICY, SCREENSHOT_POLICIES, STEP_KINDS } from './steps.js';

/** The columns of a step, shared by live recording steps and frozen use-case steps (src/apps/qa/steps.ts). */
export const stepFields = {
  sequence: f.integer({ required: true }),
  kind: f.enum(STEP_KINDS, { required: true }),
  target: f.json({ description: 'Locator candidates: { candidates: [[{ by, value, name?, exact? }, …], …] }' }),
  value: f.json({ description: '{ kind: literal | variable | secret, value }' }),
  assertion: f.json({ description: '{ kind, expected? } of an assert step' }),
  timeout_ms: f.integer({ min: 0, max: 120_000 }),
  screenshot: f.enum(SCREENSHOT_POLICIES, { default: DEFAULT_SCREENSHOT_POLICY }),
  caption: f.char(500, { description: 'Narration of the step' }),
  url: f.char(1000, { description: 'Page URL when recorded' }),
};
