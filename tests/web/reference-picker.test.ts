/**
 * The Reference picker's "Search more…" and quick create (issue 29 §2). "Search more…" at the
 * bottom of the options opens a dialog listing the target model's records, searchable and paged;
 * choosing a row sets the value. "Create "<text>"" creates the target record named by the typed
 * text through the create mutation, offered only when the person may create that model and its
 * create input requires nothing else; a refusal is shown under the field and the value is kept.
 * Screenshots light and dark; axe finds no serious or critical violation.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionUrl, adminOrg, axeSerious, createLead, describeViolations, getRecord, login, modelNames, shot, startWeb, type WebEnv,
} from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;
beforeAll(async () => {
  env = await startWeb();
  org = (await adminOrg(env)).code;
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

async function openForm(action: string, id: string): Promise<void> {
  await page.goto(actionUrl(org, action, id));
  await page.getByTestId('form-view').waitFor();
  await expect.poll(() => page.locator('.page-loading').count()).toBe(0);
}
const options = (p: Page) => p.getByRole('option').allTextContents();
const folderCount = async (name: string) => {
  const n = await modelNames(env, 'storage.folder');
  return (await env.gql(`query($name: String!) { total: ${n.count}(where: { name: { eq: $name } }) }`, { name })).total as number;
};

describe('Search more…', () => {
  it('opens a searchable, paged list of the target model; choosing a row sets the value', async () => {
    const n = await modelNames(env, 'res.country');
    const total = (await env.gql(`query { total: ${n.count} }`)).total as number;
    expect(total).toBeGreaterThan(20); // more than a page of countries to step through
    const lead = await createLead(env, { name: 'Picker search more' });
    await openForm('crm.action_leads', lead.id);
    const country = page.getByTestId('input-country');
    await country.fill('an');
    await page.getByTestId('reference-search-more').waitFor();
    // the last option, after the matches; countries need a code, so no quick create is offered
    expect((await options(page)).at(-1)).toBe('Search more…');
    expect(await page.getByTestId('reference-create').count()).toBe(0);
    await page.getByTestId('reference-search-more').click();
    const dialog = page.getByTestId('search-more-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe('Search: Country');
    // it opens on the typed text
    expect(await page.getByTestId('search-more-input').inputValue()).toBe('an');
    await page.getByTestId('search-more-input').fill('');
    await expect.poll(() => page.getByTestId('search-more-range').textContent()).toBe(`1–20 of ${total}`);
    expect(await page.getByTestId('search-more-row').count()).toBe(20);
    await page.getByTestId('search-more-next').click();
    await expect.poll(() => page.getByTestId('search-more-range').textContent()).toBe(`21–${Math.min(40, total)} of ${total}`);
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'reference-search-more', { dark: true, themeByAttribute: true });
    await page.getByTestId('search-more-input').fill('germ');
    await expect.poll(() => page.getByTestId('search-more-range').textContent()).toBe('1–1 of 1');
    await page.getByRole('button', { name: 'Choose Germany' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(() => country.inputValue()).toBe('Germany');
    await page.getByTestId('form-save').click();
    const de = (await env.gql(`query { rows: ${n.many}(where: { code: { eq: "DE" } }) { id } }`)).rows[0].id;
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).country).toBe(de);
  });

  it('Cancel closes the dialog and keeps the value', async () => {
    const lead = await createLead(env, { name: 'Picker search cancel' });
    await openForm('crm.action_leads', lead.id);
    await page.getByTestId('input-country').fill('fra');
    await page.getByTestId('reference-search-more').click();
    await page.getByTestId('search-more-row').first().waitFor();
    await page.getByTestId('search-more-cancel').click();
    await expect.poll(() => page.getByTestId('search-more-dialog').count()).toBe(0);
    expect(await page.getByTestId('input-country').inputValue()).toBe('');
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
  });
});

describe('quick create', () => {
  it('creates the target record named by the typed text and picks it', async () => {
    await openForm('storage.action_folders', 'new');
    await page.getByTestId('input-name').fill('Child folder');
    const parent = page.getByTestId('input-parent');
    await parent.fill('Quick parent');
    await page.getByTestId('reference-create').waitFor();
    expect(await options(page)).toEqual(['Search more…', 'Create "Quick parent"']);
    await shot(page, 'reference-quick-create', { dark: true, themeByAttribute: true });
    // the open options only: while they are open react-aria hides the rest of the page from
    // assistive technology (aria-hidden), which axe reports for every combobox of the client
    expect(describeViolations(await axeSerious(page, '.popover'))).toBe('');
    await page.getByTestId('reference-create').click();
    await expect.poll(() => parent.inputValue()).toBe('Quick parent');
    await expect.poll(() => folderCount('Quick parent')).toBe(1);
    await page.getByTestId('form-save').click();
    await expect.poll(() => new URL(page.url()).pathname).not.toContain('/new');
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    const child = await getRecord(env, 'storage.folder', id);
    const n = await modelNames(env, 'storage.folder');
    const quick = (await env.gql(`query { rows: ${n.many}(where: { name: { eq: "Quick parent" } }) { id } }`)).rows[0].id;
    expect(child.parent).toBe(quick);
  });

  it('a refused create is shown under the field; the value and the typed text stay', async () => {
    const res = await env.api('POST', '/api/data/storage.folder', { name: 'Taken name' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const kept = await env.api('POST', '/api/data/storage.folder', { name: 'Kept parent' });
    const child = await env.api('POST', '/api/data/storage.folder', { name: 'Has a parent', parent: kept.body.id });
    await openForm('storage.action_folders', child.body.id);
    const parent = page.getByTestId('input-parent');
    await expect.poll(() => parent.inputValue()).toBe('Kept parent');
    // a top-level folder of that name exists: the server refuses a second one
    await parent.fill('Taken name');
    await page.getByTestId('reference-create').click();
    const error = page.getByTestId('reference-create-error-parent');
    await error.waitFor();
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await error.textContent()).toMatch(/Taken name/i);
    expect(await parent.inputValue()).toBe('Taken name');
    expect(await folderCount('Taken name')).toBe(1);
    // the value was not touched: leaving the field shows it again, nothing to save; the message stays
    await page.getByTestId('form-title').click();
    await expect.poll(() => parent.inputValue()).toBe('Kept parent');
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
    expect(await error.isVisible()).toBe(true);
    await shot(page, 'reference-quick-create-error', { dark: true, themeByAttribute: true });
    // picking a record clears the message
    await parent.fill('Taken');
    await page.getByRole('option', { name: 'Taken name' }).click();
    await expect.poll(() => error.count()).toBe(0);
  });

  it('is not offered to someone who may not create the target model', async () => {
    const mine = await adminOrg(env);
    const res = await env.api('POST', '/api/data/res.user', { email: 'plain.picker@example.com', name: 'Pat Picker', password: 'a-long-pass-9876', role: 'user', organization: mine.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const lead = await createLead(env, { name: 'Plain picker lead', organization: mine.id });
    const p = await env.newPage();
    await login(p, { email: 'plain.picker@example.com', password: 'a-long-pass-9876' });
    await p.goto(actionUrl(org, 'crm.action_leads', lead.id));
    await p.getByTestId('form-title').waitFor();
    // organizations: admins create them, users only read
    await p.getByTestId('input-organization').fill('Brand new org');
    await p.getByTestId('reference-search-more').waitFor();
    expect(await p.getByTestId('reference-create').count()).toBe(0);
    // the admin is offered it on the same field
    await openForm('crm.action_leads', lead.id);
    await page.getByTestId('input-organization').fill('Brand new org');
    await page.getByTestId('reference-create').waitFor();
  });
});
