/**
 * Recording the search panel's menu triggers (issue 32, item 2). "Group by" and "Filters" open a
 * menu on press start; its overlay takes the pointer up, so Chromium dispatches the click on
 * `body` and the recorder used to store `[{by:'css',value:'body'}]`, a step that "passes"
 * anywhere. A trigger is now captured like any button (from what the pointer went down on), and
 * a step whose only candidate is the page itself is refused with a sentence in the recorder bar.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let admin: Page;

beforeAll(async () => {
  env = await startWeb({ ENABLE_QA_AUTOMATION: 'true', ACTIVE_MODULES: 'base,auth,presentation,connectors,storage' });
  admin = await env.newPage();
  await login(admin);
});
afterAll(async () => {
  await env?.close();
});

const ORGS = actionUrl('default', 'base.action_organizations');
const bar = (p: Page) => p.getByTestId('qa-recorder');
async function stored(p: Page, n: number): Promise<void> {
  await expect.poll(() => p.getByTestId('qa-count').getAttribute('data-count')).toBe(String(n));
  expect(await p.getByTestId('qa-queued').count()).toBe(0);
}

describe('recording menu and popover triggers', () => {
  let recordingId: string;

  it('a click on "Group by" and on "Filters" is recorded on the button (test id and role first), never on body', async () => {
    await admin.goto(ORGS);
    await admin.getByRole('button', { name: 'Record' }).click();
    await bar(admin).waitFor();
    const started = admin.waitForResponse((r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('QaRecordingStart'));
    await bar(admin).getByLabel('Use case key').fill('org.group-and-filter');
    await bar(admin).getByLabel('Module').selectOption('base');
    await bar(admin).getByLabel('Name').fill('Group and filter organizations');
    await bar(admin).getByRole('button', { name: 'Start recording' }).click();
    recordingId = (await (await started).json()).data.qaRecordingStart.id;
    await expect.poll(() => admin.getByTestId('qa-state').textContent()).toBe('Recording');

    await admin.getByTestId('search-groupby').click();
    await admin.getByRole('menuitemradio', { name: 'Country' }).click();
    await admin.getByTestId('search-filters').click();
    await admin.getByRole('menuitemcheckbox', { name: 'Archived' }).click();
    await admin.keyboard.press('Escape');
    await stored(admin, 4);
    const rec = (await env.api('GET', `/api/qa/recordings/${recordingId}`)).body as { steps: Array<{ kind: string; target: { candidates: Array<Array<{ by: string; value: string; name?: string }>> } }> };
    const clicks = rec.steps.filter((s) => s.kind === 'click');
    expect(clicks.map((s) => s.target.candidates[0][0])).toEqual([
      { by: 'testid', value: 'search-groupby' },
      expect.objectContaining({ by: 'role', value: 'menuitemradio', name: 'Country' }),
      { by: 'testid', value: 'search-filters' },
      { by: 'testid', value: 'filter-archived' },
    ]);
    for (const s of clicks) expect(s.target.candidates.flat().some((seg) => seg.by === 'css' && /^(body|html)$/.test(seg.value)), JSON.stringify(s.target)).toBe(false);
  });

  it('a click that reaches only the page itself is refused with a sentence in the recorder bar, and no step is stored', async () => {
    // nothing of the app can take the pointer: the click's target is body
    const root = (on: boolean) => admin.evaluate((v) => { document.getElementById('root')!.style.pointerEvents = v ? '' : 'none'; }, on);
    await root(false);
    expect(await admin.evaluate(() => document.elementFromPoint(640, 400)?.tagName)).toBe('BODY');
    await admin.mouse.click(640, 400);
    await root(true);
    const alert = admin.getByTestId('qa-error');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('That click was not recorded: it landed on the page itself, not on a control. Click the control again.');
    await stored(admin, 4);
    await shot(admin, 'qa-recorder-body-refused');
  });
});
