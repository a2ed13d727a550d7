/**
 * The home page's app tiles: each app has its own icon (a drawing for the icon names the platform's
 * apps declare on their menu roots, else the app's first letter on a colour of its own), the
 * icons are decorative (hidden from assistive technology; the tile's text names the app).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;

beforeAll(async () => {
  env = await startWeb();
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

describe('home tiles', () => {
  it('every app tile shows a different icon, drawn for the apps that name one, hidden from screen readers', async () => {
    await page.getByTestId('tile-crm.menu_root').waitFor();
    const tiles = page.locator('.app-tiles .app-tile');
    const icons = await tiles.evaluateAll((els) => els.map((el) => {
      const icon = el.querySelector('.app-icon') as HTMLElement;
      return {
        name: (el.textContent ?? '').trim(),
        icon: icon.dataset.icon, hidden: icon.getAttribute('aria-hidden'),
        drawing: icon.querySelector('svg path')?.getAttribute('d') ?? null,
        background: getComputedStyle(icon).backgroundColor,
      };
    }));
    expect(icons.map((i) => i.name)).toEqual(expect.arrayContaining(['CRM', 'Documents', 'Settings']));
    for (const i of icons) expect(i.hidden, i.name).toBe('true');
    // no two tiles alike: each its own drawing and its own colour
    expect(new Set(icons.map((i) => i.drawing ?? i.icon)).size).toBe(icons.length);
    expect(new Set(icons.map((i) => i.background)).size).toBe(icons.length);
    const byName = Object.fromEntries(icons.map((i) => [i.name, i]));
    expect([byName.CRM!.icon, byName.Documents!.icon, byName.Settings!.icon]).toEqual(['crm', 'documents', 'settings']);
    for (const n of ['CRM', 'Documents', 'Settings']) expect(byName[n]!.drawing, n).toBeTruthy();
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'home-tiles', { dark: true });
  });
});
