/**
 * The chatter of a form view (ir.message) in Chromium: a comment posted from an organization's
 * form is stored and listed (newest first, with its author); a message the server posts as the
 * system (as a QA replay does) is listed with its subject and link, also when it arrives while
 * the form is open (the live bridge refetches it); a new record's form has no thread yet.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { axeSerious, actionUrl, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let orgId: string;

beforeAll(async () => {
  env = await startWeb();
  const res = await env.api('POST', '/api/data/res.organization', { name: 'Chatter Works', code: 'chatter-works' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  orgId = res.body.id;
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const messages = async () =>
  (await env.api('GET', `/api/data/ir.message?filter=${encodeURIComponent(JSON.stringify([['res_id', '=', orgId]]))}&limit=100`)).body.items as Array<Record<string, any>>;

/** A message posted by the server itself (the system principal), as the QA replay posts its results. */
const systemPost = (values: Record<string, unknown>) =>
  env.kernel.dispatch('ir.message.post', { res_model: 'res.organization', res_id: orgId, message_type: 'notification', ...values }, systemPrincipal(env.kernel.settings.DEFAULT_TENANT));

const listed = () => page.getByTestId('chatter-message');

describe('chatter', () => {
  it('lists what the server posted, and a comment posted from the form appears first', async () => {
    await systemPost({ subject: 'Imported', body: 'Created by the nightly import.', link: '/api/qa/runs/42' });
    // the live bridge subscribes to ir.message once the chatter has queried it
    const live = env.subscribed('changed:ir.message');
    await page.goto(actionUrl('default', 'base.action_organizations', orgId));
    const chatter = page.getByTestId('chatter');
    await chatter.waitFor();
    await expect.poll(() => listed().count()).toBe(1);
    await live;
    const first = listed().first();
    expect(await first.getByTestId('chatter-author').textContent()).toBe('System');
    expect(await first.getByTestId('chatter-subject').textContent()).toBe('Imported');
    expect(await first.getByTestId('chatter-body').textContent()).toBe('Created by the nightly import.');
    expect(await first.getByTestId('chatter-link').getAttribute('href')).toBe('/api/qa/runs/42');
    expect(await first.getAttribute('data-type')).toBe('notification');

    // Post is disabled until something is typed; the comment goes through irMessagePost
    const post = chatter.getByRole('button', { name: 'Post' });
    expect(await post.isDisabled()).toBe(true);
    await chatter.getByRole('textbox', { name: 'Comment' }).fill('Called them: the contract is signed.\nSecond line.');
    await post.click();
    await expect.poll(() => listed().count()).toBe(2);
    expect(await listed().first().getByTestId('chatter-body').innerText()).toBe('Called them: the contract is signed.\nSecond line.');
    expect(await listed().first().getByTestId('chatter-author').textContent()).toBe((await env.gql('query { me { name } }')).me.name);
    expect(await listed().first().getAttribute('data-type')).toBe('comment');
    expect(await chatter.getByTestId('chatter-input').inputValue()).toBe('');
    // stored as a comment on the record, with its author
    const stored = (await messages()).find((m) => m.message_type === 'comment')!;
    expect(stored).toMatchObject({ res_model: 'res.organization', res_id: orgId, body: 'Called them: the contract is signed.\nSecond line.' });
    expect(stored.author_id).toBeTruthy();
    // posting a comment does not make the form dirty
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
    const violations = await axeSerious(page, '[data-testid="chatter"]');
    expect(violations, describeViolations(violations)).toEqual([]);
    await chatter.scrollIntoViewIfNeeded();
    await shot(page, 'chatter', { dark: true, fullPage: true });
  });

  it('a message the server posts while the form is open shows up without a reload', async () => {
    expect(await listed().count()).toBe(2);
    await systemPost({ subject: 'QA replay passed: 3/3 use cases', body: 'Run 7 on chromium (12 s).' });
    await expect.poll(() => listed().count()).toBe(3);
    expect(await listed().first().getByTestId('chatter-subject').textContent()).toBe('QA replay passed: 3/3 use cases');
    expect(await listed().first().getByTestId('chatter-author').textContent()).toBe('System');
    // Ctrl+Enter posts from the keyboard
    await page.getByTestId('chatter-input').fill('Thanks, noted.');
    await page.getByTestId('chatter-input').press('Control+Enter');
    await expect.poll(() => listed().count()).toBe(4);
    expect(await listed().first().getByTestId('chatter-body').textContent()).toBe('Thanks, noted.');
  });

  it('a new record has no thread yet', async () => {
    await page.goto(actionUrl('default', 'base.action_organizations', 'new'));
    await page.getByTestId('form-view').waitFor();
    expect(await page.getByTestId('chatter').innerText()).toContain('Save the record to see its activity');
    expect(await page.getByTestId('chatter-input').count()).toBe(0);
  });
});
