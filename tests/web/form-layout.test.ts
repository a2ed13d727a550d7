/**
 * Forms as people use them: at most two label/input pairs a row on a wide screen, help text under
 * its input instead of in the column title, Ctrl+S saves, Escape on the "leave?" dialog stays.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, adminOrg, createLead, getRecord, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  env = await startWeb();
  const ctx = await env.newContext();
  page = await ctx.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
  org = (await adminOrg(env)).code;
});
afterAll(async () => { await env?.close(); });

describe('form layout and keys', () => {
  it('at 1440 px a group puts at most two label/input pairs on a row, and no input is narrower than 240 px', async () => {
    const lead = await createLead(env, { name: 'Layout lead' });
    await page.goto(actionUrl(org, 'crm.action_leads', lead.id));
    await page.getByTestId('form-view').waitFor();
    const rows = await page.locator('.group-grid').first().locator(':scope > .field').evaluateAll((els) => {
      const tops = new Map<number, number>();
      for (const e of els) { const top = Math.round(e.getBoundingClientRect().top); tops.set(top, (tops.get(top) ?? 0) + 1); }
      return [...tops.values()];
    });
    expect(Math.max(...rows)).toBeLessThanOrEqual(2);
    const widths = await page.locator('.view-form .field .input').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    expect(Math.min(...widths)).toBeGreaterThanOrEqual(240);
    await shot(page, 'form-layout-1440', { dark: true });
  });

  it('help text sits under its input, and the list column title is the label alone', async () => {
    await page.goto(actionUrl(org, 'base.action_organizations', 'new'));
    const help = page.getByTestId('help-code');
    await expect.poll(() => help.textContent()).toMatch(/^Lowercase letters, digits and hyphens/);
    expect(await page.getByTestId('input-code').getAttribute('aria-describedby')).toContain(await help.getAttribute('id'));
    await page.goto(actionUrl(org, 'base.action_organizations', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    const titles = await page.locator('thead th').allInnerTexts();
    expect(titles.map((x) => x.trim())).toContain('Workspace slug');
    expect(titles.join(' ')).not.toContain('lowercase');
  });

  it('Ctrl+S saves the form', async () => {
    const lead = await createLead(env, { name: 'Keyboard lead' });
    await page.goto(actionUrl(org, 'crm.action_leads', lead.id));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Keyboard lead');
    await page.getByTestId('input-name').fill('Keyboard lead, saved');
    await page.keyboard.press('Control+s');
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).name).toBe('Keyboard lead, saved');
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
  });

  it('Escape on the "discard changes?" dialog stays on the form with the edit', async () => {
    const lead = await createLead(env, { name: 'Escape lead' });
    await page.goto(actionUrl(org, 'crm.action_leads', lead.id));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Escape lead');
    await page.getByTestId('input-name').fill('Escape lead (edited)');
    await page.getByTestId('breadcrumb-action').click();
    await page.getByTestId('dirty-dialog').waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('dirty-dialog').count()).toBe(0);
    expect(new URL(page.url()).pathname).toContain(lead.id);
    expect(await page.getByTestId('input-name').inputValue()).toBe('Escape lead (edited)');
    await page.getByTestId('form-discard').click();
  });
});
