/**
 * `fw e2e` as a shell runs it, for the subcommands tests/qa/e2e.test.ts does not drive:
 * `record --usecase` / `--finalize` / `--promote`, an import refused with its line number, the
 * gate's default window, and replay / polish refused while QA_E2E_ENABLED is off (the default).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FRESHNESS_HOURS } from '../../src/apps/qa/gate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

type Rec = Record<string, any>;
const LONG = 120_000;

let dir: string;
let kernel: Kernel;
const env = () => ({
  DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true',
  ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'silent', EVENT_WORKER: 'false',
});
const cli = (args: string[], extra: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'e2e', ...args], { env: { ...process.env, QA_E2E_ENABLED: '', ...env(), ...extra }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, out: `${r.stdout}\n${r.stderr}` };
};
const sys = systemPrincipal('default');

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-cli-'));
  kernel = await Kernel.boot({ settings: loadSettings(env()), worker: false, log: () => {} });
  await kernel.tenants.get('default');
}, LONG);
afterAll(async () => {
  await kernel?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('fw e2e on the command line', () => {
  it('record --usecase starts a recording and prints the URL to record at; --finalize; --promote makes the use case', async () => {
    const start = cli(['record', '--usecase', 'cli.flow', '--module', 'base', '--name', 'A flow from the shell', '--start-path', '/default/action-base.action_organizations']);
    expect(start.code, start.out).toBe(0);
    const id = /recording ([0-9a-f-]{36}) started for use case cli\.flow/.exec(start.stdout)?.[1];
    expect(id, start.out).toBeTruthy();
    expect(start.stdout).toContain(`/default/action-base.action_organizations?qa_recording=${id} and record; then: fw e2e record --finalize ${id}`);
    expect(await kernel.dispatch<Rec>('fw.read_one', { model: 'qa.recording', id }, sys)).toMatchObject({ status: 'live', usecase_key: 'cli.flow', module: 'base', name: 'A flow from the shell' });

    // the recorder appends the steps
    for (const step of [
      { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'new-record' }]] }, caption: 'Click New' },
      { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Name' }]] }, value: { kind: 'literal', value: 'Acme' } },
    ]) await kernel.dispatch('qa.recording.step.create', { recording_id: id, ...step }, sys);

    const fin = cli(['record', '--finalize', id!]);
    expect(fin.code, fin.out).toBe(0);
    expect(fin.stdout.trim()).toBe(`recording ${id} finalised`);
    const again = cli(['record', '--finalize', id!]);
    expect(again.code, again.out).toBe(1);
    expect(again.stderr).toContain('QA_RECORDING_NOT_LIVE');

    const noKey = cli(['record', '--promote', id!]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('--promote needs --usecase <key>');
    const prom = cli(['record', '--promote', id!, '--usecase', 'cli.flow']);
    expect(prom.code, prom.out).toBe(0);
    expect(prom.stdout.trim()).toBe(`promoted recording ${id} to use case cli.flow (version 1, 2 steps)`);
    const [uc] = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase', domain: [['key', '=', 'cli.flow']] }, sys)).items;
    expect(uc).toMatchObject({ source: 'recording', recording_id: id, start_path: '/default/action-base.action_organizations' });
    const steps = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase.step', domain: [['usecase_id', '=', uc.id]], order: 'sequence asc' }, sys)).items;
    expect(steps.map((s) => [s.sequence, s.kind, s.caption])).toEqual([[1, 'click', 'Click New'], [2, 'fill', null]]);
  }, LONG);

  it('record --usecase <key> as the spec writes it: the module is the existing use case\'s; a new key needs --module', async () => {
    const again = cli(['record', '--usecase', 'cli.flow']);
    expect(again.code, again.out).toBe(0);
    const id = /recording ([0-9a-f-]{36}) started/.exec(again.stdout)?.[1];
    expect(await kernel.dispatch<Rec>('fw.read_one', { model: 'qa.recording', id }, sys)).toMatchObject({ status: 'live', usecase_key: 'cli.flow', module: 'base' });
    const fresh = cli(['record', '--usecase', 'cli.brand-new']);
    expect(fresh.code, fresh.out).toBe(1);
    expect(fresh.stderr).toContain('use case cli.brand-new does not exist yet, so name its app with --module <app>');
  }, LONG);

  it('import refuses a script it cannot turn into steps with the line number, and stores nothing', async () => {
    const file = path.join(dir, 'bad.codegen.ts');
    fs.writeFileSync(file, [
      "import { test, expect } from '@playwright/test';",
      '',
      "test('t', async ({ page }) => {",
      "  await page.goto('http://localhost:3000/default');",
      "  await page.getByText('Acme').dblclick();",
      '});',
      '',
    ].join('\n'));
    const r = cli(['import', '--file', file, '--usecase', 'cli.bad', '--module', 'base']);
    expect(r.code, r.out).toBe(1);
    expect(r.stderr).toMatch(/QA_IMPORT_UNSUPPORTED: line 5: dblclick\(…\) is not a supported action/);
    expect((await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase', domain: [['key', '=', 'cli.bad']] }, sys)).items).toEqual([]);
  }, LONG);

  it(`gate without --freshness-hours uses the documented default window (${DEFAULT_FRESHNESS_HOURS} h)`, () => {
    expect(DEFAULT_FRESHNESS_HOURS).toBe(24);
    const r = cli(['gate', '--module', 'base']);
    expect(r.code, r.out).toBe(2);
    expect(r.stdout).toContain('never_run cli.flow — no run yet');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('gate failed: no run of base (never run: cli.flow)');
  }, LONG);

  it('replay and polish refuse to start a browser while QA_E2E_ENABLED is off (the default)', () => {
    const rep = cli(['replay', '--tenant', 'default']);
    expect(rep.code, rep.out).toBe(1);
    expect(rep.stderr).toContain('QA_E2E_DISABLED');
    const pol = cli(['polish', '--run', '00000000-0000-4000-8000-000000000000']);
    expect(pol.code, pol.out).toBe(1);
    expect(pol.stderr).toContain('QA_E2E_DISABLED');
  }, LONG);
});
