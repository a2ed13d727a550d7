/**
 * Preferences and languages in the web client (issue 29 §4). The user menu opens the preferences
 * screen (its own chunk): language, time zone (a searchable list of the IANA zones), theme and
 * default organization, saved through res.user.set_preferences; a value the server refuses is
 * shown beside its field. The stored theme wins over the browser's last toggle; a French user sees
 * the shell and a list in French, money per the fr locale and dates in their time zone.
 * Screenshots light and dark at desktop and phone width; axe finds nothing serious.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let token = '';
const org = { a: { id: '', code: '' }, b: { id: '', code: '' } };
let userId = '';
let leadId = '';
const chunks: string[] = [];

async function makeOrg(name: string) {
  const res = await env.api('POST', '/api/data/res.organization', { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, code: res.body.code as string };
}
const me = async () => (await env.gql('{ me { lang tz theme default_organization } }', {}, token)).me;
const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
const save = async () => {
  await page.getByTestId('pref-save').click();
};

beforeAll(async () => {
  env = await startWeb();
  org.a = await makeOrg('Prefs Alpha');
  org.b = await makeOrg('Prefs Beta');
  const made = await env.api('POST', '/api/data/res.user', { email: 'pref@prefs.example.com', name: 'Pia Prefs', password: 'prefs-pass-12', organization: org.a.id });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  userId = made.body.id;
  expect((await env.api('POST', '/api/data/res.user.membership', { user: userId, organization: org.b.id })).status).toBe(201);
  const lead = await env.api('POST', '/api/data/crm.lead', { name: 'Fromagerie lead', expected_revenue: 1234567, organization: org.a.id });
  expect(lead.status, JSON.stringify(lead.body)).toBe(201);
  leadId = lead.body.id;
  token = (await env.api('POST', '/api/auth/login', { email: 'pref@prefs.example.com', password: 'prefs-pass-12' })).body.access_token;
  page = await env.newPage();
  page.on('request', (r) => { if (r.url().includes('/assets/')) chunks.push(new URL(r.url()).pathname); });
  await login(page, { email: 'pref@prefs.example.com', password: 'prefs-pass-12' });
  await page.waitForURL((u) => u.pathname === `/${org.a.code}`);
});
afterAll(async () => { await env?.close(); });

describe('the preferences screen', () => {
  it('opens from the user menu, loading its own chunk, with the stored values: English, the browser\'s zone, the system theme, the default organization', async () => {
    expect(chunks.some((c) => c.includes('PreferencesPage'))).toBe(false);
    await page.getByTestId('user-menu').click();
    await page.getByTestId('preferences').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/${org.a.code}/preferences`);
    await page.getByRole('heading', { name: 'Preferences' }).waitFor();
    expect(chunks.some((c) => c.includes('PreferencesPage'))).toBe(true);
    expect(chunks.some((c) => /\/fr-[\w-]+\.js$/.test(c))).toBe(false); // English users never load the French catalogue
    expect(await page.getByTestId('pref-lang').inputValue()).toBe('en');
    expect(await page.getByTestId('pref-tz').inputValue()).toBe('');
    expect(await page.getByTestId('pref-theme-system').isChecked()).toBe(true);
    expect(await page.getByTestId('pref-organization').inputValue()).toBe(org.a.id);
    // the zones are offered as the input's list: every IANA name the browser knows
    expect(await page.locator('#pref-tz-zones option').count()).toBeGreaterThan(300);
    await shot(page, 'preferences', { dark: true });
    // the whole page, the shell's top bar included (the organization switcher's name starts with what it shows)
    const violations = await axeSerious(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('a time zone that is no IANA name is refused: the server\'s message beside the field, nothing stored', async () => {
    await page.getByTestId('pref-tz').fill('Mars/Olympus_Mons');
    await save();
    await expect.poll(() => page.getByTestId('pref-tz-error').textContent()).toMatch(/not a time zone/);
    expect(await page.getByTestId('pref-tz').getAttribute('aria-invalid')).toBe('true');
    await shot(page, 'preferences-error');
    expect((await me()).tz).toBeNull();
  });

  it('the dark theme, once saved, applies at once and wins over this browser\'s last toggle on the next load', async () => {
    await page.getByTestId('pref-tz').fill('');
    await page.getByTestId('pref-theme-dark').check();
    await save();
    await expect.poll(theme).toBe('dark');
    expect((await me()).theme).toBe('dark');
    await page.evaluate(() => localStorage.setItem('fw.theme', 'light'));
    await page.reload();
    await page.getByRole('heading', { name: 'Preferences' }).waitFor();
    await expect.poll(theme).toBe('dark');
    // with a stored light or dark theme, the top bar's toggle stores the other one (else the next
    // sign-in would bring the old one back)
    await page.getByTestId('theme-toggle').click();
    await expect.poll(theme).toBe('light');
    await expect.poll(async () => (await me()).theme).toBe('light');
    await page.getByTestId('theme-toggle').click();
    await expect.poll(async () => (await me()).theme).toBe('dark');
    await page.reload();
    await page.getByRole('heading', { name: 'Preferences' }).waitFor();
    // "same as the device" gives the choice back to the device (light in this browser)
    await page.getByTestId('pref-theme-system').check();
    await save();
    await expect.poll(theme).toBe('light');
    expect(await page.evaluate(() => localStorage.getItem('fw.theme'))).toBeNull();
    // left to the device, the toggle is this browser's choice only: nothing is stored
    await page.getByTestId('theme-toggle').click();
    await expect.poll(theme).toBe('dark');
    await page.waitForTimeout(300);
    expect((await me()).theme).toBe('system');
    await page.getByTestId('theme-toggle').click();
    await expect.poll(theme).toBe('light');
  });

  it('the default organization is one of the user\'s: choosing Beta stores it and keeps Alpha as a membership', async () => {
    await page.getByTestId('pref-organization').selectOption(org.b.id);
    await save();
    await expect.poll(async () => (await me()).default_organization).toBe(org.b.id);
    const orgs = (await env.gql('{ me { organizations { id } } }', {}, token)).me.organizations.map((o: { id: string }) => o.id);
    expect(orgs).toEqual([org.b.id, org.a.id]);
  });
});

describe('a French user', () => {
  it('choosing Français and a time zone turns the screen French at once, loading the French catalogue', async () => {
    await page.getByTestId('pref-lang').selectOption('fr');
    await page.getByTestId('pref-tz').fill('Pacific/Auckland');
    await save();
    await page.getByRole('heading', { name: 'Préférences' }).waitFor();
    expect(chunks.some((c) => /\/fr-[\w-]+\.js$/.test(c))).toBe(true);
    expect(await me()).toMatchObject({ lang: 'fr', tz: 'Pacific/Auckland' });
    expect(await page.getByTestId('pref-save').textContent()).toBe('Enregistrer');
    // the server's error, by its code, in French (its English message where the catalogue has no entry)
    await page.getByTestId('pref-tz').fill('Nulle/Part');
    await save();
    await expect.poll(() => page.getByTestId('pref-tz-error').textContent()).toBe('Ce n’est pas un fuseau horaire : choisissez un nom IANA, comme Europe/Paris.');
    expect((await me()).tz).toBe('Pacific/Auckland');
    // the menus come from the server in the new language without a reload (the bootstrap is refetched)
    await page.getByTestId('app-crm.menu_root').click();
    await expect.poll(() => page.getByTestId('menu-crm.menu_leads').textContent()).toBe('Pistes');
  });

  it('sees the shell and a list in French, money per the fr locale, after a reload too', async () => {
    await page.goto(actionUrl(org.a.code, 'crm.action_leads', undefined, { view: 'list' }));
    const row = page.locator('[data-testid="list-table"] tbody tr', { hasText: 'Fromagerie lead' });
    await row.waitFor();
    const money = new Intl.NumberFormat('fr', { style: 'currency', currency: 'EUR' }).format(1234567);
    expect(await row.locator('td .num').textContent()).toBe(money);
    expect(money).toMatch(/^1\s234\s567,00\s€$/);
    // the labels the apps translate (src/apps/crm.sales/i18n/fr.json): column headers and the menu
    const headers = await page.locator('[data-testid="list-table"] thead th').allTextContents();
    expect(headers.map((h) => h.replace(/\s*[▲▼]$/, '').trim())).toEqual(expect.arrayContaining(['Nom', 'Étape', 'Revenu attendu', 'Commercial']));
    expect(await page.getByTestId('menu-crm.menu_leads').textContent()).toBe('Pistes');
    expect(await row.locator('.badge').textContent()).toBe('Nouvelle'); // the stage's value label
    expect(await page.getByRole('navigation', { name: 'Applications' }).count()).toBeGreaterThan(0);
    expect(await page.getByTestId('theme-toggle').textContent()).toMatch(/^Thème (sombre|clair)$/);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    await shot(page, 'preferences-fr-list', { dark: true });
    const violations = await axeSerious(page, '#main');
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('sees dates in their time zone, written the French way', async () => {
    const posted = await env.api('POST', '/api/command/ir.message.post', { res_model: 'crm.lead', res_id: leadId, body: 'Bonjour' });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    await page.goto(actionUrl(org.a.code, 'crm.action_leads', leadId));
    const time = page.locator('[data-testid="chatter-message"]', { hasText: 'Bonjour' }).locator('time');
    await time.waitFor();
    const expected = new Intl.DateTimeFormat('fr', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Pacific/Auckland' }).format(new Date(posted.body.created_at_utc));
    // the browser runs in UTC: Auckland is 12 or 13 hours ahead, so this is no accident of the machine's zone
    expect(expected).not.toBe(new Intl.DateTimeFormat('fr', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(posted.body.created_at_utc)));
    expect(await time.textContent()).toBe(expected);
    // the form's date-time input shows and reads the wall clock of their zone, not the browser's
    const lead = await env.api('PATCH', `/api/data/crm.lead/${leadId}`, { date_deadline: '2026-07-01T12:00:00.000Z' });
    expect(lead.status, JSON.stringify(lead.body)).toBe(200);
    await page.reload();
    const input = page.getByTestId('input-date_deadline');
    await expect.poll(() => input.inputValue()).toBe('2026-07-02T00:00');
    await input.fill('2026-07-02T09:15');
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/data/crm.lead/${leadId}`)).body.date_deadline).toBe('2026-07-01T21:15:00.000Z');
  });

  it('on a phone the drawer holds the preferences link, and the screen fits the width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('nav-toggle').click();
    await page.getByTestId('drawer-preferences').click();
    await page.getByRole('heading', { name: 'Préférences' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, 'preferences-phone', { dark: true, themeByAttribute: true });
    const violations = await axeSerious(page, '#main');
    expect(violations, describeViolations(violations)).toEqual([]);
  });
});
