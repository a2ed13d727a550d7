/**
 * The client on a phone (390×844, touch): a menu button opens a drawer with the apps, their menus
 * and the account (theme, sign out); following a link closes it. Lists fit the screen (their
 * first columns, nothing wider than the viewport), forms are one column, kanban scrolls column by
 * column. Screenshots light and dark; axe finds no serious or critical violation.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL, ADMIN_PASSWORD, actionUrl, adminOrg, axeSerious, createLead, describeViolations, shot, startWeb, UI_TIMEOUT, type WebEnv,
} from './helpers/browser.ts';

let env: WebEnv;
let ctx: BrowserContext;
let page: Page;
let org: string;
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  env = await startWeb();
  org = (await adminOrg(env)).code;
  for (let i = 0; i < 6; i++) await createLead(env, { name: `Phone lead ${i}`, email: `lead${i}@example.com`, expected_revenue: 1000 * i, stage: i % 2 ? 'qualified' : 'new' });
  ctx = await env.browser.newContext({ baseURL: env.base, viewport: PHONE, isMobile: true, hasTouch: true, locale: 'en-US', timezoneId: 'UTC' });
  ctx.setDefaultTimeout(UI_TIMEOUT);
  page = await ctx.newPage();
  await page.goto('/login');
  await page.getByTestId('login-email').fill(ADMIN_EMAIL);
  await page.getByTestId('login-password').fill(ADMIN_PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('nav-toggle').waitFor();
});
afterAll(async () => {
  await ctx?.close();
  await env?.close();
});

/** How far the page's content reaches past the viewport's right edge (0 when it fits). */
const overflow = (p: Page) => p.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));

describe('the client on a phone', () => {
  it('a menu button opens a drawer with apps, menus and the account; a link closes it', async () => {
    expect(await page.locator('.sidebar').isVisible()).toBe(false);
    await page.getByTestId('nav-toggle').click();
    const drawer = page.getByTestId('nav-drawer');
    await drawer.waitFor();
    await expect.poll(() => drawer.getByTestId('app-crm.menu_root').isVisible()).toBe(true);
    expect(await drawer.getByTestId('drawer-logout').isVisible()).toBe(true);
    await shot(page, 'phone-drawer', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await drawer.getByTestId('app-crm.menu_root').click();
    await expect.poll(() => drawer.count()).toBe(0);
    await expect.poll(() => new URL(page.url()).pathname).toContain('action-crm.action_leads');
    // the drawer shows the current app's menus, and Escape closes it
    await page.getByTestId('nav-toggle').click();
    await expect.poll(() => page.getByTestId('nav-drawer').getByTestId('menu-crm.menu_leads').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('nav-drawer').count()).toBe(0);
  });

  it('a list fits the screen: its first columns, no horizontal overflow', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    expect(await overflow(page)).toBe(0);
    const box = await page.getByTestId('list-scroll').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(box.scroll).toBeLessThanOrEqual(box.client);
    // the name is shown whole enough to read: its cell is at least a quarter of the screen
    const nameCell = await page.getByTestId('list-row').first().locator('td').nth(1).boundingBox();
    expect(nameCell!.width).toBeGreaterThan(PHONE.width / 4);
    await shot(page, 'phone-list', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
  });

  it('a grouped list keeps the columns of its header: a group row shows no cell the header hides, nothing wider than the screen', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', group_by: 'stage' }));
    await page.getByTestId('group-header').first().waitFor();
    const widths = await page.evaluate(() => {
      const visible = (els: NodeListOf<Element>) => [...els].filter((e) => getComputedStyle(e).display !== 'none')
        .reduce((n, e) => n + ((e as HTMLTableCellElement).colSpan || 1), 0);
      return { header: visible(document.querySelectorAll('.grouped-table thead th')), group: visible(document.querySelectorAll('.grouped-table .group-row')[0]!.querySelectorAll('td')) };
    });
    expect(widths.group).toBe(widths.header);
    expect(await overflow(page)).toBe(0);
    await page.getByTestId('group-header').first().click();
    await page.getByTestId('list-row').first().waitFor();
    await shot(page, 'phone-grouped-list', { dark: true, themeByAttribute: true });
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
  });

  it('a form is one column: every label above its input, nothing wider than the screen', async () => {
    await page.getByTestId('list-row').first().click();
    await page.getByTestId('form-view').waitFor();
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toMatch(/^Phone lead/);
    expect(await overflow(page)).toBe(0);
    const xs = await page.locator('.view-form .field > .input, .view-form .field .combobox-row').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
    expect(xs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(xs).size).toBe(1); // one column: every input starts at the same x
    await shot(page, 'phone-form', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
  });

  it('a form does not stretch the page: its top bar and Save stay on screen however far it scrolls', async () => {
    await page.getByTestId('form-view').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(PHONE.height);
  });

  it('leaving a form with unsaved changes through the drawer asks on top of the drawer', async () => {
    await page.getByTestId('input-name').fill('Phone lead, edited');
    await page.getByTestId('nav-toggle').click();
    await page.getByTestId('nav-drawer').getByTestId('menu-crm.menu_leads').click();
    const dialog = page.getByTestId('dirty-dialog');
    await dialog.waitFor();
    // what a finger at the middle of "Stay" touches is the button itself
    const stay = page.getByTestId('dirty-stay');
    const box = (await stay.boundingBox())!;
    expect(await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('[data-testid="dirty-stay"]') !== null, [box.x + box.width / 2, box.y + box.height / 2])).toBe(true);
    await shot(page, 'phone-dirty-guard', { dark: true, themeByAttribute: true });
    await stay.click();
    await expect.poll(() => dialog.count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('nav-drawer').count()).toBe(0);
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Phone lead, edited');
    await page.getByTestId('form-discard').click();
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toMatch(/^Phone lead \d/);
  });

  it('kanban scrolls column by column', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'kanban' }));
    const board = page.locator('.kanban');
    await board.waitFor();
    await page.locator('.kanban .card').first().waitFor();
    const m = await board.evaluate((el) => ({ snap: getComputedStyle(el).scrollSnapType, col: el.querySelector('.kanban-column')!.getBoundingClientRect().width, width: el.clientWidth }));
    expect(m.snap).toContain('x');
    expect(m.col).toBeGreaterThan(m.width * 0.7); // one column fills most of the screen
    expect(await overflow(page)).toBe(0);
    await shot(page, 'phone-kanban', { dark: true, themeByAttribute: true });
  });

  it('a long record name is readable on a phone: it wraps in the list, on the kanban card and in the form title, never cut off', async () => {
    const long = 'Northwind Traders regional rollout of the warehouse scanners, phase two (Rotterdam and Antwerp)';
    const lead = await createLead(env, { name: long, stage: 'new', expected_revenue: 99999 });
    /** The parts of an element whose text is cut: clipped by its box (an ellipsis) or past the screen's edge. */
    const cut = (sel: string) => page.locator(sel).first().evaluate((root) => {
      const out: string[] = [];
      for (const el of [root, ...Array.from(root.querySelectorAll('*'))] as HTMLElement[]) {
        if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') out.push(`${el.tagName}.${el.className} clipped`);
        if (el.getBoundingClientRect().right > window.innerWidth + 1) out.push(`${el.tagName}.${el.className} past the edge`);
      }
      return out;
    });

    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Northwind' }));
    await page.getByTestId('list-row').first().waitFor();
    const cell = page.getByTestId('list-row').first().locator('td').nth(1);
    expect(await cell.innerText()).toBe(long);
    await page.getByTestId('list-row').first().evaluate((el) => el.setAttribute('data-long', ''));
    expect(await cut('[data-long] td:nth-child(2)')).toEqual([]);
    expect(await overflow(page)).toBe(0);
    await shot(page, 'phone-long-name-list', { dark: true, themeByAttribute: true });

    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'kanban', q: 'Northwind' }));
    await page.getByTestId('kanban-card').first().waitFor();
    expect(await page.getByTestId('kanban-card').first().locator('.card-title').innerText()).toBe(long);
    expect(await cut('[data-testid="kanban-card"] .card-title')).toEqual([]);
    await shot(page, 'phone-long-name-kanban', { dark: true, themeByAttribute: true });

    await page.goto(actionUrl(org, 'crm.action_leads', lead.id));
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe(long);
    expect(await cut('[data-testid="form-title"]')).toEqual([]);
    expect(await cut('.breadcrumb')).toEqual([]);
    expect(await overflow(page)).toBe(0);
    await shot(page, 'phone-long-name-form', { dark: true, themeByAttribute: true });
  });

  it('signing out from the drawer ends the session', async () => {
    await page.getByTestId('nav-toggle').click();
    await page.getByTestId('drawer-logout').click();
    await page.getByTestId('login-email').waitFor();
  });
});
