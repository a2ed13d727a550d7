/**
 * The server side of the web client (src/server/web-client.ts): the built files are public,
 * hashed assets are cached for a year and the shell is revalidated, a page navigation to an app
 * URL gets the shell (SPA fallback), and API paths keep their JSON answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const html = { accept: 'text/html,application/xhtml+xml' };
let dist: string;
let ts: TestServer;

beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-web-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>shell v1</title><script type="module" src="/assets/app-abc123.js"></script>');
  fs.writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log("app")');
  ts = await startTestServer({ WEB_CLIENT_DIR: dist });
});
afterAll(async () => {
  await ts?.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('web client serving', () => {
  it('GET / answers the shell without a token, revalidated on every load', async () => {
    const res = await ts.request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(String(res.body)).toContain('shell v1');
  });

  it('hashed assets are public and immutable for a year', async () => {
    const res = await ts.request('GET', '/assets/app-abc123.js');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toContain('javascript');
  });

  it('a page navigation to an app URL gets the shell (deep links survive reload)', async () => {
    const res = await ts.request('GET', '/acme/action-crm.action_leads/42?view=list&q=x', { headers: html });
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('shell v1');
  });

  it('the fallback never shadows the API: unknown /api, /graphql and /health paths and missing assets keep JSON 404s', async () => {
    for (const url of ['/api/nope', '/api/data/nope/1/x', '/graphql/x', '/health/x', '/assets/missing.js']) {
      const res = await ts.request('GET', url, { headers: html });
      expect(res.status, url).toBe(404);
      expect(res.body?.error?.code, url).toBe('ROUTE_NOT_FOUND');
    }
    expect((await ts.request('GET', '/health', { headers: html })).body).toEqual({ status: 'ok' });
  });

  it('a request that does not ask for HTML (an API client) gets the JSON 404, and so does a POST', async () => {
    expect((await ts.request('GET', '/acme/action-x')).status).toBe(404);
    const post = await ts.request('POST', '/acme/action-x', { headers: html, body: {} });
    expect(post.status).toBe(404);
    expect(post.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('a rebuilt client is served at once: the shell is read again when the file changes', async () => {
    const file = path.join(dist, 'index.html');
    fs.writeFileSync(file, '<!doctype html><title>shell v2</title>');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    expect(String((await ts.request('GET', '/x', { headers: html })).body)).toContain('shell v2');
  });

  it('the shell and assets are not in the OpenAPI document', async () => {
    const doc = (await ts.request('GET', '/api/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/assets'))).toEqual([]);
  });
});

describe('without a built client', () => {
  it('WEB_CLIENT_DIR empty (or missing) serves no client and / is a JSON 404', async () => {
    const bare = await startTestServer({ WEB_CLIENT_DIR: '' });
    try {
      const res = await bare.request('GET', '/', { headers: html });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
    } finally {
      await bare.close();
    }
  });
});
