/**
 * The QA recorder in Chromium against a real server with QA automation on
 * (ENABLE_QA_AUTOMATION). The header's "Record" toggle shows for the admin and qa roles only; the
 * floating bar starts a recording and every action on the platform's pages becomes one step,
 * sent in order (clicks, fills sent once, Enter, an upload on the button that opened the picker,
 * a page loaded at another address as `navigate`), each target with ordered locator candidates,
 * a test id or role + name first; assertions, captions and chapters come from the bar; a
 * recording survives a reload; a password is never sent; Finish finalises it, and a qa user
 * promotes it (from the bar, also when attached through `?qa_recording=<uuid>`).
 *
 * The flow that creates an organization is recorded by the admin: the qa role may record, but
 * may not create organizations (res.organization is `admin: crud, *: r`); the qa user then
 * promotes it, and records a flow of its own on the documents page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveTarget } from '../../src/apps/qa/replay/locate.ts';
import { replay } from '../../src/apps/qa/replay/run.ts';
import type { StepTarget } from '../../src/apps/qa/steps.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { actionUrl, adminOrg, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

const QA_EMAIL = 'qa@example.com';
const QA_PASSWORD = 'qa-pass-1234';
const PIN = 'Sup3r-Secret-PIN-4711';

let env: WebEnv;
let admin: Page;
let recordingId: string;
let qaToken: string;
/** Replays (the last test) write their traces here. */
const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-recorder-'));

beforeAll(async () => {
  env = await startWeb({
    ENABLE_QA_AUTOMATION: 'true', ACTIVE_MODULES: 'base,auth,presentation,connectors,storage',
    // the recorded flow is replayed at the end
    QA_E2E_ENABLED: 'true', QA_E2E_TRACE_DIR: traceDir, QA_E2E_BROWSERS: 'chromium',
  });
  const org = await adminOrg(env);
  for (const [email, role] of [[QA_EMAIL, 'qa'], ['plain@example.com', 'user']]) {
    const res = await env.api('POST', '/api/data/res.user', { email, name: role === 'qa' ? 'Quinn QA' : 'Pat Plain', password: QA_PASSWORD, role, organization: org.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  qaToken = (await env.api('POST', '/api/auth/login', { email: QA_EMAIL, password: QA_PASSWORD })).body.access_token;
  admin = await env.newPage();
  await login(admin);
});
afterAll(async () => {
  await env?.close();
  fs.rmSync(traceDir, { recursive: true, force: true });
});

const DOCS = actionUrl('default', 'storage.action_documents');
const ORGS = actionUrl('default', 'base.action_organizations');
const bar = (p: Page) => p.getByTestId('qa-recorder');
/** Waits until the bar shows `n` steps stored on the server (and nothing left to send). */
async function stored(p: Page, n: number): Promise<void> {
  await expect.poll(() => p.getByTestId('qa-count').getAttribute('data-count')).toBe(String(n));
  expect(await p.getByTestId('qa-queued').count()).toBe(0);
}
const recording = async (id: string, token?: string) => {
  const res = await env.api('GET', `/api/qa/recordings/${id}`, undefined, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { status: string; start_path: string; steps: Array<Record<string, any>> };
};
/** How the first candidate finds its element (a saved-value check's starts at the saved form: the segment after it). */
const firstBy = (s: Record<string, any>) => s.target?.candidates?.[0]?.find((x: { value: string }) => !x.value.includes('[data-synced]'))?.by;

async function startRecording(p: Page, key: string, module: string, name: string): Promise<string> {
  const started = p.waitForResponse((r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('QaRecordingStart'));
  await bar(p).getByLabel('Use case key').fill(key);
  await bar(p).getByLabel('Module').selectOption(module);
  await bar(p).getByLabel('Name').fill(name);
  await bar(p).getByRole('button', { name: 'Start recording' }).click();
  const body = await (await started).json();
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  await expect.poll(() => p.getByTestId('qa-state').textContent()).toBe('Recording');
  return body.data.qaRecordingStart.id as string;
}

describe('QA recorder', () => {
  it('the Record toggle is there for admin and qa, not for other roles; the bar is loaded on demand', async () => {
    const plain = await env.newPage();
    await login(plain, { email: 'plain@example.com', password: QA_PASSWORD });
    await plain.getByTestId('theme-toggle').waitFor();
    expect(await plain.getByTestId('qa-record-toggle').count()).toBe(0);
    await plain.context().close();

    const chunks: string[] = [];
    admin.on('request', (r) => { if (r.url().includes('/assets/RecorderBar')) chunks.push(r.url()); });
    await admin.getByTestId('qa-record-toggle').waitFor();
    expect(chunks, 'the recorder is not part of the first load').toEqual([]);
    await admin.getByRole('button', { name: 'Record' }).click();
    await bar(admin).waitFor();
    expect(chunks.length).toBeGreaterThan(0);
    // a key that is not a use-case key is refused before anything is sent
    await bar(admin).getByLabel('Use case key').fill('Not A Key');
    await bar(admin).getByRole('button', { name: 'Start recording' }).click();
    await expect.poll(() => bar(admin).innerText()).toContain('A use case key is lower-case letters');
    // recording is real work in this tenant, said before it starts; replays use the sandbox
    expect(await bar(admin).getByTestId('qa-start-writes-here').innerText()).toBe('What you create, change or upload while recording is saved for real in tenant default. Replays run in the sandbox tenant, never here.');
    const violations = await axeSerious(admin, '[data-testid="qa-recorder"]');
    expect(violations, describeViolations(violations)).toEqual([]);
    await shot(admin, 'qa-recorder-start', { dark: true, themeByAttribute: true });
  });

  it('records a flow: create an organization, edit it, upload a document, assert, caption; survives a page load', async () => {
    recordingId = await startRecording(admin, 'org.create-and-upload', 'base', 'Create an organization and file a report');
    await stored(admin, 0);
    // a chapter marks the first part
    await bar(admin).getByRole('button', { name: 'Chapter' }).click();
    await bar(admin).getByTestId('qa-chapter-input').fill('Create an organization');
    await bar(admin).getByTestId('qa-chapter-save').click();
    await stored(admin, 1);

    // create: Settings → Organizations → New → Name → Save
    await admin.getByTestId('app-base.menu_settings').click();
    await admin.getByTestId('menu-base.menu_organizations').click();
    await admin.getByTestId('new-record').click();
    await admin.getByTestId('input-name').fill('Acme Labs');
    await admin.getByTestId('form-save').click();
    await expect.poll(() => admin.getByTestId('form-title').textContent()).toBe('Acme Labs');
    // the click on Save, then the check of the Name it saved (read back from the saved form)
    await stored(admin, 7);

    // edit: back to the list, open the row, change the slug, save
    await admin.getByTestId('breadcrumb-action').click();
    await admin.getByRole('row', { name: 'Acme Labs' }).click();
    await expect.poll(() => admin.getByTestId('input-name').inputValue()).toBe('Acme Labs');
    await admin.getByTestId('input-code').fill('acme-labs');
    await admin.getByTestId('input-is_active').uncheck();
    await admin.getByTestId('form-save').click();
    await expect.poll(() => admin.getByTestId('toast-info').last().innerText()).toContain('Saved.');
    // Save, then a check of each field changed: the slug and Active
    await stored(admin, 14);

    // a page loaded at another address (typed in the address bar): the bar comes back attached, and it is a navigate step
    await admin.goto(DOCS);
    await bar(admin).waitFor();
    await stored(admin, 15);
    await admin.reload(); // a reload of the same page is no step
    await bar(admin).waitFor();
    await stored(admin, 15);

    // a folder, created in a dialog
    await admin.getByTestId('folder-tree').waitFor();
    await admin.getByTestId('new-folder').click();
    await admin.getByTestId('folder-name').fill('Reports');
    await admin.getByTestId('folder-create').click();
    await admin.getByTestId('folder-Reports').waitFor();
    await stored(admin, 18);
    // upload through the picker: one step, on the button that opened it, with the file's name
    const [chooser] = await Promise.all([admin.waitForEvent('filechooser'), admin.getByTestId('upload-button').click()]);
    await chooser.setFiles({ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('quarterly report') });
    // two cells read report.txt (name and file name): the first one
    const row = admin.getByTestId('document-row').filter({ hasText: 'report.txt' });
    const cell = row.getByRole('cell').first();
    await cell.waitFor();
    await stored(admin, 19);
    // a select names the option by its label when its value is a record id
    await row.getByTestId('doc-move').selectOption({ label: 'Reports' });
    await expect.poll(() => admin.getByTestId('toast-info').last().innerText()).toContain('Moved to Reports.');
    await stored(admin, 20);

    // an assertion: the next click picks the element (the page does not act on it)
    await bar(admin).getByRole('button', { name: 'Add assertion' }).click();
    await admin.getByTestId('qa-picking').waitFor();
    await cell.click();
    await bar(admin).getByTestId('qa-picked').waitFor();
    expect(admin.url()).toContain('/action-storage.action_documents');
    await shot(admin, 'qa-recorder-assert', { dark: true, themeByAttribute: true });
    await bar(admin).getByTestId('qa-assert-text').click();
    await stored(admin, 21);
    // a caption for that last step
    await bar(admin).getByRole('button', { name: 'Add caption' }).click();
    await bar(admin).getByTestId('qa-caption-input').fill('The uploaded report is listed.');
    await bar(admin).getByTestId('qa-caption-save').click();
    await expect.poll(() => admin.getByTestId('qa-last').textContent()).toContain('The uploaded report is listed.');
    await shot(admin, 'qa-recorder-bar', { dark: true, themeByAttribute: true });
    const violations = await axeSerious(admin, '[data-testid="qa-recorder"]');
    expect(violations, describeViolations(violations)).toEqual([]);

    // the targets recorded on this page resolve, first candidate first, as the replay engine resolves them
    const rec = await recording(recordingId);
    for (const kind of ['upload', 'select', 'assert']) {
      const step = [...rec.steps].reverse().find((s) => s.kind === kind)!; // the last: the saved-value checks before it are on the organization's form
      const found = await resolveTarget(admin, step.target as StepTarget, 5000);
      expect(found.candidate, `${kind}: ${found.chain}`).toBe(0);
    }

    await bar(admin).getByRole('button', { name: 'Finish' }).click();
    await expect.poll(() => admin.getByTestId('qa-status').getAttribute('data-status')).toBe('finalised');
    // an admin records but does not promote
    expect(await admin.getByTestId('qa-promote').count()).toBe(0);
    await admin.getByTestId('qa-promote-hint').waitFor();
  });

  it('stored the expected steps, in order, each target with a test id or role candidate first', async () => {
    const rec = await recording(recordingId);
    expect(rec.status).toBe('finalised');
    expect(rec.start_path).toBe('/default');
    const steps = rec.steps;
    expect(steps.map((s) => s.sequence)).toEqual(steps.map((_, i) => i + 1));
    expect(steps.map((s) => s.kind)).toEqual([
      'chapter', 'click', 'click', 'click', 'fill', 'click', 'assert', 'click', 'click', 'fill', 'uncheck', 'click', 'assert', 'assert', 'navigate',
      'click', 'fill', 'click', 'upload', 'select', 'assert',
    ]);
    expect(steps[0].caption).toBe('Create an organization');
    for (const s of steps.filter((x) => x.target)) expect(['testid', 'role'], JSON.stringify(s.target)).toContain(firstBy(s));
    const first = (i: number) => steps[i].target.candidates[0];
    expect(first(1)).toEqual([{ by: 'testid', value: 'app-base.menu_settings' }]);
    expect(first(2)).toEqual([{ by: 'testid', value: 'menu-base.menu_organizations' }]);
    expect(first(3)).toEqual([{ by: 'testid', value: 'new-record' }]);
    expect(first(4)).toEqual([{ by: 'testid', value: 'input-name' }]);
    expect(steps[4].value).toEqual({ kind: 'literal', value: 'Acme Labs' });
    expect(first(5)).toEqual([{ by: 'testid', value: 'form-save' }]);
    // fallbacks follow: role + accessible name, label, CSS last
    expect(steps[4].target.candidates).toContainEqual([{ by: 'role', value: 'textbox', name: 'Name', exact: true }]);
    expect(steps[4].target.candidates).toContainEqual([{ by: 'label', value: 'Name' }]);
    expect(steps[4].target.candidates.at(-1)[0].by).toBe('css');
    expect(steps[5].target.candidates).toContainEqual([{ by: 'role', value: 'button', name: 'Save', exact: true }]);
    // each save is followed by the checks of what the person left in the fields, on the form read back after it
    const synced = { by: 'css', value: 'form[data-testid="form-view"][data-synced]' };
    expect(steps[6]).toMatchObject({ kind: 'assert', assertion: { kind: 'value', expected: 'Acme Labs' }, caption: 'Name holds Acme Labs after saving' });
    expect(first(6)).toEqual([synced, { by: 'testid', value: 'input-name' }]);
    expect(steps[12]).toMatchObject({ kind: 'assert', assertion: { kind: 'value', expected: 'acme-labs' }, caption: 'Workspace slug holds acme-labs after saving' });
    expect(first(12)).toEqual([synced, { by: 'testid', value: 'input-code' }]);
    expect(steps[13]).toMatchObject({ kind: 'assert', assertion: { kind: 'checked', expected: 'false' }, caption: 'Active is not ticked after saving' });
    expect(first(13)).toEqual([synced, { by: 'testid', value: 'input-is_active' }]);
    // a repeated name is narrowed by its parent: the breadcrumb's "Organizations" link, the list row by its name
    expect(steps[7].target.candidates).toContainEqual([{ by: 'role', value: 'navigation', name: 'Breadcrumb', exact: true }, { by: 'role', value: 'link', name: 'Organizations', exact: true }]);
    expect(first(8)).toEqual([{ by: 'role', value: 'row', name: 'Acme Labs', exact: false }]);
    expect(first(9)).toEqual([{ by: 'testid', value: 'input-code' }]);
    expect(steps[9].value).toEqual({ kind: 'literal', value: 'acme-labs' });
    expect(first(10)).toEqual([{ by: 'testid', value: 'input-is_active' }]);
    expect(steps[10].target.candidates).toContainEqual([{ by: 'role', value: 'checkbox', name: 'Active', exact: true }]);
    expect(steps[14].value).toEqual({ kind: 'literal', value: '/default/action-storage.action_documents' });
    expect(steps[14].target ?? null).toBeNull();
    expect(first(15)).toEqual([{ by: 'testid', value: 'new-folder' }]);
    expect(first(16)).toEqual([{ by: 'testid', value: 'folder-name' }]);
    expect(steps[16].target.candidates).toContainEqual([{ by: 'role', value: 'textbox', name: 'Folder name', exact: true }]);
    expect(first(17)).toEqual([{ by: 'testid', value: 'folder-create' }]);
    expect(first(18)).toEqual([{ by: 'testid', value: 'upload-button' }]);
    expect(steps[18].value).toEqual({ kind: 'literal', value: 'report.txt' });
    // a test id inside a table row is named through its row (rows repeat it)
    expect(first(19)).toEqual([{ by: 'role', value: 'row', name: 'report.txt', exact: false }, { by: 'testid', value: 'doc-move' }]);
    expect(steps[19].target.candidates).toContainEqual([{ by: 'role', value: 'combobox', name: 'Move to folder: report.txt', exact: true }]);
    expect(steps[19].value).toEqual({ kind: 'literal', value: 'Reports' });
    // a name shared by two cells of the row: the first of them, in the row named after the document
    expect(first(20)).toEqual([{ by: 'role', value: 'row', name: 'report.txt', exact: false }, { by: 'role', value: 'cell', name: 'report.txt', exact: true }, { by: 'nth', value: '0' }]);
    expect(steps[20].assertion).toEqual({ kind: 'text', expected: 'report.txt' });
    expect(steps[20].caption).toBe('The uploaded report is listed.');
    expect(steps[5].url).toBe('/default/action-base.action_organizations/new');
    // the recorder sends no policy: every step keeps the default, a screenshot per step in replays
    for (const s of steps) expect(s.screenshot).toBe('always');
  });

  it('a qa user records with Enter, pauses, types a password (never sent), finishes and promotes from the bar', async () => {
    const qa = await env.newPage();
    await login(qa, { email: QA_EMAIL, password: QA_PASSWORD });
    await qa.goto(ORGS);
    await qa.getByTestId('search-input').waitFor();
    await qa.getByTestId('qa-record-toggle').click();
    const id = await startRecording(qa, 'organizations.search', 'base', 'Search the organizations');
    // an error reads as a sentence: nothing recorded yet, nothing to finish
    await bar(qa).getByRole('button', { name: 'Finish' }).click();
    await expect.poll(() => qa.getByTestId('qa-error').locator('span').textContent()).toBe('Record at least one step before finishing.');
    await bar(qa).getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => qa.getByTestId('qa-error').count()).toBe(0);
    await qa.getByTestId('search-input').fill('Default');
    await qa.getByTestId('search-input').press('Enter');
    await stored(qa, 2);
    await expect.poll(() => new URL(qa.url()).searchParams.get('q')).toBe('Default');
    // paused: nothing is captured
    await bar(qa).getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => qa.getByTestId('qa-state').textContent()).toBe('Paused');
    await qa.getByTestId('theme-toggle').click();
    await qa.getByTestId('theme-toggle').click();
    await bar(qa).getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => qa.getByTestId('qa-state').textContent()).toBe('Recording');
    // a password field: the step carries the secret `password`, never the typed text
    await qa.evaluate(() => {
      const input = Object.assign(document.createElement('input'), { type: 'password' });
      input.setAttribute('data-testid', 'pin-code');
      input.setAttribute('aria-label', 'PIN');
      document.querySelector('main')!.prepend(input);
    });
    await qa.getByTestId('pin-code').fill(PIN);
    await qa.getByTestId('pin-code').press('Tab');
    await stored(qa, 3);
    await bar(qa).getByRole('button', { name: 'Finish' }).click();
    await expect.poll(() => qa.getByTestId('qa-status').getAttribute('data-status')).toBe('finalised');
    await bar(qa).getByTestId('qa-promote').click();
    await expect.poll(() => qa.getByTestId('qa-promoted').textContent()).toBe('Promoted: use case organizations.search, version 1.');

    const rec = await recording(id, qaToken);
    expect(rec.status).toBe('promoted');
    expect(rec.steps.map((s) => s.kind)).toEqual(['fill', 'press', 'fill']);
    expect(rec.start_path).toBe('/default/action-base.action_organizations');
    expect(rec.steps[0]).toMatchObject({ value: { kind: 'literal', value: 'Default' } });
    expect(rec.steps[0].target.candidates[0]).toEqual([{ by: 'testid', value: 'search-input' }]);
    expect(rec.steps[1]).toMatchObject({ value: { kind: 'literal', value: 'Enter' } });
    expect(rec.steps[1].target.candidates[0]).toEqual([{ by: 'testid', value: 'search-input' }]);
    expect(rec.steps[2].value).toEqual({ kind: 'secret', value: 'password' });
    expect(rec.steps[2].target.candidates[0]).toEqual([{ by: 'testid', value: 'pin-code' }]);
    const usecase = await env.api('GET', '/api/qa/usecases/organizations.search', undefined, qaToken);
    expect(usecase.body).toMatchObject({ key: 'organizations.search', module: 'base', version: 1 });
    expect(JSON.stringify(rec) + JSON.stringify(usecase.body)).not.toContain(PIN);
    await qa.getByTestId('qa-close').click();
    await expect.poll(() => bar(qa).count()).toBe(0);
    await qa.context().close();
  });

  it('a qa user opening ?qa_recording=<uuid> gets the bar attached to that recording and promotes it', async () => {
    const qa = await env.newPage();
    await login(qa, { email: QA_EMAIL, password: QA_PASSWORD });
    await qa.goto(`/default?qa_recording=${recordingId}`);
    await expect.poll(() => qa.getByTestId('qa-status').getAttribute('data-status')).toBe('finalised');
    expect(await qa.getByTestId('qa-status').textContent()).toBe('21 steps recorded for org.create-and-upload.');
    await shot(qa, 'qa-recorder-promote', { dark: true, themeByAttribute: true });
    await bar(qa).getByTestId('qa-promote').click();
    await expect.poll(() => qa.getByTestId('qa-promoted').textContent()).toBe('Promoted: use case org.create-and-upload, version 1.');
    const rec = await recording(recordingId);
    expect(rec.status).toBe('promoted');
    const uc = await env.api('GET', '/api/qa/usecases/org.create-and-upload', undefined, qaToken);
    expect(uc.status, JSON.stringify(uc.body)).toBe(200);
    expect(uc.body).toMatchObject({ key: 'org.create-and-upload', module: 'base', source: 'recording', start_path: '/default', version: 1 });
    const strip = (s: any) => ({ kind: s.kind, target: s.target, value: s.value, assertion: s.assertion, caption: s.caption });
    expect(uc.body.steps.map(strip)).toEqual(rec.steps.map(strip));
    await qa.context().close();
  });

  it('the promoted use case replays green in the sandbox (fw e2e replay), every target found by its first candidate', async () => {
    const lines: string[] = [];
    const tenant = env.kernel.settings.DEFAULT_TENANT;
    const out = await replay(env.kernel, { tenant, usecase: 'org.create-and-upload', fixturesDir: traceDir, log: (l) => lines.push(l) });
    const log = lines.join('\n');
    expect(out.runs, log).toHaveLength(1);
    expect(out.runs[0].status, log).toBe('passed');
    const sys = systemPrincipal(tenant);
    const search = async (model: string, domain: unknown[]) =>
      (await env.kernel.dispatch<{ items: Array<Record<string, any>> }>('fw.search', { model, domain, order: 'dbid asc', limit: 100 }, sys)).items;
    const [result] = await search('qa.run.result', [['run_id', '=', out.runs[0].id]]);
    const steps = await search('qa.run.step', [['result_id', '=', result.id]]);
    expect(steps).toHaveLength(21);
    for (const s of steps) {
      expect(s.status, `${s.sequence} ${s.kind}: ${s.error}`).toBe('passed');
      if (s.matched_locator) expect(s.matched_locator.candidate, `${s.sequence} ${s.kind}: ${JSON.stringify(s.tried_locators)}`).toBe(0);
    }
  }, 180_000);
});
