/**
 * End-to-end harness for the web client: one real fw server per test file (SQLite files in a
 * temp folder, the foundation apps plus the `crm` domain, the event worker on so live updates
 * flow, the built client of web/dist served at `/`) listening on 127.0.0.1, and one headless
 * Debian Chromium driven by playwright-core. Helpers: `login` through the login page, `shot`
 * (light and dark screenshots under .tmp/web-screenshots/), `axe` (serious and critical
 * violations), and seeding through the API with the admin token.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { afterEach, expect, vi } from 'vitest';
import { Kernel } from '../../../src/kernel/kernel.ts';
import type { LoadedApp } from '../../../src/kernel/registry/registry.ts';
import { loadSettings } from '../../../src/kernel/settings.ts';
import { buildServer } from '../../../src/server/index.ts';
import { trackSubscribes } from '../../helpers/api.ts';
import { uniqueRedisPrefix } from '../../helpers/redis.ts';
import { registerSortKey } from '../../../src/kernel/data/collation.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built client under test; FW_WEB_CLIENT_DIR points the tests at another build (e.g. a patched copy). */
export const WEB_DIST = process.env.FW_WEB_CLIENT_DIR ? path.resolve(process.env.FW_WEB_CLIENT_DIR) : path.join(ROOT, 'web/dist');
export const SHOTS_DIR = path.join(ROOT, '.tmp/web-screenshots');
export const CHROMIUM = process.env.FW_CHROMIUM || '/usr/bin/chromium';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-pass-1';

/** Where a page waits by default: long enough for a cold lazy chunk on a busy CI box. */
export const UI_TIMEOUT = 10_000;

export interface ApiRes<T = any> { status: number; body: T }

export interface WebEnv {
  /** `http://127.0.0.1:<port>` */
  base: string;
  kernel: Kernel;
  server: FastifyInstance;
  browser: Browser;
  /** A fresh browser context (own cookies and storage) with one page; closed with the env. */
  newPage(): Promise<Page>;
  /** A fresh context, for several pages sharing cookies and storage (tabs of one browser). */
  newContext(): Promise<BrowserContext>;
  /** The admin's access token, logged in once through the API (not the page). */
  adminToken(): Promise<string>;
  /** A JSON call to the API as the admin (or `token`). */
  api<T = any>(method: string, url: string, body?: unknown, token?: string): Promise<ApiRes<T>>;
  /** A GraphQL call that must succeed; returns `data`. */
  gql<T = any>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T>;
  /**
   * Resolves once the server registers the next subscription whose topic contains `topicPart`
   * (e.g. `changed:crm.lead`): call before the page loads, await after, and a change made then
   * cannot be missed by the page's live connection.
   */
  subscribed(topicPart: string): Promise<string>;
  /** Every ir.session row of the default tenant (revocation checks). */
  sessions(): Promise<Array<Record<string, any>>>;
  close(): Promise<void>;
}

/**
 * What the browser said during the current test (page errors, console errors, failed requests,
 * missing assets), printed when the test fails: a flaky failure then explains itself.
 */
const browserLog: string[] = [];
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail' && browserLog.length) console.log(`[browser log of "${ctx.task.name}"]\n${browserLog.slice(-60).join('\n')}`);
  browserLog.length = 0;
});
function watchPage(page: Page): void {
  const at = () => new URL(page.url() || 'about:blank').pathname;
  page.on('pageerror', (e) => browserLog.push(`pageerror ${at()}: ${e.message.slice(0, 300)}`));
  page.on('console', (m) => { if (m.type() === 'error') browserLog.push(`console.error ${at()}: ${m.text().slice(0, 300)}`); });
  page.on('requestfailed', (r) => browserLog.push(`requestfailed ${r.method()} ${new URL(r.url()).pathname}: ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 500 || (r.status() === 404 && r.url().includes('/assets/'))) browserLog.push(`HTTP ${r.status()} ${new URL(r.url()).pathname}`); });
}

export function assertClientBuilt(): void {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) {
    throw new Error(`the web client is not built: ${WEB_DIST}/index.html is missing. Run \`npm run build:web\` (npm ci does it in postinstall).`);
  }
}

/**
 * Boots the server and launches Chromium; call in `beforeAll`, and `close()` in `afterAll`.
 * `apps`: fixture apps booted with the others (hooks a test needs that no shipped app has).
 */
export async function startWeb(overrides: Record<string, string> = {}, opts: { apps?: LoadedApp[] } = {}): Promise<WebEnv> {
  assertClientBuilt();
  // expect.poll waits as long as a locator does (vitest's default is 1 s): this file only
  vi.setConfig({ expect: { requireAssertions: false, poll: { timeout: UI_TIMEOUT, interval: 50 } } });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-web-'));
  const settings = loadSettings({
    DATA_DIR: dataDir,
    ACTIVE_DOMAINS: 'crm',
    BCRYPT_COST: '4',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    EVENT_WORKER: 'true',
    EVENT_POLL_INTERVAL_MS: '200',
    WEB_CLIENT_DIR: WEB_DIST,
    // with a REDIS_URL override: a deployment of its own on the shared Redis (tests/helpers/redis.ts)
    REDIS_PREFIX: uniqueRedisPrefix(),
    ...overrides,
  });
  const kernel = await Kernel.boot({ settings, worker: true, log: () => {}, apps: opts.apps });
  let server: FastifyInstance;
  let base: string;
  try {
    server = await buildServer(kernel);
    await kernel.tenants.get(settings.DEFAULT_TENANT); // as `fw serve` does: the tenant exists before any request
    base = await server.listen({ port: 0, host: '127.0.0.1' });
  } catch (err) {
    await kernel.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  let browser: Browser;
  try {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set FW_CHROMIUM)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  } catch (err) {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }

  const contexts: BrowserContext[] = [];
  const subscribes = trackSubscribes(kernel);
  const newContext = async () => {
    const ctx = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'UTC' });
    ctx.setDefaultTimeout(UI_TIMEOUT);
    ctx.on('page', watchPage);
    contexts.push(ctx);
    return ctx;
  };
  let token: string | null = null;
  const api = async <T = any>(method: string, url: string, body?: unknown, tok?: string): Promise<ApiRes<T>> => {
    const auth = tok ?? (url === '/api/auth/login' ? undefined : await env.adminToken());
    const res = await fetch(base + url, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* keep the text */ }
    return { status: res.status, body: parsed as T };
  };
  const env: WebEnv = {
    base,
    kernel,
    server,
    browser,
    newContext,
    async newPage() {
      return (await newContext()).newPage();
    },
    async adminToken() {
      if (!token) {
        const res = await api('POST', '/api/auth/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        token = res.body.access_token as string;
      }
      return token;
    },
    api,
    subscribed: (topicPart) => subscribes.next(topicPart),
    async gql(query, variables, tok) {
      const res = await api('POST', '/graphql', { query, variables }, tok);
      expect(res.body?.errors, JSON.stringify(res.body?.errors)).toBeUndefined();
      expect(res.status).toBe(200);
      return res.body.data;
    },
    async sessions() {
      const db = await kernel.tenants.get(settings.DEFAULT_TENANT);
      const { delegateOf } = await import('../../../src/kernel/data/delegate.ts');
      return delegateOf(db, kernel.registry.model('ir.session')).findMany({ orderBy: { dbid: 'asc' } }) as Promise<Array<Record<string, any>>>;
    },
    async close() {
      try {
        for (const c of contexts) await c.close().catch(() => {});
        await browser.close();
      } finally {
        await server.close(); // closes the kernel too
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  return env;
}

/**
 * What most browser tests start from: a server (`overrides` as for `startWeb`), a page signed in
 * as the admin, and the admin organization's slug (the first URL segment).
 */
export async function startSignedIn(overrides: Record<string, string> = {}): Promise<{ env: WebEnv; page: Page; org: string }> {
  const env = await startWeb(overrides);
  const page = await env.newPage();
  await login(page);
  return { env, page, org: (await adminOrg(env)).code };
}

/** The org home after a login: the apps of the sidebar are shown. */
export async function login(page: Page, opts: { email?: string; password?: string; path?: string } = {}): Promise<void> {
  await page.goto(opts.path ?? '/login');
  await page.getByTestId('login-email').fill(opts.email ?? ADMIN_EMAIL);
  await page.getByTestId('login-password').fill(opts.password ?? ADMIN_PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('user-menu').waitFor();
}

/** The refresh cookie of a browser context (HttpOnly: no page script can read it), or null. */
export async function refreshCookie(ctx: BrowserContext): Promise<import('playwright-core').Cookie | null> {
  return (await ctx.cookies()).find((c) => c.name === 'fw_refresh' && c.value !== '') ?? null;
}

/**
 * Everything a script of the page can read from storage, as one string: localStorage,
 * sessionStorage, every IndexedDB database (every store, every value) and `document.cookie`.
 */
export function scriptReadableStorage(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const dump: Record<string, unknown> = { local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie, idb: {} };
    const req = <T>(r: IDBRequest<T>) => new Promise<T>((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
    for (const info of (await indexedDB.databases?.()) ?? []) {
      if (!info.name) continue;
      const db = await new Promise<IDBDatabase>((ok, ko) => { const o = indexedDB.open(info.name!); o.onsuccess = () => ok(o.result); o.onerror = () => ko(o.error); });
      for (const store of Array.from(db.objectStoreNames)) {
        const tx = db.transaction(store, 'readonly').objectStore(store);
        (dump.idb as Record<string, unknown>)[`${info.name}/${store}`] = { keys: await req(tx.getAllKeys()), values: await req(tx.getAll()) };
      }
      db.close();
    }
    return JSON.stringify(dump);
  });
}

/**
 * A screenshot under .tmp/web-screenshots/<name>-light.png (and -dark.png with `dark`): the
 * dark one toggles the theme through the shell's button and back (or sets it on <html> with
 * `themeByAttribute`, when a modal covers the button). Returns the files written.
 */
export async function shot(page: Page, name: string, opts: { dark?: boolean; fullPage?: boolean; themeByAttribute?: boolean } = {}): Promise<string[]> {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const files: string[] = [];
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
  const toggle = page.getByTestId('theme-toggle');
  // `themeByAttribute`: a modal covers the shell's button (clicking it would close the modal)
  const hasToggle = !opts.themeByAttribute && (await toggle.count()) > 0;
  // through the shell's button when there is one (the login page has none: set it as setTheme does)
  const setTheme = async (t: 'light' | 'dark') => {
    if ((await theme()) === t) return;
    if (hasToggle) await toggle.click();
    else await page.evaluate((v) => { document.documentElement.dataset.theme = v; }, t);
    await expect.poll(theme).toBe(t);
  };
  const take = async (variant: string) => {
    const file = path.join(SHOTS_DIR, `${name}-${variant}.png`);
    await page.evaluate(() => document.fonts?.ready);
    await page.screenshot({ path: file, fullPage: opts.fullPage ?? false, animations: 'disabled', caret: 'hide' });
    files.push(file);
  };
  await setTheme('light');
  await take('light');
  if (opts.dark) {
    await setTheme('dark');
    await take('dark');
    await setTheme('light');
  }
  return files;
}

/** The text of the newest toast of a tone (info or error). */
export const toastText = (p: Page, tone: 'info' | 'error') => p.getByTestId(`toast-${tone}`).last().locator('span').first().textContent();

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: string[]; html: string; failureSummary?: string }> }

/** axe-core on the current page: violations whose impact is serious or critical. */
export async function axeSerious(page: Page, context?: string): Promise<AxeViolation[]> {
  // evaluated through the DevTools protocol: an inline <script> tag would be blocked by the page's CSP
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (ctx) => {
    const w = window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: any[] }> } };
    const r = await w.axe.run(ctx ?? document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n: any) => ({ target: n.target, html: String(n.html).slice(0, 300), failureSummary: n.failureSummary })),
    }));
  }, context);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** One line per node, for an assertion message that names what to fix. */
export const describeViolations = (vs: AxeViolation[]): string =>
  vs.map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `   ${n.target.join(' ')}  ${n.html}`).join('\n')}`).join('\n');

/** POST /graphql requests whose body names an operation, counted from now on. */
export function countGraphql(page: Page, operation: string): { readonly count: number; readonly bodies: string[]; stop(): void } {
  const bodies: string[] = [];
  const on = (r: Request) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/graphql') {
      const b = r.postData() ?? '';
      if (b.includes(operation)) bodies.push(b);
    }
  };
  page.on('request', on);
  return { get count() { return bodies.length; }, bodies, stop: () => page.off('request', on) };
}

/** Resolves with the next GraphQL response (JSON body) whose request names `operation`. */
export async function nextGraphql(page: Page, operation: string, trigger: () => Promise<unknown>): Promise<any> {
  const [res] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/graphql' && r.request().method() === 'POST' && (r.request().postData() ?? '').includes(operation)),
    trigger(),
  ]);
  return res.json();
}

// ---------------------------------------------------------------------------------------------
// seeding through the API (the admin's token)

export interface LeadValues {
  name: string; email?: string | null; stage?: 'new' | 'qualified' | 'won' | 'lost'; expected_revenue?: number;
  probability?: number | null; notes?: string | null; closed_at?: string | null; date_deadline?: string | null; organization?: string | null;
  country?: string | null; salesperson?: string | null;
  /** when the lead was created (insertLeads only: the API stamps the present) */
  created_at_utc?: string;
}

/** Creates leads with the `crmLeadCreateMany` mutation in batches of 500; returns their ids in order. */
export async function seedLeads(env: WebEnv, leads: LeadValues[]): Promise<string[]> {
  const names = await modelNames(env, 'crm.lead');
  const ids: string[] = [];
  for (let i = 0; i < leads.length; i += 500) {
    const data = await env.gql(
      `mutation Seed($inputs: [${names.createInput}!]!) { rows: ${names.createMany}(inputs: $inputs) { id } }`,
      { inputs: leads.slice(i, i + 500) },
    );
    ids.push(...(data.rows as Array<{ id: string }>).map((r) => r.id));
  }
  return ids;
}

/**
 * Many leads at once, inserted into the tenant's SQLite file in one transaction of a separate
 * better-sqlite3 connection (10,000 rows in well under a second, where `crmLeadCreateMany` takes
 * ~45 s: every row runs the command bus). No command, hook or event runs: for volume only. The
 * server's read cache notices the commit of another connection (`PRAGMA data_version`).
 */
export async function insertLeads(env: WebEnv, leads: LeadValues[]): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const { randomUUID } = await import('node:crypto');
  const stamp = (d: Date) => d.toISOString().replace('Z', '+00:00'); // the Prisma adapter's format
  const db = registerSortKey(new Database(env.kernel.tenants.sqliteFile(env.kernel.settings.DEFAULT_TENANT), { timeout: 10_000 }));
  try {
    const now = stamp(new Date());
    const insert = db.prepare(`INSERT INTO crm_lead (record_uuid, created_at_utc, updated_at_utc, revision, name, email, stage,
      expected_revenue, probability, notes, closed_at, organization, country, salesperson)
      VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    db.transaction(() => {
      for (const l of leads) {
        const created = l.created_at_utc ? stamp(new Date(l.created_at_utc)) : now;
        insert.run(randomUUID(), created, created, l.name, l.email ?? null, l.stage ?? 'new', l.expected_revenue ?? 0, l.probability ?? null,
          l.notes ?? null, l.closed_at ? stamp(new Date(l.closed_at)) : null, l.organization ?? null, l.country ?? null, l.salesperson ?? null);
      }
    })();
  } finally {
    db.close();
  }
}

/** One lead through REST (`POST /api/data/crm.lead`); returns the record. */
export async function createLead(env: WebEnv, values: LeadValues): Promise<Record<string, any>> {
  const res = await env.api('POST', '/api/data/crm.lead', values);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function getRecord(env: WebEnv, model: string, id: string): Promise<Record<string, any>> {
  const res = await env.api('GET', `/api/data/${model}/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function patchRecord(env: WebEnv, model: string, id: string, values: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await env.api('PATCH', `/api/data/${model}/${id}`, values);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const namesCache = new WeakMap<WebEnv, Map<string, Record<string, string>>>();
/** The GraphQL names of a model, as the bootstrap payload serves them to the client. */
export async function modelNames(env: WebEnv, model: string): Promise<Record<string, string>> {
  let cache = namesCache.get(env);
  if (!cache) {
    const data = await env.gql('query { presentationBootstrap { models { key names { typeName one many count create update whereInput createInput } } } }');
    cache = new Map();
    for (const m of data.presentationBootstrap.models) cache.set(m.key, m.names);
    namesCache.set(env, cache);
  }
  const n = cache.get(model);
  if (!n) throw new Error(`model ${model} is not in the bootstrap payload`);
  // the bootstrap serves no createMany name; the schema's is `<one>CreateMany` (src/kernel/registry/names.ts)
  return { ...n, createMany: `${n.one}CreateMany` };
}

/** The admin's organization (`me.organization`): its id and slug, the first URL segment. */
export async function adminOrg(env: WebEnv): Promise<{ id: string; code: string }> {
  const data = await env.gql('query { me { organization { id code } } }');
  return data.me.organization;
}

/** `/<org>/action-<key>[/<record>]` with a query string. */
export function actionUrl(org: string, action: string, record?: string, search: Record<string, string | number | string[] | undefined> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) v.forEach((x) => qs.append(k, x));
    else qs.set(k, String(v));
  }
  const q = qs.toString();
  return `/${org}/action-${action}${record ? `/${record}` : ''}${q ? `?${q}` : ''}`;
}
