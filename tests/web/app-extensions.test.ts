/**
 * An app extends the web client through its web/ folder (src/apps/crm.sales/web): the leads list
 * draws the probability with the app's display widget `crm.probability`, and the Leads action
 * switches to the app's view type `crm.funnel` (leads and revenue per stage, one read_group).
 * The app's code is a chunk of its own, fetched the first time a screen names one of its names
 * and not before. Screenshots light and dark, at desktop and phone width; axe finds no serious or
 * critical violation.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, seedLeads, shot, startSignedIn, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;
/** The JS files the page fetched, by name (app-crm.sales-….js, app-storage-….js). */
const scripts: string[] = [];
const fetched = (app: string) => scripts.filter((s) => s.includes(`/assets/app-${app}-`)).length;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
  page.on('request', (r) => { if (r.url().endsWith('.js')) scripts.push(r.url()); });
  await seedLeads(env, [
    { name: 'Ext new A', stage: 'new', expected_revenue: 300, probability: 0.1 },
    { name: 'Ext new B', stage: 'new', expected_revenue: 200, probability: 0.15 },
    { name: 'Ext qual A', stage: 'qualified', expected_revenue: 900, probability: 0.5 },
    { name: 'Ext qual B', stage: 'qualified', expected_revenue: 800, probability: 0.6 },
    { name: 'Ext qual C', stage: 'qualified', expected_revenue: 700, probability: 0.55 },
    { name: 'Ext won', stage: 'won', expected_revenue: 5000, probability: 1 },
  ]);
});
afterAll(async () => { await env?.close(); });
// counted per test: each test opens its page anew (a page load fetches its chunks again)
beforeEach(() => { scripts.length = 0; });

describe('an app\'s web extension', () => {
  it('its chunk is not fetched before a screen needs it (the kanban of leads names none of its names)', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads'));
    await page.getByTestId('kanban').waitFor();
    expect(fetched('crm.sales')).toBe(0);
    expect(fetched('storage')).toBe(0);
  });

  it('the leads list draws the probability with the app\'s display widget crm.probability', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
    const row = page.getByRole('row', { name: /Ext qual B/ });
    await row.waitFor();
    const bar = row.getByTestId('crm-probability');
    expect(await bar.textContent()).toBe('60%');
    expect(await bar.locator('meter').getAttribute('value')).toBe('60');
    expect(fetched('crm.sales')).toBe(1);
    expect(fetched('storage')).toBe(0); // only the apps the screen names
    await shot(page, 'extension-list', { dark: true });
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('the Leads action switches to the app\'s view type crm.funnel: leads and revenue per stage, in the stage order', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads'));
    await page.getByTestId('kanban').waitFor();
    expect(fetched('crm.sales')).toBe(0);
    await page.getByTestId('switch-crm.funnel').click();
    await page.getByTestId('crm-funnel').waitFor();
    expect(new URL(page.url()).searchParams.get('view')).toBe('crm.funnel');
    expect(await page.getByTestId('view-title').textContent()).toBe('Funnel');
    const stage = (s: string) => page.getByTestId(`crm-funnel-${s}`);
    await expect.poll(() => stage('qualified').locator('.crm-funnel-count').textContent()).toBe('3 leads');
    expect(await page.locator('.crm-funnel-name').allTextContents()).toEqual(['New', 'Qualified', 'Won', 'Lost']);
    expect(await stage('new').locator('.crm-funnel-count').textContent()).toBe('2 leads');
    expect(await stage('won').locator('.crm-funnel-count').textContent()).toBe('1 lead');
    expect(await stage('lost').locator('.crm-funnel-count').textContent()).toBe('0 leads');
    expect(await stage('qualified').locator('.crm-funnel-total').textContent()).toBe('2,400');
    // the widest bar is the largest stage's
    const width = (s: string) => stage(s).locator('.crm-funnel-bar').evaluate((e) => (e as HTMLElement).style.width);
    expect(await width('qualified')).toBe('100%');
    expect(await width('lost')).toBe('0%');
    expect(fetched('crm.sales')).toBe(1); // fetched when the switch named its view type
    await shot(page, 'extension-funnel', { dark: true });
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('the funnel follows the search: a filter narrows the counts', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'crm.funnel', q: 'Ext qual' }));
    await expect.poll(() => page.getByTestId('crm-funnel-qualified').locator('.crm-funnel-count').textContent()).toBe('3 leads');
    await expect.poll(() => page.getByTestId('crm-funnel-new').locator('.crm-funnel-count').textContent()).toBe('0 leads');
  });

  it('at phone width the funnel fits the screen', async () => {
    const ctx = await env.browser.newContext({ baseURL: env.base, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US', timezoneId: 'UTC' });
    try {
      const phone = await ctx.newPage();
      await phone.goto('/login');
      await phone.getByTestId('login-email').fill('admin@example.com');
      await phone.getByTestId('login-password').fill('admin-pass-1');
      await phone.getByTestId('login-submit').click();
      await phone.getByTestId('nav-toggle').waitFor();
      await phone.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'crm.funnel' }));
      await phone.getByTestId('crm-funnel-qualified').waitFor();
      expect(await phone.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))).toBe(0);
      await shot(phone, 'extension-funnel-phone', { dark: true, themeByAttribute: true });
      const violations = await axeSerious(phone);
      expect(violations, describeViolations(violations)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
