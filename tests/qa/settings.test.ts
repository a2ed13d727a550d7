/**
 * The spec's QA settings: each default is the spec's, each is documented with that default in
 * docs/qa.md and docs/configuration.md, the boot checks refuse bad values, and the off-by-default
 * switches hold (QA_E2E_ENABLED off: no replay or polish starts a browser).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { polishRun } from '../../src/apps/qa/polish/polish.ts';
import { replay } from '../../src/apps/qa/replay/run.ts';
import { checkQaSettings, qaSettings } from '../../src/apps/qa/settings.ts';
import type { Kernel } from '../../src/kernel/kernel.ts';
import { APP_SETTINGS, loadSettings } from '../../src/kernel/settings.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** service-spec.md, "QA settings", as the settings parse them. */
const SPEC_DEFAULTS = {
  ENABLE_QA_AUTOMATION: false,
  QA_E2E_ENABLED: false,
  QA_E2E_BROWSERS: ['chromium'],
  QA_E2E_HEADLESS: true,
  QA_E2E_VIDEO_DIR: 'qa-report/videos',
  QA_E2E_TRACE_DIR: 'qa-report/traces',
  QA_VIDEO_FFMPEG_PATH: 'ffmpeg',
  QA_VIDEO_RESOLUTION: '1280x720',
  QA_VIDEO_SLOWMO_MS: 700,
  QA_SANDBOX_TENANT_KEY: 'qa-sandbox',
};

/** `| \`NAME\` | … |` rows of a markdown file: name → its cells. */
function rows(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    const m = /^\|\s*`([A-Z0-9_]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m) out.set(m[1]!, m[2]!.split('|').map((c) => c.trim()));
  }
  return out;
}

describe('QA settings', () => {
  it('default to the values of the spec', () => {
    const s = qaSettings(loadSettings({}));
    expect({ ...s, resolution: undefined }).toEqual({ ...SPEC_DEFAULTS, resolution: undefined });
    expect(s.resolution).toEqual({ width: 1280, height: 720 });
  });

  it('are every one documented with its default in docs/qa.md and docs/configuration.md', () => {
    const qa = APP_SETTINGS.find((t) => t.app === 'qa')!;
    expect(Object.keys(qa.table).sort()).toEqual(Object.keys(SPEC_DEFAULTS).sort());
    const qaDoc = rows('docs/qa.md');
    const configDoc = rows('docs/configuration.md');
    for (const [name, spec] of Object.entries(qa.table)) {
      const shown = `\`${String(spec.default)}\``;
      expect(qaDoc.get(name)?.[0], `docs/qa.md: ${name}`).toBe(shown);
      // | `NAME` | kind | `default` | meaning |
      expect(configDoc.get(name)?.slice(0, 2), `docs/configuration.md: ${name}`).toEqual([spec.kind, shown]);
      // the meaning in configuration.md is the setting's own doc (what `fw` prints for it)
      expect(configDoc.get(name)?.[2], `docs/configuration.md: ${name}`).toBe(spec.doc);
    }
  });

  it('say the sandbox is reset before each use case of a replay, as sandbox.ts does (not once per replay)', () => {
    const qa = APP_SETTINGS.find((t) => t.app === 'qa')!;
    const doc = qa.table.QA_SANDBOX_TENANT_KEY!.doc;
    expect(doc).toMatch(/before each use case of a replay/);
    expect(rows('docs/configuration.md').get('QA_SANDBOX_TENANT_KEY')?.[2]).toMatch(/before each use case of a replay/);
    expect(rows('docs/qa.md').get('QA_SANDBOX_TENANT_KEY')?.[1]).toMatch(/before each use case/);
  });

  it('refuse a bad resolution, browser or pause at boot (QA_SETTINGS_INVALID)', () => {
    const check = (extra: Record<string, string>) => () => checkQaSettings(loadSettings(extra));
    expect(check({})).not.toThrow();
    expect(check({ QA_VIDEO_RESOLUTION: '1920x1080', QA_E2E_BROWSERS: 'chromium,firefox,webkit', QA_VIDEO_SLOWMO_MS: '0' })).not.toThrow();
    expect(check({ QA_VIDEO_RESOLUTION: 'hd' })).toThrow(expect.objectContaining({ code: 'QA_SETTINGS_INVALID', message: expect.stringContaining('QA_VIDEO_RESOLUTION="hd"') }));
    expect(check({ QA_E2E_BROWSERS: 'chromium,edge' })).toThrow(expect.objectContaining({ code: 'QA_SETTINGS_INVALID', message: expect.stringContaining('"edge"') }));
    expect(check({ QA_VIDEO_SLOWMO_MS: '-1' })).toThrow(expect.objectContaining({ code: 'QA_SETTINGS_INVALID' }));
  });

  it('with QA_E2E_ENABLED off (the default), neither replay nor polish starts: QA_E2E_DISABLED', async () => {
    // nothing but the settings is touched before the refusal
    const kernel = { settings: loadSettings({ ENABLE_QA_AUTOMATION: 'true' }) } as unknown as Kernel;
    await expect(replay(kernel, { tenant: 'default', log: () => {} })).rejects.toMatchObject({ code: 'QA_E2E_DISABLED' });
    await expect(polishRun(kernel, { tenant: 'default', run: '00000000-0000-4000-8000-000000000000', log: () => {} })).rejects.toMatchObject({ code: 'QA_E2E_DISABLED' });
  });
});
