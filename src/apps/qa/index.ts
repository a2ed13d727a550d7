import { defineApp } from '../../kernel/app.js';
import { gateCommand } from './gate.js';
import manifest from './manifest.js';
import { recordingCommands, recordingStepHooks } from './recordings.js';
import { qaRoutes } from './routes.js';
import { startPathHooks } from './same-origin.js';
import { checkQaSettings } from './settings.js';
import { usecaseEditCommands, usecaseEditHooks } from './usecase-edit.js';

/**
 * QA automation. Loaded only with ENABLE_QA_AUTOMATION (src/features/qa.ts); replays also need
 * QA_E2E_ENABLED. Recordings come from the web client's recorder through
 * `qa.recording.step.create`; `fw e2e` (src/apps/qa/cli.ts) records, imports, replays, polishes
 * and gates.
 */
export const app = defineApp({
  manifest,
  commands: [...recordingCommands, ...usecaseEditCommands, gateCommand],
  hooks: [...recordingStepHooks, ...usecaseEditHooks, ...startPathHooks],
  routes: qaRoutes,
  boot: (kernel) => { checkQaSettings(kernel.settings); },
});
