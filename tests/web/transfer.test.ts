/**
 * Export and import from a list: Export offers the selected records or every match, CSV or
 * XLSX, the visible columns or a chosen set, shows its progress and hands over the file
 * (References as names); Import reads a file, shows the column → field mapping the server
 * matched by label and name, tests it (every row's problems by line, nothing written), then
 * imports. Screenshots desktop and phone, light and dark; axe finds no serious violation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionUrl, adminOrg, axeSerious, createLead, describeViolations, shot, startSignedIn, UI_TIMEOUT, type WebEnv,
} from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;
let orgName: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-transfer-'));

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn());
  const admin = await adminOrg(env);
  orgName = (await env.api('GET', `/api/data/res.organization/${admin.id}`)).body.name;
  for (let i = 0; i < 4; i++) {
    await createLead(env, { name: `Export lead ${i}`, email: `x${i}@example.com`, expected_revenue: 100 * (i + 1), stage: i % 2 ? 'qualified' : 'new', organization: admin.id });
  }
});
afterAll(async () => { await env?.close(); });

async function download(p: Page, trigger: () => Promise<void>): Promise<string> {
  const [d] = await Promise.all([p.waitForEvent('download'), trigger()]);
  const file = path.join(tmp, d.suggestedFilename());
  await d.saveAs(file);
  return file;
}

describe('export from a list', () => {
  it('exports the selected records with the visible columns, References as names, after showing its progress', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Export lead', order: 'name asc' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('list-row').nth(0).locator('input[type=checkbox]').check();
    await page.getByTestId('list-row').nth(1).locator('input[type=checkbox]').check();
    await page.getByTestId('export-open').click();
    const dialog = page.getByTestId('export-dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('export-scope-selected').isChecked()).toBe(true);
    await shot(page, 'export-dialog', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');

    // hold the answer, so the progress shows before the file arrives
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    await page.route('**/api/export/**', async (route) => {
      if (route.request().method() === 'POST') await held;
      await route.fallback();
    });
    const file = download(page, () => page.getByTestId('export-run').click());
    await page.getByTestId('export-progress').waitFor();
    await shot(page, 'export-progress', { dark: true, themeByAttribute: true });
    release();
    const rows = parse(fs.readFileSync(await file), { bom: true }) as string[][];
    await page.unroute('**/api/export/**');
    // the fields' labels (the registry's), which import matches again
    expect(rows[0]).toEqual(['Name', 'Stage', 'Expected revenue', 'Win probability (0–1)', 'Salesperson']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['Export lead 0', 'Export lead 1']);
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('Exported 2 records.');
  });

  it('exports every matching record as XLSX with a chosen set of columns', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list', q: 'Export lead' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('export-open').click();
    await page.getByTestId('export-format-xlsx').check();
    await page.getByTestId('export-columns-chosen').check();
    await page.getByTestId('export-field-organization').check();
    await page.getByTestId('export-field-stage').uncheck();
    await shot(page, 'export-choose-columns', { themeByAttribute: true });
    const file = await download(page, () => page.getByTestId('export-run').click());
    expect(file).toMatch(/crm\.lead-\d{4}-\d{2}-\d{2}\.xlsx$/);
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const sheet = wb.worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toContain('Organization');
    expect(header).not.toContain('Stage');
    expect(sheet.rowCount).toBe(5);
    const orgCol = header.indexOf('Organization') + 1;
    expect(sheet.getRow(2).getCell(orgCol).value).toBe(orgName);
  });
});

describe('import into a list', () => {
  const csv = (name: string, text: string) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it('shows the mapping matched by label and name, tests the file listing problems by line, writes nothing until it is clean', async () => {
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('import-open').click();
    await page.getByTestId('import-dialog').waitFor();
    await shot(page, 'import-choose', { themeByAttribute: true });
    const bad = csv('leads.csv', `Lead name,E-mail,Stage,Expected Revenue,Organization,Shoe size\nImported one,i1@example.com,new,10,${orgName},42\nImported two,i2@example.com,sleeping,ten,Nowhere Inc,43\n`);
    await page.locator('input[type=file]').setInputFiles(bad);
    await expect.poll(() => page.getByTestId('import-column').count()).toBe(6);
    // "Lead name" matches no field: the person picks Name; the rest matched by label or name
    expect(await page.getByTestId('import-map-0').inputValue()).toBe('');
    expect(await page.getByTestId('import-map-1').inputValue()).toBe('email');
    expect(await page.getByTestId('import-map-3').inputValue()).toBe('expected_revenue');
    expect(await page.getByTestId('import-map-4').inputValue()).toBe('organization');
    expect(await page.getByTestId('import-map-5').inputValue()).toBe('');
    await page.getByTestId('import-map-0').selectOption('name');
    await page.getByTestId('import-key').selectOption('email');
    await shot(page, 'import-mapping', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.getByTestId('import-test').click();
    await page.getByTestId('import-report').waitFor();
    await expect.poll(() => page.getByTestId('import-error').count()).toBe(3);
    const problems = await page.getByTestId('import-error').allTextContents();
    expect(problems[0]).toMatch(/^3Expected Revenue/);
    expect(problems[1]).toMatch(/^3Organization.*Nowhere Inc/);
    expect(problems[2]).toMatch(/^3Stage/);
    expect(await page.getByTestId('import-run').isDisabled()).toBe(true);
    await shot(page, 'import-dry-run', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    const n = (await env.api('GET', `/api/data/crm.lead?filter=${encodeURIComponent(JSON.stringify([['name', 'like', 'Imported%']]))}`)).body.total;
    expect(n).toBe(0);

    const good = csv('leads-fixed.csv', `Lead name,E-mail,Stage,Expected Revenue,Organization,Shoe size\nImported one,i1@example.com,new,10,${orgName},42\nImported two,i2@example.com,won,20,${orgName},43\n`);
    await page.locator('input[type=file]').setInputFiles(good);
    await expect.poll(() => page.getByTestId('import-file-name').textContent()).toContain('leads-fixed.csv');
    await page.getByTestId('import-map-0').selectOption('name');
    await page.getByTestId('import-test').click();
    await expect.poll(() => page.getByTestId('import-report').textContent()).toContain('no problem found');
    await page.getByTestId('import-run').click();
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('Imported: 2 records created, 0 updated.');
    const rows = (await env.api('GET', `/api/data/crm.lead?order=name%20asc&filter=${encodeURIComponent(JSON.stringify([['name', 'like', 'Imported%']]))}`)).body.items;
    expect(rows.map((r: Record<string, unknown>) => [r.name, r.stage, r.expected_revenue])).toEqual([['Imported one', 'new', 10], ['Imported two', 'won', 20]]);
  });
});

describe('import for a French reader', () => {
  let ctx: BrowserContext;
  afterAll(async () => { await ctx?.close(); });
  it('the row errors read in French: the import\'s own codes with the file\'s values, a field problem by its code', async () => {
    const admin = await adminOrg(env);
    const made = await env.api('POST', '/api/data/res.user', { email: 'eloise@example.com', name: 'Éloïse Import', password: 'eloise-pass-12', role: 'admin', organization: admin.id });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = (await env.api('POST', '/api/auth/login', { email: 'eloise@example.com', password: 'eloise-pass-12' })).body.access_token as string;
    expect((await env.api('POST', `/api/data/res.user/${made.body.id}/set_preferences`, { lang: 'fr' }, token)).status).toBe(200);
    const file = path.join(tmp, 'pistes.csv');
    fs.writeFileSync(file, `Name,Email,Stage,Expected Revenue,Organization\nPiste une,f1@example.com,new,dix,${orgName}\nPiste deux,f2@example.com,new,5,Nulle Part SA\n,f3@example.com,new,5,${orgName}\n`);
    const run = async (p: Page, prefix: string) => {
      await p.goto('/login');
      await p.getByTestId('login-email').fill('eloise@example.com');
      await p.getByTestId('login-password').fill('eloise-pass-12');
      await p.getByTestId('login-submit').click();
      // (on a phone the user menu sits in the closed navigation: there, not visible)
      await p.getByTestId('user-menu').waitFor({ state: 'attached' });
      await p.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
      await p.getByTestId('list-row').first().waitFor();
      await p.getByTestId('import-open').click();
      await p.locator('input[type=file]').setInputFiles(file);
      await expect.poll(() => p.getByTestId('import-column').count()).toBe(5);
      await p.getByTestId('import-test').click();
      await p.getByTestId('import-report').waitFor();
      await expect.poll(() => p.getByTestId('import-error').count()).toBe(3);
      expect((await p.getByTestId('import-error').allTextContents()).map((x) => x.replaceAll('\u00a0', ' '))).toEqual([
        '2Expected Revenue« dix » n’est pas un nombre entier.',
        '3OrganizationAucun enregistrement ne s’appelle « Nulle Part SA ».',
        '4NameObligatoire.',
      ]);
      await shot(p, `${prefix}import-errors-fr`, { dark: true, themeByAttribute: true });
    };
    const desktop = await env.newPage();
    await run(desktop, '');
    expect(describeViolations(await axeSerious(desktop))).toBe('');
    ctx = await env.browser.newContext({ baseURL: env.base, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US', timezoneId: 'UTC' });
    ctx.setDefaultTimeout(UI_TIMEOUT);
    const phone = await ctx.newPage();
    await run(phone, 'phone-');
    expect(await phone.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))).toBe(0);
  });
});

describe('on a phone', () => {
  let ctx: BrowserContext;
  afterAll(async () => { await ctx?.close(); });
  it('the export dialog and the import mapping fit the screen', async () => {
    ctx = await env.browser.newContext({ baseURL: env.base, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US', timezoneId: 'UTC' });
    ctx.setDefaultTimeout(UI_TIMEOUT);
    const phone = await ctx.newPage();
    await phone.goto('/login');
    await phone.getByTestId('login-email').fill('admin@example.com');
    await phone.getByTestId('login-password').fill('admin-pass-1');
    await phone.getByTestId('login-submit').click();
    await phone.getByTestId('nav-toggle').waitFor();
    await phone.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
    await phone.getByTestId('list-row').first().waitFor();
    await phone.getByTestId('export-open').click();
    await phone.getByTestId('export-dialog').waitFor();
    await shot(phone, 'phone-export-dialog', { dark: true, themeByAttribute: true });
    await phone.getByTestId('export-cancel').click();
    await phone.getByTestId('import-open').click();
    const file = path.join(tmp, 'phone.csv');
    fs.writeFileSync(file, 'Name,Email,Stage\nPhone import,p@example.com,new\n');
    await phone.locator('input[type=file]').setInputFiles(file);
    await expect.poll(() => phone.getByTestId('import-column').count()).toBe(3);
    await phone.getByTestId('import-test').click();
    await phone.getByTestId('import-report').waitFor();
    await shot(phone, 'phone-import-mapping', { dark: true, themeByAttribute: true });
    const overflow = await phone.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
    expect(overflow).toBe(0);
  });
});
