/**
 * Connectors in the browser (admin): a new connector starts from a registered provider type, its
 * parameters form comes from the provider's config_schema with secrets masked, the connection
 * test shows its status and message, activate/deactivate run from the header, and a JSON
 * configuration file imported through the file-upload button replaces the parameters. The form has
 * one Save (the record and its parameters) and one Test button, and offers Authorize only for a
 * provider with an OAuth flow.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { providers } from '../../src/apps/connectors/providers/registry.ts';
import type { ConnectorProvider } from '../../src/apps/connectors/providers/types.ts';
import { actionUrl, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let hook: http.Server;
let hookUrl: string;
const pings: string[] = [];
let connectorId: string;

/** A provider with an OAuth flow, registered by the test (no built-in one has one). */
const oauthProvider: ConnectorProvider = {
  category: 'messaging',
  provider_type: 'oauth_web_test',
  display_name: 'OAuth web test',
  config_schema: [{ key: 'client_id', label: 'Client id', required: true, secret: false }],
  async exchange_oauth_code(code) { return { access_token: `at-${code}` }; },
  oauth_authorize_url: (_config, { state }) => `https://provider.example/authorize?state=${encodeURIComponent(state)}`,
  from_config() { return { async test_connection() { return { success: true, message: 'ok' }; } }; },
};

beforeAll(async () => {
  providers.register(oauthProvider, { replace: true });
  // the webhook the connector's test posts to: a real HTTP server on loopback
  hook = http.createServer((req, res) => { pings.push(req.headers['content-type'] ?? ''); req.resume(); res.end('ok'); });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  env = await startWeb();
  page = await env.newPage();
  await login(page);
});
afterAll(async () => {
  providers.unregister(oauthProvider.category, oauthProvider.provider_type);
  await env?.close();
  await new Promise((r) => hook?.close(r));
});

const connector = async () => (await env.api('GET', `/api/connectors/${connectorId}`)).body as Record<string, any>;
const statusbarCurrent = () => page.locator('.statusbar li[aria-current="step"]').innerText();

describe('connectors', () => {
  it('a new connector is created from a provider type picked in a list', async () => {
    await page.goto(actionUrl('default', 'connectors.action_connectors', 'new'));
    const provider = page.getByTestId('provider-select');
    await provider.waitFor();
    const options = await provider.locator('option').allInnerTexts();
    expect(options).toEqual(expect.arrayContaining([expect.stringContaining('(messaging)'), expect.stringContaining('(storage)')]));
    await provider.selectOption('messaging/webhook');
    expect(await page.getByTestId('input-provider_type').inputValue()).toBe('webhook');
    await page.getByTestId('input-name').fill('Alerts hook');
    await page.getByTestId('form-save').click();
    await page.waitForURL(/action-connectors\.action_connectors\/[0-9a-f-]{36}/);
    connectorId = page.url().split('/').pop()!.split('?')[0];
    const c = await connector();
    expect([c.name, c.category, c.provider_type, c.status]).toEqual(['Alerts hook', 'messaging', 'webhook', 'draft']);
  });

  it('the parameters form comes from config_schema; a secret is a password input and is stored masked', async () => {
    const params = page.getByTestId('connector-params');
    await params.waitFor();
    expect(await page.getByTestId('param-url').getAttribute('type')).toBe('text');
    expect(await page.getByTestId('param-secret').getAttribute('type')).toBe('password');
    await page.getByTestId('param-url').fill(hookUrl);
    await page.getByTestId('param-secret').fill('s3cr3t-value');
    // the parameters make the form dirty: its one Save writes them
    await page.getByTestId('dirty-mark').waitFor();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/connectors/${connectorId}/config`)).body.config).toEqual({ url: hookUrl, secret: '********' });
    await page.reload();
    await page.getByTestId('param-secret').waitFor();
    // the browser never receives the secret: the field holds the mask
    await expect.poll(() => page.getByTestId('param-secret').inputValue()).toBe('********');
    expect(await page.content()).not.toContain('s3cr3t-value');
  });

  it('the form has exactly one Save and one Test button, and no Authorize for a provider without OAuth', async () => {
    const types = (await env.api('GET', '/api/connectors/types')).body as Array<Record<string, any>>;
    expect(types.find((x) => x.category === 'messaging' && x.provider_type === 'webhook')?.oauth).toBe(false);
    await page.getByTestId('connector-params').waitFor();
    await page.getByTestId('button-ir.connector.activate').waitFor();
    const buttons = await page.getByRole('button').allInnerTexts();
    expect(buttons.filter((b) => b.trim() === 'Save')).toHaveLength(1);
    expect(buttons.filter((b) => /test/i.test(b))).toHaveLength(1);
    expect(buttons.filter((b) => /authori[sz]e/i.test(b))).toHaveLength(0);
    expect(describeViolations(await axeSerious(page))).toBe('');
  });

  it('a parameter edited and discarded goes back to the stored value; Test refuses unsaved parameters', async () => {
    await page.getByTestId('param-url').fill('http://example.invalid/unsaved');
    await page.getByTestId('connector-test').click();
    await expect.poll(() => page.getByTestId('toast-error').last().innerText()).toMatch(/^Save your changes first/);
    await page.getByTestId('form-discard').click();
    await expect.poll(() => page.getByTestId('param-url').inputValue()).toBe(hookUrl);
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
  });

  it('testing the connection shows the result and moves the statusbar to connected', async () => {
    await page.getByTestId('connector-test').click();
    const result = page.getByTestId('test-result');
    await result.waitFor();
    expect(await result.innerText()).toMatch(/^Connection works/);
    expect(pings.length).toBeGreaterThan(0);
    await expect.poll(statusbarCurrent).toBe('Connected'); // the stage's label
    await shot(page, 'connector-form', { dark: true });
  });

  it('activate and deactivate run from the header buttons', async () => {
    await page.getByTestId('button-ir.connector.activate').click();
    await expect.poll(async () => (await connector()).is_enabled).toBe(true);
    await page.getByTestId('button-ir.connector.deactivate').click();
    await expect.poll(async () => (await connector()).is_enabled).toBe(false);
  });

  it('a failing test shows its message as an error, and the status becomes error', async () => {
    await page.getByTestId('param-url').fill('http://127.0.0.1:9/nothing-listens-here');
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/connectors/${connectorId}/config`)).body.config.url).toContain(':9/');
    await page.getByTestId('connector-test').click();
    await expect.poll(() => page.getByTestId('test-result').innerText()).toMatch(/^Connection failed: /);
    await expect.poll(statusbarCurrent).toBe('Error');
  });

  it('a JSON configuration file imported through the file-upload button replaces the parameters', async () => {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('button-ir.connector.import_config').click()]);
    expect(chooser.element()).toBeTruthy();
    expect(await chooser.element().getAttribute('accept')).toBe('.json,application/json');
    await chooser.setFiles({ name: 'hook.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ url: hookUrl, secret: 'imported-secret' })) });
    await expect.poll(async () => (await env.api('GET', `/api/connectors/${connectorId}/config`)).body.config).toEqual({ url: hookUrl, secret: '********' });
    await expect.poll(() => page.getByTestId('param-url').inputValue()).toBe(hookUrl);
  });

  it('Authorize is offered for a provider whose type declares an OAuth flow', async () => {
    const types = (await env.api('GET', '/api/connectors/types')).body as Array<Record<string, any>>;
    expect(types.find((x) => x.provider_type === 'oauth_web_test')?.oauth).toBe(true);
    const made = await env.api('POST', '/api/data/ir.connector', { name: 'Chat app', category: 'messaging', provider_type: 'oauth_web_test' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await page.goto(actionUrl('default', 'connectors.action_connectors', made.body.id));
    await page.getByTestId('connector-params').waitFor();
    await page.getByTestId('button-ir.connector.oauth_start').waitFor();
    expect(await page.getByRole('button', { name: 'Authorize' }).count()).toBe(1);
  });
});
