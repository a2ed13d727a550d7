/**
 * View modifiers live in the form (the CRM lead form declares them): the Mark won button is
 * invisible on won and lost leads, "Closed on" appears only for them and is required once won,
 * the win probability becomes read-only; all of it follows the values as the person edits,
 * before anything is saved.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, createLead, describeViolations, getRecord, shot, startSignedIn, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
});
afterAll(async () => { await env?.close(); });

const markWon = () => page.getByTestId('button-crm.lead.mark_won');

describe('view modifiers in the form', () => {
  it('follow the values live: a stage change hides the button, shows and requires "Closed on", locks the probability', async () => {
    const lead = await createLead(env, { name: 'Modifier lead', stage: 'qualified', probability: 0.4 });
    await page.goto(actionUrl(org, 'crm.action_leads', lead.id));
    await page.getByTestId('form-view').waitFor();
    await markWon().waitFor();
    expect(await page.getByTestId('field-closed_at').count()).toBe(0);
    expect(await page.getByTestId('input-probability').isEditable()).toBe(true);

    // the person moves the lead to Won through the statusbar: nothing saved yet
    await page.getByTestId('statusbar-won').click();
    await expect.poll(() => markWon().count()).toBe(0);
    await page.getByTestId('field-closed_at').waitFor();
    expect(await page.getByTestId('field-closed_at').locator('.req').count()).toBe(1); // marked required
    expect(await page.getByTestId('input-probability').count()).toBe(0); // shown, not editable
    await shot(page, 'form-modifiers-won', { dark: true });
    expect(describeViolations(await axeSerious(page))).toBe('');

    // required now: Save without a date is stopped beside the field, and nothing is sent
    await page.getByTestId('form-save').click();
    await expect.poll(() => page.getByTestId('error-closed_at').textContent()).toMatch(/Closed on/);
    expect((await getRecord(env, 'crm.lead', lead.id)).stage).toBe('qualified');
    await page.getByTestId('input-closed_at').fill('2026-11-20T10:30');
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).stage).toBe('won');
    expect((await getRecord(env, 'crm.lead', lead.id)).closed_at).toMatch(/^2026-11-20T/);
  });

  it('a lead opened already won shows no Mark won button, and a new lead shows it', async () => {
    const won = await createLead(env, { name: 'Already won', stage: 'won', closed_at: new Date().toISOString() });
    await page.goto(actionUrl(org, 'crm.action_leads', won.id));
    await page.getByTestId('field-closed_at').waitFor();
    expect(await markWon().count()).toBe(0);
    await page.goto(actionUrl(org, 'crm.action_leads', 'new'));
    await markWon().waitFor();
    expect(await page.getByTestId('field-closed_at').count()).toBe(0);
  });
});
