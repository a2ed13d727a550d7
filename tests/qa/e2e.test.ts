/**
 * QA automation end to end through `fw e2e`, as a team would use it: import a Playwright script,
 * replay it green in Debian Chromium, gate on it; rename a field label on the page and see the
 * replay fail on the right step with its screenshot, and the gate fail; polish the green run into
 * a narrated MP4 checked with ffprobe; a window shorter than the last run finds nothing fresh.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../src/apps/qa/replay/run.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { projectLayout } from '../../src/kernel/modules/loader.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { WEB_DIST } from './helpers/replay-kernel.ts';

const LONG = 240_000;
type Rec = Record<string, any>;

const SCRIPT = `import { test, expect } from '@playwright/test';

test('create an organization', async ({ page }) => {
  await page.goto('http://127.0.0.1:8000/default/action-base.action_organizations');
  // caption: Open a new organization
  await page.getByTestId('new-record').click();
  // caption: Name it
  await page.getByLabel('Name').fill('Acme E2E');
  // caption: Give it a workspace slug
  await page.getByLabel('Workspace slug').fill('acme-e2e');
  await page.getByTestId('form-save').click();
  await expect(page.getByTestId('form-title')).toHaveText('Acme E2E');
});
`;

let dir: string;
let env: Record<string, string>;
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'e2e', ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 200_000 });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
};
const runIdOf = (out: string) => /run ([0-9a-f-]{36})/.exec(out)?.[1];

beforeAll(async () => {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error('the web client is not built: npm run build:web');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-e2e-'));
  env = {
    DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true', QA_E2E_ENABLED: 'true',
    QA_E2E_TRACE_DIR: path.join(dir, 'traces'), QA_E2E_VIDEO_DIR: path.join(dir, 'videos'), QA_VIDEO_SLOWMO_MS: '150',
    WEB_CLIENT_DIR: WEB_DIST, ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'warn', EVENT_WORKER: 'false',
  };
  fs.writeFileSync(path.join(dir, 'org.codegen.ts'), SCRIPT);
  // the tenant whose use cases these are
  const k = await Kernel.boot({ settings: loadSettings(env), worker: false, log: () => {} });
  await k.tenants.get('default');
  await k.close();
}, LONG);
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('fw e2e, end to end', () => {
  let greenRun = '';

  it('imports a Playwright script, replays it green and the gate passes', () => {
    const imp = cli('import', '--file', path.join(dir, 'org.codegen.ts'), '--usecase', 'org.e2e', '--module', 'base');
    expect(imp.code, imp.out).toBe(0);
    expect(imp.out).toContain('use case org.e2e (version 1, 6 steps)');
    const rep = cli('replay', '--tenant', 'default', '--usecase', 'org.e2e');
    expect(rep.code, rep.out).toBe(0);
    expect(rep.out).toMatch(/✓ 4 fill Give it a workspace slug \(\d+ ms\)/);
    expect(rep.out).toMatch(/replay: 1 use case.*1 passed/);
    greenRun = runIdOf(rep.out)!;
    expect(greenRun).toBeTruthy();
    const gate = cli('gate', '--module', 'base', '--freshness-hours', '24');
    expect(gate.code, gate.out).toBe(0);
  }, LONG);

  it('reruns of a use case on a clean sandbox give the same record uuids', async () => {
    const orgId = async () => {
      const k = await Kernel.boot({ settings: loadSettings(env), worker: false, log: () => {} });
      try {
        const found = await k.dispatch<{ items: Rec[] }>('fw.search', { model: 'res.organization', domain: [['name', '=', 'Acme E2E']] }, systemPrincipal('qa-sandbox'));
        return found.items.map((o) => o.id);
      } finally {
        await k.close();
      }
    };
    const first = await orgId();
    expect(first).toHaveLength(1);
    const again = cli('replay', '--tenant', 'default', '--usecase', 'org.e2e');
    expect(again.code, again.out).toBe(0);
    expect(await orgId()).toEqual(first);
  }, LONG);

  it('a renamed field label makes the replay fail on that step, with the locator it tried and a screenshot; the gate then fails', async () => {
    // the same project with one label renamed in the organization form
    // a project root whose views are a changed copy; everything else links to the repository's
    const repo = projectLayout().root;
    const root = path.join(dir, 'project');
    fs.mkdirSync(root, { recursive: true });
    for (const p of ['src', 'schema', 'prisma', 'generated']) fs.symlinkSync(path.join(repo, p), path.join(root, p));
    fs.cpSync(path.join(repo, 'views'), path.join(root, 'views'), { recursive: true });
    const form = path.join(root, 'views', 'base', 'res_organization_form.xml');
    fs.writeFileSync(form, fs.readFileSync(form, 'utf8').replace('label="Workspace slug"', 'label="Organization slug"'));
    const kernel = await Kernel.boot({ settings: loadSettings(env), layout: { root, fwRoot: root }, worker: false, log: () => {} });
    try {
      const lines: string[] = [];
      const out = await replay(kernel, { tenant: 'default', usecase: 'org.e2e', log: (l) => lines.push(l) });
      const run = out.runs[0];
      expect(run.status, lines.join('\n')).toBe('failed');
      const sys = systemPrincipal('default');
      const [result] = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.run.result', domain: [['run_id', '=', run.id]] }, sys)).items;
      expect(result).toMatchObject({ status: 'failed', failed_step: 4 });
      const steps = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.run.step', domain: [['result_id', '=', result.id]], order: 'sequence asc' }, sys)).items;
      expect(steps.map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'failed', 'skipped', 'skipped']);
      expect(steps[3].error).toContain("getByLabel('Workspace slug')");
      expect(steps[3].tried_locators[0]).toMatchObject({ candidate: 0, reason: 'no match' });
      const shot = path.join(env.QA_E2E_TRACE_DIR, steps[3].screenshot_path);
      expect(fs.readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
      fs.mkdirSync('.tmp/qa-e2e', { recursive: true });
      fs.copyFileSync(shot, '.tmp/qa-e2e/renamed-label-failed-step.png');
    } finally {
      await kernel.close();
    }
    const gate = cli('gate', '--module', 'base', '--freshness-hours', '24');
    expect(gate.code, gate.out).toBe(1);
    expect(gate.out).toContain('gate failed: org.e2e (failed)');
  }, LONG);

  it('polishes the green run into a narrated MP4: ffprobe sees the resolution, a duration and an audio stream', () => {
    const pol = cli('polish', '--run', greenRun);
    expect(pol.code, pol.out).toBe(0);
    const file = path.join(env.QA_E2E_VIDEO_DIR, `${greenRun}-org.e2e.mp4`);
    expect(fs.existsSync(file), pol.out).toBe(true);
    const probe = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,width,height:format=duration', '-of', 'json', file], { encoding: 'utf8' });
    const info = JSON.parse(probe.stdout) as { streams: Array<{ codec_type: string; width?: number; height?: number }>; format: { duration: string } };
    const video = info.streams.find((s) => s.codec_type === 'video')!;
    expect([video.width, video.height]).toEqual([1280, 720]);
    expect(info.streams.some((s) => s.codec_type === 'audio')).toBe(true);
    // a title card and a result card of at least 3 s each, and six narrated steps
    expect(Number(info.format.duration)).toBeGreaterThan(8);
  }, LONG);

  it('a window shorter than the age of every run: the latest run of org.e2e failed, so it is still reported failed, its age added (exit 1; 2 is for never run)', async () => {
    await new Promise((r) => setTimeout(r, 1500));
    const gate = cli('gate', '--module', 'base', '--freshness-hours', '0.0003');
    expect(gate.code, gate.out).toBe(1);
    expect(gate.out).toMatch(/failed\s+org\.e2e — .*; last run .+ is older than 0\.0003 h/);
    expect(gate.out).toMatch(/gate failed: .*org\.e2e \(failed\)/);
  }, LONG);
});
