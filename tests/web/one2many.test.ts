/**
 * One2Many lines never offer what the line model cannot do, and never delete silently: the users
 * of an organization cannot be added as lines (a user needs a password no list shows; Save used to
 * end in a raw GraphQL variable error), and removing a saved line asks first, naming the record
 * that Save will delete.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, adminOrg, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: { id: string; code: string };

beforeAll(async () => {
  env = await startWeb();
  page = await env.newPage();
  await login(page);
  org = await adminOrg(env);
});
afterAll(async () => { await env?.close(); });

describe('One2Many lines', () => {
  it('users are not added as lines of an organization (their create needs a password), and removing one asks first', async () => {
    const res = await env.api('POST', '/api/data/res.user', { email: 'line.user@example.com', name: 'Lena Line', password: 'a-long-pass-9876', role: 'user', organization: org.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await page.goto(actionUrl(org.code, 'base.action_organizations', org.id));
    const users = page.getByTestId('o2m-users');
    await users.getByTestId('o2m-row').first().waitFor();
    expect(await page.getByTestId('o2m-add-users').count()).toBe(0);

    // remove Lena: a confirmation names what Save will delete; Cancel keeps the line
    // lines are edited in place: a row's name is the value of its name input
    const rows = users.getByTestId('o2m-row');
    await expect.poll(() => rows.evaluateAll((rs) => rs.some((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'))).toBe(true);
    const index = await rows.evaluateAll((rs) => rs.findIndex((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'));
    const lena = rows.nth(index);
    await lena.getByTestId('o2m-remove').click();
    const dialog = page.getByTestId('o2m-remove-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe('Remove Lena Line?');
    expect(await dialog.textContent()).toContain('deletes the user Lena Line');
    await shot(page, 'o2m-remove-confirm', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await rows.evaluateAll((rs) => rs.some((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'))).toBe(true);
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);

    // confirmed, then saved: the user is deleted
    await lena.getByTestId('o2m-remove').click();
    await page.getByTestId('o2m-remove-confirm').click();
    await expect.poll(() => rows.evaluateAll((rs) => rs.some((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'))).toBe(false);
    await page.getByTestId('dirty-mark').waitFor();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/data/res.user/${res.body.id}`)).status).toBe(404);
  });
});
