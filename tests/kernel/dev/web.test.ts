/**
 * `fw dev --web` (src/kernel/dev/web.ts): Vite's dev server for the client, proxying the API to
 * the server fw dev runs. Here in fw's own repository, against a real fw server listening on a
 * port: the page is served with React's hot-reload hook, the client's sources are transformed on
 * request, and /health and /api reach the server. A port outside 1–65535 is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebDevServer } from '../../../src/kernel/dev/web.ts';
import { projectLayout } from '../../../src/kernel/modules/loader.ts';
import { expectFwError } from '../../helpers/kernel.ts';
import { freePort } from '../../helpers/team-project.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let api: TestServer;
let web: { url: string; close(): Promise<void> } | null = null;
const saved = { HOST: process.env.HOST, PORT: process.env.PORT, FW_PROJECT_ROOT: process.env.FW_PROJECT_ROOT, FW_API: process.env.FW_API };

beforeAll(async () => {
  api = await startTestServer();
  const port = await freePort();
  await api.server.listen({ host: '127.0.0.1', port });
  process.env.HOST = '127.0.0.1';
  process.env.PORT = String(port);
});
afterAll(async () => {
  await web?.close();
  await api?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('fw dev --web', () => {
  it('refuses a port outside 1–65535 (INVALID_PORT) before starting anything', async () => {
    await expectFwError(startWebDevServer(projectLayout(), { port: 0 }), 400, 'INVALID_PORT');
    await expectFwError(startWebDevServer(projectLayout(), { port: Number('abc') }), 400, 'INVALID_PORT');
  });

  it("serves the client with hot reload, transforms its sources on request, and proxies the API to fw dev's server", async () => {
    web = await startWebDevServer(projectLayout(), { port: await freePort(), log: () => {} });
    const page = await fetch(web.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/@react-refresh');
    expect(html).toContain('<div id="root"');
    const main = await fetch(new URL('src/main.tsx', web.url));
    expect(main.status).toBe(200);
    // TSX compiled to JavaScript, with the dev runtime
    expect(await main.text()).toMatch(/jsxDEV/);
    const health = await fetch(new URL('health', web.url));
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const me = await fetch(new URL('api/auth/me', web.url));
    // the server answered (no token): a 401 with fw's error body, not a dev-server 404
    expect(me.status).toBe(401);
    expect(((await me.json()) as { error: { code: string } }).error.code).toMatch(/^[A-Z_]+$/);
  }, 120_000);
});
