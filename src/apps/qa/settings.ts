import path from 'node:path';
import { BootError } from '../../kernel/errors.js';
import { defineSettings, type Settings } from '../../kernel/settings.js';

/** The spec's QA settings. */
const table = defineSettings('qa', {
  ENABLE_QA_AUTOMATION: { kind: 'bool', default: 'false', doc: 'Loads QA automation (`src/features/qa.ts`): the qa.* models, `/api/qa/*`, the GraphQL fields, the recorder in the web client and `fw e2e`. Off, none of them exist.' },
  QA_E2E_ENABLED: { kind: 'bool', default: 'false', doc: 'Allows replay execution (`fw e2e replay`, `polish`): browsers are started only when true. Keep it off in production.' },
  QA_E2E_BROWSERS: { kind: 'list', default: 'chromium', doc: 'Browsers a replay runs in, each in turn (`chromium`; `firefox`, `webkit` need their Playwright builds, which this project does not download).' },
  QA_E2E_HEADLESS: { kind: 'bool', default: 'true', doc: 'Run the replay browser headless.' },
  QA_E2E_VIDEO_DIR: { kind: 'string', default: 'qa-report/videos', doc: 'Where `fw e2e polish` writes narrated MP4 files (relative to the working directory).' },
  QA_E2E_TRACE_DIR: { kind: 'string', default: 'qa-report/traces', doc: 'Where replays write their Playwright trace (`<run>.zip`) and per-step screenshots (`<run>/…png`).' },
  QA_VIDEO_FFMPEG_PATH: { kind: 'string', default: 'ffmpeg', doc: 'The ffmpeg binary (Debian\'s) that stitches screencast frames, cards and narration.' },
  QA_VIDEO_RESOLUTION: { kind: 'string', default: '1280x720', doc: 'Width x height of the browser viewport and of the video.' },
  QA_VIDEO_SLOWMO_MS: { kind: 'int', default: '700', doc: 'Pause added around each step of a polished run, so a viewer can follow.' },
  QA_SANDBOX_TENANT_KEY: { kind: 'string', default: 'qa-sandbox', doc: 'Tenant every replay runs against; it is dropped, recreated and seeded before each use case of a replay.' },
});

export type QaSettings = ReturnType<typeof table> & { resolution: { width: number; height: number } };

export function qaSettings(settings: Settings): QaSettings {
  const s = table(settings);
  const m = /^(\d{3,4})x(\d{3,4})$/.exec(s.QA_VIDEO_RESOLUTION);
  return { ...s, resolution: m ? { width: Number(m[1]), height: Number(m[2]) } : { width: 1280, height: 720 } };
}

/** Boot checks: a bad resolution or browser name refuses to start instead of failing a replay. */
export function checkQaSettings(settings: Settings): void {
  const s = table(settings);
  if (!/^(\d{3,4})x(\d{3,4})$/.test(s.QA_VIDEO_RESOLUTION)) throw new BootError(`QA_VIDEO_RESOLUTION="${s.QA_VIDEO_RESOLUTION}" must read <width>x<height>, e.g. 1280x720`, undefined, 'QA_SETTINGS_INVALID');
  for (const b of s.QA_E2E_BROWSERS) {
    if (!['chromium', 'firefox', 'webkit'].includes(b)) throw new BootError(`QA_E2E_BROWSERS lists "${b}"; use chromium, firefox or webkit`, undefined, 'QA_SETTINGS_INVALID');
  }
  if (s.QA_VIDEO_SLOWMO_MS < 0) throw new BootError('QA_VIDEO_SLOWMO_MS must be 0 or more', undefined, 'QA_SETTINGS_INVALID');
}

export const reportDir = (dir: string) => path.resolve(dir);
