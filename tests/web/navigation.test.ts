/**
 * Navigation: the sidebar leads from an app to its menus, each menu to its action's default
 * view; the URL `/:org/action-:key[/:record|/new]?view=&q=&filter=&group_by=&order=&page=` is the
 * view's whole state, so it survives reload, back and forward, and a deep link opened in a
 * fresh browser shows the same state after the login.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, insertLeads, login, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
beforeAll(async () => {
  env = await startWeb();
  // 120 leads: three pages of the list's 50; revenue 0, 10, …, 1190
  await insertLeads(env, Array.from({ length: 120 }, (_, i) => ({
    name: `Lead ${String(i).padStart(3, '0')}`, expected_revenue: i * 10, stage: (['new', 'qualified', 'won', 'lost'] as const)[i % 4],
  })));
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const path = (p: Page) => new URL(p.url()).pathname;
const params = (p: Page) => new URL(p.url()).searchParams;

/** What a person sees of a list's state: title, facets, pager, sorted column, first row. */
async function listState(p: Page) {
  await p.getByTestId('list-row').first().waitFor();
  return {
    title: await p.getByTestId('view-title').textContent(),
    // a facet's label, without its remove button (×)
    facets: await p.getByTestId('facet').evaluateAll((fs) => fs.map((f) => [...f.childNodes].filter((n) => n.nodeName !== 'BUTTON').map((n) => n.textContent).join('').trim())),
    pager: await p.getByTestId('pager-range').textContent(),
    sorted: await p.locator('th[aria-sort="ascending"], th[aria-sort="descending"]').evaluateAll((ths) => ths.map((th) => `${th.textContent?.replace(/[▲▼]/g, '').trim()} ${th.getAttribute('aria-sort')}`)),
    first: await p.getByTestId('list-row').first().innerText(),
  };
}

describe('navigation', () => {
  it('sidebar: app → its menus → the action\'s default view', async () => {
    await page.goto('/default');
    await page.getByTestId('app-base.menu_settings').click();
    // the app opens its first action in menu order: Users
    await expect.poll(() => path(page)).toBe('/default/action-base.action_users');
    await expect.poll(() => page.getByTestId('view-title').textContent()).toBe('Users');
    await page.getByTestId('list-table').waitFor();
    // its menus are listed (a heading without action is not a link), the current one marked
    const orgs = page.getByTestId('menu-base.menu_organizations');
    await orgs.waitFor();
    expect(await page.getByTestId('menu-base.menu_users').getAttribute('aria-current')).toBe('page');
    expect(await page.locator('nav.sidebar').getByText('Users & Organizations').evaluate((e) => e.tagName)).not.toBe('A');
    await orgs.click();
    await expect.poll(() => path(page)).toBe('/default/action-base.action_organizations');
    await expect.poll(() => page.getByTestId('view-title').textContent()).toBe('Organizations');
    await expect.poll(() => orgs.getAttribute('aria-current')).toBe('page');
    await page.getByTestId('list-row').first().waitFor(); // list is the action's default view
    // CRM's only action defaults to kanban
    await page.getByTestId('app-crm.menu_root').click();
    await expect.poll(() => path(page)).toBe('/default/action-crm.action_leads');
    await page.getByTestId('kanban').waitFor();
    expect(await page.getByTestId('menu-crm.menu_leads').getAttribute('aria-current')).toBe('page');
    // the brand goes home
    await page.getByTestId('home-link').click();
    await expect.poll(() => path(page)).toBe('/default');
    await page.getByTestId('tile-crm.menu_root').waitFor();
  });

  it('the URL keeps view, q, filter, order and page across reload, back and forward', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await page.getByTestId('kanban').waitFor();
    await page.getByTestId('switch-list').click();
    await expect.poll(() => params(page).get('view')).toBe('list');
    await page.getByTestId('list-row').first().waitFor();
    // default order: expected_revenue desc
    expect(await listState(page)).toMatchObject({ title: 'Leads', pager: '1–50 of 120', first: expect.stringContaining('Lead 119') });

    await page.getByTestId('search-input').fill('Lead 1');
    await page.getByTestId('search-input').press('Enter');
    await expect.poll(() => params(page).get('q')).toBe('Lead 1');
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–20 of 20'); // Lead 100–119

    await page.getByTestId('search-filters').click();
    await page.getByRole('menuitemcheckbox', { name: 'Open' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(() => params(page).getAll('filter').join()).toContain('Open');
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–10 of 10'); // of those, stages new and qualified

    await page.getByTestId('sort-name').click();
    await expect.poll(() => params(page).get('order')).toBe('name asc');
    await expect.poll(async () => (await listState(page)).first).toContain('Lead 100');

    const state = await listState(page);
    expect(state.facets).toEqual(['Lead, Email, Country: Lead 1', 'Open']);
    expect(state.sorted).toEqual(['Name ascending']);
    const url = page.url();

    await page.reload();
    expect(page.url()).toBe(url);
    await expect.poll(() => listState(page)).toEqual(state);

    // back: the sort goes, then the filter; forward brings them again
    await page.goBack();
    await expect.poll(() => params(page).get('order')).toBeNull();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–10 of 10');
    await page.goBack();
    await expect.poll(() => params(page).getAll('filter')).toEqual([]);
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–20 of 20');
    await page.goForward();
    await page.goForward();
    await expect.poll(() => page.url()).toBe(url);
    await expect.poll(() => listState(page)).toEqual(state);
  });

  it('paging is in the URL and survives reload, back and forward', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–50 of 120');
    await page.getByTestId('pager-next').click();
    await expect.poll(() => params(page).get('page')).toBe('2');
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('51–100 of 120');
    await expect.poll(() => page.getByTestId('list-row').first().innerText()).toContain('Lead 069'); // revenue 690: the 51st from the top
    await page.reload();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('51–100 of 120');
    await page.goBack();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–50 of 120');
    expect(params(page).get('page')).toBeNull();
    await page.goForward();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('51–100 of 120');
  });

  it('a record and /new are URLs: reload and back keep them', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', order: 'name asc' }));
    await page.getByTestId('list-row').first().click();
    await page.getByTestId('form-view').waitFor();
    expect(path(page)).toMatch(/^\/default\/action-crm\.action_leads\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Lead 000');
    await page.reload();
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Lead 000');
    await page.goBack();
    await expect.poll(() => params(page).get('order')).toBe('name asc');
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('new-record').click();
    await expect.poll(() => path(page)).toBe('/default/action-crm.action_leads/new');
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('New Lead');
    await page.reload();
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('New Lead');
  });

  it('a deep link opened in a fresh browser asks for the login, then shows the same state', async () => {
    const deep = actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Lead 1', filter: 'Open', order: 'name desc', page: 2, limit: 4 });
    await page.goto(deep);
    const state = await listState(page);
    expect(state).toMatchObject({ facets: ['Lead, Email, Country: Lead 1', 'Open'], pager: '5–8 of 10', sorted: ['Name descending'], first: expect.stringContaining('Lead 109') });

    const fresh = await env.newPage();
    await fresh.goto(deep);
    await fresh.getByTestId('login-email').waitFor();
    expect(path(fresh)).toBe('/login');
    await fresh.getByTestId('login-email').fill('admin@example.com');
    await fresh.getByTestId('login-password').fill('admin-pass-1');
    await fresh.getByTestId('login-submit').click();
    await expect.poll(() => path(fresh)).toBe('/default/action-crm.action_leads');
    await expect.poll(() => listState(fresh)).toEqual(state);
    expect(Object.fromEntries(params(fresh))).toEqual(Object.fromEntries(params(page)));

    // and a second tab of a signed-in browser opens it directly
    const tab = await fresh.context().newPage();
    await tab.goto(deep);
    await expect.poll(() => listState(tab)).toEqual(state);
  });
});
