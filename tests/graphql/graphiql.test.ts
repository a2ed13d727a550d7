/**
 * GraphiQL without internet (src/server/graphql/graphiql.ts): `GET /graphql` from a browser
 * answers a page that names only same-origin assets under /graphql/graphiql/<version>/, served
 * public, immutable and with their content types; and a real Chromium that may reach nothing but
 * 127.0.0.1 renders the explorer, loads the schema (its introspection query passes a depth limit
 * of 3) and runs `{ __typename }` from the editor. The screenshot lands in
 * .tmp/web-screenshots/graphiql-offline.png (gitignored, like the other browser tests').
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_VERSION } from '../../src/server/graphql/graphiql.ts';
import { gqlOk, startServerWithApps, type ApiServer } from '../helpers/api.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHOTS_DIR = path.join(ROOT, '.tmp/web-screenshots');
const CHROMIUM = process.env.FW_CHROMIUM || '/usr/bin/chromium';

let ts: ApiServer;

beforeAll(async () => {
  ts = await startServerWithApps([], { GRAPHQL_MAX_DEPTH: '3' });
});

afterAll(async () => {
  await ts?.close();
});

const page = () => ts.server.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });

/** Every /graphql/graphiql/… URL the page names (link, script and the workers in the data block). */
const assetUrls = (html: string): string[] => [...new Set([...html.matchAll(/\/graphql\/graphiql\/[^"'\s)]+/g)].map((m) => m[0]))].sort();

const EXPECTED: Record<string, RegExp> = {
  'graphiql.js': /^application\/javascript; charset=utf-8$/,
  'graphiql.css': /^text\/css; charset=utf-8$/,
  'favicon.ico': /^image\/x-icon$/,
  'editor.worker.js': /^application\/javascript; charset=utf-8$/,
  'json.worker.js': /^application\/javascript; charset=utf-8$/,
  'graphql.worker.js': /^application\/javascript; charset=utf-8$/,
  'boot.js': /^application\/javascript; charset=utf-8$/,
};

describe('the GraphiQL page', () => {
  it('is served without a token, as HTML revalidated on every load', async () => {
    const res = await page();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="root">');
    // started by boot.js from a JSON data block: no inline script (the CSP allows none)
    expect(res.body).toContain('<script type="application/json" id="graphiql-config">');
    for (const [, attrs, content] of res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (!attrs.includes('application/json')) expect(content.trim(), attrs).toBe('');
    }
  });

  it('references no other origin: only same-origin /graphql/graphiql/<version>/ URLs', async () => {
    const html = (await page()).body;
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/["'(=]\s*\/\/[a-z0-9]/i); // no protocol-relative URL either
    expect(html).not.toMatch(/unpkg|jsdelivr|githubusercontent/i);
    const urls = assetUrls(html);
    expect(urls).toEqual(Object.keys(EXPECTED).map((f) => `/graphql/graphiql/${GRAPHIQL_VERSION}/${f}`).sort());
    // every src/href of the page is one of them (no inlined 9 MB bundle either)
    for (const [, ref] of html.matchAll(/(?:src|href)="([^"]*)"/g)) expect(urls).toContain(ref);
    expect(html.length).toBeLessThan(5000);
  });

  it('hands the GraphiQL options on in a script-safe way', async () => {
    const { graphiqlRenderer } = await import('../../src/server/graphql/graphiql.ts');
    const html = graphiqlRenderer('/graphql')({ title: 'x</title><script>', defaultQuery: '</script><b>', subscriptionsProtocol: 'WS' });
    expect(html).toContain('<title>x&#60;/title&#62;&#60;script&#62;</title>');
    expect(html).not.toContain('</script><b>');
    expect(html).toContain('"subscriptionsProtocol":"WS"');
    expect(html).toContain('\\u003c/script>\\u003cb>');
  });

  it('every referenced asset answers 200, public and immutable, with its content type and no external URL', async () => {
    for (const url of assetUrls((await page()).body)) {
      const res = await ts.server.inject({ method: 'GET', url }); // no token: the assets are public
      const file = url.split('/').pop()!;
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(EXPECTED[file]);
      expect(res.headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
      expect(res.rawPayload.length, url).toBeGreaterThan(file === 'boot.js' ? 100 : 1000);
      if (file === 'graphiql.css') {
        // fonts and images are inlined: every url(…) is a data: URI, nothing is @imported
        const refs = [...res.body.matchAll(/url\(\s*['"]?([^'")]{0,16})/g)].map((m) => m[1]);
        expect(refs.length).toBeGreaterThan(0);
        for (const r of refs) expect(r, url).toMatch(/^(data:|#)/);
        expect(res.body).not.toMatch(/@import/);
      }
      if (file === 'favicon.ico') expect(res.rawPayload.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0])); // an ICO header, not the data: URI
    }
  });

  it('assets are gzipped for clients that accept it, and answer 304 to their ETag', async () => {
    const url = `/graphql/graphiql/${GRAPHIQL_VERSION}/graphiql.js`;
    const plain = await ts.server.inject({ method: 'GET', url });
    const zipped = await ts.server.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    const again = await ts.server.inject({ method: 'GET', url, headers: { 'if-none-match': String(plain.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('another version or an unknown file is 404', async () => {
    for (const url of ['/graphql/graphiql/0.0.1/graphiql.js', `/graphql/graphiql/${GRAPHIQL_VERSION}/index.js`, `/graphql/graphiql/${GRAPHIQL_VERSION}/..%2Fpackage.json`]) {
      const res = await ts.server.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(JSON.parse(res.body).error.code).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('GraphQL itself still answers JSON on /graphql', async () => {
    expect(await gqlOk(ts, '{ __typename }')).toEqual({ __typename: 'Query' });
  });
});

describe('in a browser without internet', () => {
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    base = await ts.server.listen({ port: 0, host: '127.0.0.1' });
    if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set FW_CHROMIUM)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('renders the explorer, loads the schema and runs { __typename } from the editor', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    try {
      context.setDefaultTimeout(20_000);
      const aborted: string[] = [];
      const served: string[] = [];
      // the browser reaches the test server and nothing else (workers' requests included)
      await context.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (url.hostname !== '127.0.0.1') {
          aborted.push(url.href);
          return route.abort('internetdisconnected');
        }
        served.push(`${route.request().method()} ${url.pathname}`);
        return route.continue();
      });
      const p = await context.newPage();
      const errors: string[] = [];
      p.on('pageerror', (e) => errors.push(e.message));
      // the page runs under the server's Content-Security-Policy: nothing it needs is refused
      const violations: string[] = [];
      p.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text()); });
      await p.exposeFunction('__cspViolation', (v: string) => violations.push(v));
      await p.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
      });
      const introspection = p.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' && /__schema/.test(r.request().postData() ?? ''));

      await p.goto(`${base}/graphql`);
      await p.locator('.graphiql-container').first().waitFor();
      const editor = p.locator('.graphiql-query-editor .monaco-editor');
      await editor.waitFor();

      // the schema explorer's introspection query passes (GRAPHQL_MAX_DEPTH is 3 here)
      const intro = await introspection;
      expect(intro.status()).toBe(200);
      const introBody = await intro.json();
      expect(introBody.errors).toBeUndefined();
      expect(introBody.data.__schema.queryType.name).toBe('Query');

      // type the query into the editor and run it with the toolbar's button
      await editor.click();
      await p.keyboard.press('ControlOrMeta+A');
      await p.keyboard.press('Delete');
      await p.keyboard.insertText('{ __typename }');
      const run = p.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' && /__typename/.test(r.request().postData() ?? '') && !/__schema/.test(r.request().postData() ?? ''));
      await p.getByRole('button', { name: /Execute query/ }).click();
      expect(await (await run).json()).toEqual({ data: { __typename: 'Query' } });
      const response = p.locator('.graphiql-response');
      await expect.poll(async () => (await response.innerText()).replace(/\u00a0/g, ' '), { timeout: 20_000 }).toMatch(/"__typename":\s*"Query"/);

      // the documentation explorer shows the schema's root types
      await p.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      await p.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor();

      fs.mkdirSync(SHOTS_DIR, { recursive: true });
      await p.screenshot({ path: path.join(SHOTS_DIR, 'graphiql-offline.png'), animations: 'disabled', caret: 'hide' });

      expect(aborted).toEqual([]);
      expect(errors).toEqual([]);
      expect(violations).toEqual([]);
      // the page, its two files and the three editor workers all came from /graphql/graphiql/<version>/
      for (const f of ['graphiql.css', 'graphiql.js', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js']) {
        expect(served).toContain(`GET /graphql/graphiql/${GRAPHIQL_VERSION}/${f}`);
      }
    } finally {
      await context.close();
    }
  });
});
