/**
 * QA results in the web client (Debian Chromium against a real server with QA automation on):
 * two use cases are replayed for real (one green, one failing on a locator), then a person
 * follows the results the way the replay reports them:
 * - the QA menu (Runs, Results, Use cases, and Modules for the admin) lists the run, read-only;
 * - the run opens with one result per use case; a result with its steps, each with its status,
 *   action time, attempts, error and a thumbnail of its screenshot; a step with the locator that
 *   matched or the ones it tried, and its screenshot, fetched with the session's bearer token (an
 *   `<img src>` cannot send it) and shown from a blob URL;
 * - the chatter message the replay posts on the module's record links to the run in the web
 *   client (not to the bearer-only API route), also when opened as a fresh page;
 * - use cases show their frozen steps, which open with their locator chains;
 * - a plain user sees runs and use cases but not the modules; with QA turned off, the QA menu
 *   left in the database is not shown.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../src/apps/qa/replay/run.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { actionUrl, adminOrg, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

const LONG = 240_000;
const MODULES = 'base,auth,presentation,connectors,storage';
const PLAIN_EMAIL = 'pat@example.com';
const PLAIN_PASSWORD = 'plain-pass-1234';

/** The data folder outlives the first server: the last test boots it again with QA turned off. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-results-'));
const traceDir = path.join(dataDir, 'traces');
let env: WebEnv;
let admin: Page;
let slug: string;
let runId: string;

const sys = () => systemPrincipal(env.kernel.settings.DEFAULT_TENANT);
type Rec = Record<string, any>;
const search = async (model: string, domain: unknown[], order = 'dbid asc'): Promise<Rec[]> =>
  (await env.kernel.dispatch<{ items: Rec[] }>('fw.search', { model, domain, order }, sys())).items;

const ORGS_MENU = [[{ by: 'testid', value: 'menu-base.menu_organizations' }], [{ by: 'role', value: 'link', name: 'Organizations' }]];

beforeAll(async () => {
  env = await startWeb({
    DATA_DIR: dataDir, ENABLE_QA_AUTOMATION: 'true', ACTIVE_MODULES: MODULES,
    QA_E2E_ENABLED: 'true', QA_E2E_TRACE_DIR: traceDir, QA_E2E_BROWSERS: 'chromium',
  });
  const org = await adminOrg(env);
  slug = org.code;
  expect(slug).toMatch(/^[a-z0-9-]+$/);
  const res = await env.api('POST', '/api/data/res.user', { email: PLAIN_EMAIL, name: 'Pat Plain', password: PLAIN_PASSWORD, role: 'user', organization: org.id });
  expect(res.status, JSON.stringify(res.body)).toBe(201);

  // two use cases of the base module, replayed for real: one green, one failing at step 2
  const start = '/{{org}}/action-base.action_users';
  await env.kernel.dispatch('qa.usecase.import', {
    usecase_key: 'org.list', name: 'Open the organizations', module: 'base', start_path: start, steps: [
      { kind: 'chapter', caption: 'From the users, open the organizations' },
      { kind: 'click', target: { candidates: ORGS_MENU }, caption: 'Open the Organizations list' },
      { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'view-title' }]] }, assertion: { kind: 'text', expected: 'Organizations' }, caption: 'The list is shown' },
    ],
  }, sys());
  await env.kernel.dispatch('qa.usecase.import', {
    usecase_key: 'org.broken', name: 'Press a button that is not there', module: 'base', start_path: start, steps: [
      { kind: 'click', target: { candidates: ORGS_MENU }, caption: 'Open the Organizations list' },
      { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'frobnicate' }], [{ by: 'role', value: 'button', name: 'Frobnicate' }]] }, timeout_ms: 1500, caption: 'Frobnicate' },
      { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'view-title' }]] }, assertion: { kind: 'visible' } },
    ],
  }, sys());
  const lines: string[] = [];
  const out = await replay(env.kernel, { tenant: env.kernel.settings.DEFAULT_TENANT, log: (l) => lines.push(l) });
  expect(out.runs, lines.join('\n')).toHaveLength(1);
  expect(out.runs[0].status, lines.join('\n')).toBe('failed');
  runId = out.runs[0].id;

  admin = await env.newPage();
  await login(admin);
}, LONG);
afterAll(async () => {
  await env?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const rows = (p: Page) => p.getByTestId('list-row');
const lines = (p: Page, field: string) => p.getByTestId(`field-${field}`).getByTestId('o2m-row');
const fieldText = (p: Page, field: string) => p.getByTestId(`field-${field}`).locator('.value').innerText();
/** A JSON field's value, once the record has filled the form (it shows a dash until then). */
async function jsonField(p: Page, field: string): Promise<unknown> {
  await expect.poll(() => fieldText(p, field)).not.toBe('—');
  return JSON.parse(await fieldText(p, field));
}
/** The image widgets under `scope` that show a loaded image: each `<img>`'s src and natural size. */
const images = (p: Page, scope: string) => p.locator(`${scope} [data-testid="image-widget"][data-state="loaded"] img`).evaluateAll(
  (imgs) => imgs.map((i) => ({ src: (i as HTMLImageElement).src, width: (i as HTMLImageElement).naturalWidth, alt: (i as HTMLImageElement).alt })),
);

describe('QA results in the web client', () => {
  it('the QA menu opens the runs: the replay is listed with its status and counts, and nothing offers to create a run', async () => {
    await admin.goto('/');
    await admin.getByTestId('app-qa.menu_root').click();
    await admin.waitForURL(/\/action-qa\.action_runs$/);
    for (const m of ['qa.menu_runs', 'qa.menu_results', 'qa.menu_usecases', 'qa.menu_modules']) await admin.getByTestId(`menu-${m}`).waitFor();
    expect(await admin.getByTestId('view-title').textContent()).toBe('Runs');
    await expect.poll(() => rows(admin).count()).toBe(1);
    const row = rows(admin).first();
    expect(await row.locator('.badge').first().textContent()).toBe('Failed'); // the value's label
    // Use cases 2, Passed 1, Failed 1 (the columns after the status and the browser)
    expect((await row.locator('td').allInnerTexts()).slice(3, 7)).toEqual(['chromium', '2', '1', '1']);
    // qaRunCreate is not in the schema: no New button
    expect(await admin.getByTestId('new-record').count()).toBe(0);
    const violations = await axeSerious(admin, 'main');
    expect(violations, describeViolations(violations)).toEqual([]);
    await shot(admin, 'qa-runs', { dark: true });
  }, LONG);

  it('a run opens read-only with one result per use case; a result shows its steps with their screenshots', async () => {
    await rows(admin).first().click();
    await admin.getByTestId('form-view').waitFor();
    expect(admin.url()).toContain(`/action-qa.action_runs/${runId}`);
    // nobody may write a run: no Save or Discard, values shown, not edited
    await admin.getByTestId('form-readonly').waitFor();
    expect(await admin.getByTestId('form-save').count()).toBe(0);
    expect(await admin.locator('[data-testid="form-view"] input:not([type="checkbox"]), [data-testid="form-view"] textarea, [data-testid="form-view"] select').count()).toBe(0);
    await expect.poll(() => fieldText(admin, 'status')).toBe('Failed');
    await expect.poll(() => fieldText(admin, 'usecase_count')).toBe('2');
    await expect.poll(() => lines(admin, 'results').count()).toBe(2);
    expect(await admin.getByTestId('o2m-add-results').count()).toBe(0);
    // in the order they ran (use cases replay in key order)
    expect(await lines(admin, 'results').allInnerTexts()).toEqual([
      expect.stringMatching(/^org\.broken\s+base\s+Failed\s+[\d,]+\s+2\s+step 2 \(click: Frobnicate\) failed: no locator matched/),
      expect.stringMatching(/^org\.list\s+base\s+Passed\s+[\d,]+\s+—\s+—$/),
    ]);
    await shot(admin, 'qa-run', { dark: true, fullPage: true });
    // the run's Playwright trace downloads from its form (fetched with the token: a link could not send it)
    const trace = admin.getByTestId('field-trace_path').getByTestId('download-widget');
    expect(await trace.getAttribute('aria-label')).toBe(`Download ${runId}.zip`);
    expect(await admin.getByTestId('field-trace_path').getByTestId('download-name').textContent()).toBe(`${runId}.zip`);
    const [file] = await Promise.all([admin.waitForEvent('download'), trace.click()]);
    expect(file.suggestedFilename()).toBe(`${runId}.zip`);
    expect(fs.readFileSync((await file.path())!).subarray(0, 2).toString()).toBe('PK');

    // the failed result: its steps, each screenshot fetched with the bearer token
    const shots: Array<{ url: string; auth: string | undefined }> = [];
    admin.on('request', (r) => { if (r.url().includes('/api/qa/run-steps/')) shots.push({ url: new URL(r.url()).pathname, auth: r.headers().authorization }); });
    await lines(admin, 'results').first().click();
    await admin.waitForURL(/\/action-qa\.action_run_results\/[0-9a-f-]{36}$/);
    await expect.poll(() => admin.getByTestId('form-title').textContent()).toBe('org.broken');
    await expect.poll(() => lines(admin, 'steps').count()).toBe(3);
    const steps = await lines(admin, 'steps').allInnerTexts();
    expect(steps[0]).toMatch(/^1\s+click\s+Open the Organizations list\s+Passed\s+[\d,.]+\s+1\s+—/);
    expect(steps[1]).toMatch(/^2\s+click\s+Frobnicate\s+Failed\s+[\d,.]+\s+1\s+no locator matched exactly one visible element within 1500 ms/);
    expect(steps[2]).toMatch(/^3\s+assert\s+—\s+Skipped\s+—\s+—\s+0\s+—$/);
    // steps 1 and 2 have a thumbnail (a screenshot per step; the skipped one has none)
    await expect.poll(async () => (await images(admin, '[data-testid="field-steps"]')).length).toBe(2);
    for (const img of await images(admin, '[data-testid="field-steps"]')) {
      expect(img.src).toMatch(/^blob:/);
      expect(img.width).toBe(1280);
      expect(img.alt).toBe('Screenshot');
    }
    expect(shots.length).toBeGreaterThanOrEqual(2);
    for (const s of shots) expect(s.auth).toMatch(/^Bearer .+/);
    // the run it belongs to is a link, and its trace downloads from here too
    expect(await admin.getByTestId('link-run_id').getAttribute('href')).toContain(`/action-qa.action_runs/${runId}`);
    const [resultTrace] = await Promise.all([admin.waitForEvent('download'), admin.getByTestId('field-trace_path').getByTestId('download-widget').click()]);
    expect(resultTrace.suggestedFilename()).toBe(`${runId}.zip`);
    const violations = await axeSerious(admin, 'main');
    expect(violations, describeViolations(violations)).toEqual([]);
    await shot(admin, 'qa-result', { dark: true, fullPage: true });
  }, LONG);

  it('a failed step says which locators it tried, with its error and its screenshot at full size', async () => {
    await lines(admin, 'steps').nth(1).click();
    await admin.waitForURL(/\/action-qa\.action_run_steps\/[0-9a-f-]{36}$/);
    await admin.getByTestId('form-readonly').waitFor();
    await expect.poll(() => fieldText(admin, 'status')).toBe('Failed');
    await expect.poll(() => fieldText(admin, 'error')).toMatch(/^no locator matched exactly one visible element within 1500 ms — tried #1 getByTestId\('frobnicate'\): no match; #2 getByRole\('button', \{ name: 'Frobnicate' \}\): no match$/);
    const tried = await jsonField(admin, 'tried_locators');
    expect(tried).toEqual([
      { candidate: 0, chain: "getByTestId('frobnicate')", reason: 'no match', count: 0 },
      { candidate: 1, chain: "getByRole('button', { name: 'Frobnicate' })", reason: 'no match', count: 0 },
    ]);
    await expect.poll(() => fieldText(admin, 'matched_locator')).toBe('—');
    await expect.poll(() => fieldText(admin, 'attempts')).toBe('1');
    await expect.poll(async () => (await images(admin, '[data-testid="field-screenshot_path"]')).length).toBe(1);
    const [img] = await images(admin, '[data-testid="field-screenshot_path"]');
    expect(img).toMatchObject({ width: 1280, alt: 'Screenshot' });
    expect(img.src).toMatch(/^blob:/);
    // the image is shown at the width of the form (not a thumbnail), and opens at full size
    expect((await admin.locator('[data-testid="field-screenshot_path"] img').boundingBox())!.width).toBeGreaterThan(500);
    expect(await admin.getByTestId('image-open').getAttribute('href')).toBe(img.src);
    const violations = await axeSerious(admin, 'main');
    expect(violations, describeViolations(violations)).toEqual([]);
    await shot(admin, 'qa-step-failed', { dark: true, fullPage: true });

    // the green step before it names the locator that matched
    await admin.getByTestId('link-result_id').click();
    await admin.waitForURL(/\/action-qa\.action_run_results\//);
    await lines(admin, 'steps').first().click();
    await admin.waitForURL(/\/action-qa\.action_run_steps\//);
    expect(await jsonField(admin, 'matched_locator')).toEqual({ candidate: 0, chain: [{ by: 'testid', value: 'menu-base.menu_organizations' }], code: "getByTestId('menu-base.menu_organizations')" });
  }, LONG);

  it('the replay\'s chatter message on the module record links to the run in the web client, also as a fresh page', async () => {
    await admin.getByTestId('menu-qa.menu_modules').click();
    await admin.waitForURL(/\/action-qa\.action_modules$/);
    await rows(admin).filter({ has: admin.getByRole('cell', { name: 'base', exact: true }) }).click();
    await admin.getByTestId('chatter').waitFor();
    await admin.getByTestId('form-readonly').waitFor();
    const message = admin.getByTestId('chatter-message').first();
    expect(await message.getByTestId('chatter-subject').textContent()).toBe('QA replay failed: 1/2 use cases of base (chromium)');
    expect(await message.getByTestId('chatter-body').innerText()).toContain(`Run ${runId} on chromium`);
    const link = message.getByTestId('chatter-link');
    expect(await link.getAttribute('href')).toBe(`/-/action-qa.action_runs/${runId}`);
    await shot(admin, 'qa-module-chatter', { dark: true, fullPage: true });
    // followed in the page: the run opens, under the reader's organization
    await link.click();
    await admin.waitForURL(`**/${slug}/action-qa.action_runs/${runId}`);
    await admin.getByTestId('form-readonly').waitFor();
    await expect.poll(() => fieldText(admin, 'usecase_count')).toBe('2');
    // opened as a new page (a link copied, a new tab): the session's shell opens it too
    const tab = await admin.context().newPage();
    await tab.goto(`/-/action-qa.action_runs/${runId}`);
    await tab.waitForURL(`**/${slug}/action-qa.action_runs/${runId}`);
    await expect.poll(() => lines(tab, 'results').count()).toBe(2);
    await tab.close();
  }, LONG);

  it('a use case shows its frozen steps, read-only lines that open as an editable step with its locator chains; use cases are not created here', async () => {
    await admin.getByTestId('menu-qa.menu_usecases').click();
    await admin.waitForURL(/\/action-qa\.action_usecases$/);
    await expect.poll(() => rows(admin).count()).toBe(2);
    // use cases come from promotion or import: no New (qaUsecaseCreate is not in the schema)
    expect(await admin.getByTestId('new-record').count()).toBe(0);
    await rows(admin).filter({ hasText: 'org.list' }).click();
    await admin.getByTestId('form-view').waitFor();
    // an admin may rename or deactivate a use case: the form is editable, its frozen steps are not
    await admin.getByTestId('form-save').waitFor();
    await expect.poll(() => lines(admin, 'steps').count()).toBe(3);
    expect(await admin.getByTestId('field-steps').locator('input, select, textarea').count()).toBe(0);
    expect(await admin.getByTestId('o2m-add-steps').count()).toBe(0);
    expect(await lines(admin, 'steps').nth(1).innerText()).toMatch(/^2\s+Click\s+Open the Organizations list\s+Always\s+—\s+—\s+—$/);
    await shot(admin, 'qa-usecase', { dark: true, fullPage: true });
    // a line opens from the keyboard too
    await lines(admin, 'steps').nth(1).press('Enter');
    await admin.waitForURL(/\/action-qa\.action_usecase_steps\/[0-9a-f-]{36}$/);
    // a step is edited here (a new version of its use case): its locators, value, assertion; moved or removed from the header
    await admin.getByTestId('form-save').waitFor();
    await expect.poll(() => admin.getByTestId('input-target').inputValue()).not.toBe('');
    expect(JSON.parse(await admin.getByTestId('input-target').inputValue())).toEqual({ candidates: ORGS_MENU });
    for (const b of ['move_up', 'move_down', 'remove']) await admin.getByTestId(`button-qa.usecase.step.${b}`).waitFor();
    await shot(admin, 'qa-usecase-step-edit', { dark: true, fullPage: true });
    // an edit in the form and a move from its header: each a new version of the use case
    const stepId = /([0-9a-f-]{36})$/.exec(admin.url())![1];
    await admin.getByTestId('input-caption').fill('Open the list of organizations');
    await admin.getByTestId('form-save').click();
    await expect.poll(() => admin.getByTestId('toast-info').last().innerText()).toContain('Saved.');
    await admin.getByTestId('button-qa.usecase.step.move_down').click();
    const readStep = () => env.kernel.dispatch<Rec>('fw.read_one', { model: 'qa.usecase.step', id: stepId }, sys());
    await expect.poll(async () => (await readStep()).sequence).toBe(3);
    const [edited] = await search('qa.usecase', [['key', '=', 'org.list']]);
    expect(edited.version).toBe(3);
    expect((await readStep()).caption).toBe('Open the list of organizations');
    expect(await admin.getByTestId('link-usecase_id').textContent()).toBe('Open the organizations');
  }, LONG);

  it('a plain user sees runs, results and use cases, not the modules; the screenshot route needs the token', async () => {
    const plain = await env.newPage();
    await login(plain, { email: PLAIN_EMAIL, password: PLAIN_PASSWORD });
    await plain.getByTestId('app-qa.menu_root').click();
    await plain.getByTestId('menu-qa.menu_runs').waitFor();
    expect(await plain.getByTestId('menu-qa.menu_usecases').count()).toBe(1);
    expect(await plain.getByTestId('menu-qa.menu_modules').count()).toBe(0);
    await expect.poll(() => rows(plain).count()).toBe(1);
    // a browser that asks for the screenshot without the token is refused
    const [step] = await search('qa.run.step', [['status', '=', 'failed']]);
    const status = await plain.evaluate((url) => fetch(url).then((r) => r.status), `/api/qa/run-steps/${step.id}/screenshot`);
    expect(status).toBe(401);
    await plain.goto(actionUrl(slug, 'qa.action_run_steps', step.id));
    await expect.poll(async () => (await images(plain, '[data-testid="field-screenshot_path"]')).length).toBe(1);
  }, LONG);

  it('with QA turned off, the QA menu left in the database is not shown', async () => {
    // the same data folder, booted without ENABLE_QA_AUTOMATION: ir.menu still holds the QA entries
    await env.close();
    env = await startWeb({ DATA_DIR: dataDir, ACTIVE_MODULES: MODULES });
    expect((await search('ir.menu', [['xml_id', 'in', ['qa.menu_root', 'qa.menu_runs']]])).length).toBe(2);
    const page = await env.newPage();
    await login(page);
    await page.getByTestId('app-storage.menu_documents').waitFor();
    expect(await page.locator('.nav-apps').innerText()).not.toContain('QA');
    expect(await page.getByTestId('app-qa.menu_root').count()).toBe(0);
    expect(await page.getByTestId('tile-qa.menu_root').count()).toBe(0);
  }, LONG);
});
