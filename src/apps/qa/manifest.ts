import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'qa',
  summary: 'QA automation: record browser flows in the web client, replay them in Chromium, narrate runs, gate merges',
  description: 'qa.recording and its steps (live capture from the web client recorder), promotion into frozen qa.usecase scenarios, replays with playwright-core on Debian Chromium (qa.run, qa.run.result, qa.run.step), narrated videos with ffmpeg and espeak-ng, the fw e2e command line and the freshness gate. Loaded only with ENABLE_QA_AUTOMATION.',
  author: 'fw',
  category: 'Foundation',
  version: '1.1.0',
  depends: ['base', 'auth', 'presentation'],
  // the QA menu (runs, results, use cases, and the modules whose chatter carries the replay reports)
  data: [
    'data/menus.json',
    'i18n/fr.json',
    'views/qa_run_list.xml',
    'views/qa_run_search.xml',
    'views/qa_run_form.xml',
    'views/qa_run_result_list.xml',
    'views/qa_run_result_search.xml',
    'views/qa_run_result_form.xml',
    'views/qa_run_step_list.xml',
    'views/qa_run_step_search.xml',
    'views/qa_run_step_form.xml',
    'views/qa_usecase_list.xml',
    'views/qa_usecase_search.xml',
    'views/qa_usecase_form.xml',
    'views/qa_usecase_step_list.xml',
    'views/qa_usecase_step_form.xml',
    'views/ir_module_list.xml',
    'views/ir_module_form.xml',
  ],
  // the `qa` role as a group: given to an administrator, it lets them record and promote too
  groups: [{ name: 'qa.tester', label: 'QA tester', role: 'qa', description: 'Records, replays and promotes use cases' }],
};
export default manifest;
