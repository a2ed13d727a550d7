/**
 * A slow first load is never a blank page: while the client's script, the bootstrap and the first
 * view's plan are on their way, a loading status (role="status", aria-busy) fills the window, and
 * it is gone once the view is shown.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, describeViolations, login, seedLeads, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;

beforeAll(async () => {
  env = await startWeb();
  await seedLeads(env, [{ name: 'Slow start lead', stage: 'new', expected_revenue: 100 }]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

/** Holds the requests `matches` picks until `release()`; `seen` resolves at the first one. */
async function hold(p: Page, url: string, matches: (r: Route) => boolean) {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let arrived!: () => void;
  const seen = new Promise<void>((r) => { arrived = r; });
  const handler = async (route: Route) => {
    if (matches(route)) { arrived(); await gate; }
    await route.fallback();
  };
  await p.route(url, handler);
  return { seen, release: async () => { release(); await p.unroute(url, handler); } };
}

/** The loading status as a person and a screen reader get it. */
const loading = (p: Page) => p.evaluate(() => {
  const el = document.querySelector('[role="status"][aria-busy="true"]') as HTMLElement | null;
  return el ? { text: el.innerText.trim(), visible: el.getBoundingClientRect().height > 0 } : null;
});

describe('first load', () => {
  it('a slow first load shows a loading status (role=status, aria-busy) until the bootstrap and the first view arrive, never a blank page', async () => {
    const query = (name: string) => (r: Route) => (r.request().postData() ?? '').includes(`query ${name}`);
    const script = await hold(page, '**/assets/*.js', () => true);
    const goto = page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }), { waitUntil: 'commit' });
    // the page's own HTML says it is loading while the client's script is on its way
    await script.seen;
    await expect.poll(() => loading(page)).toEqual({ text: 'Loading…', visible: true });

    // the script runs; the bootstrap is held
    const boot = await hold(page, '**/graphql', query('Bootstrap'));
    await script.release();
    await boot.seen;
    await expect.poll(() => loading(page)).toEqual({ text: 'Loading…', visible: true });
    await shot(page, 'first-load', { dark: true, themeByAttribute: true });
    const v = await axeSerious(page);
    expect(v, describeViolations(v)).toEqual([]);

    // the bootstrap is in, the view's plan is held: still loading (now inside the shell)
    const plan = await hold(page, '**/graphql', query('ViewPlan'));
    await boot.release();
    await plan.seen;
    await expect.poll(() => loading(page)).toMatchObject({ visible: true });
    await shot(page, 'first-load-view', { dark: true, themeByAttribute: true });
    await plan.release();
    await goto;
    await page.getByTestId('list-row').first().waitFor();
    await expect.poll(() => loading(page)).toBeNull();
    expect(await page.getByTestId('list-row').first().textContent()).toContain('Slow start lead');

    // once the shell is up, going to another view never brings the whole-window loading back
    await page.evaluate(() => {
      const w = window as unknown as { fullLoading: boolean };
      w.fullLoading = false;
      new MutationObserver(() => { if (document.querySelector('.page-loading-full')) w.fullLoading = true; })
        .observe(document.body, { childList: true, subtree: true });
    });
    await page.getByTestId('switch-kanban').click();
    await page.getByTestId('kanban-card').first().waitFor();
    await page.getByTestId('switch-list').click();
    await page.getByTestId('list-row').first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { fullLoading: boolean }).fullLoading)).toBe(false);
    expect(await page.getByTestId('user-menu').count()).toBe(1);
  });
});
