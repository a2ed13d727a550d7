/**
 * The AI layer's administration screens (issue 32 item 11), declared as views and menus like every
 * other screen: Settings › AI assistant lists providers, routing, user quotas, skill packs, prompt
 * templates, usage and the changes made by AI, for administrators only. An administrator stores a
 * provider key from the form; it is never shown again (the list and the API answer the mask).
 * Screenshots light and dark at desktop and phone width.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
const KEY = 'sk-admin-screen-0123456789abcdef';

beforeAll(async () => {
  env = await startWeb({ AI_ENABLED: 'true', ACTIVE_MODULES: 'base,auth,presentation,connectors,storage' });
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

describe('AI administration', () => {
  it('Settings › AI assistant holds the seven screens, for administrators', async () => {
    const boot = await env.gql('{ presentationBootstrap { apps { name menus { name parent_key } } } }');
    const settings = boot.presentationBootstrap.apps.find((a: { name: string }) => a.name === 'Settings');
    const ai = settings.menus.filter((m: { parent_key: string | null }) => m.parent_key === 'ai.menu_ai').map((m: { name: string }) => m.name);
    expect(ai).toEqual(['Providers', 'Routing', 'User quotas', 'Skill packs', 'Prompt templates', 'Usage', 'Changes made by AI']);
    // a plain user's bootstrap has no AI administration
    const user = await env.api('POST', '/api/data/res.user', { email: 'no-ai-admin@example.com', name: 'Plain', password: 'plain-pass-12' });
    expect(user.status).toBe(201);
    const token = (await env.api('POST', '/api/auth/login', { email: 'no-ai-admin@example.com', password: 'plain-pass-12' })).body.access_token;
    const theirs = await env.gql('{ presentationBootstrap { apps { name menus { name parent_key } } } }', {}, token);
    const names = theirs.presentationBootstrap.apps.flatMap((a: { menus: Array<{ name: string }> }) => a.menus.map((m) => m.name));
    expect(names).not.toContain('AI assistant');
  });

  it('an administrator stores a provider key from the form; the list and the API show only the mask', async () => {
    await page.goto(actionUrl('default', 'ai.action_providers', 'new'));
    await page.getByTestId('form-view').waitFor();
    await page.getByTestId('input-provider').fill('provider_a');
    await page.getByTestId('input-base_url').fill('http://127.0.0.1:9/v1');
    await page.getByTestId('input-model').fill('test-model');
    await page.getByTestId('input-api_key').fill(KEY);
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', '/api/data/ai.provider.config')).body.items?.length ?? 0).toBe(1);
    const stored = (await env.api('GET', '/api/data/ai.provider.config')).body.items[0];
    expect(stored.api_key).not.toContain(KEY.slice(-8));
    expect(JSON.stringify(stored)).not.toContain(KEY);

    await page.goto(actionUrl('default', 'ai.action_providers'));
    await page.getByTestId('list-table').waitFor();
    await expect.poll(() => page.getByTestId('list-row').allInnerTexts()).toEqual([expect.stringContaining('provider_a')]);
    expect(await page.content()).not.toContain(KEY);
    await shot(page, 'ai-admin-providers', { dark: true });
    await page.goto(actionUrl('default', 'ai.action_usage'));
    await page.getByTestId('list-empty').waitFor();
    await shot(page, 'ai-admin-usage');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(actionUrl('default', 'ai.action_providers', stored.id));
    await page.getByTestId('form-view').waitFor();
    await shot(page, 'ai-admin-provider-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
