/**
 * The pivot view (views/crm.sales/crm_lead_pivot.xml: leads by stage and month, expected revenue):
 * the Leads action switches to it; its cells are the sums of the data with row and column totals;
 * headers collapse and expand (Odoo's); measures are added and removed; "Download CSV" saves the
 * table as shown; the search filters it. Screenshots light and dark at desktop and phone width;
 * axe finds no serious or critical violation.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, insertLeads, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
beforeAll(async () => {
  env = await startWeb();
  await insertLeads(env, [
    { name: 'P oct new', stage: 'new', expected_revenue: 100, created_at_utc: '2026-10-05T09:00:00Z' },
    { name: 'P oct qual', stage: 'qualified', expected_revenue: 300, created_at_utc: '2026-10-20T09:00:00Z' },
    { name: 'P nov new', stage: 'new', expected_revenue: 200, created_at_utc: '2026-11-02T09:00:00Z' },
    { name: 'P nov won A', stage: 'won', expected_revenue: 1000, created_at_utc: '2026-11-15T09:00:00Z' },
    { name: 'P nov won B', stage: 'won', expected_revenue: 500, created_at_utc: '2026-11-30T22:00:00Z' },
    { name: 'P dec lost', stage: 'lost', expected_revenue: 50, created_at_utc: '2026-12-01T00:30:00Z' },
  ]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

/** Every row of the table as text: header rows, then one per row group (its header, then its cells). */
const table = (p: Page) => p.getByTestId('pivot').locator('tr').evaluateAll((rows) =>
  rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent!.replace(/[▸▾]\s*/, '').trim())));

describe('pivot view', () => {
  it('the Leads action switches to the pivot: expected revenue by stage and month, with totals', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await page.getByTestId('kanban').waitFor();
    await page.getByTestId('switch-pivot').click();
    await page.getByTestId('pivot').waitFor();
    expect(new URL(page.url()).searchParams.get('view')).toBe('pivot');
    expect(await page.getByTestId('view-title').textContent()).toBe('Leads analysis');
    await expect.poll(() => table(page)).toEqual([
      ['', 'Total', 'Total'],
      ['October 2026', 'November 2026', 'December 2026'],
      ['Expected revenue', 'Expected revenue', 'Expected revenue', 'Expected revenue'],
      ['Total', '400', '1,700', '50', '2,150'],
      ['New', '100', '200', '', '300'],
      ['Qualified', '300', '', '', '300'],
      ['Won', '', '1,500', '', '1,500'],
      ['Lost', '', '', '50', '50'],
    ]);
    // a real table: column headers, row headers, a caption
    expect(await page.getByTestId('pivot').locator('caption').textContent()).toBe('Expected revenue by Stage and Created at (UTC)');
    expect(await page.getByTestId('pivot').locator('th[scope="row"]').count()).toBe(5);
    await shot(page, 'pivot', { dark: true });
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('headers collapse and expand; a second measure adds a column under each month', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'pivot' }));
    await page.getByTestId('pivot').waitFor();
    // collapsing the column total leaves one column of row totals
    const colTotal = page.getByTestId('pivot-col-header').first();
    expect(await colTotal.getAttribute('aria-expanded')).toBe('true');
    await colTotal.click();
    await expect.poll(() => table(page)).toEqual([
      ['', 'Total'], ['Expected revenue'],
      ['Total', '2,150'], ['New', '300'], ['Qualified', '300'], ['Won', '1,500'], ['Lost', '50'],
    ]);
    // collapsing the row total leaves the grand total
    await page.getByTestId('pivot-row-header').first().click();
    await expect.poll(() => table(page)).toEqual([['', 'Total'], ['Expected revenue'], ['Total', '2,150']]);
    expect(await page.getByTestId('pivot-row-header').first().getAttribute('aria-expanded')).toBe('false');
    // expanding again, and counting too
    await page.getByTestId('pivot-row-header').first().click();
    await page.getByTestId('pivot-col-header').first().click();
    await page.getByTestId('pivot-measures').getByLabel('Count').check();
    await expect.poll(() => table(page)).toEqual([
      ['', 'Total', 'Total'],
      ['October 2026', 'November 2026', 'December 2026'],
      ['Count', 'Expected revenue', 'Count', 'Expected revenue', 'Count', 'Expected revenue', 'Count', 'Expected revenue'],
      ['Total', '2', '400', '3', '1,700', '1', '50', '6', '2,150'],
      ['New', '1', '100', '1', '200', '', '', '2', '300'],
      ['Qualified', '1', '300', '', '', '', '', '1', '300'],
      ['Won', '', '', '2', '1,500', '', '', '2', '1,500'],
      ['Lost', '', '', '', '', '1', '50', '1', '50'],
    ]);
    await shot(page, 'pivot-two-measures', { dark: true });
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('"Download CSV" saves the table as shown; the search filters it', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'pivot', filter: 'Open' }));
    await expect.poll(() => table(page)).toEqual([
      ['', 'Total', 'Total'],
      ['October 2026', 'November 2026'],
      ['Expected revenue', 'Expected revenue', 'Expected revenue'],
      ['Total', '400', '200', '600'],
      ['New', '100', '200', '300'],
      ['Qualified', '300', '', '300'],
    ]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('pivot-download').click()]);
    expect(download.suggestedFilename()).toBe('Leads analysis.csv');
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv).toBe([
      ',October 2026 – Expected revenue,November 2026 – Expected revenue,Total – Expected revenue',
      'Total,400,200,600',
      'New,100,200,300',
      'Qualified,300,,300',
      '',
    ].join('\r\n'));
  });

  it('at phone width the pivot scrolls inside its box, not the page', async () => {
    const ctx = await env.browser.newContext({ baseURL: env.base, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const phone = await ctx.newPage();
      await phone.goto('/login');
      await phone.getByTestId('login-email').fill('admin@example.com');
      await phone.getByTestId('login-password').fill('admin-pass-1');
      await phone.getByTestId('login-submit').click();
      await phone.getByTestId('nav-toggle').waitFor();
      await phone.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'pivot' }));
      await expect.poll(() => table(phone)).toHaveLength(8);
      expect(await phone.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))).toBe(0);
      await shot(phone, 'pivot-phone', { dark: true, themeByAttribute: true });
      const violations = await axeSerious(phone);
      expect(violations, describeViolations(violations)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
