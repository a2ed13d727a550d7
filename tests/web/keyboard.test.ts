/**
 * Keyboard walking: a list's rows are one Tab stop walked with the arrow keys (Page Up/Down, Home,
 * End too, scrolling rows the virtual table has not drawn yet into view), Enter opens the record;
 * kanban cards are in the Tab order and open with Enter; and a record opened that way has the
 * focus in its form (its title, or a new record's first field), not on the page's body.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp } from '../helpers/kernel.ts';
import { actionUrl, axeSerious, describeViolations, adminOrg, login, seedLeads, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let ids: string[];
const name = (i: number) => `Walk ${String(i + 1).padStart(2, '0')}`;

/** A form view for countries, as a team's app may add one: the editable Countries list gets its ↗ column. */
const viewsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-web-keyboard-'));
fs.writeFileSync(path.join(viewsDir, 'res_country_form.xml'), `<view id="res.country.form" version="1" title="Country">
  <form model="res.country"><sheet><group><field name="name"/><field name="code"/></group></sheet></form>
</view>`);
const countryForm = { ...fixtureApp('keyboard', { depends: ['base'] }), dataFiles: [path.join(viewsDir, 'res_country_form.xml')] };

beforeAll(async () => {
  env = await startWeb({}, { apps: [countryForm] });
  // 60 leads: the list's page holds 50, more than the screen draws
  ids = await seedLeads(env, Array.from({ length: 60 }, (_, i) => ({ name: name(i), stage: i % 2 ? 'qualified' : 'new', expected_revenue: 1000 + i })));
  page = await env.newPage();
  await login(page);
});
afterAll(async () => {
  await env?.close();
  fs.rmSync(viewsDir, { recursive: true, force: true });
});

const focused = (p: Page) => p.evaluate(() => {
  const el = document.activeElement;
  return { testid: el?.getAttribute('data-testid') ?? null, text: (el?.textContent ?? '').trim(), inForm: !!el?.closest('[data-testid="form-view"]') };
});

describe('keyboard walking', () => {
  it('list rows are one Tab stop (their checkboxes are not stops of their own), the arrow keys, Home and End walk them (scrolling undrawn rows into view), Space selects a row, Tab leaves the table, and Enter opens the record with the focus on its title', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', order: 'name asc' }));
    const rows = page.getByTestId('list-row');
    await rows.first().waitFor();
    // still a table of cells (recorded QA locators name them), named by the view's title
    expect(await page.getByRole('table', { name: 'Leads' }).count()).toBe(1);
    expect(await rows.first().getByRole('cell').count()).toBeGreaterThan(0);
    // one row in the Tab order
    await expect.poll(() => page.locator('[data-testid="list-row"][tabindex="0"]').count()).toBe(1);
    await page.getByTestId('search-input').focus();
    for (let i = 0; i < 30 && (await focused(page)).testid !== 'list-row'; i++) await page.keyboard.press('Tab');
    await expect.poll(async () => (await focused(page)).text).toContain(name(0));

    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(async () => (await focused(page)).text).toContain(name(2));
    await page.keyboard.press('ArrowUp');
    await expect.poll(async () => (await focused(page)).text).toContain(name(1));
    // the last row of the page (the 50th) is not drawn until the table scrolls to it
    expect(await page.locator('tr[data-index="49"]').count()).toBe(0);
    await page.keyboard.press('End');
    await expect.poll(async () => (await focused(page)).text).toContain(name(49));
    await page.keyboard.press('ArrowDown'); // the end stays the end
    await expect.poll(async () => (await focused(page)).text).toContain(name(49));
    await page.keyboard.press('Home');
    await expect.poll(async () => (await focused(page)).text).toContain(name(0));
    await page.keyboard.press('PageDown');
    await expect.poll(async () => (await focused(page)).testid).toBe('list-row');
    expect((await focused(page)).text).not.toContain(name(0));
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await expect.poll(async () => (await focused(page)).text).toContain(name(1));
    // Space selects the focused row (its checkbox is ticked), and selects it no more on a second press
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('list-row').nth(1).locator('input[type="checkbox"]').isChecked()).toBe(true);
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('list-row').nth(1).locator('input[type="checkbox"]').isChecked()).toBe(false);
    // Tab leaves the table from the focused row (no stop on each row's checkbox), and Shift+Tab comes back to it
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-testid="list-table"]'))).toBe(false);
    await page.keyboard.press('Shift+Tab');
    await expect.poll(async () => (await focused(page)).text).toContain(name(1));
    expect(await page.locator('[data-testid="list-row"][tabindex="0"]').textContent()).toContain(name(1));
    await shot(page, 'keyboard-list-row', { dark: true, themeByAttribute: true });
    const v = await axeSerious(page);
    expect(v, describeViolations(v)).toEqual([]);

    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/default/action-crm.action_leads/${ids[1]}`);
    await expect.poll(() => focused(page)).toEqual({ testid: 'form-title', text: name(1), inForm: true });
    await shot(page, 'keyboard-form-title', { dark: true, themeByAttribute: true });
  });

  it('an editable list\'s ↗ buttons are not Tab stops: the rows stay one stop, Enter edits the row in place and Shift+Enter opens its form', async () => {
    const org = (await adminOrg(env)).code;
    await page.goto(actionUrl(org, 'base.action_countries', undefined, { q: 'Fr' }));
    const rows = page.getByTestId('list-row');
    await rows.first().waitFor();
    expect(await rows.first().getByTestId('row-open').count()).toBe(1); // the form makes the column
    await page.getByTestId('search-input').focus();
    const stops: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      stops.push(f.testid ?? '');
      if (f.testid === 'list-row') break;
    }
    expect(stops.at(-1)).toBe('list-row');
    const first = (await focused(page)).text;
    // from the row, Tab leaves the table: no stop on its ↗ nor on the next rows' ones
    await page.keyboard.press('Tab');
    expect((await focused(page)).testid).not.toBe('row-open');
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-testid="list-table"]'))).toBe(false);
    await page.keyboard.press('Shift+Tab');
    await expect.poll(async () => (await focused(page)).testid).toBe('list-row');
    expect(await page.locator('[data-testid="list-row"]:focus').getAttribute('aria-keyshortcuts')).toBe('Shift+Enter');
    // Enter edits in place, Escape puts the row back with the focus on it
    await page.keyboard.press('Enter');
    await page.getByTestId('edit-row').waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('edit-row').count()).toBe(0);
    await page.locator('[data-testid="list-row"][tabindex="0"]').focus();
    await shot(page, 'keyboard-editable-row-open', { dark: true, themeByAttribute: true });
    // Shift+Enter opens the focused row's form
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^/${org}/action-base\\.action_countries/[0-9a-f-]{36}$`));
    await expect.poll(async () => (await focused(page)).testid).toBe('form-title');
    expect(first).toContain((await focused(page)).text);
  });

  it('rows of an open group are walked with the arrow keys too, and Enter opens one', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', group_by: 'stage', order: 'name asc' }));
    await page.getByTestId('group-header').first().click();
    const rows = page.getByTestId('list-row');
    await rows.first().focus();
    const first = (await focused(page)).text;
    await page.keyboard.press('ArrowDown');
    await expect.poll(async () => (await focused(page)).text).not.toBe(first);
    expect((await focused(page)).testid).toBe('list-row');
    await page.keyboard.press('ArrowUp');
    await expect.poll(async () => (await focused(page)).text).toBe(first);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page)).inForm).toBe(true);
  });

  it('kanban cards are in the Tab order and Enter opens the record with the focus in its form', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'kanban' }));
    const card = page.getByTestId('kanban-card').first();
    await card.waitFor();
    expect(await card.getAttribute('tabindex')).toBe('0');
    expect(await card.getAttribute('role')).toBe('button');
    await page.getByTestId('search-input').focus();
    for (let i = 0; i < 40 && (await focused(page)).testid !== 'kanban-card'; i++) await page.keyboard.press('Tab');
    const opened = (await focused(page)).text;
    expect(opened).toMatch(/^Walk \d\d/);
    await shot(page, 'keyboard-kanban-card', { dark: true, themeByAttribute: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/\/default\/action-crm\.action_leads\/[^/]+$/);
    await expect.poll(() => focused(page)).toMatchObject({ testid: 'form-title', inForm: true });
    expect(opened.startsWith((await focused(page)).text)).toBe(true);
  });

  it('a new record opened with the keyboard has the focus in its first field', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('new-record').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/default/action-crm.action_leads/new');
    await expect.poll(() => focused(page)).toMatchObject({ testid: 'input-name', inForm: true });
    await page.keyboard.type('Typed at once');
    expect(await page.getByTestId('input-name').inputValue()).toBe('Typed at once');
  });
});
