/**
 * A French user reads the apps' own texts in French (issue 29 §4): the group labels and
 * descriptions of the user form's `base.groups` checklist come translated in the bootstrap (the
 * apps' i18n files), the CRM funnel's counts and the connector form's texts come from their apps'
 * extension messages (`defineWebExtension({ messages: { en, fr } })`), and a connection test's
 * result, fresh or stored with the connector, is formatted from its message id. Screenshots light and dark at desktop and phone width;
 * axe finds nothing serious.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, adminOrg, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: { id: string; code: string };
let userId = '';
let connectorId = '';
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-web-fr-'));

beforeAll(async () => {
  env = await startWeb();
  org = await adminOrg(env);
  const made = async (model: string, values: Record<string, unknown>) => {
    const res = await env.api('POST', `/api/data/${model}`, values);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  // a French administrator, so the user form and the connectors are theirs to open
  const amelie = await made('res.user', { email: 'amelie@example.com', name: 'Amélie Admin', password: 'amelie-pass-12', role: 'admin', organization: org.id });
  const token = (await env.api('POST', '/api/auth/login', { email: 'amelie@example.com', password: 'amelie-pass-12' })).body.access_token as string;
  expect((await env.api('POST', `/api/data/res.user/${amelie}/set_preferences`, { lang: 'fr' }, token)).status).toBe(200);
  userId = await made('res.user', { email: 'gustave@example.com', name: 'Gustave Groupe', password: 'gustave-pass-12', organization: org.id });
  for (const [name, stage] of [['Fr A', 'qualified'], ['Fr B', 'qualified'], ['Fr C', 'qualified'], ['Fr D', 'new']]) {
    await made('crm.lead', { name, stage, organization: org.id });
  }
  const c = await env.api('POST', '/api/connectors', { name: 'Disque local', category: 'storage', provider_type: 'local', organization_id: org.id });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  connectorId = c.body.id;
  expect((await env.api('POST', `/api/connectors/${connectorId}/import-config`, { json_data: { root: folder } })).status).toBe(200);
  page = await env.newPage();
  await login(page, { email: 'amelie@example.com', password: 'amelie-pass-12' });
});
afterAll(async () => {
  await env?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe('a French user', () => {
  it('reads the groups of the user form in French: labels and descriptions from the apps\' i18n files', async () => {
    await page.goto(actionUrl(org.code, 'base.action_users', userId));
    const admins = page.getByTestId('group-base.admin');
    await admins.waitFor();
    await expect.poll(() => admins.innerText()).toMatch(/^Administrateur\s+Gère les utilisateurs, les paramètres et tous les enregistrements$/);
    expect(await page.getByTestId('group-base.user').innerText()).toMatch(/^Utilisateur\s+Travaille sur les enregistrements de son organisation$/);
    await shot(page, 'fr-user-groups', { dark: true });
    const violations = await axeSerious(page, '[data-testid="input-groups"]');
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'fr-user-groups-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('reads the CRM funnel in French: its counts and its label are the crm.sales extension\'s French messages, the stages the server\'s', async () => {
    await page.goto(actionUrl(org.code, 'crm.action_leads', undefined, { view: 'crm.funnel' }));
    const funnel = page.getByTestId('crm-funnel');
    await funnel.waitFor();
    await expect.poll(() => page.getByTestId('crm-funnel-qualified').locator('.crm-funnel-count').textContent()).toBe('3 pistes');
    expect(await page.getByTestId('crm-funnel-new').locator('.crm-funnel-count').textContent()).toBe('1 piste');
    expect(await funnel.getAttribute('aria-label')).toBe('Entonnoir : enregistrements par étape');
    expect(await page.locator('.crm-funnel-name').allTextContents()).toEqual(['Nouvelle', 'Qualifiée', 'Gagnée', 'Perdue']);
    await shot(page, 'fr-crm-funnel', { dark: true });
    const violations = await axeSerious(page, '[data-testid="crm-funnel"]');
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'fr-crm-funnel-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('a new connector\'s provider list names the providers and their categories in French', async () => {
    await page.goto(actionUrl(org.code, 'connectors.action_connectors', 'new'));
    const select = page.getByTestId('provider-select');
    await select.waitFor();
    const options = await select.locator('option').allInnerTexts();
    expect(options).toEqual(expect.arrayContaining(['Système de fichiers local (stockage)', 'Serveur SMTP (e-mail)', 'Webhook (HTTP POST) (messagerie)']));
  });

  it('reads the connector form and its test result in French, fresh and stored: the server\'s message id formatted from the connectors extension\'s messages', async () => {
    await page.goto(actionUrl(org.code, 'connectors.action_connectors', connectorId));
    const params = page.getByTestId('connector-params');
    await params.waitFor();
    // the provider's name joins the heading once the provider list has loaded
    await expect.poll(() => params.getByRole('heading').first().innerText()).toBe('Paramètres — Système de fichiers local');
    // the provider's parameters and the provider list come from the connectors app's French
    expect(await params.locator('label[for="param-root"]').innerText()).toBe('Dossier racine (vide = STORAGE_LOCAL_ROOT)');
    await page.getByTestId('connector-test').click();
    const result = page.getByTestId('test-result');
    await expect.poll(() => result.textContent()).toBe(`La connexion fonctionne : le dossier ${folder} est accessible en écriture`);
    expect(await page.getByTestId('connector-test').innerText()).toBe('Tester la connexion');
    // the record keeps the English sentence (API callers) with its id: opened again, the form says the last test in French
    expect((await env.api('GET', `/api/connectors/${connectorId}`)).body).toMatchObject({ status_message: `folder ${folder} is writable`, status_message_id: 'connectors.test.local_ok' });
    await page.reload();
    await expect.poll(() => page.getByTestId('test-result').textContent()).toBe(`La connexion fonctionne : le dossier ${folder} est accessible en écriture`);
    await shot(page, 'fr-connector-test', { dark: true });
    const violations = await axeSerious(page, '[data-testid="connector-params"]');
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await result.scrollIntoViewIfNeeded();
    await shot(page, 'fr-connector-test-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
