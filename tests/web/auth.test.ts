/**
 * Sign-in and the session in a real browser: the login page guards the app, errors read as
 * sentences, the session survives a reload, an expired access token is refreshed without the
 * person noticing, tabs share one session without tripping the server's refresh-token reuse
 * detection, and signing out signs out every tab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, login, startWeb, storedTokens, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
beforeAll(async () => { env = await startWeb(); });
afterAll(async () => { await env?.close(); });

/** Replaces the stored access token with garbage (optionally marking it expired); returns the old tokens. */
async function spoilAccessToken(page: import('playwright-core').Page, expired = false) {
  return page.evaluate((exp) => {
    const t = JSON.parse(localStorage.getItem('fw.session')!);
    localStorage.setItem('fw.session', JSON.stringify({ ...t, access_token: 'garbage.not.a-jwt', ...(exp ? { expires_at: Date.now() - 1000 } : {}) }));
    return t as { access_token: string; refresh_token: string; expires_at: number };
  }, expired);
}

describe('auth in the browser', () => {
  it('redirects / to /login without a session, keeping the URL for after the login', async () => {
    const page = await env.newPage();
    await page.goto('/');
    await page.getByTestId('login-email').waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/login');
    expect(url.searchParams.get('redirect')).toBe('/');
  });

  it('shows a wrong password as a readable sentence, not JSON', async () => {
    const page = await env.newPage();
    await page.goto('/login');
    await page.getByTestId('login-email').fill('admin@example.com');
    await page.getByTestId('login-password').fill('not-the-password');
    await page.getByTestId('login-submit').click();
    const error = page.getByTestId('login-error');
    await expect.poll(() => error.textContent()).toBe('Wrong email or password.');
    await expect.poll(() => error.getAttribute('role')).toBe('alert');
    const body = await page.locator('body').innerText();
    expect(body).not.toMatch(/[{}]|AUTHENTICATION_FAILED|"code"/);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('the login form fits inside its card', async () => {
    const page = await env.newPage();
    await page.goto('/login');
    const card = (await page.locator('.login-card').boundingBox())!;
    for (const id of ['login-email', 'login-password', 'login-submit']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect(box.x, id).toBeGreaterThanOrEqual(card.x);
      expect(box.x + box.width, `${id} right edge inside the card`).toBeLessThanOrEqual(card.x + card.width);
    }
  });

  it('lands on the organization home showing the apps, and a reload keeps the session', async () => {
    const page = await env.newPage();
    await login(page);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/default');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Apps');
    for (const app of ['CRM', 'Documents', 'Settings']) {
      await page.locator('.app-tiles').getByRole('button', { name: app }).waitFor();
      await page.locator('nav.sidebar').getByRole('link', { name: app }).waitFor();
    }
    const before = await storedTokens(page);
    await page.reload();
    await page.getByTestId('tile-crm.menu_root').waitFor();
    expect(new URL(page.url()).pathname).toBe('/default');
    expect(await storedTokens(page)).toEqual(before); // no new login, no refresh needed
  });

  it('refreshes a rejected access token mid-session: data still loads and the refresh token rotates', async () => {
    const page = await env.newPage();
    await login(page);
    const old = await spoilAccessToken(page);
    const refreshes: number[] = [];
    page.on('request', (r) => { if (r.url().endsWith('/graphql') && (r.postData() ?? '').includes('mutation Refresh')) refreshes.push(1); });
    await page.goto(actionUrl('default', 'base.action_organizations'));
    await page.getByTestId('list-row').first().waitFor();
    await expect.poll(() => page.getByTestId('list-row').first().innerText()).toContain('Default');
    const now = await storedTokens(page);
    expect(now!.refresh_token).not.toBe(old.refresh_token);
    expect(now!.access_token).not.toBe('garbage.not.a-jwt');
    expect(refreshes.length).toBe(1);
    // the server retired the old refresh token by rotation, not by reuse
    const rows = await env.sessions();
    expect(rows.some((r) => r.revoked_reason === 'reuse_detected')).toBe(false);
    expect(rows.filter((r) => r.revoked_reason === 'rotated').length).toBeGreaterThan(0);
  });

  it('refreshes an expired access token before using it (expires_at in the past)', async () => {
    const page = await env.newPage();
    await login(page);
    const old = await spoilAccessToken(page, true);
    await page.goto(actionUrl('default', 'base.action_users'));
    await page.getByTestId('list-row').first().waitFor();
    expect((await storedTokens(page))!.refresh_token).not.toBe(old.refresh_token);
    expect((await storedTokens(page))!.expires_at).toBeGreaterThan(Date.now());
  });

  it('a refresh whose answer is lost after the server rotated the token is retried with its key: the page stays signed in', async () => {
    const page = await env.newPage();
    await login(page);
    const old = await spoilAccessToken(page, true);
    const sent: { refresh_token: string; retry_key: string }[] = [];
    await page.route('**/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (!body.includes('mutation Refresh')) return route.fallback();
      sent.push(JSON.parse(body).variables);
      if (sent.length > 1) return route.fallback();
      await route.fetch(); // the server rotates the token…
      return route.abort('connectionreset'); // …and the page never learns the new one
    });
    await page.goto(actionUrl('default', 'base.action_users'));
    await page.getByTestId('list-row').first().waitFor();
    expect(new URL(page.url()).pathname).not.toBe('/login');
    // the second refresh was the same request again: same token, same retry key
    expect(sent.length).toBe(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[0].refresh_token).toBe(old.refresh_token);
    expect(sent[0].retry_key).toMatch(/^[0-9a-f]{48}$/);
    const sid = (JSON.parse(Buffer.from(old.access_token.split('.')[1], 'base64url').toString()) as { sid: string }).sid;
    const family = (await env.sessions()).filter((r) => r.family_id === sid).sort((a, b) => a.dbid - b.dbid);
    expect(family.map((r) => r.revoked_reason)).toEqual(['rotated', 'superseded', null]);
    expect((await storedTokens(page))!.refresh_token).not.toBe(old.refresh_token);
  });

  // The race is between two renderer processes, so one round may pass by luck even with the bug:
  // three rounds, each a fresh browser session with two tabs. The tabs move on inside the app
  // (no page load), so this checks the cross-tab refresh lock alone (the skipped test below
  // covers a refresh cut off by a page load).
  it('two tabs refreshing at the same moment both keep working and the session is not revoked', async () => {
    for (let round = 1; round <= 3; round++) {
      const ctx = await env.newContext();
      const a = await ctx.newPage();
      await login(a, { path: `/login?redirect=${encodeURIComponent(actionUrl('default', 'base.action_users'))}` });
      const b = await ctx.newPage();
      for (const p of [a, b]) {
        if (p === b) await b.goto(actionUrl('default', 'base.action_users'));
        await p.getByTestId('list-row').first().waitFor();
      }
      const old = await spoilAccessToken(a, true); // both tabs read the same localStorage
      // every Refresh each tab sends, with the tail of the refresh token it spends (for the failure message)
      const refreshes: string[] = [];
      const log: string[] = [`round ${round}`];
      for (const [name, p] of [['A', a], ['B', b]] as const) {
        p.on('request', (r) => {
          const body = r.postData() ?? '';
          if (body.includes('mutation Refresh')) {
            refreshes.push(body);
            log.push(`${name} refresh …${String(JSON.parse(body).variables?.refresh_token).slice(-8)}`);
          }
        });
        p.on('requestfailed', (r) => log.push(`${name} failed ${r.failure()?.errorText} ${(r.postData() ?? '').slice(0, 40).replace(/\s+/g, ' ')}`));
        p.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) log.push(`${name} console ${m.text().slice(0, 160)}`); });
        p.on('response', async (r) => {
          const body = r.request().postData() ?? '';
          if (r.status() >= 400 || body.includes('mutation Refresh')) log.push(`${name} ${r.status()} ${body.slice(0, 40).replace(/\s+/g, ' ')} → ${(await r.text().catch(() => '')).slice(0, 120)}`);
        });
      }
      // both tabs move on at once, inside the app (no page load): each needs the token now
      await Promise.all([a, b].map((p) => p.getByTestId('menu-base.menu_organizations').click()));
      const loaded = await Promise.all([a, b].map((p) => p.getByTestId('view-title').filter({ hasText: 'Organizations' }).waitFor()
        .then(() => p.getByTestId('list-row').filter({ hasText: 'Default Organization' }).waitFor()).then(() => true, () => false)));
      const family = (await env.sessions()).filter((r) => r.user_id === (JSON.parse(Buffer.from(old.access_token.split('.')[1], 'base64url').toString()) as { sub: string }).sub);
      const why = `${log.join('\n')}\nsessions: ${JSON.stringify(family.map((r) => [r.family_id.slice(0, 6), r.revoked_reason]))}`;
      expect(loaded, why).toEqual([true, true]);
      // one rotation for the browser: the second tab found the token already rotated
      expect(refreshes.length, why).toBe(1);
      const ta = await storedTokens(a);
      expect(ta!.refresh_token).not.toBe(old.refresh_token);
      expect(await storedTokens(b)).toEqual(ta);
      expect(family.filter((r) => r.revoked_reason === 'reuse_detected'), why).toEqual([]);
      // the rotated session keeps working in both tabs
      await Promise.all([a.reload(), b.reload()]);
      for (const p of [a, b]) {
        await p.getByTestId('list-row').first().waitFor();
        expect(new URL(p.url()).pathname).not.toBe('/login');
      }
      await ctx.close();
    }
  }, 120_000);

  // When both tabs load at once with an expired access token, the refresh can be started by a
  // document that is then unloaded (net::ERR_ABORTED) after the server rotated the token: no tab
  // ever sees the answer. The next tab resends the same refresh with the retry key stored before
  // the first was sent, which the server treats as a retry (AUTH_REFRESH_RETRY_SECONDS), not reuse.
  // The race is rare (about 1 round in 10 here); the test below loses an answer on purpose.
  it('two tabs loading at once with an expired token both stay signed in (refresh aborted by a page load)', async () => {
    for (let round = 1; round <= 5; round++) {
      const ctx = await env.newContext();
      const a = await ctx.newPage();
      await login(a);
      const b = await ctx.newPage();
      await b.goto('/default');
      await b.getByTestId('user-menu').waitFor();
      await spoilAccessToken(a, true);
      const url = actionUrl('default', 'base.action_organizations');
      await Promise.all([a.goto(url), b.goto(url)]);
      for (const p of [a, b]) await p.getByTestId('list-row').first().waitFor();
      expect((await env.sessions()).filter((r) => r.revoked_reason === 'reuse_detected'), `round ${round}`).toEqual([]);
      await ctx.close();
    }
  }, 120_000);

  it('logout returns to /login and signs out another tab of the same browser', async () => {
    const ctx = await env.newContext();
    const a = await ctx.newPage();
    await login(a);
    const b = await ctx.newPage();
    await b.goto(actionUrl('default', 'base.action_organizations'));
    await b.getByTestId('list-row').first().waitFor();
    const tokens = await storedTokens(a);
    await a.getByTestId('user-menu').click();
    await a.getByTestId('logout').click();
    await a.getByTestId('login-email').waitFor();
    expect(new URL(a.url()).pathname).toBe('/login');
    await b.getByTestId('login-email').waitFor();
    expect(new URL(b.url()).pathname).toBe('/login');
    expect(await storedTokens(b)).toBeNull();
    // the server ended the session too: its refresh token is refused
    const res = await env.api('POST', '/graphql', { query: 'mutation($t: String!) { refresh(refresh_token: $t) { access_token } }', variables: { t: tokens!.refresh_token } }, '');
    expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body)).toMatch(/REVOKED|INVALID|EXPIRED/);
  });
});
