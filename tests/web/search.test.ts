/**
 * The search view above a list: typed text filters the rows and becomes a removable facet kept
 * in the URL (`q`); the search view's filters ("Open", "Won this month", "Mine") apply; a
 * group-by shows a header per group with its count (read_group) and a header expands to its rows.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, login, seedLeads, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let admin: { id: string; name: string };
beforeAll(async () => {
  env = await startWeb();
  admin = (await env.gql('query { me { id name } }')).me;
  const lastYear = new Date(Date.UTC(new Date().getUTCFullYear() - 1, 0, 15)).toISOString();
  await seedLeads(env, [
    { name: 'Alpha one', stage: 'new', email: 'one@example.com', expected_revenue: 70 },
    { name: 'Alpha two', stage: 'qualified', expected_revenue: 60 },
    { name: 'Epsilon', stage: 'new', email: 'alpha-contact@example.com', expected_revenue: 50 },
    { name: 'Gamma', stage: 'qualified', expected_revenue: 40 },
    { name: 'Beta', stage: 'won', closed_at: new Date().toISOString(), salesperson: admin.id, expected_revenue: 30 },
    { name: 'Delta', stage: 'won', closed_at: lastYear, expected_revenue: 20 },
    { name: 'Zeta', stage: 'lost', expected_revenue: 10 },
  ]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const params = (p: Page) => new URL(p.url()).searchParams;
const names = (p: Page) => p.getByTestId('list-row').evaluateAll((rows) => rows.map((r) => (r as HTMLTableRowElement).cells[1]?.innerText.trim()));
const facets = (p: Page) => p.getByTestId('facet').evaluateAll((fs) => fs.map((f) => [...f.childNodes].filter((n) => n.nodeName !== 'BUTTON').map((n) => n.textContent).join('').trim()));
const leadsList = (search: Record<string, string> = {}) => actionUrl('default', 'crm.action_leads', undefined, { view: 'list', ...search });

async function pickFilter(p: Page, name: string) {
  await p.getByTestId('search-filters').click();
  await p.getByRole('menuitemcheckbox', { name }).click();
  await p.keyboard.press('Escape');
}

describe('search', () => {
  it('typed text filters the rows (name or email) and shows as a facet in the URL', async () => {
    await page.goto(leadsList());
    await expect.poll(() => names(page)).toHaveLength(7);
    await page.getByTestId('search-input').fill('alpha');
    await page.getByTestId('search-input').press('Enter');
    await expect.poll(() => params(page).get('q')).toBe('alpha');
    await expect.poll(() => names(page)).toEqual(['Alpha one', 'Alpha two', 'Epsilon']); // Epsilon by its email
    expect(await facets(page)).toEqual(['Lead, Email, Country: alpha']);
    // the text became the facet: it does not stay in the box as well
    expect(await page.getByTestId('search-input').inputValue()).toBe('');
    // removing the facet clears the search and the URL
    await page.getByRole('button', { name: 'Remove Lead, Email, Country: alpha' }).click();
    await expect.poll(() => params(page).get('q')).toBeNull();
    await expect.poll(() => names(page)).toHaveLength(7);
    expect(await facets(page)).toEqual([]);
  });

  it('a text that matches nothing says so', async () => {
    await page.goto(leadsList({ q: 'no such lead' }));
    await expect.poll(() => page.getByTestId('list-empty').textContent()).toBe('No record matches the search.');
  });

  it('the "Open" filter keeps new and qualified leads, and combines with the text', async () => {
    await page.goto(leadsList());
    await expect.poll(() => names(page)).toHaveLength(7);
    await pickFilter(page, 'Open');
    await expect.poll(() => params(page).getAll('filter').join()).toContain('Open');
    await expect.poll(() => names(page)).toEqual(['Alpha one', 'Alpha two', 'Epsilon', 'Gamma']);
    expect(await facets(page)).toEqual(['Open']);
    await page.getByTestId('search-input').fill('alpha');
    await page.getByTestId('search-input').press('Enter');
    await expect.poll(() => names(page)).toEqual(['Alpha one', 'Alpha two', 'Epsilon']);
    expect(await facets(page)).toEqual(['Lead, Email, Country: alpha', 'Open']);
    await page.reload();
    await expect.poll(() => names(page)).toEqual(['Alpha one', 'Alpha two', 'Epsilon']);
  });

  it('"Won this month" and "Mine" use the server\'s values (month start, my id)', async () => {
    await page.goto(leadsList());
    await expect.poll(() => names(page)).toHaveLength(7);
    await pickFilter(page, 'Won this month');
    await expect.poll(() => names(page)).toEqual(['Beta']); // Delta was won last year
    await page.goto(leadsList());
    await expect.poll(() => names(page)).toHaveLength(7);
    await pickFilter(page, 'Mine');
    await expect.poll(() => names(page)).toEqual(['Beta']);
  });

  it('group by stage shows a header per stage with its count, in the stages\' declared order; a header expands to its rows', async () => {
    await page.goto(leadsList());
    await expect.poll(() => names(page)).toHaveLength(7);
    await page.getByTestId('search-groupby').click();
    await page.getByRole('menuitemradio', { name: 'Stage' }).or(page.getByRole('menuitem', { name: 'Stage' })).click();
    await expect.poll(() => params(page).get('group_by')).toBe('stage');
    await page.getByTestId('grouped-list').waitFor();
    const headers = page.getByTestId('group-header');
    await expect.poll(() => headers.evaluateAll((hs) => hs.map((h) => h.textContent?.replace(/[▸▾]/g, '').trim()))).toEqual(
      ['New2 records', 'Qualified2 records', 'Won2 records', 'Lost1 record'],
    );
    expect(await headers.count()).toBe(4);
    expect(await facets(page)).toEqual(['Group by: Stage']);
    expect(await page.getByTestId('pager').count()).toBe(0); // no pager over groups
    expect(await page.getByTestId('list-row').count()).toBe(0); // collapsed
    const won = headers.filter({ hasText: 'Won' });
    expect(await won.getAttribute('aria-expanded')).toBe('false');
    await won.click();
    await expect.poll(() => won.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.getByTestId('list-row').evaluateAll((rs) => rs.map((r) => (r as HTMLTableRowElement).cells[1]?.innerText.trim()))).toEqual(['Beta', 'Delta']); // cells[0] is the row's checkbox
    await won.click();
    await expect.poll(() => page.getByTestId('list-row').count()).toBe(0);
    // the grouping survives a reload
    await page.reload();
    await expect.poll(() => headers.count()).toBe(4);
  });

  it('group by a reference names its groups by the record name', async () => {
    await page.goto(leadsList({ group_by: 'salesperson' }));
    const headers = page.getByTestId('group-header');
    await expect.poll(() => headers.evaluateAll((hs) => hs.map((h) => h.textContent?.replace(/[▸▾]/g, '').trim()).sort())).toEqual(
      [`${admin.name}1 record`, 'None6 records'].sort(),
    );
  });
});
