/**
 * Errors read as sentences (never raw JSON), the main views have no serious or critical axe-core
 * violations, the keyboard reaches the menus and opens a record, and every view type is
 * photographed in the light and the dark theme (.tmp/web-screenshots/).
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, axeSerious, createLead, describeViolations, login, refreshCookie, seedLeads, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let leadIds: string[];
beforeAll(async () => {
  env = await startWeb();
  leadIds = await seedLeads(env, [
    { name: 'Acme renewal', stage: 'qualified', expected_revenue: 12000, email: 'buyer@acme.test', probability: 0.6, notes: 'Call back on Monday.' },
    { name: 'Globex pilot', stage: 'new', expected_revenue: 4500 },
    { name: 'Initech upsell', stage: 'won', expected_revenue: 30000, closed_at: new Date().toISOString() },
    { name: 'Umbrella audit', stage: 'lost', expected_revenue: 800 },
  ]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const INTERNAL = JSON.stringify({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_ERROR' } }] });
const SENTENCE = 'The server hit an unexpected error. Nothing was changed; try again, and tell your administrator if it happens again.';

/** Answers GraphQL operations whose body names `operation` with a 500 until `off()` is called. */
async function failGraphql(p: Page, operation: string): Promise<{ hits: () => number; off: () => Promise<void> }> {
  let hits = 0;
  const handler = async (route: Route) => {
    if (route.request().method() === 'POST' && (route.request().postData() ?? '').includes(operation)) {
      hits++;
      await route.fulfill({ status: 500, contentType: 'application/json', body: INTERNAL });
    } else {
      await route.fallback();
    }
  };
  await p.route('**/graphql', handler);
  return { hits: () => hits, off: () => p.unroute('**/graphql', handler) };
}

/** No raw JSON or error codes on the page. */
async function expectNoRawError(p: Page): Promise<void> {
  const text = await p.locator('body').innerText();
  expect(text).not.toMatch(/\{\s*"|"errors"|INTERNAL_ERROR|extensions/);
}

describe('errors are sentences', () => {
  it('a failing view plan shows the error panel with a sentence', async () => {
    const fail = await failGraphql(page, 'query ViewPlan');
    await page.goto(actionUrl('default', 'base.action_organizations'));
    const panel = page.getByTestId('error-panel');
    await panel.waitFor();
    expect(await panel.getAttribute('role')).toBe('alert');
    expect(await panel.locator('p').textContent()).toBe(SENTENCE);
    expect(await panel.getByRole('heading').textContent()).toBe('Something went wrong');
    await expectNoRawError(page);
    await shot(page, 'error-panel', { dark: true });
    expect(fail.hits()).toBeGreaterThan(0);
    await fail.off();
  });

  it('Retry on the error panel loads the view once the server answers again', async () => {
    const fail = await failGraphql(page, 'query ViewPlan');
    await page.goto(actionUrl('default', 'base.action_users'));
    const panel = page.getByTestId('error-panel');
    await panel.waitFor();
    await fail.off();
    await panel.getByRole('button', { name: 'Retry' }).click();
    await page.getByTestId('list-row').first().waitFor();
    expect(await page.getByTestId('error-panel').count()).toBe(0);
  });

  it('a failing save shows a sentence in a toast and keeps the edit', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', leadIds[1]));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Globex pilot');
    await page.getByTestId('input-name').fill('Globex pilot (edited)');
    const fail = await failGraphql(page, 'mutation Update');
    await page.getByTestId('form-save').click();
    const toastEl = page.getByTestId('toast-error').last();
    await expect.poll(() => toastEl.locator('span').first().textContent()).toBe(SENTENCE);
    expect(await toastEl.getAttribute('role')).toBe('alert');
    await expectNoRawError(page);
    expect(await page.getByTestId('input-name').inputValue()).toBe('Globex pilot (edited)');
    expect(await page.getByTestId('dirty-mark').count()).toBe(1);
    await fail.off();
    await page.getByTestId('form-discard').click();
  });

  it('a list whose rows fail to load says so in a sentence', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    const fail = await failGraphql(page, 'query Rows');
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Acme' }));
    await expect.poll(() => page.getByRole('alert').filter({ hasText: SENTENCE }).count()).toBeGreaterThan(0);
    await expectNoRawError(page);
    await fail.off();
  });

  it('a server that cannot be reached is a sentence too', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', leadIds[1]));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Globex pilot');
    await page.getByTestId('input-email').fill('offline@example.com');
    await page.route('**/graphql', (r) => r.abort('connectionrefused'));
    await page.getByTestId('form-save').click();
    await expect.poll(() => page.getByTestId('toast-error').last().locator('span').first().textContent()).toBe('The server cannot be reached. Check your connection and try again.');
    await page.unroute('**/graphql');
    // the session survives being offline: still signed in, the refresh cookie kept
    expect(new URL(page.url()).pathname).not.toBe('/login');
    expect(await refreshCookie(page.context())).not.toBeNull();
    await page.getByTestId('form-discard').click();
  });

  it('a record or an action that does not exist is "Not found" with a way home, never a server error', async () => {
    for (const url of [
      actionUrl('default', 'crm.action_leads', '00000000-0000-4000-8000-000000000000'), // no such record
      actionUrl('default', 'crm.action_leads', 'not-an-id'), // a mistyped URL
      actionUrl('default', 'crm.action_nothing_here'), // no such action
    ]) {
      await page.goto(url);
      const panel = page.getByTestId('not-found');
      await panel.waitFor();
      expect(await panel.getByRole('heading').textContent(), url).toBe('Not found');
      expect(await page.getByTestId('error-panel').count(), url).toBe(0);
      expect(await page.locator('body').innerText()).not.toContain('unexpected error');
    }
    await shot(page, 'not-found', { dark: true });
    await page.getByTestId('not-found-home').click();
    await expect.poll(() => page.getByTestId('not-found').count()).toBe(0);
  });

  it('a value out of range is said beside the field, in words, without the field key', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', leadIds[2]));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Initech upsell');
    await page.getByTestId('input-expected_revenue').fill('-5');
    await page.getByTestId('form-save').click();
    const err = page.getByTestId('field-expected_revenue').getByTestId('error-expected_revenue');
    await expect.poll(() => err.textContent()).toBe('Must be at least 0.');
    expect(await page.locator('body').innerText()).not.toMatch(/expected_revenue|≥/);
    await page.getByTestId('form-discard').click();
  });
});

describe('accessibility (axe-core: no serious or critical violations)', () => {
  it('login page', async () => {
    const fresh = await env.newPage();
    await fresh.goto('/login');
    await fresh.getByTestId('login-email').waitFor();
    const v = await axeSerious(fresh);
    expect(v, describeViolations(v)).toEqual([]);
    // with an error shown too
    await fresh.getByTestId('login-email').fill('admin@example.com');
    await fresh.getByTestId('login-password').fill('wrong');
    await fresh.getByTestId('login-submit').click();
    await fresh.getByTestId('login-error').waitFor();
    const v2 = await axeSerious(fresh);
    expect(v2, describeViolations(v2)).toEqual([]);
  });

  it('list view', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    const v = await axeSerious(page);
    expect(v, describeViolations(v)).toEqual([]);
  });

  it('form view', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', leadIds[0]));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Acme renewal');
    const v = await axeSerious(page);
    expect(v, describeViolations(v)).toEqual([]);
  });

  it('kanban view', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads'));
    await page.getByTestId('kanban-card').first().waitFor();
    const v = await axeSerious(page);
    expect(v, describeViolations(v)).toEqual([]);
  });

  it('the dark theme of the list and the form', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('theme-toggle').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    try {
      const v = await axeSerious(page);
      expect(v, describeViolations(v)).toEqual([]);
      await page.goto(actionUrl('default', 'crm.action_leads', leadIds[0]));
      await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Acme renewal');
      const v2 = await axeSerious(page);
      expect(v2, describeViolations(v2)).toEqual([]);
    } finally {
      await page.getByTestId('theme-toggle').click();
    }
  });
});

describe('keyboard', () => {
  /** Presses Tab until `pred` holds for the focused element; returns how many presses it took. */
  async function tabUntil(p: Page, pred: (el: Element) => boolean, max = 60): Promise<number> {
    for (let i = 1; i <= max; i++) {
      await p.keyboard.press('Tab');
      if (await p.evaluate((src) => { const el = document.activeElement; return !!el && new Function('el', `return (${src})(el)`)(el); }, pred.toString())) return i;
    }
    throw new Error(`not reached with ${max} Tab presses`);
  }

  it('Tab goes skip link → sidebar apps and menus; Enter follows a menu link', async () => {
    await page.goto(actionUrl('default', 'base.action_users'));
    await page.getByTestId('list-row').first().waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await tabUntil(page, (el) => el.getAttribute('data-testid') === 'app-crm.menu_root', 10);
    await tabUntil(page, (el) => el.getAttribute('data-testid') === 'menu-base.menu_organizations', 10);
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/default/action-base.action_organizations');
    await page.getByTestId('list-row').first().waitFor();
  });

  it('the skip link moves focus to the main content', async () => {
    await page.goto(actionUrl('default', 'base.action_users'));
    await page.getByTestId('list-row').first().waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('Tab reaches a list row and Enter opens its form', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', order: 'name asc' }));
    await page.getByTestId('list-row').first().waitFor();
    await page.getByTestId('search-input').focus();
    await tabUntil(page, (el) => el.getAttribute('data-testid') === 'list-row', 20);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Acme renewal');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/default/action-crm.action_leads/${leadIds[0]}`);
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Acme renewal');
  });
});

describe('screenshots of every view type (light and dark)', () => {
  it('saves them under .tmp/web-screenshots/', async () => {
    const files: string[] = [];
    const fresh = await env.newPage();
    await fresh.goto('/login');
    await fresh.getByTestId('login-email').waitFor();
    files.push(...await shot(fresh, 'login', { dark: true }));

    await page.goto('/default');
    await page.getByTestId('tile-crm.menu_root').waitFor();
    files.push(...await shot(page, 'home', { dark: true }));

    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').nth(3).waitFor();
    files.push(...await shot(page, 'list-leads', { dark: true }));

    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', group_by: 'stage' }));
    await page.getByTestId('group-header').first().click();
    await page.getByTestId('list-row').first().waitFor();
    files.push(...await shot(page, 'list-grouped', { dark: true }));

    await page.goto(actionUrl('default', 'base.action_organizations'));
    await page.getByTestId('list-row').first().waitFor();
    files.push(...await shot(page, 'list-organizations', { dark: true }));

    await page.goto(actionUrl('default', 'crm.action_leads'));
    await page.getByTestId('kanban-card').nth(3).waitFor();
    files.push(...await shot(page, 'kanban', { dark: true }));

    await page.goto(actionUrl('default', 'crm.action_leads', leadIds[0]));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Acme renewal');
    files.push(...await shot(page, 'form-lead', { dark: true, fullPage: true }));

    await page.goto(actionUrl('default', 'crm.action_leads', 'new'));
    await page.getByTestId('form-save').click();
    await page.getByTestId('error-name').waitFor();
    files.push(...await shot(page, 'form-new-errors', { dark: true }));

    const org = (await env.gql('query { me { organization { id } } }')).me.organization.id;
    await page.goto(actionUrl('default', 'base.action_organizations', org));
    await page.getByTestId('form-view').waitFor();
    await page.getByRole('tab', { name: 'Users' }).click();
    files.push(...await shot(page, 'form-organization', { dark: true, fullPage: true }));

    await createLead(env, { name: 'Shot dirty' });
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Shot dirty' }));
    await page.getByTestId('list-row').first().click();
    await page.getByTestId('input-name').fill('Shot dirty (edited)');
    await page.getByTestId('breadcrumb-action').click();
    await page.getByTestId('dirty-dialog').waitFor();
    files.push(...await shot(page, 'dialog-dirty'));
    await page.getByTestId('dirty-leave').click();

    await fetch(`${env.base}/api/storage/upload?filename=report.txt`, {
      method: 'POST', body: 'quarterly numbers', headers: { authorization: `Bearer ${await env.adminToken()}`, 'content-type': 'text/plain' },
    });
    await page.goto(actionUrl('default', 'storage.action_documents'));
    await page.getByText('report.txt').first().waitFor();
    files.push(...await shot(page, 'documents', { dark: true }));

    for (const f of files) expect((await import('node:fs')).statSync(f).size).toBeGreaterThan(5000);
    expect(files.length).toBeGreaterThanOrEqual(20);
  });
});
