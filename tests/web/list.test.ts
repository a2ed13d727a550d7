/**
 * The list view: columns and their labels come from the render plan, display widgets (badge,
 * money, date) render values the way a person reads them, optional columns are toggled, columns
 * reordered and resized, all remembered per user, a header sorts (and the URL says so), the pager shows the total and moves,
 * selected rows are deleted in bulk, and 10,000 rows scroll with only the visible ones in the DOM.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, createLead, describeViolations, insertLeads, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
beforeAll(async () => {
  env = await startWeb();
  await insertLeads(env, [{ name: 'First lead', stage: 'qualified', expected_revenue: 10 }]); // an empty list shows no table
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const params = (p: Page) => new URL(p.url()).searchParams;

interface PlanField { name: string; label: string; optional: string | null }
async function listPlan(viewId: string): Promise<{ columns: string[]; fields: PlanField[] }> {
  const d = await env.gql(`query($v: String!) { presentationGetViewPlan(view_id: $v) { ... on ListPlan { columns fields { name label optional } } } }`, { v: viewId });
  return d.presentationGetViewPlan;
}

/** The header labels of the list, without the selection column and sort marks. */
const headers = (p: Page) => p.locator('[data-testid="list-table"] thead th button.th-sort').evaluateAll((bs) => bs.map((b) => [...b.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim()));
/** One column's cells of the rows in the DOM, as text. */
const column = (p: Page, index: number) => p.getByTestId('list-row').evaluateAll((rows, i) => rows.map((r) => (r as HTMLTableRowElement).cells[i + 1]?.innerText.trim()), index);

describe('list view', () => {
  it('shows the plan\'s columns with the plan\'s labels (optional="hide" ones hidden)', async () => {
    for (const [action, view] of [['base.action_organizations', 'res.organization.list'], ['crm.action_leads', 'crm.lead.list']] as const) {
      const plan = await listPlan(view);
      const expected = plan.columns.map((c) => plan.fields.find((f) => f.name === c)!).filter((f) => f.optional !== 'hide').map((f) => f.label);
      await page.goto(actionUrl('default', action, undefined, { view: 'list' }));
      await page.getByTestId('list-table').waitFor();
      await expect.poll(() => headers(page), { message: `${view} headers` }).toEqual(expected);
    }
  });

  it('renders the badge, money and date widgets', async () => {
    await createLead(env, { name: 'Widget lead', stage: 'won', expected_revenue: 1234567 });
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Widget lead' }));
    const row = page.getByTestId('list-row').first();
    await row.waitFor();
    // badge: the enum value in a pill styled per value
    await expect.poll(() => row.locator('.badge').evaluate((b) => [b.textContent, b.className])).toEqual(['Won', 'badge badge-won']); // the label, not the raw value
    // money: grouped, two decimals, right-aligned number cell
    // (the first number: a won lead's probability, 1 since the server closes won leads, shows too)
    await expect.poll(() => row.locator('td .num').first().textContent()).toBe('€1,234,567.00'); // in the CURRENCY setting's currency
    // date (an optional column of organizations, shown by the picker): a <time> in the medium date style
    await page.goto(actionUrl('default', 'base.action_organizations'));
    await page.getByTestId('column-picker').click();
    await page.getByTestId('column-created_at_utc').click();
    await page.keyboard.press('Escape');
    const time = page.getByTestId('list-row').first().locator('time');
    await time.waitFor();
    const iso = await time.getAttribute('datetime');
    const org = (await env.api('GET', '/api/data/res.organization?limit=1')).body;
    expect(Date.parse(iso!)).toBe(Date.parse((org.items ?? org.data ?? org)[0].created_at_utc));
    expect(await time.textContent()).toBe(new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso!)));
    // reset the choice for the next test
    await page.getByTestId('column-picker').click();
    await page.getByTestId('column-created_at_utc').click();
    await page.keyboard.press('Escape');
  });

  it('toggles optional columns with the column picker and remembers the choice across reload', async () => {
    await page.goto(actionUrl('default', 'base.action_organizations'));
    await page.getByTestId('list-row').first().waitFor();
    const base = await headers(page);
    expect(base).toContain('Active'); // optional="show"
    expect(base).not.toContain('Created at (UTC)'); // optional="hide"
    await page.getByTestId('column-picker').click();
    // the picker's checkboxes are the optional columns, checked when shown
    await expect.poll(() => page.locator('.column-dialog .checkbox[data-testid^="column-"]').evaluateAll((cs) => cs.map((c) => [c.getAttribute('data-testid'), c.hasAttribute('data-selected')]))).toEqual([
      ['column-is_active', true], ['column-created_at_utc', false],
    ]);
    await page.getByTestId('column-created_at_utc').click();
    await page.getByTestId('column-is_active').click();
    await page.keyboard.press('Escape');
    const chosen = base.filter((h) => h !== 'Active').concat('Created at (UTC)');
    await expect.poll(() => headers(page)).toEqual(chosen);
    await page.reload();
    await page.getByTestId('list-row').first().waitFor();
    await expect.poll(() => headers(page)).toEqual(chosen);
    // another list keeps its own choice
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-table').waitFor();
    await expect.poll(() => headers(page)).toEqual(['Name', 'Stage', 'Expected revenue', 'Win probability (0–1)', 'Salesperson']);
  });

  it('reorders columns (Move up/down in Columns, or dragging a header) and resizes them (the header\'s edge, pointer or arrow keys), remembered across reload until Reset', async () => {
    const leads = actionUrl('default', 'crm.action_leads', undefined, { view: 'list' });
    const natural = ['Name', 'Stage', 'Expected revenue', 'Win probability (0–1)', 'Salesperson'];
    const width = (testId: string) => page.getByTestId(testId).evaluate((el) => Math.round(el.getBoundingClientRect().width));
    const cellWidth = (index: number) => page.getByTestId('list-row').first().evaluate((r, i) => Math.round((r as HTMLTableRowElement).cells[i + 1].getBoundingClientRect().width), index);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(leads);
    await page.getByTestId('list-row').first().waitFor();
    expect(await headers(page)).toEqual(natural);
    await page.getByTestId('column-picker').click();
    await page.getByTestId('column-up-stage').click();
    await expect.poll(() => headers(page)).toEqual(['Stage', 'Name', 'Expected revenue', 'Win probability (0–1)', 'Salesperson']);
    // the first column cannot go up, the last cannot go down
    expect(await page.getByTestId('column-up-stage').isDisabled()).toBe(true);
    expect(await page.getByTestId('column-down-salesperson').isDisabled()).toBe(true);
    // the moved column keeps the focus (its other button, now that it is first), so Escape still closes the popover
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('column-down-stage');
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'list-columns-picker', { dark: true, themeByAttribute: true });
    await page.keyboard.press('Escape');
    await page.getByTestId('column-up-stage').waitFor({ state: 'detached' });

    // a header dragged onto another lands before it
    await page.getByTestId('th-salesperson').dragTo(page.getByTestId('th-name'));
    await expect.poll(() => headers(page)).toEqual(['Stage', 'Salesperson', 'Name', 'Expected revenue', 'Win probability (0–1)']);

    // the edge of a header: three steps to the right with the keyboard, 120 px with the pointer
    const nameBefore = await width('th-name');
    await page.getByTestId('resize-name').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => width('th-name')).toBe(nameBefore + 48);
    expect(Number(await page.getByTestId('resize-name').getAttribute('aria-valuenow'))).toBe(nameBefore + 48);
    const stageBefore = await width('th-stage');
    const edge = (await page.getByTestId('resize-stage').boundingBox())!;
    await page.mouse.move(edge.x + edge.width / 2, edge.y + edge.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge.x + edge.width / 2 + 60, edge.y + edge.height / 2, { steps: 4 });
    await page.mouse.move(edge.x + edge.width / 2 + 120, edge.y + edge.height / 2, { steps: 4 });
    await page.mouse.up();
    await expect.poll(() => width('th-stage')).toBe(stageBefore + 120);
    // the cells follow their header
    expect(await cellWidth(0)).toBe(stageBefore + 120);
    expect(await cellWidth(2)).toBe(nameBefore + 48);
    // dragging the edge neither sorts nor moves the column
    expect(params(page).get('order')).toBeNull();
    expect(await headers(page)).toEqual(['Stage', 'Salesperson', 'Name', 'Expected revenue', 'Win probability (0–1)']);
    await shot(page, 'list-columns-arranged', { dark: true });

    await page.reload();
    await page.getByTestId('list-row').first().waitFor();
    await expect.poll(() => headers(page)).toEqual(['Stage', 'Salesperson', 'Name', 'Expected revenue', 'Win probability (0–1)']);
    expect(await width('th-name')).toBe(nameBefore + 48);
    expect(await width('th-stage')).toBe(stageBefore + 120);

    // another person on this browser has their own arrangement: the stored key names the user
    const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('fw.columns.')));
    const me = (await env.gql('query { me { id } }')).me.id as string;
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`fw.columns.${me}.`))).toBe(true);

    await page.getByTestId('column-picker').click();
    await page.getByTestId('columns-reset').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => headers(page)).toEqual(natural);
    expect(await width('th-name')).toBe(nameBefore);
  });

  it('sorts by a header: the order is in the URL and the rows follow it', async () => {
    await insertLeads(env, ['Sort b', 'Sort c', 'Sort a', 'Sort e', 'Sort d'].map((name, i) => ({ name, expected_revenue: i })));
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Sort ' }));
    await page.getByTestId('list-row').nth(4).waitFor();
    expect(await column(page, 0)).toEqual(['Sort d', 'Sort e', 'Sort a', 'Sort c', 'Sort b']); // default: expected_revenue desc
    await page.getByTestId('sort-name').click();
    await expect.poll(() => params(page).get('order')).toBe('name asc');
    await expect.poll(() => column(page, 0)).toEqual(['Sort a', 'Sort b', 'Sort c', 'Sort d', 'Sort e']);
    expect(await page.locator('th:has([data-testid="sort-name"])').getAttribute('aria-sort')).toBe('ascending');
    await page.getByTestId('sort-name').click();
    await expect.poll(() => params(page).get('order')).toBe('name desc');
    await expect.poll(() => column(page, 0)).toEqual(['Sort e', 'Sort d', 'Sort c', 'Sort b', 'Sort a']);
    expect(await page.locator('th:has([data-testid="sort-name"])').getAttribute('aria-sort')).toBe('descending');
    expect(params(page).get('q')).toBe('Sort '); // the search stays
  });

  it('the pager shows the total and moves page by page', async () => {
    await insertLeads(env, Array.from({ length: 60 }, (_, i) => ({ name: `Page ${String(i).padStart(2, '0')}`, expected_revenue: 1000 + i })));
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Page ', order: 'name asc' }));
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–50 of 60');
    expect(await page.getByTestId('pager-prev').isDisabled()).toBe(true);
    await expect.poll(async () => (await column(page, 0))[0]).toBe('Page 00');
    await page.getByTestId('pager-next').click();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('51–60 of 60');
    expect(params(page).get('page')).toBe('2');
    await expect.poll(() => column(page, 0)).toEqual(Array.from({ length: 10 }, (_, i) => `Page ${50 + i}`));
    expect(await page.getByTestId('pager-next').isDisabled()).toBe(true);
    await page.getByTestId('pager-prev').click();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–50 of 60');
    expect(params(page).get('page')).toBeNull();
  });

  it('a page past the end goes to the last page with records (a deep link, or the last page\'s rows deleted)', async () => {
    await insertLeads(env, Array.from({ length: 13 }, (_, i) => ({ name: `Pastend ${String(i).padStart(2, '0')}` })));
    // a bookmark to a page that no longer exists
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Pastend', order: 'name asc', limit: 5, page: 99 }));
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('11–13 of 13');
    await expect.poll(() => params(page).get('page')).toBe('3');
    await expect.poll(() => column(page, 0)).toEqual(['Pastend 10', 'Pastend 11', 'Pastend 12']);
    expect(await page.getByTestId('list-empty').count()).toBe(0);
    // every row of the last page deleted: the page before it, which has records
    await page.getByTestId('select-all').check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('3 selected');
    await page.getByTestId('delete-selected').click();
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('6–10 of 10');
    await expect.poll(() => params(page).get('page')).toBe('2');
    await expect.poll(() => column(page, 0)).toEqual(['Pastend 05', 'Pastend 06', 'Pastend 07', 'Pastend 08', 'Pastend 09']);
    expect(await page.getByTestId('list-empty').count()).toBe(0);
    await shot(page, 'list-past-the-end', { dark: true });
    // nothing matches at all: the first page, with the empty state
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'No such lead anywhere', limit: 5, page: 4 }));
    await page.getByTestId('list-empty').waitFor();
    await expect.poll(() => params(page).get('page')).toBeNull();
  });

  it('selecting rows and deleting them in bulk removes them (on the server too)', async () => {
    await insertLeads(env, Array.from({ length: 5 }, (_, i) => ({ name: `Bulkdel ${i}` })));
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Bulkdel', order: 'name asc' }));
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–5 of 5');
    for (const n of [1, 2, 4]) await page.getByRole('checkbox', { name: `Select Bulkdel ${n}` }).check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('3 selected');
    expect(await page.locator('tr.selected').count()).toBe(3);
    await page.getByTestId('delete-selected').click();
    const dialog = page.getByRole('alertdialog');
    await expect.poll(() => dialog.getByRole('heading').textContent()).toBe('Delete these 3 records?');
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => column(page, 0)).toEqual(['Bulkdel 0', 'Bulkdel 3']);
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–2 of 2');
    expect(await page.getByTestId('toast-info').first().textContent()).toContain('3 records deleted.');
    expect(await page.getByTestId('selected-count').count()).toBe(0);
    const left = await env.gql('query { crmLeadCount(where: { name: { startsWith: "Bulkdel" } }) }');
    expect(left.crmLeadCount).toBe(2);
  });

  it('is idle when nothing changes (no render loop)', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    await page.waitForTimeout(300); // let the first render settle
    const a = await metrics();
    await page.waitForTimeout(1000); // measure one quiet second
    const b = await metrics();
    await cdp.detach();
    // a list that renders in a loop does ~50 layouts a second; an idle one does none (counts, not
    // durations: timing figures belong to bench/)
    expect(b.LayoutCount - a.LayoutCount, 'layouts in one idle second').toBeLessThan(5);
    expect(b.RecalcStyleCount - a.RecalcStyleCount, 'style recalculations in one idle second').toBeLessThan(5);
  });

  it('scrolls 10,000 rows virtually: few rows in the DOM, the last ones load at the bottom', async () => {
    await insertLeads(env, Array.from({ length: 10_000 }, (_, i) => ({ name: `Mass ${String(i).padStart(5, '0')}`, expected_revenue: i, stage: (['new', 'qualified', 'won', 'lost'] as const)[i % 4] })));
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Mass', order: 'name asc', limit: 10_000 }));
    await expect.poll(() => page.getByTestId('pager-range').textContent()).toBe('1–10,000 of 10,000');
    await page.getByTestId('list-row').first().waitFor();
    expect(await page.getByTestId('list-row').first().innerText()).toContain('Mass 00000');
    const inDom = () => page.locator('[data-testid="list-row"], [data-testid="list-row-loading"]').count();
    expect(await inDom()).toBeLessThan(100);
    expect(await page.getByTestId('list-table').getAttribute('aria-rowcount')).toBe('10001');

    const scroller = page.getByTestId('list-scroll');
    await scroller.evaluate((e) => { e.scrollTop = e.scrollHeight; });
    const last = page.locator('[data-testid="list-row"][aria-rowindex="10001"]');
    await last.waitFor();
    expect(await last.innerText()).toContain('Mass 09999');
    expect(await inDom()).toBeLessThan(100);
    // the middle too: rows ~5,000 load when scrolled to
    await scroller.evaluate((e) => { e.scrollTop = e.scrollHeight / 2; });
    await expect.poll(async () => (await column(page, 0)).filter((n) => /^Mass 0(49|50)\d\d$/.test(n ?? '')).length).toBeGreaterThan(5);
    expect(await inDom()).toBeLessThan(100);
  });
});
