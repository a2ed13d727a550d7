/**
 * A lost live connection is visible: while the WebSocket to the server is down a banner says that
 * what is shown may be out of date and that the client is reconnecting; "Reconnect now" and the
 * automatic retry bring it back, the banner goes, and what changed meanwhile is fetched again.
 * The outage is made with Playwright's WebSocket routing: every socket the page opens passes
 * through the test, which can drop it (close 1012, "service restart") and refuse new ones.
 */
import type { Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, adminOrg, createLead, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;
let down = false;
const open: WebSocketRoute[] = [];

beforeAll(async () => {
  env = await startWeb();
  org = (await adminOrg(env)).code;
  page = await env.newPage();
  await page.routeWebSocket(/\/graphql$/, (ws) => {
    if (down) { void ws.close({ code: 1012, reason: 'down' }); return; }
    ws.connectToServer();
    open.push(ws);
  });
  await login(page);
});
afterAll(async () => { await env?.close(); });

/** Drops every open live socket and refuses new ones until `down` is false again. */
async function outage(): Promise<void> {
  down = true;
  for (const ws of open.splice(0)) await ws.close({ code: 1012, reason: 'down' });
}

describe('the live connection', () => {
  it('a banner shows while it is down; Reconnect brings it back and refetches what changed meanwhile', async () => {
    await createLead(env, { name: 'Before the outage' });
    await page.goto(actionUrl(org, 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('list-row').first().waitFor();
    expect(await page.getByTestId('offline-banner').count()).toBe(0);

    await outage();
    const banner = page.getByTestId('offline-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('The connection to the server is lost');
    await shot(page, 'live-offline-banner', { dark: true });
    // a change made elsewhere while the connection is down
    await createLead(env, { name: 'During the outage', expected_revenue: 999_999 });

    down = false;
    await page.getByTestId('offline-reconnect').click();
    await expect.poll(() => banner.count(), { timeout: 15_000 }).toBe(0);
    // the resync after reconnecting shows the change the live connection missed
    await expect.poll(() => page.getByTestId('list-table').textContent()).toContain('During the outage');
  });

  it('a blip shorter than the banner delay shows nothing, and the automatic retry reconnects', async () => {
    await outage();
    setTimeout(() => { down = false; }, 200);
    // the client retries on its own (no click): the socket comes back
    await expect.poll(() => open.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await page.waitForTimeout(2000);
    expect(await page.getByTestId('offline-banner').count()).toBe(0);
  });
});
