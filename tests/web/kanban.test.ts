/**
 * The kanban view: a column per stage holding its leads with their count (read_group), more
 * cards on demand, and dragging a card with the mouse to another column changes the lead's
 * stage on the server.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, getRecord, insertLeads, login, seedLeads, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let ids: string[];
beforeAll(async () => {
  env = await startWeb();
  ids = await seedLeads(env, [
    { name: 'Kan new A', stage: 'new', expected_revenue: 300 },
    { name: 'Kan new B', stage: 'new', expected_revenue: 200 },
    { name: 'Kan qual A', stage: 'qualified', expected_revenue: 900 },
    { name: 'Kan qual B', stage: 'qualified', expected_revenue: 800 },
    { name: 'Kan qual C', stage: 'qualified', expected_revenue: 700 },
    { name: 'Kan won', stage: 'won', expected_revenue: 5000 },
  ]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const column = (p: Page, stage: string) => p.getByTestId(`kanban-column-${stage}`);
const cardNames = (col: Locator) => col.getByTestId('kanban-card').evaluateAll((cs) => cs.map((c) => c.querySelector('.card-title')?.textContent));
const count = (col: Locator) => col.getByTestId('kanban-count').textContent();

describe('kanban view', () => {
  it('shows the leads in a column per stage, with counts', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await page.getByTestId('kanban').waitFor();
    expect(await page.locator('.kanban-column h2').evaluateAll((hs) => hs.map((h) => h.firstChild?.textContent?.trim()))).toEqual(['New', 'Qualified', 'Won', 'Lost']);
    await expect.poll(() => cardNames(column(page, 'new'))).toEqual(expect.arrayContaining(['Kan new A', 'Kan new B']));
    expect((await cardNames(column(page, 'new'))).length).toBe(2);
    await expect.poll(() => cardNames(column(page, 'qualified'))).toHaveLength(3);
    expect(await cardNames(column(page, 'won'))).toEqual(['Kan won']);
    expect(await cardNames(column(page, 'lost'))).toEqual([]);
    await expect.poll(() => count(column(page, 'qualified'))).toBe('3');
    expect(await count(column(page, 'new'))).toBe('2');
    expect(await column(page, 'lost').textContent()).toContain('Nothing here');
    // a card shows its card fields: the name, then labelled lines (numbers grouped)
    const won = column(page, 'won').getByTestId('kanban-card').first();
    expect(await won.locator('.card-title').textContent()).toBe('Kan won');
    expect(await won.locator('.card-line').first().textContent()).toBe('Expected revenue: 5,000');
  });

  it('an empty column counts 0', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await expect.poll(() => count(column(page, 'won'))).toBe('1');
    expect(await count(column(page, 'lost'))).toBe('0');
  });

  it('dragging a card with the mouse to another column changes its stage on the server', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    const card = column(page, 'new').getByRole('button', { name: 'Kan new A' });
    await card.waitFor();
    const target = column(page, 'qualified');
    const from = (await card.boundingBox())!;
    const to = (await target.boundingBox())!;
    // dnd-kit's pointer sensor starts after 5 px of movement and follows pointer moves
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + 80, { steps: 20 });
    await expect.poll(() => target.getAttribute('class')).toContain('over');
    await page.mouse.up();
    await expect.poll(() => cardNames(column(page, 'qualified'))).toContain('Kan new A');
    expect(await cardNames(column(page, 'new'))).toEqual(['Kan new B']);
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('Moved to Qualified.');
    await expect.poll(async () => (await getRecord(env, 'crm.lead', ids[0])).stage).toBe('qualified');
    await expect.poll(() => count(column(page, 'qualified'))).toBe('4');
    expect(await count(column(page, 'new'))).toBe('1');
    // it stays there after a reload
    await page.reload();
    await expect.poll(() => cardNames(column(page, 'qualified'))).toContain('Kan new A');
    // and the drag did not open the card's form
    expect(new URL(page.url()).pathname).toBe('/default/action-crm.action_leads');
  });

  it('a card picked up with the keyboard is announced by its title and the columns by their labels, not by ids', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    const card = column(page, 'won').getByRole('button', { name: 'Kan won' });
    await card.focus();
    const live = page.locator('[id^="DndLiveRegion"]');
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toBe('Picked up Kan won in Won.');
    await page.keyboard.press('Escape');
    await expect.poll(() => live.textContent()).toBe('Kan won put back in Won.');
    expect(await getRecord(env, 'crm.lead', ids[5]!)).toMatchObject({ stage: 'won' });
    // what the card tells a screen reader on focus: how to move it
    const described = await card.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toContain('Arrow keys move it to another column');
  });

  it('a click on a card opens its form', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await column(page, 'won').getByRole('button', { name: 'Kan won' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/default/action-crm.action_leads/${ids[5]}`);
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Kan won');
  });

  it('a long column loads more cards on demand', async () => {
    await insertLeads(env, Array.from({ length: 45 }, (_, i) => ({ name: `Lost ${String(i).padStart(2, '0')}`, stage: 'lost' as const })));
    await page.goto(actionUrl('default', 'crm.action_leads'));
    const lost = column(page, 'lost');
    await expect.poll(() => count(lost)).toBe('45');
    await expect.poll(() => cardNames(lost)).toHaveLength(40);
    await lost.getByTestId('kanban-more').click();
    await expect.poll(() => cardNames(lost)).toHaveLength(45);
    expect(await lost.getByTestId('kanban-more').count()).toBe(0);
  });
});
