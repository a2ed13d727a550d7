/**
 * Selection in lists: "select all" selects every record of the page (drawn or not), then offers
 * every record matching the search; bulk actions on all matches run on the server by the
 * search's `where`, after a confirmation stating the count; a bulk archive can be undone, and the
 * undo restores exactly the records it archived.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, insertLeads, modelNames, shot, startSignedIn, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
});
afterAll(async () => { await env?.close(); });

const count = async (model: string, where: Record<string, unknown>) => {
  const n = await modelNames(env, model);
  return (await env.gql(`query($w: ${n.whereInput}) { c: ${n.count}(where: $w) }`, { w: where })).c as number;
};

describe('selecting records in a list', () => {
  it('select all selects the whole page, then every match; delete acts on every match after a confirmation with the count', async () => {
    await insertLeads(env, [
      ...Array.from({ length: 130 }, (_, i) => ({ name: `Bulk lead ${String(i).padStart(3, '0')}` })),
      ...Array.from({ length: 5 }, (_, i) => ({ name: `Keeper ${i}` })),
    ]);
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Bulk lead', limit: 50 }));
    await page.getByTestId('list-row').first().waitFor();
    // fewer rows are drawn than the page holds (the table is virtual)
    expect(await page.getByTestId('list-row').count()).toBeLessThan(50);
    await page.getByTestId('select-all').check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('50 selected');
    const banner = page.getByTestId('select-all-banner');
    await expect.poll(() => banner.textContent()).toContain('All 50 records of this page are selected.');
    expect(await page.getByTestId('select-all-matching').textContent()).toBe('Select all 130 matching records');
    await shot(page, 'list-select-page', { dark: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.getByTestId('select-all-matching').click();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('130 selected');
    await expect.poll(() => banner.textContent()).toContain('All 130 matching records are selected.');
    await page.getByTestId('delete-selected').click();
    await expect.poll(() => page.getByRole('alertdialog').getByRole('heading').textContent()).toBe('Delete these 130 records?');
    // the irreversible action is not the default: focus is on Cancel, so Enter keeps everything
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('confirm-cancel');
    await shot(page, 'list-confirm-delete-all', { themeByAttribute: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alertdialog').count()).toBe(0);
    expect(await count('crm.lead', { name: { startsWith: 'Bulk lead' } })).toBe(130);
    await page.getByTestId('delete-selected').click();
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('130 records deleted.');
    expect(await count('crm.lead', { name: { startsWith: 'Bulk lead' } })).toBe(0);
    expect(await count('crm.lead', { name: { startsWith: 'Keeper' } })).toBe(5);
  });

  it('unticking one row after selecting every match leaves the rest of the page selected, not every match', async () => {
    await insertLeads(env, Array.from({ length: 60 }, (_, i) => ({ name: `Untick lead ${String(i).padStart(2, '0')}` })));
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Untick lead', limit: 20, order: 'name asc' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('select-all').check();
    await page.getByTestId('select-all-matching').click();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('60 selected');
    await page.getByTestId('list-row').first().locator('input[type=checkbox]').uncheck();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('19 selected');
    expect(await page.getByTestId('select-all').isChecked()).toBe(false);
    // another search starts with nothing selected
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Untick lead 0', limit: 20 }));
    await page.getByTestId('list-row').first().waitFor();
    expect(await page.getByTestId('selected-count').count()).toBe(0);
  });

  it('the header box is ticked at once, while the page\'s ids are still on their way', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Untick lead', limit: 20 }));
    await page.getByTestId('list-row').first().waitFor();
    // hold the request for the page's ids until the box has been looked at
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    await page.route('**/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (body.includes('query Rows') && /\{ id \}/.test(body)) await held;
      await route.fallback();
    });
    await page.getByTestId('select-all').click();
    expect(await page.getByTestId('select-all').isChecked()).toBe(true);
    release();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('20 selected');
    await page.unroute('**/graphql');
  });

  it('archiving every match can be undone, and undo restores exactly the records it archived', async () => {
    const n = await modelNames(env, 'res.organization');
    await env.gql(`mutation($i: [${n.createInput}!]!) { ${n.createMany}(inputs: $i) { id } }`, {
      i: [...Array.from({ length: 4 }, (_, i) => ({ name: `Archive me ${i}`, code: `archive-me-${i}` })), { name: 'Archive me already', code: 'archive-me-old', is_active: false }],
    });
    await page.goto(actionUrl(org, 'base.action_organizations', undefined, { view: 'list', q: 'Archive me' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('select-all').check();
    // the one archived before is not in the list at all (archived records are hidden by default)
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('4 selected');
    await page.getByTestId('archive-selected').click();
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('4 records archived.');
    expect(await count('res.organization', { code: { startsWith: 'archive-me' }, is_active: { eq: true } })).toBe(0);
    await shot(page, 'list-archived-undo', { dark: true });
    await page.getByTestId('undo-archive').click();
    await expect.poll(() => count('res.organization', { code: { startsWith: 'archive-me' }, is_active: { eq: true } })).toBe(4);
    // the one archived before stays archived
    expect(await count('res.organization', { code: { eq: 'archive-me-old' }, is_active: { eq: true } })).toBe(0);
  });
});
