/**
 * Saved filters in the search bar (issue 29 §2): the whole search (text, filters, group-by, sort)
 * saved under a name from the Favorites menu, private or shared with the organization, applied
 * from the menu, the default one applied when the action opens with no search in its URL (never
 * after the person cleared it), and deleted by its owner. A refused save keeps the dialog and
 * what was typed.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionUrl, axeSerious, describeViolations, login, seedLeads, shot, startSignedIn, toastText, type WebEnv,
} from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
  await seedLeads(env, [
    { name: 'Alpha one', stage: 'new', expected_revenue: 70 },
    { name: 'Alpha two', stage: 'won', expected_revenue: 60 },
    { name: 'Alpha three', stage: 'qualified', expected_revenue: 50 },
    { name: 'Gamma', stage: 'qualified', expected_revenue: 40 },
    { name: 'Zeta', stage: 'lost', expected_revenue: 10 },
  ]);
});
afterAll(async () => { await env?.close(); });

const params = (p: Page) => new URL(p.url()).searchParams;
/** The URL's `filter` list (the router writes a list as JSON, a single value as text). */
const filters = (p: Page): string[] => {
  const v = params(p).get('filter');
  if (!v) return [];
  try { return JSON.parse(v) as string[]; } catch { return [v]; }
};
const count = (p: Page, testId: string) => p.getByTestId(testId).count();
const names = (p: Page) => p.getByTestId('list-row').evaluateAll((rows) => rows.map((r) => (r as HTMLTableRowElement).cells[1]?.innerText.trim()));
const leads = (search: Record<string, string | string[]> = {}) => actionUrl(org, 'crm.action_leads', undefined, { view: 'list', ...search });
const favorites = async (p: Page) => {
  await p.getByTestId('search-favorites').click();
  await p.getByRole('menu').waitFor();
  return (await p.getByRole('menu').getByRole('menuitemradio').or(p.getByRole('menu').getByRole('menuitem')).allTextContents()).map((s) => s.trim());
};
async function saveCurrent(p: Page, name: string, opts: { shared?: boolean; isDefault?: boolean } = {}) {
  await favorites(p);
  await p.getByTestId('favorite-save').click();
  await p.getByTestId('favorite-name').fill(name);
  if (opts.shared) await p.getByTestId('favorite-shared').check();
  if (opts.isDefault) await p.getByTestId('favorite-default').check();
  await p.getByTestId('favorite-submit').click();
}

describe('saved filters', () => {
  it('saving the current search stores its text and filters under a name, and applying it restores them', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(leads({ q: 'alpha', filter: 'Open' }));
    await expect.poll(() => names(page)).toEqual(['Alpha one', 'Alpha three']);
    await favorites(page);
    await page.getByTestId('favorite-save').click();
    await page.getByTestId('favorite-name').fill('Open alphas');
    await page.getByTestId('favorite-shared').check();
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'favorites-save-dialog', { dark: true, themeByAttribute: true });
    await page.getByTestId('favorite-submit').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Saved "Open alphas"');
    await expect.poll(() => count(page, 'favorite-dialog')).toBe(0);

    await page.goto(leads());
    await expect.poll(() => names(page)).toHaveLength(5);
    expect(await favorites(page)).toEqual(['Open alphas · shared', 'Save current search…']);
    await page.getByTestId('favorite-Open alphas').click();
    await expect.poll(() => params(page).get('q')).toBe('alpha');
    expect(filters(page)).toEqual(['Open']);
    await expect.poll(() => names(page)).toEqual(['Alpha one', 'Alpha three']);
    // the applied favorite is marked, and its owner may delete it
    await favorites(page);
    expect(await page.getByTestId('favorite-Open alphas').getAttribute('aria-checked')).toBe('true');
    expect(await page.getByTestId('favorite-delete').textContent()).toBe('Delete "Open alphas"');
    await shot(page, 'favorites-menu', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.keyboard.press('Escape');
  });

  it('a shared favorite is listed for a colleague of the organization, who may apply it but not delete it', async () => {
    const res = await env.api('POST', '/api/data/res.user', { name: 'Colleague', email: 'colleague@filters.example.com', password: 'colleague-pass-1' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const other = await env.newPage();
    await login(other, { email: 'colleague@filters.example.com', password: 'colleague-pass-1' });
    await other.goto(leads());
    expect(await favorites(other)).toEqual(['Open alphas · shared', 'Save current search…']);
    await other.getByTestId('favorite-Open alphas').click();
    await expect.poll(() => new URL(other.url()).searchParams.get('q')).toBe('alpha');
    await favorites(other);
    expect(await count(other, 'favorite-delete')).toBe(0);
    await other.setViewportSize({ width: 390, height: 844 });
    await shot(other, 'favorites-menu-phone', { dark: true, themeByAttribute: true });
    await other.context().close();
  });

  it('the default favorite applies when the action opens with no search, and not again once the person cleared it', async () => {
    await page.goto(leads({ filter: 'Won', group_by: 'stage' }));
    await saveCurrent(page, 'Won by stage', { isDefault: true });
    await expect.poll(() => toastText(page, 'info')).toBe('Saved "Won by stage"');
    // from the menu: the action's URL names no search
    await page.goto(actionUrl(org, 'crm.action_leads'));
    await expect.poll(() => filters(page)).toEqual(['Won']);
    expect(params(page).get('group_by')).toBe('stage');
    await page.getByRole('button', { name: 'Remove Won' }).click();
    await page.getByRole('button', { name: 'Remove Group by: Stage' }).click();
    await expect.poll(() => filters(page)).toEqual([]);
    await page.waitForTimeout(300);
    expect(filters(page)).toEqual([]);
    expect(params(page).get('group_by')).toBeNull();
  });

  it('the owner deletes an applied favorite from the menu; it is gone for everyone', async () => {
    await page.goto(leads());
    await favorites(page);
    await page.getByTestId('favorite-Open alphas').click();
    await expect.poll(() => params(page).get('q')).toBe('alpha');
    await favorites(page);
    await page.getByTestId('favorite-delete').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Deleted "Open alphas"');
    await expect.poll(() => favorites(page)).toEqual(['Won by stage · default', 'Save current search…']);
    await page.keyboard.press('Escape');
    const left = await env.gql('query { irFilters { name } }');
    expect(left.irFilters.map((f: { name: string }) => f.name)).toEqual(['Won by stage']);
  });

  it('a save the server refuses shows why and keeps the dialog with the name typed', async () => {
    // a search text longer than a saved search holds (500 characters): 422 INVALID_SAVED_SEARCH
    await page.goto(leads({ q: 'x'.repeat(600) }));
    await saveCurrent(page, 'Too long');
    await expect.poll(() => toastText(page, 'error')).toContain('saved search holds text of at most 500 characters (search.q)');
    expect(await page.getByTestId('favorite-dialog').isVisible()).toBe(true);
    expect(await page.getByTestId('favorite-name').inputValue()).toBe('Too long');
    await page.getByTestId('favorite-cancel').click();
    const left = await env.gql('query { irFilters { name } }');
    expect(left.irFilters.map((f: { name: string }) => f.name)).toEqual(['Won by stage']);
  });
});
