/**
 * Grouped lists as people read them: groups in the order the field sorts (a Reference by the
 * referenced record's name, an enum in its declaration order, None last), a total per group under
 * each number column, rows inside groups that can be selected and acted on. And the form's
 * statusbar: labels instead of raw values, and a clickable statusbar that sets the stage.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, createLead, describeViolations, getRecord, modelNames, shot, startSignedIn, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
  const n = await modelNames(env, 'res.country');
  const rows = (await env.gql(`query { rows: ${n.many}(where: { code: { in: ["IL", "GP", "KR"] } }) { id code } }`)).rows as Array<{ id: string; code: string }>;
  const c = Object.fromEntries(rows.map((r) => [r.code, r.id]));
  // created in an order that is neither the names' nor (by chance) the ids'
  for (const [name, country, stage, revenue] of [
    ['Grp Israel A', c.IL, 'won', 1000], ['Grp Korea', c.KR, 'new', 250], ['Grp Guadeloupe', c.GP, 'lost', 40],
    ['Grp Israel B', c.IL, 'won', 500], ['Grp Nowhere', null, 'qualified', 7],
  ] as const) await createLead(env, { name, country, stage, expected_revenue: revenue });
});
afterAll(async () => { await env?.close(); });

const headerTexts = () => page.getByTestId('group-header').evaluateAll((hs) => hs.map((h) => h.textContent!.replace(/[▸▾]/g, '').replace(/\d+ records?$/, '').trim()));

describe('grouped lists', () => {
  it('groups on a Reference are ordered by the referenced record\'s name, None last', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Grp ', group_by: 'country' }));
    await page.getByTestId('grouped-list').waitFor();
    await expect.poll(headerTexts).toEqual(['Guadeloupe', 'Israel', 'South Korea', 'None']);
  });

  it('groups on an enum come in its declared order, each with the total of the number columns', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Grp ', group_by: 'stage' }));
    await expect.poll(headerTexts).toEqual(['New', 'Qualified', 'Won', 'Lost']);
    const totals = await page.getByTestId('group-aggregate-expected_revenue').evaluateAll((cs) => cs.map((c) => c.textContent!.trim()));
    expect(totals).toEqual(['€250.00', '€7.00', '€1,500.00', '€40.00']);
    // the total sits under its column, right-aligned like the numbers
    const head = await page.locator('thead th', { hasText: 'Expected revenue' }).boundingBox();
    const cell = await page.getByTestId('group-aggregate-expected_revenue').first().boundingBox();
    expect(Math.abs(head!.x + head!.width - (cell!.x + cell!.width))).toBeLessThan(2);
    await page.getByTestId('group-header').filter({ hasText: 'Won' }).click();
    await page.getByTestId('list-row').first().waitFor();
    await shot(page, 'list-grouped-totals', { dark: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
  });

  it('rows inside a group can be selected, and a bulk action acts on exactly them', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Grp ', group_by: 'stage' }));
    await page.getByTestId('group-header').filter({ hasText: 'Won' }).click();
    const rows = page.getByTestId('list-row');
    await expect.poll(() => rows.count()).toBe(2);
    await rows.nth(0).locator('input[type=checkbox]').check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('1 selected');
    await rows.nth(1).locator('input[type=checkbox]').check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('2 selected');
    await page.getByTestId('delete-selected').click();
    await expect.poll(() => page.getByRole('alertdialog').getByRole('heading').textContent()).toBe('Delete these 2 records?');
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('2 records deleted.');
    await expect.poll(headerTexts).toEqual(['New', 'Qualified', 'Lost']);
  });
});

describe('the statusbar', () => {
  it('shows labels, and a clickable statusbar sets the stage, saved with the form', async () => {
    const lead = await createLead(env, { name: 'Stage walker', stage: 'new' });
    await page.goto(actionUrl(org, 'crm.action_leads', lead.id));
    const bar = page.getByTestId('statusbar');
    await expect.poll(() => bar.locator('[aria-current="step"]').textContent()).toBe('New');
    expect(await bar.innerText()).not.toMatch(/\bqualified\b/); // no raw value
    await page.getByTestId('statusbar-qualified').click();
    await expect.poll(() => bar.locator('[aria-current="step"]').textContent()).toBe('Qualified');
    await page.getByTestId('dirty-mark').waitFor();
    await shot(page, 'form-statusbar-clickable', { dark: true });
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).stage).toBe('qualified');
  });

  it('a statusbar that is not declared clickable (a connector\'s status, moved by its commands) is not', async () => {
    const res = await env.api('POST', '/api/connectors', { name: 'Status hook', category: 'messaging', provider_type: 'webhook' });
    await page.goto(actionUrl(org, 'connectors.action_connectors', res.body.id));
    const bar = page.getByTestId('statusbar');
    await expect.poll(() => bar.locator('[aria-current="step"]').textContent()).toBe('Draft');
    expect(await bar.locator('button').count()).toBe(0);
  });
});
