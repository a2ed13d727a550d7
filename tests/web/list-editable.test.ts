/**
 * Editable lists (issue 29 §2, `<list editable="bottom">`, Odoo's editable lists; Settings →
 * Countries ships one): a click edits the row in place with the form's inputs; Enter saves what
 * changed against the revision the row was read at, Escape puts it back; a field the server
 * refuses is marked and the row keeps what was typed; a record changed elsewhere meanwhile is
 * refused as the form's save is (STALE_REVISION), with Reload; "Add a line" creates a record;
 * people who may not write get the plain list, whose rows open nothing in place.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionUrl, axeSerious, describeViolations, login, shot, startSignedIn, toastText, type WebEnv,
} from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
});
afterAll(async () => { await env?.close(); });

const countries = (q?: string) => actionUrl(org, 'base.action_countries', undefined, q ? { q } : {});
const country = async (code: string) => (await env.gql('query($w: ResCountryWhere) { resCountries(where: $w) { id name code code3 numeric revision } }', { w: { code: { eq: code } } })).resCountries[0];
const rowOf = (p: Page, name: string) => p.getByTestId('list-row').filter({ hasText: name }).first();
const count = (p: Page, testId: string) => p.getByTestId(testId).count();

describe('an editable list', () => {
  it('a click edits the row in place; Enter saves what changed and the row shows it', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(countries('France'));
    await rowOf(page, 'France').click();
    await page.getByTestId('edit-row').waitFor();
    // the first input has the focus, filled with the record's values
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('edit-name');
    expect(await page.getByTestId('edit-code').inputValue()).toBe('FR');
    await page.getByTestId('edit-numeric').fill('251');
    expect(describeViolations(await axeSerious(page))).toBe('');
    // the theme is switched on the page, not with the shell's button: clicking it would leave the row (which saves)
    await shot(page, 'list-editable-row', { dark: true, themeByAttribute: true });
    await page.getByTestId('edit-numeric').press('Enter');
    await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
    await expect.poll(() => count(page, 'edit-row')).toBe(0);
    await expect.poll(async () => (await rowOf(page, 'France').innerText()).includes('251')).toBe(true);
    expect((await country('FR')).numeric).toBe('251');
  });

  it('Escape puts the row back and writes nothing', async () => {
    await page.goto(countries('France'));
    const before = await country('FR');
    await rowOf(page, 'France').click();
    await page.getByTestId('edit-name').fill('Gaul');
    await page.getByTestId('edit-name').press('Escape');
    await expect.poll(() => count(page, 'edit-row')).toBe(0);
    expect(await rowOf(page, 'France').isVisible()).toBe(true);
    expect(await country('FR')).toEqual(before);
  });

  it('a value the server refuses marks its cell, keeps what was typed and saves nothing', async () => {
    await page.goto(countries('France'));
    await rowOf(page, 'France').click();
    await page.getByTestId('edit-code3').fill('FRAN');
    await page.getByTestId('edit-code3').press('Enter');
    await expect.poll(() => toastText(page, 'error')).toContain('Some fields need attention.');
    expect(await page.getByTestId('edit-code3').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('edit-code3').inputValue()).toBe('FRAN');
    expect((await country('FR')).code3).toBe('FRA');
    await shot(page, 'list-editable-invalid', { dark: true, themeByAttribute: true });
    await page.getByTestId('edit-code3').press('Escape');
  });

  it('a record changed elsewhere since the list was read is refused (STALE_REVISION) and Reload shows the other change', async () => {
    await page.goto(countries('France'));
    await rowOf(page, 'France').click();
    await page.getByTestId('edit-name').fill('France (mine)');
    const fr = await country('FR');
    const other = await env.api('PATCH', `/api/data/res.country/${fr.id}`, { name: 'France (theirs)' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    await page.getByTestId('edit-name').press('Enter');
    await expect.poll(() => toastText(page, 'error')).toContain('changed elsewhere');
    expect((await country('FR')).name).toBe('France (theirs)');
    expect(await page.getByTestId('edit-name').inputValue()).toBe('France (mine)');
    await page.getByTestId('edit-reload').click();
    await expect.poll(() => count(page, 'edit-row')).toBe(0);
    await expect.poll(() => rowOf(page, 'France (theirs)').isVisible()).toBe(true);
    expect(await env.api('PATCH', `/api/data/res.country/${fr.id}`, { name: 'France' })).toMatchObject({ status: 200 });
  });

  it('"Add a line" edits a new row at the bottom; Enter creates the record (a list without a form has no New button)', async () => {
    await page.goto(countries('Atlantis'));
    await page.getByTestId('list-add-line').waitFor();
    expect(await count(page, 'new-record')).toBe(0);
    await page.getByTestId('list-add-line').click();
    await page.getByTestId('edit-row-new').waitFor();
    await page.getByTestId('edit-name').fill('Atlantis');
    await page.getByTestId('edit-code').fill('XQ');
    await page.getByTestId('edit-code3').fill('XQA');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'list-editable-new-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('edit-code3').press('Enter');
    await expect.poll(() => toastText(page, 'info')).toBe('Created.');
    await expect.poll(() => rowOf(page, 'Atlantis').isVisible()).toBe(true);
    expect(await country('XQ')).toMatchObject({ name: 'Atlantis', code3: 'XQA' });
  });

  it('someone who may only read gets the plain list: no inputs, no Add a line', async () => {
    const res = await env.api('POST', '/api/data/res.user', { name: 'Reader', email: 'reader@editable.example.com', password: 'reader-pass-1' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const other = await env.newPage();
    await login(other, { email: 'reader@editable.example.com', password: 'reader-pass-1' });
    await other.goto(countries('France'));
    await rowOf(other, 'France').waitFor();
    await rowOf(other, 'France').click();
    await other.waitForTimeout(300);
    expect(await count(other, 'edit-row')).toBe(0);
    expect(await count(other, 'list-add-line')).toBe(0);
    await other.context().close();
  });
});
