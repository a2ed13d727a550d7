import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'qa',
  summary: 'QA automation: record browser flows in the web client, replay them in Chromium, narrate runs, gate merges',
  description: 'qa.recording and its steps (live capture from the web client recorder), promotion into frozen qa.usecase scenarios, replays with playwright-core on Debian Chromium (qa.run, qa.run.result, qa.run.step), narrated videos with ffmpeg and espeak-ng, the fw e2e command line and the freshness gate. Loaded only with ENABLE_QA_AUTOMATION.',
  author: 'fw',
  category: 'Foundation',
  version: '1.0.0',
  depends: ['base', 'auth', 'presentation'],
  data: [],
};
export default manifest;
