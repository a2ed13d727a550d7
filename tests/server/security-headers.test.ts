/**
 * Browser hardening headers (src/server/security.ts, helmet's, computed once) on every kind of response:
 * the SPA shell, hashed assets, the theme script, API answers, 401/404/400/500 errors and the
 * GraphiQL page; the shell and the GraphiQL page contain no inline script, so the policy's
 * `script-src 'self'` (no 'unsafe-inline') holds for them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const WEB_DIST = path.resolve('web/dist');
let t: TestServer;
beforeAll(async () => {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error('web/dist is not built (npx vite build --config web/vite.config.ts)');
  t = await startTestServer({ WEB_CLIENT_DIR: WEB_DIST });
});
afterAll(async () => { await t?.close(); });

type Headers = Record<string, string | string[] | number | undefined>;

function directives(h: Headers): Map<string, string[]> {
  const csp = String(h['content-security-policy'] ?? '');
  return new Map(csp.split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
    const [name, ...values] = d.split(/\s+/);
    return [name, values] as const;
  }));
}

function expectHardened(h: Headers, what: string): void {
  const csp = directives(h);
  expect(csp.get('default-src'), what).toEqual(["'self'"]);
  expect(csp.get('script-src'), what).toEqual(["'self'"]);
  expect(csp.get('frame-ancestors'), what).toEqual(["'none'"]);
  expect(csp.get('object-src'), what).toEqual(["'none'"]);
  expect(h['x-content-type-options'], what).toBe('nosniff');
  expect(h['x-frame-options'], what).toBe('DENY');
  expect(h['referrer-policy'], what).toBe('no-referrer');
}

const get = (url: string, headers: Record<string, string> = {}) => t.server.inject({ method: 'GET', url, headers });

describe('security headers on every response', () => {
  it('the SPA shell (/ and an app URL) carries the policy and contains no inline script', async () => {
    for (const url of ['/', '/default/action-base.action_users']) {
      const res = await get(url, { accept: 'text/html' });
      expect(res.statusCode, url).toBe(200);
      expectHardened(res.headers, url);
      const csp = directives(res.headers);
      // images of data: (favicon, QA screenshots) and blob: (authorised images), connections to this origin only
      expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
      expect(csp.get('connect-src')).toEqual(["'self'"]);
      // frames: only a blob: URL the client made (the documents' PDF preview), never a page of
      // this origin or of another one
      expect(csp.get('frame-src')).toEqual(['blob:']);
      // no inline style element but React Aria's one, by its hash
      expect(csp.get('style-src')).not.toContain("'unsafe-inline'");
      // every <script> names a same-origin file: no inline code the policy would have to allow
      const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attrs, content] of scripts) {
        expect(content.trim(), attrs).toBe('');
        expect(attrs).toMatch(/\bsrc="\/[^/]/);
      }
      expect(res.body).not.toMatch(/\son[a-z]+=/i); // no inline event handlers either
    }
  });

  it('hashed assets and the theme script carry it too', async () => {
    const shell = (await get('/', { accept: 'text/html' })).body;
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(shell)![1];
    for (const url of [asset, '/theme.js']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/javascript/);
      expectHardened(res.headers, url);
    }
  });

  it('API answers and errors carry it: 200, 401, 404, 400 for a URL that cannot be decoded', async () => {
    const cases: Array<[string, number]> = [['/health', 200], ['/api/base/ping', 401], ['/api/nothing-here', 404], ['/%zz', 400]];
    for (const [url, status] of cases) {
      const res = await get(url, { accept: 'application/json' });
      expect(res.statusCode, url).toBe(status);
      expectHardened(res.headers, `${url} (${status})`);
    }
    const login = await t.request('POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'wrong-password' } });
    expect(login.status).toBe(401);
    expectHardened(login.headers, 'refused login');
  });

  it('GraphQL answers carry it, and the GraphiQL page has no inline script', async () => {
    const api = await t.request('POST', '/graphql', { body: { query: '{ __typename }' } });
    expect(api.status).toBe(200);
    expectHardened(api.headers, 'POST /graphql');
    const page = await get('/graphql', { accept: 'text/html' });
    expect(page.statusCode).toBe(200);
    expectHardened(page.headers, 'GraphiQL');
    for (const [, attrs, content] of page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      // the options travel in a JSON data block, which is not script
      if (/type="application\/json"/.test(attrs)) continue;
      expect(content.trim(), attrs).toBe('');
    }
  });
});
