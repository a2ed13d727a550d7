/**
 * The graph view (views/crm.sales/crm_lead_graph.xml: expected revenue by stage and month): the
 * Leads action switches to it in the control panel; its numbers (in the table screen readers
 * read, the canvas being one image) are the sums of the data, by stage then month, labelled
 * "November 2026"; bar, line and pie switch in place; the measure picker counts instead; the search
 * filters what is drawn and the search panel's group-by replaces the view's. Screenshots light and
 * dark at desktop and phone width; axe finds no serious or critical violation.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, insertLeads, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
beforeAll(async () => {
  env = await startWeb();
  await insertLeads(env, [
    { name: 'G oct new', stage: 'new', expected_revenue: 100, created_at_utc: '2026-10-05T09:00:00Z' },
    { name: 'G oct qual', stage: 'qualified', expected_revenue: 300, created_at_utc: '2026-10-20T09:00:00Z' },
    { name: 'G nov new', stage: 'new', expected_revenue: 200, created_at_utc: '2026-11-02T09:00:00Z' },
    { name: 'G nov won A', stage: 'won', expected_revenue: 1000, created_at_utc: '2026-11-15T09:00:00Z' },
    { name: 'G nov won B', stage: 'won', expected_revenue: 500, created_at_utc: '2026-11-30T22:00:00Z' },
    { name: 'G dec lost', stage: 'lost', expected_revenue: 50, created_at_utc: '2026-12-01T00:30:00Z' },
  ]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

/** The chart's data table: header row, then one row per bar group (label, then a value per series). */
const dataTable = (p: Page) => p.getByTestId('graph-data').locator('tr').evaluateAll((rows) =>
  rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent)));

describe('graph view', () => {
  it('the Leads action switches to the graph: expected revenue per stage, a series per month', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await page.getByTestId('kanban').waitFor();
    await page.getByTestId('switch-graph').click();
    await page.getByTestId('graph-canvas').waitFor();
    expect(new URL(page.url()).searchParams.get('view')).toBe('graph');
    expect(await page.getByTestId('view-title').textContent()).toBe('Expected revenue');
    expect(await page.getByTestId('switch-graph').getAttribute('aria-current')).toBe('page');
    await expect.poll(() => dataTable(page)).toEqual([
      ['Stage', 'October 2026', 'November 2026', 'December 2026'],
      ['New', '100', '200', '0'],
      ['Qualified', '300', '0', '0'],
      ['Won', '0', '1,500', '0'],
      ['Lost', '0', '0', '50'],
    ]);
    expect(await page.getByTestId('graph-canvas').getAttribute('role')).toBe('img');
    expect(await page.getByTestId('graph-canvas').getAttribute('aria-label')).toBe('Bar chart of Expected revenue by Stage, Created at (UTC)');
    expect(await page.getByTestId('graph-measure').inputValue()).toBe('expected_revenue');
    // the chart is drawn: the canvas has pixels that are not the background
    const painted = await page.getByTestId('graph-canvas').evaluate((c) => {
      const d = (c as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, (c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(1000);
    await shot(page, 'graph-bar', { dark: true });
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('line and pie switch in place; the measure picker counts records instead', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'graph' }));
    await page.getByTestId('graph-canvas').waitFor();
    await page.getByTestId('graph-type-line').click();
    expect(await page.getByTestId('graph-type-line').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('graph-canvas').getAttribute('aria-label')).toBe('Line chart of Expected revenue by Stage, Created at (UTC)');
    await shot(page, 'graph-line');
    await page.getByTestId('graph-type-pie').click();
    expect(await page.getByTestId('graph-type-bar').getAttribute('aria-pressed')).toBe('false');
    await page.getByTestId('graph-measure').selectOption('__count');
    await expect.poll(() => dataTable(page)).toEqual([
      ['Stage', 'October 2026', 'November 2026', 'December 2026'],
      ['New', '1', '1', '0'],
      ['Qualified', '1', '0', '0'],
      ['Won', '0', '2', '0'],
      ['Lost', '0', '0', '1'],
    ]);
    expect(await page.getByTestId('graph-canvas').getAttribute('aria-label')).toBe('Pie chart of Count by Stage, Created at (UTC)');
    await shot(page, 'graph-pie', { dark: true });
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('the search filters what is drawn, and the search panel\'s group-by replaces the view\'s', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'graph', filter: 'Open' }));
    await expect.poll(() => dataTable(page)).toEqual([
      ['Stage', 'October 2026', 'November 2026'],
      ['New', '100', '200'],
      ['Qualified', '300', '0'],
    ]);
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'graph', group_by: 'stage' }));
    await expect.poll(() => dataTable(page)).toEqual([
      ['Stage', 'Expected revenue'],
      ['New', '300'], ['Qualified', '300'], ['Won', '1,500'], ['Lost', '50'],
    ]);
  });

  it('at phone width the graph fits the screen', async () => {
    const ctx = await env.browser.newContext({ baseURL: env.base, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const phone = await ctx.newPage();
      await phone.goto('/login');
      await phone.getByTestId('login-email').fill('admin@example.com');
      await phone.getByTestId('login-password').fill('admin-pass-1');
      await phone.getByTestId('login-submit').click();
      await phone.getByTestId('nav-toggle').waitFor();
      await phone.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'graph' }));
      await phone.getByTestId('graph-canvas').waitFor();
      await expect.poll(() => dataTable(phone)).toHaveLength(5);
      expect(await phone.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))).toBe(0);
      await shot(phone, 'graph-phone', { dark: true, themeByAttribute: true });
      const violations = await axeSerious(phone);
      expect(violations, describeViolations(violations)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
