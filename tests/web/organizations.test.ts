/**
 * Several organizations in the web client (issue 25 §2): the URL's workspace slug is the
 * organization the tab works in. A user of two organizations gets a switcher in the top bar
 * (and the phone drawer); choosing the other one opens its workspace, whose lists show its
 * records only; two tabs of one browser work in two organizations at once; a URL naming a
 * workspace the user does not belong to lands on their default one. A user of one organization
 * sees no switcher. An admin gives memberships on the user form. Screenshots light and dark at
 * desktop and phone width.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
const org = { a: { id: '', code: '' }, b: { id: '', code: '' }, c: { id: '', code: '' } };
let userId = '';

async function makeOrg(name: string) {
  const res = await env.api('POST', '/api/data/res.organization', { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, code: res.body.code as string };
}
const rowNames = (p: Page) => p.locator('[data-testid="list-table"] tbody tr').allInnerTexts();

beforeAll(async () => {
  env = await startWeb();
  org.a = await makeOrg('Acme Works');
  org.b = await makeOrg('Beta Labs');
  org.c = await makeOrg('Closed Co');
  const made = await env.api('POST', '/api/data/res.user', { email: 'two@orgs.example.com', name: 'Tess Two', password: 'two-orgs-pass-1', organization: org.a.id });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  userId = made.body.id;
  expect((await env.api('POST', '/api/data/res.user.membership', { user: userId, organization: org.b.id })).status).toBe(201);
  for (const [name, o] of [['Anvil order', org.a], ['Beaker order', org.b], ['Crate order', org.c]] as const) {
    expect((await env.api('POST', '/api/data/crm.lead', { name, organization: o.id })).status).toBe(201);
  }
  page = await env.newPage();
  await login(page, { email: 'two@orgs.example.com', password: 'two-orgs-pass-1' });
});
afterAll(async () => { await env?.close(); });

describe('working in one of several organizations', () => {
  it('lands in the default organization; the switcher names it and lists both; choosing Beta opens its workspace with its leads only', async () => {
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/${org.a.code}`);
    await page.goto(actionUrl(org.a.code, 'crm.action_leads', undefined, { view: 'list' }));
    await expect.poll(() => rowNames(page)).toEqual([expect.stringContaining('Anvil order')]);
    const switcher = page.getByTestId('org-switcher');
    await expect.poll(() => switcher.innerText()).toMatch(/^Acme Works\b/);
    await switcher.click();
    await page.getByTestId(`org-${org.b.code}`).waitFor();
    expect(await page.getByRole('menuitemradio').allInnerTexts()).toEqual(['Acme Works', 'Beta Labs']);
    // the menu is open: the light shot only (the dark one switches the theme through the top bar)
    await shot(page, 'organizations-switcher');
    const violations = await axeSerious(page, '.popover');
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.getByTestId(`org-${org.b.code}`).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/${org.b.code}`);
    await expect.poll(() => page.getByTestId('org-switcher').innerText()).toMatch(/^Beta Labs\b/);
    await page.goto(actionUrl(org.b.code, 'crm.action_leads', undefined, { view: 'list' }));
    await expect.poll(() => rowNames(page)).toEqual([expect.stringContaining('Beaker order')]);
    await shot(page, 'organizations-beta-leads', { dark: true });
  });

  it('a lead created in Beta belongs to Beta', async () => {
    await page.goto(actionUrl(org.b.code, 'crm.action_leads', 'new'));
    await page.getByTestId('input-name').fill('Bunsen order');
    await page.getByTestId('form-save').click();
    await expect.poll(async () => {
      const found = await env.api('GET', `/api/data/crm.lead?filter=${encodeURIComponent(JSON.stringify([['name', '=', 'Bunsen order']]))}`);
      return found.body.items?.[0]?.organization;
    }).toBe(org.b.id);
  });

  it('two tabs of one browser work in two organizations at once', async () => {
    const other = await page.context().newPage();
    await other.goto(actionUrl(org.a.code, 'crm.action_leads', undefined, { view: 'list' }));
    await expect.poll(() => rowNames(other)).toEqual([expect.stringContaining('Anvil order')]);
    await page.goto(actionUrl(org.b.code, 'crm.action_leads', undefined, { view: 'list' }));
    await expect.poll(async () => (await rowNames(page)).length).toBe(2);
    expect((await rowNames(page)).join(' ')).not.toContain('Anvil');
    expect((await rowNames(other)).join(' ')).not.toContain('Beaker');
    await other.close();
  });

  it('a URL naming a workspace the user does not belong to lands on their default one, showing nothing of it', async () => {
    await page.goto(actionUrl(org.c.code, 'crm.action_leads', undefined, { view: 'list' }));
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/${org.a.code}`);
    expect(await page.content()).not.toContain('Crate order');
  });

  it('on a phone the switcher sits in the menu drawer', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/${org.a.code}`);
    await page.getByTestId('nav-toggle').click();
    await page.getByTestId('drawer-org-switcher').waitFor();
    await shot(page, 'organizations-drawer-phone', { dark: true, themeByAttribute: true });
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('memberships on the user form', () => {
  it('the admin sees the user\'s other organizations on the user form; a user of one organization has no switcher', async () => {
    const admin = await env.newPage();
    await login(admin);
    const home = new URL(admin.url()).pathname.split('/')[1];
    await admin.goto(actionUrl(home, 'base.action_users', userId));
    const lines = admin.getByTestId('o2m-memberships');
    await lines.waitFor();
    await expect.poll(() => lines.locator('input').first().inputValue()).toBe('Beta Labs');
    await shot(admin, 'organizations-user-form', { dark: true });
    expect(await admin.getByTestId('org-switcher').count()).toBe(0);
  });
});
