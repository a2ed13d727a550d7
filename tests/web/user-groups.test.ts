/**
 * An administrator gives a user groups from the user form (issue 25 §1, "an admin screen from
 * views"): res.user.groups is drawn by the base app's `base.groups` widget, one checkbox per
 * group the active apps declare with its description; what a checked group implies is marked
 * included. Saved, the user holds the group at their next request (here: the qa role's commands).
 * Screenshots light and dark at desktop and phone width; axe finds no serious violation.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, shot, startSignedIn, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;
let userId: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn({ ENABLE_QA_AUTOMATION: 'true' }));
  const made = await env.api('POST', '/api/data/res.user', { email: 'grouped@example.com', name: 'Grace Grouped', password: 'grouped-pass-1' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  userId = made.body.id;
});
afterAll(async () => { await env?.close(); });

describe('groups on the user form', () => {
  it('lists every declared group with its description; checking QA tester and saving stores it, and the list shows its label', async () => {
    await page.goto(actionUrl(org, 'base.action_users', userId));
    const list = page.getByTestId('input-groups');
    await list.waitFor();
    const groups = await page.locator('[data-testid^="group-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(groups).toEqual(['group-base.admin', 'group-base.user', 'group-qa.tester']);
    await expect.poll(() => page.getByTestId('group-qa.tester').innerText()).toMatch(/QA tester\s+Records, replays and promotes use cases/);

    await page.getByTestId('group-qa.tester').getByRole('checkbox').check();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/data/res.user/${userId}`)).body.groups).toEqual(['qa.tester']);
    await page.reload();
    await expect.poll(() => page.getByTestId('group-qa.tester').getByRole('checkbox').isChecked()).toBe(true);
    await shot(page, 'user-groups-form', { dark: true });
    const violations = await axeSerious(page, '[data-testid="input-groups"]');
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'user-groups-form-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('unchecking saves an empty list; the user then holds their role only', async () => {
    await page.goto(actionUrl(org, 'base.action_users', userId));
    await page.getByTestId('group-qa.tester').getByRole('checkbox').uncheck();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/data/res.user/${userId}`)).body.groups).toEqual([]);
  });
});
