/**
 * Live updates in the browser: one live connection per browser shared by its tabs, open lists
 * that follow records changed elsewhere, and web.client.reload: a changed organization slug moves
 * every open tab to the new slug, while a tab with unsaved edits asks first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { actionUrl, adminOrg, login, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let ctx: BrowserContext;
let org: { id: string; code: string };

beforeAll(async () => {
  env = await startWeb();
  org = await adminOrg(env);
  ctx = await env.newContext();
  await login(await ctx.newPage());
});
afterAll(async () => { await env?.close(); });

/** WebSocket connections a page opens from now on. */
const sockets = (p: Page) => {
  const opened: string[] = [];
  p.on('websocket', (ws) => opened.push(ws.url()));
  return opened;
};

describe('live updates', () => {
  it('two tabs share one live connection, and both lists show a record created elsewhere', async () => {
    const url = actionUrl(org.code, 'base.action_organizations');
    const a = await ctx.newPage();
    const b = await ctx.newPage();
    const wa = sockets(a);
    const wb = sockets(b);
    await a.goto(url);
    await a.getByTestId('list-row').first().waitFor();
    await b.goto(url);
    await b.getByTestId('list-row').first().waitFor();
    // the earlier login page may hold the lock: at most one of these tabs connects
    await expect.poll(async () => (await Promise.all([a, b, ...ctx.pages()].map((p) => p.evaluate(() => document.documentElement.dataset.liveLeader === 'true')))).filter(Boolean).length).toBe(1);
    expect(wa.length + wb.length).toBeLessThanOrEqual(1);
    const created = await env.api('POST', '/api/data/res.organization', { name: 'Live Created Org' });
    expect(created.status).toBe(201);
    for (const p of [a, b]) await p.getByTestId('list-row').filter({ hasText: 'Live Created Org' }).waitFor();
    await a.close();
    await b.close();
  });

  it('the connection subscribes to the models a view shows, not to every model', async () => {
    const fresh = await env.newContext();
    const page = await fresh.newPage();
    const sent: string[] = [];
    page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(String(f.payload))));
    await login(page, { path: `/login?redirect=${encodeURIComponent(actionUrl(org.code, 'base.action_organizations'))}` });
    await page.getByTestId('list-row').first().waitFor();
    await expect.poll(() => sent.some((f) => f.includes('resOrganizationChanged'))).toBe(true);
    expect(sent.filter((f) => /ir(Session|Event|Module)Changed/.test(f))).toEqual([]);
    await fresh.close();
  });

  it('a changed slug moves every open tab of that organization to the new slug; a dirty form asks first', async () => {
    const list = await ctx.newPage();
    await list.goto(actionUrl(org.code, 'crm.action_leads', undefined, { view: 'list' }));
    await list.getByTestId('view-title').waitFor();
    const form = await ctx.newPage();
    await form.goto(actionUrl(org.code, 'base.action_organizations', org.id));
    await form.getByTestId('input-name').fill('Edited but not saved');
    await form.getByTestId('dirty-mark').waitFor();

    const res = await env.api('PATCH', `/api/data/res.organization/${org.id}`, { code: 'moved-slug' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    await list.waitForURL((u) => u.pathname.startsWith('/moved-slug/action-crm.action_leads'));
    expect(new URL(list.url()).searchParams.get('view')).toBe('list');
    // the form with unsaved edits stays until the person decides
    await form.getByTestId('dirty-dialog').waitFor();
    expect(new URL(form.url()).pathname.startsWith(`/${org.code}/`)).toBe(true);
    await form.getByTestId('dirty-leave').click();
    await form.waitForURL((u) => u.pathname === `/moved-slug/action-base.action_organizations/${org.id}`);
    expect(await form.getByTestId('input-name').inputValue()).not.toBe('Edited but not saved');

    await env.api('PATCH', `/api/data/res.organization/${org.id}`, { code: org.code });
    await list.waitForURL((u) => u.pathname.startsWith(`/${org.code}/`));
  });

  it('a slug change of another organization moves nobody', async () => {
    const other = await env.api('POST', '/api/data/res.organization', { name: 'Bystander Org' });
    const page = await ctx.newPage();
    await page.goto(actionUrl(org.code, 'base.action_organizations'));
    await page.getByTestId('list-row').first().waitFor();
    await env.api('PATCH', `/api/data/res.organization/${other.body.id}`, { code: 'bystander-new' });
    // the rename itself arrives (the list shows it), and the URL stays
    await page.getByTestId('list-row').filter({ hasText: 'bystander-new' }).waitFor();
    expect(new URL(page.url()).pathname.startsWith(`/${org.code}/`)).toBe(true);
  });
});
