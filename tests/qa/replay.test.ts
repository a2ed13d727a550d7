/**
 * QA replay end to end: use cases imported as data replay in Debian Chromium (playwright-core)
 * against the real web client of an in-process server, on the sandbox tenant reset before each
 * use case. Checks the qa.run / qa.run.result / qa.run.step rows written in the tenant the use
 * cases come from, the trace, a screenshot per step (per policy: `always` by default), the chatter message on ir.module, a
 * locator fallback, and a broken use case failing on the right step with what it tried.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayFromCli } from '../../src/apps/qa/replay/cli.ts';
import { runSteps as runEngine, type StepRunContext } from '../../src/apps/qa/replay/engine.ts';
import { replay } from '../../src/apps/qa/replay/run.ts';
import { REPLAY_EMAIL, withSandbox } from '../../src/apps/qa/replay/sandbox.ts';
import { checkStep } from '../../src/apps/qa/steps.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { bootQaKernel, launchChromium, type QaKernel } from './helpers/replay-kernel.ts';

type Rec = Record<string, any>;
const LONG = 180_000;

const ORG_NAME = 'Acme Replay';
const START = '/{{org}}/action-base.action_users';

/** Open the Organizations list, click New, fill Name, save, see the name (test ids of web/src). */
function orgSteps(o: { newButton?: Rec[][]; slugField?: Rec[][]; slugTimeout?: number; newTimeout?: number } = {}): Rec[] {
  return [
    { kind: 'chapter', caption: 'Create an organization from the Organizations list' },
    { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'menu-base.menu_organizations' }], [{ by: 'role', value: 'link', name: 'Organizations' }]] }, caption: 'Open the Organizations list' },
    { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'view-title' }]] }, assertion: { kind: 'text', expected: 'Organizations' }, screenshot: 'never' },
    { kind: 'click', target: { candidates: o.newButton ?? [[{ by: 'testid', value: 'new-record' }], [{ by: 'role', value: 'link', name: 'New' }]] }, caption: 'Click New', ...(o.newTimeout ? { timeout_ms: o.newTimeout } : {}) },
    { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Name' }], [{ by: 'testid', value: 'input-name' }]] }, value: { kind: 'literal', value: ORG_NAME }, caption: 'Name it' },
    { kind: 'fill', target: { candidates: o.slugField ?? [[{ by: 'label', value: 'Workspace slug' }], [{ by: 'testid', value: 'input-code' }]] }, value: { kind: 'variable', value: 'slug' }, caption: 'Give it a slug', ...(o.slugTimeout ? { timeout_ms: o.slugTimeout } : {}) },
    { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'form-save' }], [{ by: 'role', value: 'button', name: 'Save' }]] }, caption: 'Save' },
    { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'form-title' }]] }, assertion: { kind: 'text', expected: ORG_NAME }, caption: 'The form shows the new name', screenshot: 'always' },
    { kind: 'assert', assertion: { kind: 'url', expected: '/default/action-base.action_organizations/*' }, screenshot: 'on_failure' },
    { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'breadcrumb-action' }]] }, caption: 'Back to the list' },
    { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'list-row' }, { by: 'text', value: ORG_NAME, exact: true }]] }, assertion: { kind: 'visible' }, caption: 'The list shows it' },
  ];
}

let q: QaKernel;
const sys = () => systemPrincipal(q.tenant);
const readOne = (model: string, id: string): Promise<Rec> => q.kernel.dispatch<Rec>('fw.read_one', { model, id }, sys());
const search = async (model: string, domain: unknown[] = [], order = 'dbid asc'): Promise<Rec[]> =>
  (await q.kernel.dispatch<{ items: Rec[] }>('fw.search', { model, domain, order }, sys())).items;

async function importUsecase(key: string, name: string, steps: Rec[]): Promise<void> {
  await q.kernel.dispatch('qa.usecase.import', { usecase_key: key, name, module: 'base', start_path: START, steps }, sys());
  const [uc] = await search('qa.usecase', [['key', '=', key]]);
  await q.kernel.dispatch('fw.update', { model: 'qa.usecase', id: uc.id, values: { variables: { slug: 'acme-replay' } } }, sys());
}

/** The engine on checked steps (as stored steps are). */
const runSteps2 = (page: Page, steps: Rec[], ctx: StepRunContext) => runEngine(page, steps.map((s) => checkStep(s)), ctx);

async function runSteps(resultId: string): Promise<Rec[]> {
  return search('qa.run.step', [['result_id', '=', resultId]], 'sequence asc');
}

beforeAll(async () => {
  q = await bootQaKernel();
  await importUsecase('org.create', 'Create an organization', orgSteps());
  await importUsecase('org.create.fallback', 'Create an organization (renamed New button)', orgSteps({
    newButton: [[{ by: 'testid', value: 'new-record-renamed' }], [{ by: 'role', value: 'link', name: 'New', exact: true }]], newTimeout: 4000,
  }));
  await importUsecase('org.create.broken', 'Create an organization (renamed slug label)', orgSteps({
    slugField: [[{ by: 'label', value: 'Organization code', exact: true }], [{ by: 'placeholder', value: 'Organization code' }]], slugTimeout: 3000,
  }));
}, LONG);
afterAll(async () => {
  await q?.close();
});

describe('fw e2e replay', () => {
  it('replays a use case green and records the run, its steps, the trace, screenshots and a chatter message', async () => {
    const lines: string[] = [];
    const out = await replay(q.kernel, { tenant: q.tenant, usecase: 'org.create', log: (l) => lines.push(l) });
    const log = lines.join('\n');
    expect(out.runs, log).toHaveLength(1);
    const run = out.runs[0];
    expect(run.status, log).toBe('passed');
    expect(log).toMatch(/ {2}✓ 5 fill Name it \(\d+ ms\)/);

    const row = await readOne('qa.run', run.id);
    expect(row).toMatchObject({ status: 'passed', browser: 'chromium', sandbox_tenant: 'qa-sandbox', usecase_count: 1, passed_count: 1, failed_count: 0, trace_path: `${run.id}.zip` });
    expect(row.duration_ms).toBeGreaterThan(0);
    expect(row.finished_at).toBeTruthy();
    expect(fs.statSync(path.join(q.traceDir, `${run.id}.zip`)).size).toBeGreaterThan(10_000);

    const results = await search('qa.run.result', [['run_id', '=', run.id]]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ usecase_key: 'org.create', module: 'base', status: 'passed', failed_step: null, usecase_version: 1 });
    const steps = await runSteps(results[0].id);
    expect(steps.map((s) => [s.sequence, s.kind, s.status])).toEqual([
      [1, 'chapter', 'passed'], [2, 'click', 'passed'], [3, 'assert', 'passed'], [4, 'click', 'passed'], [5, 'fill', 'passed'],
      [6, 'fill', 'passed'], [7, 'click', 'passed'], [8, 'assert', 'passed'], [9, 'assert', 'passed'], [10, 'click', 'passed'], [11, 'assert', 'passed'],
    ]);
    const fill = steps[4];
    expect(fill.matched_locator).toMatchObject({ candidate: 0, chain: [{ by: 'label', value: 'Name' }], code: "getByLabel('Name')" });
    expect(fill.tried_locators).toEqual([]);
    expect(fill.attempts).toBe(1);
    expect(fill.action_ms).toBeGreaterThan(0);
    expect(fill.action_ms).toBeLessThan(10_000);
    expect(steps[0]).toMatchObject({ matched_locator: null, attempts: 0 });
    for (const s of steps) expect(s.error).toBeNull();

    // a screenshot per step: the default policy is `always`; step 3 says `never` and step 9
    // `on_failure`, which a green run leaves without one
    const frozen = await search('qa.usecase.step', [['usecase_id.key', '=', 'org.create']], 'sequence asc');
    expect(frozen.map((s) => s.screenshot)).toEqual(['always', 'always', 'never', 'always', 'always', 'always', 'always', 'always', 'on_failure', 'always', 'always']);
    expect(steps.filter((s) => s.screenshot_path).map((s) => s.sequence)).toEqual([1, 2, 4, 5, 6, 7, 8, 10, 11]);
    expect(steps[7].screenshot_path).toBe(`${run.id}/org.create/008-assert.png`);
    fs.mkdirSync(path.join(process.cwd(), '.tmp/qa-replay'), { recursive: true });
    for (const s of steps.filter((x) => x.screenshot_path)) {
      const shot = path.join(q.traceDir, s.screenshot_path);
      expect(fs.readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    }
    fs.copyFileSync(path.join(q.traceDir, steps[7].screenshot_path), path.join(process.cwd(), '.tmp/qa-replay/passed-step-8.png'));
    expect(fs.readdirSync(path.join(q.traceDir, run.id, 'org.create')).sort()).toEqual([
      '001-chapter.png', '002-click.png', '004-click.png', '005-fill.png', '006-fill.png', '007-click.png', '008-assert.png', '010-click.png', '011-assert.png',
    ]);

    // the organization exists in the sandbox, created by the replay user, and not in the tenant
    const sandboxOrgs = await q.kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'res.organization', domain: [['name', '=', ORG_NAME]] }, systemPrincipal('qa-sandbox'));
    expect(sandboxOrgs.items).toHaveLength(1);
    const replayUser = await q.kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'res.user', domain: [['email', '=', REPLAY_EMAIL]] }, systemPrincipal('qa-sandbox'));
    expect(replayUser.items[0]).toMatchObject({ role: 'admin' });
    expect(await search('res.organization', [['name', '=', ORG_NAME]])).toHaveLength(0);

    // the chatter message on the module's ir.module row
    const [mod] = await search('ir.module', [['name', '=', 'base']]);
    const messages = await search('ir.message', [['res_model', '=', 'ir.module'], ['res_id', '=', mod.id]]);
    expect(messages).toHaveLength(1);
    // the link opens the run in the web client (the API route answers the same run as JSON)
    expect(messages[0]).toMatchObject({ link: `/-/action-qa.action_runs/${run.id}`, author_name: 'System', message_type: 'notification' });
    expect(messages[0].subject).toBe('QA replay passed: 1/1 use case of base (chromium)');
    expect(messages[0].body).toContain('✓ org.create — Create an organization: passed (11 steps');
  }, LONG);

  it('falls back to the next locator candidate when the first no longer matches', async () => {
    const out = await replay(q.kernel, { tenant: q.tenant, usecase: 'org.create.fallback', log: () => {} });
    const run = out.runs[0];
    expect(run.status, JSON.stringify(run.results[0]?.error)).toBe('passed');
    const [result] = await search('qa.run.result', [['run_id', '=', run.id]]);
    const steps = await runSteps(result.id);
    const clickNew = steps[3];
    expect(clickNew).toMatchObject({ kind: 'click', status: 'passed', attempts: 1 });
    expect(clickNew.matched_locator).toMatchObject({ candidate: 1, code: "getByRole('link', { name: 'New', exact: true })" });
    expect(clickNew.tried_locators).toEqual([{ candidate: 0, chain: "getByTestId('new-record-renamed')", reason: 'no match', count: 0 }]);
    // the first candidate waited half of the step's 4 s before the fallback was tried
    expect(clickNew.action_ms).toBeGreaterThanOrEqual(1900);
    expect(clickNew.action_ms).toBeLessThan(4000);
  }, LONG);

  it('a broken use case fails on the right step, says which locators it tried, and keeps a screenshot', async () => {
    const lines: string[] = [];
    const code = await replayFromCli(q.kernel, { tenant: q.tenant, usecase: 'org.create.broken', log: (l) => lines.push(l) });
    expect(code).toBe(1);
    const summary = lines[lines.length - 1];
    expect(summary).toMatch(/^replay: 1 use case, 0 passed, 1 failed \(run [0-9a-f-]{36}, \d+\.\d s\)$/);
    const runId = /run ([0-9a-f-]{36})/.exec(summary)![1];
    expect(lines.join('\n')).toMatch(/ {2}✗ 6 fill Give it a slug \(\d+ ms\)/);

    const run = await readOne('qa.run', runId);
    expect(run).toMatchObject({ status: 'failed', passed_count: 0, failed_count: 1 });
    const [result] = await search('qa.run.result', [['run_id', '=', runId]]);
    expect(result).toMatchObject({ usecase_key: 'org.create.broken', status: 'failed', failed_step: 6 });
    expect(result.error).toContain("getByLabel('Organization code', { exact: true }): no match");
    const steps = await runSteps(result.id);
    expect(steps.map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'failed', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    const failed = steps[5];
    expect(failed.matched_locator).toBeNull();
    expect(failed.tried_locators).toEqual([
      { candidate: 0, chain: "getByLabel('Organization code', { exact: true })", reason: 'no match', count: 0 },
      { candidate: 1, chain: "getByPlaceholder('Organization code')", reason: 'no match', count: 0 },
    ]);
    expect(failed.error).toMatch(/^no locator matched exactly one visible element within 3000 ms — tried #1 getByLabel\('Organization code', \{ exact: true \}\): no match; #2 getByPlaceholder\('Organization code'\): no match$/);
    expect(failed.action_ms).toBeGreaterThanOrEqual(2900);
    expect(failed.screenshot_path).toBe(`${runId}/org.create.broken/006-fill.png`);
    const shot = path.join(q.traceDir, failed.screenshot_path);
    expect(fs.statSync(shot).size).toBeGreaterThan(5_000);
    fs.copyFileSync(shot, path.join(process.cwd(), '.tmp/qa-replay/failed-step-6.png'));
    expect(steps[6]).toMatchObject({ started_at: null, action_ms: null, attempts: 0, screenshot_path: null });

    const [mod] = await search('ir.module', [['name', '=', 'base']]);
    const [latest] = await search('ir.message', [['res_model', '=', 'ir.module'], ['res_id', '=', mod.id]], 'dbid desc');
    expect(latest.subject).toBe('QA replay failed: 0/1 use case of base (chromium)');
    expect(latest.body).toContain('✗ org.create.broken — Create an organization (renamed slug label): failed at step 6');
  }, LONG);

  it('replays every active use case of the tenant in one run when no use case is named (a failure does not stop the next one)', async () => {
    await importUsecase('org.inactive', 'Never replayed', orgSteps());
    await q.kernel.dispatch('fw.update', { model: 'qa.usecase', id: (await search('qa.usecase', [['key', '=', 'org.inactive']]))[0].id, values: { is_active: false } }, sys());
    const lines: string[] = [];
    const code = await replayFromCli(q.kernel, { tenant: q.tenant, usecase: null, log: (l) => lines.push(l) });
    const log = lines.join('\n');
    expect(code, log).toBe(1);
    expect(lines[lines.length - 1], log).toMatch(/^replay: 3 use cases, 2 passed, 1 failed \(run [0-9a-f-]{36}, \d+\.\d s\)$/);
    const runId = /run ([0-9a-f-]{36})/.exec(lines[lines.length - 1])![1];
    // the broken one left a dirty form behind: the next use case still starts clean and passes
    expect((await search('qa.run.result', [['run_id', '=', runId]])).map((r) => [r.usecase_key, r.status, r.failed_step])).toEqual([
      ['org.create', 'passed', null], ['org.create.broken', 'failed', 6], ['org.create.fallback', 'passed', null],
    ]);
    expect(await readOne('qa.run', runId)).toMatchObject({ status: 'failed', usecase_count: 3, passed_count: 2, failed_count: 1 });
    const gate = await q.kernel.dispatch<Rec>('qa.gate', { module: 'base' }, sys());
    expect(gate.verdict).toBe('fail');
    expect(gate.usecases.find((u: Rec) => u.key === 'org.create.broken')).toMatchObject({ status: 'failed' });
  }, LONG);

  it('refuses an unknown use case and the tenant that is the sandbox itself', async () => {
    await expect(replay(q.kernel, { tenant: q.tenant, usecase: 'no.such', log: () => {} })).rejects.toMatchObject({ code: 'QA_USECASE_NOT_FOUND' });
    await expect(replay(q.kernel, { tenant: 'qa-sandbox', usecase: null, log: () => {} })).rejects.toMatchObject({ code: 'QA_SANDBOX_IS_SOURCE' });
  });
});

describe('the platform\'s origin', () => {
  it('a start_path on another origin (stored past the write check) ends the use case in error before the browser opens it, and a navigate step there fails: the other site gets no request', async () => {
    const hits: string[] = [];
    // a page that would take what the replay types
    const elsewhere = http.createServer((req, res) => { hits.push(req.url ?? ''); res.end('<form><input name="password"></form>'); });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const keys = ['origin.start', 'origin.navigate'];
    try {
      await q.kernel.dispatch('qa.usecase.import', { usecase_key: keys[0], name: 'Starts elsewhere', module: 'base', start_path: '/default', steps: [{ kind: 'chapter', caption: 'nothing' }] }, sys());
      // as a row written before the check existed: straight into the database, past the hooks
      const db = await q.kernel.tenants.get(q.tenant);
      await delegateOf(db, q.kernel.registry.model('qa.usecase')).update({ where: { key: keys[0] }, data: { start_path: `${origin}/login` } });
      const started = await replay(q.kernel, { tenant: q.tenant, usecase: keys[0], log: () => {} });
      expect(started.runs[0].results[0]).toMatchObject({ status: 'error' });
      expect(started.runs[0].results[0].error).toContain(`the start page "${origin}/login" is not on http://127.0.0.1:`);

      await q.kernel.dispatch('qa.usecase.import', {
        usecase_key: keys[1], name: 'Navigates elsewhere', module: 'base', start_path: '/default',
        steps: [{ kind: 'navigate', value: { kind: 'literal', value: `${origin}/login` } }],
      }, sys());
      const navigated = await replay(q.kernel, { tenant: q.tenant, usecase: keys[1], log: () => {} });
      expect(navigated.runs[0].results[0]).toMatchObject({ status: 'failed', failed_step: 1 });
      expect(navigated.runs[0].results[0].error).toContain('navigate stays on the platform');
      expect(hits).toEqual([]);
    } finally {
      elsewhere.close();
      for (const key of keys) {
        const [uc] = await search('qa.usecase', [['key', '=', key]]);
        if (uc) await q.kernel.dispatch('fw.update', { model: 'qa.usecase', id: uc.id, values: { is_active: false } }, sys());
      }
    }
  }, LONG);
});

describe('browsers other than Chromium', () => {
  let other: QaKernel;
  beforeAll(async () => {
    other = await bootQaKernel({ QA_E2E_BROWSERS: 'firefox' });
    await other.kernel.dispatch('qa.usecase.import', { usecase_key: 'noop', module: 'base', steps: [{ kind: 'chapter', caption: 'nothing' }] }, systemPrincipal(other.tenant));
  }, LONG);
  afterAll(async () => {
    await other?.close();
  });

  it('a browser that cannot run gives a run in error with a clear message (exit 1)', async () => {
    const lines: string[] = [];
    const code = await replayFromCli(other.kernel, { tenant: other.tenant, usecase: null, log: (l) => lines.push(l) });
    expect(code).toBe(1);
    expect(lines[lines.length - 1]).toMatch(/^replay: 1 use case, 0 passed, 0 failed \(run [0-9a-f-]{36}, \d+\.\d s\) — firefox: firefox is not available: replays run on Debian's Chromium only/);
    const [run] = (await other.kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.run' }, systemPrincipal(other.tenant))).items;
    expect(run).toMatchObject({ status: 'error', browser: 'firefox', trace_path: null });
    expect(run.error).toContain('Set QA_E2E_BROWSERS=chromium');
  }, LONG);
});

describe('the engine on a static page', () => {
  let browser: Browser;
  let page: Page;
  let dir: string;
  const PAGE = `<!doctype html><html><body>
    <label for="kind">Kind</label><select id="kind"><option value="a">Alpha</option><option value="b">Beta</option></select>
    <label><input type="checkbox" id="agree"> I agree</label>
    <label for="secret">Token</label><input id="secret" type="password">
    <label for="who">Who</label><input id="who" placeholder="Your name">
    <input type="file" id="file" data-testid="file" onchange="document.getElementById('picked').textContent = this.files[0].name + ':' + this.files[0].size">
    <p id="picked" data-testid="picked"></p>
    <button data-testid="dup">one</button><button data-testid="dup">two</button>
    <button data-testid="hidden-btn" style="display:none">hidden</button>
    <button data-testid="late-target" onclick="this.textContent='clicked'">Press me</button>
    <div data-testid="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.1)"></div>
    <script>setTimeout(() => document.querySelector('[data-testid=overlay]').remove(), 3000)</script>
  </body></html>`;
  const ctx = () => ({
    baseUrl: 'http://127.0.0.1:9', variables: { who: 'Ada' }, secrets: { token: 's3cr3t-value' }, fixturesDir: path.join(dir, 'fixtures'),
    screenshotDir: path.join(dir, 'shots', 'uc'), screenshotRoot: path.join(dir, 'shots'), defaultTimeoutMs: 2000,
  });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-engine-'));
    fs.mkdirSync(path.join(dir, 'fixtures'));
    fs.writeFileSync(path.join(dir, 'fixtures', 'real.txt'), 'twelve bytes');
    browser = await launchChromium();
    page = await browser.newPage();
  }, LONG);
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('waits through an overlay by retrying the click on a fresh attempt', async () => {
    await page.setContent(PAGE);
    const [r] = await runSteps2(page, [{ kind: 'click', target: { candidates: [[{ by: 'testid', value: 'late-target' }]] }, timeout_ms: 6000 }], ctx());
    expect(r, r.error ?? '').toMatchObject({ status: 'passed', attempts: 2 });
    expect(await page.getByTestId('late-target').textContent()).toBe('clicked');
  }, LONG);

  it('select, check, fill (variable, secret), press, upload (fixture and generated), assertions', async () => {
    await page.setContent(PAGE.replace(/<div data-testid="overlay".*<\/script>/s, ''));
    const t = (by: string, value: string, extra: Rec = {}) => ({ candidates: [[{ by, value, ...extra }]] });
    const results = await runSteps2(page, [
      { kind: 'select', target: t('label', 'Kind'), value: { kind: 'literal', value: 'Beta' } },
      { kind: 'assert', target: t('label', 'Kind'), assertion: { kind: 'value', expected: 'b' } },
      { kind: 'check', target: t('label', 'I agree') },
      { kind: 'assert', target: t('label', 'I agree'), assertion: { kind: 'checked' } },
      { kind: 'fill', target: t('placeholder', 'Your name'), value: { kind: 'variable', value: 'who' } },
      { kind: 'assert', target: t('label', 'Who'), assertion: { kind: 'value', expected: '{{who}}' } },
      { kind: 'fill', target: t('label', 'Token'), value: { kind: 'secret', value: 'token' } },
      { kind: 'press', target: t('label', 'Token'), value: { kind: 'literal', value: 'End' } },
      { kind: 'upload', target: t('testid', 'file'), value: { kind: 'literal', value: 'real.txt' } },
      { kind: 'assert', target: t('testid', 'picked'), assertion: { kind: 'text', expected: 'real.txt:12' } },
      { kind: 'upload', target: t('testid', 'file'), value: { kind: 'literal', value: 'generated.pdf' } },
      { kind: 'assert', target: t('testid', 'picked'), assertion: { kind: 'contains_text', expected: 'generated.pdf:' } },
      { kind: 'assert', target: t('testid', 'dup'), assertion: { kind: 'count', expected: 2 } },
      { kind: 'assert', target: t('testid', 'hidden-btn'), assertion: { kind: 'hidden' } },
      { kind: 'uncheck', target: t('label', 'I agree') },
      { kind: 'assert', target: t('label', 'I agree'), assertion: { kind: 'checked', expected: 'false' } },
      { kind: 'wait', value: { kind: 'literal', value: '50' } },
      { kind: 'hover', target: t('testid', 'late-target') },
    ], ctx());
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.sequence}: ${r.error}`)).toEqual([]);
    expect(await page.locator('#secret').inputValue()).toBe('s3cr3t-value');
  }, LONG);

  it('says why candidates did not match (ambiguous, hidden, none) and masks secrets in errors', async () => {
    await page.setContent(PAGE.replace(/<div data-testid="overlay".*<\/script>/s, ''));
    const results = await runSteps2(page, [
      { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'dup' }], [{ by: 'testid', value: 'hidden-btn' }], [{ by: 'css', value: '#nope' }]] }, timeout_ms: 1200, screenshot: 'never' },
      { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'late-target' }]] } },
    ], ctx());
    expect(results[0]).toMatchObject({ status: 'failed', screenshot_path: null, matched_locator: null });
    expect(results[0].tried_locators).toEqual([
      { candidate: 0, chain: "getByTestId('dup')", reason: '2 matches', count: 2 },
      { candidate: 1, chain: "getByTestId('hidden-btn')", reason: 'hidden', count: 1 },
      { candidate: 2, chain: "locator('#nope')", reason: 'no match', count: 0 },
    ]);
    expect(results[1]).toMatchObject({ status: 'skipped', attempts: 0 });
    const [, masked] = await runSteps2(page, [
      { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Who' }]] }, value: { kind: 'secret', value: 'who' } },
      { kind: 'assert', target: { candidates: [[{ by: 'label', value: 'Who' }]] }, assertion: { kind: 'value', expected: 'never' }, timeout_ms: 300 },
    ], { ...ctx(), secrets: { who: 'Ada Lovelace' } });
    expect(masked.status).toBe('failed');
    expect(masked.error).toContain('expected value "never" but found "•••"');
    expect(masked.screenshot_path).toBe('uc/002-assert.png');
    expect(fs.existsSync(path.join(dir, 'shots', 'uc', '002-assert.png'))).toBe(true);
  }, LONG);
});

describe('the sandbox', () => {
  it('serialises two replays of the same sandbox: the second resets only after the first is done', async () => {
    const events: string[] = [];
    const one = (name: string) => withSandbox(q.kernel, { sandbox: 'qa-lock', source: q.tenant, role: 'user' }, async (creds) => {
      events.push(`${name} in`);
      const users = await q.kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'res.user', domain: [['email', '=', creds.email]] }, systemPrincipal('qa-lock'));
      expect(users.items.map((u) => u.role)).toEqual(['user']); // a fresh sandbox each time: one replay user
      await new Promise((r) => setTimeout(r, 200));
      events.push(`${name} out`);
    });
    await Promise.all([one('a'), one('b')]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out']);
  }, LONG);
});
