import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { systemPrincipal, type Principal } from '../../../kernel/env.js';
import { FwError, NotFound } from '../../../kernel/errors.js';
import { startUrl } from '../same-origin.js';
import type { Kernel } from '../../../kernel/kernel.js';
import { buildServer } from '../../../server/index.js';
import { qaSettings, type QaSettings } from '../settings.js';
import { stepOf, type StepData } from '../steps.js';
import { runSteps, stepLabel, type StepResult, type StepRunContext } from './engine.js';
import { withSandbox, type SandboxCredentials } from './sandbox.js';

/**
 * `fw e2e replay`: the tenant's use cases, replayed in a real browser against the real web
 * client of an in-process fw server, on the sandbox tenant (reset before each use case).
 *
 * One `qa.run` per browser of QA_E2E_BROWSERS, with one Playwright trace for the whole run
 * (`<QA_E2E_TRACE_DIR>/<run id>.zip`) and screenshots under `<QA_E2E_TRACE_DIR>/<run id>/<use
 * case>/<sequence>-<kind>.png` (`trace_path` and `screenshot_path` are stored relative to
 * QA_E2E_TRACE_DIR). Per use case: reset the sandbox, sign in through the login page as the
 * replay user (not a step), open the use case's `start_path`, run exactly its steps, and write a
 * `qa.run.result` with its `qa.run.step` rows in the tenant the use cases come from (never the
 * sandbox). Then a chatter message on the `ir.module` row of each module involved.
 *
 * Values at replay: `{{variables}}` are the use case's `variables` plus built-ins (`run_id`,
 * `usecase`, `sandbox_tenant`, `org`: the sandbox organization's slug, `replay_email`); secrets
 * are `password` (the replay user's password, so a recorded sign-in replays) and every
 * `QA_SECRET_<NAME>` environment variable (as `<name>` in lower case).
 */

/** Where a page waits by default when a step has no `timeout_ms`. */
export const DEFAULT_STEP_TIMEOUT_MS = 10_000;
/** Upload fixtures looked up by name (a missing one is generated: engine.ts `uploadFile`). */
export const DEFAULT_FIXTURES_DIR = 'qa-fixtures';
export const CHROMIUM_PATH = process.env.FW_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const SIGN_IN_TIMEOUT_MS = 20_000;

type Rec = Record<string, unknown>;

export interface ReplayOptions {
  tenant: string;
  usecase?: string | null;
  log: (line: string) => void;
  fixturesDir?: string;
  defaultTimeoutMs?: number;
  /** Pause around each step (polished runs use QA_VIDEO_SLOWMO_MS); not part of `action_ms`. */
  slowMoMs?: number;
  /** "Replay from here" (one use case): the steps before this one run without screenshots (engine.ts). */
  fromStep?: number | null;
  hooks?: StepRunContext['hooks'];
  /** Called with each browser page once it exists (a screencast, an overlay). */
  onPage?: (page: Page, run: { id: string; browser: string }) => void | Promise<void>;
}

export interface UsecaseOutcome {
  result_id: string | null;
  usecase_key: string;
  name: string;
  module: string;
  status: 'passed' | 'failed' | 'error';
  failed_step: number | null;
  error: string | null;
  duration_ms: number;
  steps: StepResult[];
}

export interface RunOutcome {
  id: string;
  browser: string;
  status: 'passed' | 'failed' | 'error';
  error: string | null;
  trace_path: string | null;
  duration_ms: number;
  results: UsecaseOutcome[];
}

export interface ReplayOutcome {
  usecases: number;
  runs: RunOutcome[];
  duration_ms: number;
}

interface Usecase { row: Rec; steps: StepData[] }

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const errMsg = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];

async function loadUsecases(kernel: Kernel, sys: Principal, key: string | null | undefined): Promise<Usecase[]> {
  const domain = key ? [['key', '=', key]] : [['is_active', '=', true]];
  const found = await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase', domain, order: 'key asc' }, sys);
  if (key && !found.items.length) throw new NotFound(`no use case "${key}" in tenant ${sys.tenant_id}`, { key }, 'QA_USECASE_NOT_FOUND');
  const out: Usecase[] = [];
  for (const row of found.items) {
    const steps = await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase.step', domain: [['usecase_id', '=', row.id]], order: 'sequence asc' }, sys);
    out.push({ row, steps: steps.items.map(stepOf) });
  }
  return out;
}

/**
 * The kernel as the in-process server sees it: `buildServer` closes its kernel when the server
 * closes, which must not close the caller's; and request logs (LOG_LEVEL info) would drown the
 * progress lines, so the replay's server logs warnings and errors only.
 */
export function serverKernel(kernel: Kernel): Kernel {
  const quiet = ['silent', 'fatal', 'error', 'warn'].includes(kernel.settings.LOG_LEVEL) ? kernel.settings.LOG_LEVEL : 'warn';
  return Object.create(kernel, {
    close: { value: async () => undefined },
    settings: { value: { ...kernel.settings, LOG_LEVEL: quiet } },
  }) as Kernel;
}

/** The fw server in-process on 127.0.0.1:<free port>, checked to serve the web client; close it when done. */
export async function startServer(kernel: Kernel): Promise<{ server: FastifyInstance; base: string }> {
  const server = await buildServer(serverKernel(kernel));
  try {
    const base = await server.listen({ port: 0, host: '127.0.0.1' });
    const shell = await fetch(`${base}/login`, { headers: { accept: 'text/html' } });
    const html = await shell.text();
    if (shell.status !== 200 || (!html.includes('<div id="root"') && !html.includes('<script'))) {
      throw new FwError('QA_WEB_CLIENT_MISSING', 500, `the server at ${base} serves no web client (WEB_CLIENT_DIR="${kernel.settings.WEB_CLIENT_DIR}"): run npm run build:web`);
    }
    return { server, base };
  } catch (err) {
    await server.close();
    throw err;
  }
}

function collectSecrets(creds: SandboxCredentials): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('QA_SECRET_') && v) secrets[k.slice('QA_SECRET_'.length).toLowerCase()] = v;
  }
  secrets.password = creds.password;
  return secrets;
}

function interpolate(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi, (m, name: string) => (Object.hasOwn(vars, name) ? vars[name] : m));
}

/** Signs in through the web client's login page (test ids of web/src/auth/LoginPage.tsx). */
export async function signIn(page: Page, base: string, creds: SandboxCredentials): Promise<void> {
  await page.goto(`${base}/login`, { timeout: SIGN_IN_TIMEOUT_MS });
  await page.getByTestId('login-email').fill(creds.email, { timeout: SIGN_IN_TIMEOUT_MS });
  await page.getByTestId('login-password').fill(creds.password);
  await page.getByTestId('login-submit').click();
  const menu = page.getByTestId('user-menu');
  const refused = page.getByTestId('login-error');
  await menu.or(refused).first().waitFor({ timeout: SIGN_IN_TIMEOUT_MS });
  if (await refused.isVisible()) throw new Error(`the login page refused the replay user: ${await refused.innerText()}`);
}

/** Leaves the sandbox's origin with nothing of the session behind (the next use case signs in again). */
export async function forgetSession(page: Page, base: string): Promise<void> {
  try {
    if (page.url().startsWith(base)) {
      await page.evaluate(async () => {
        localStorage.clear();
        sessionStorage.clear();
        const dbs = (await indexedDB.databases?.()) ?? [];
        await Promise.all(dbs.map((d) => d.name && new Promise((r) => { const q = indexedDB.deleteDatabase(d.name!); q.onsuccess = q.onerror = q.onblocked = () => r(null); })));
      });
    }
  } catch { /* a page that cannot run script has nothing to clear */ }
  // the refresh token is an HttpOnly cookie (src/apps/auth/cookie.ts): no script can clear it
  await page.context().clearCookies().catch(() => undefined);
  await page.goto('about:blank').catch(() => undefined);
}

function progressLine(step: StepData, r: StepResult): string {
  const mark = r.status === 'passed' ? '✓' : r.status === 'failed' ? '✗' : '-';
  const time = r.status === 'skipped' ? 'skipped' : `${Math.round(r.action_ms ?? 0)} ms${r.attempts > 1 ? `, ${r.attempts} attempts` : ''}${r.matched_locator && r.matched_locator.candidate > 0 ? `, fallback #${r.matched_locator.candidate + 1}` : ''}`;
  return `  ${mark} ${r.sequence} ${r.kind} ${stepLabel(step)} (${time})${r.error ? `\n      ${r.error}` : ''}${r.status === 'failed' && r.screenshot_path ? `\n      screenshot: ${r.screenshot_path}` : ''}`;
}

async function writeResult(kernel: Kernel, sys: Principal, runId: string, uc: Usecase, o: UsecaseOutcome, startedAt: Date): Promise<string> {
  const finished = new Date(startedAt.getTime() + o.duration_ms);
  const res = await kernel.dispatch<{ id: string }>('fw.create', {
    model: 'qa.run.result',
    values: {
      run_id: runId, usecase_id: uc.row.id, usecase_key: o.usecase_key, usecase_version: uc.row.version ?? null, module: o.module,
      status: o.status, started_at: startedAt.toISOString(), finished_at: finished.toISOString(), duration_ms: o.duration_ms,
      failed_step: o.failed_step, error: o.error,
    },
  }, sys);
  for (const s of o.steps) {
    await kernel.dispatch('fw.create', {
      model: 'qa.run.step',
      values: {
        result_id: res.id, sequence: s.sequence, kind: s.kind, caption: s.caption ? s.caption.slice(0, 500) : null, status: s.status,
        started_at: s.started_at, action_ms: s.action_ms, matched_locator: s.matched_locator ?? undefined, tried_locators: s.tried_locators ?? undefined,
        attempts: s.attempts, error: s.error, screenshot_path: s.screenshot_path,
      },
    }, sys);
  }
  return res.id;
}

async function replayUsecase(kernel: Kernel, o: {
  qs: QaSettings; opts: ReplayOptions; sys: Principal; page: Page; base: string; runId: string; traceDir: string; uc: Usecase;
}): Promise<UsecaseOutcome> {
  const { uc, page, base, runId, qs, opts } = o;
  const key = String(uc.row.key);
  const started = Date.now();
  const startedAt = new Date(started);
  opts.log(`▶ ${key} — ${String(uc.row.name)} (${uc.steps.length} step${uc.steps.length === 1 ? '' : 's'})`);
  const outcome: UsecaseOutcome = { result_id: null, usecase_key: key, name: String(uc.row.name), module: String(uc.row.module), status: 'passed', failed_step: null, error: null, duration_ms: 0, steps: [] };
  const role = (['admin', 'user', 'qa'].includes(String(uc.row.replay_role)) ? uc.row.replay_role : 'admin') as SandboxCredentials['role'];
  try {
    await withSandbox(kernel, { sandbox: qs.QA_SANDBOX_TENANT_KEY, source: opts.tenant, role }, async (creds) => {
      const reset = Date.now() - started;
      try {
        await signIn(page, base, creds);
      } catch (err) {
        throw new FwError('QA_SIGN_IN_FAILED', 500, `signing in to ${creds.tenant} as ${creds.email} failed: ${errMsg(err)}`);
      }
      opts.log(`  sandbox ${creds.tenant} reset (${secs(reset)}), signed in as ${creds.email} (${creds.role}, ${secs(Date.now() - started - reset)})`);
      const variables: Record<string, string> = {};
      const declared = uc.row.variables;
      if (declared && typeof declared === 'object' && !Array.isArray(declared)) {
        for (const [k, v] of Object.entries(declared as Rec)) if (v !== null && v !== undefined) variables[k] = String(v);
      }
      Object.assign(variables, { run_id: runId, usecase: key, sandbox_tenant: creds.tenant, org: creds.organization?.code ?? '-', replay_email: creds.email });
      const start = interpolate(String(uc.row.start_path || '/'), variables);
      // checked again here, after interpolation: rows written before the write-time check, or a variable, may lead elsewhere
      const url = startUrl(start, base);
      try {
        await page.goto(url.toString(), { timeout: SIGN_IN_TIMEOUT_MS });
      } catch (err) {
        throw new FwError('QA_START_FAILED', 500, `opening the start page ${start} failed: ${errMsg(err)}`);
      }
      outcome.steps = await runSteps(page, uc.steps, {
        baseUrl: base,
        variables,
        secrets: collectSecrets(creds),
        fixturesDir: path.resolve(opts.fixturesDir ?? DEFAULT_FIXTURES_DIR),
        screenshotDir: path.join(o.traceDir, runId, key),
        screenshotRoot: o.traceDir,
        defaultTimeoutMs: opts.defaultTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
        slowMoMs: opts.slowMoMs,
        fromStep: opts.fromStep ?? undefined,
        hooks: {
          beforeStep: opts.hooks?.beforeStep,
          afterStep: async (i, step, r) => {
            opts.log(progressLine(step, r) + (opts.fromStep && i + 1 < opts.fromStep && r.status === 'passed' ? ` — on the way to step ${opts.fromStep}` : ''));
            await opts.hooks?.afterStep?.(i, step, r);
          },
        },
      });
      await forgetSession(page, base);
    });
    const failed = outcome.steps.find((s) => s.status === 'failed');
    if (failed) {
      outcome.status = 'failed';
      outcome.failed_step = failed.sequence;
      outcome.error = `step ${failed.sequence} (${failed.kind}${failed.caption ? `: ${failed.caption}` : ''}) failed: ${failed.error}`;
    }
  } catch (err) {
    // the use case could not run (sandbox, sign-in, start page): an error, not a failed step
    outcome.status = 'error';
    outcome.error = errMsg(err);
    outcome.steps = uc.steps.map((s, i) => ({ sequence: i + 1, kind: s.kind, caption: s.caption ?? null, status: 'skipped', started_at: null, action_ms: null, matched_locator: null, tried_locators: null, attempts: 0, error: null, screenshot_path: null }));
    opts.log(`  ! ${outcome.error}`);
    await forgetSession(page, base);
  }
  outcome.duration_ms = Date.now() - started;
  outcome.result_id = await writeResult(kernel, o.sys, runId, uc, outcome, startedAt);
  const mark = outcome.status === 'passed' ? '✓' : '✗';
  opts.log(`${mark} ${key} ${outcome.status} in ${secs(outcome.duration_ms)}${outcome.failed_step ? ` (step ${outcome.failed_step})` : ''}`);
  return outcome;
}

async function launch(browserName: string, qs: QaSettings): Promise<Browser> {
  if (browserName !== 'chromium') {
    throw new FwError('QA_BROWSER_UNSUPPORTED', 400, `${browserName} is not available: replays run on Debian's Chromium only (playwright-core's ${browserName} needs Playwright's own build, which this project does not download). Set QA_E2E_BROWSERS=chromium.`);
  }
  if (!fs.existsSync(CHROMIUM_PATH)) throw new FwError('QA_BROWSER_MISSING', 500, `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set FW_CHROMIUM)`);
  try {
    return await chromium.launch({ executablePath: CHROMIUM_PATH, headless: qs.QA_E2E_HEADLESS, args: CHROMIUM_ARGS });
  } catch (err) {
    throw new FwError('QA_BROWSER_FAILED', 500, `Chromium did not start${qs.QA_E2E_HEADLESS ? '' : ' (QA_E2E_HEADLESS=false needs a display)'}: ${errMsg(err)}`);
  }
}

/**
 * Where the chatter message of a replay points: the run in the web client (its results, their
 * steps and screenshots), which a browser opens with the reader's session. `-` stands for the
 * organization, which the server does not know for the reader (the client puts the reader's
 * slug in its place). The same run as JSON is `GET /api/qa/runs/{id}` (bearer token).
 */
export const runLink = (runId: string) => `/-/action-qa.action_runs/${runId}`;

async function postChatter(kernel: Kernel, sys: Principal, run: RunOutcome, log: (l: string) => void): Promise<void> {
  const byModule = new Map<string, UsecaseOutcome[]>();
  for (const r of run.results) byModule.set(r.module, [...(byModule.get(r.module) ?? []), r]);
  for (const [module, results] of byModule) {
    try {
      const mod = await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'ir.module', domain: [['name', '=', module]], limit: 1 }, sys);
      if (!mod.items.length) {
        log(`  (no ir.module row for ${module}: no chatter message)`);
        continue;
      }
      const passed = results.filter((r) => r.status === 'passed').length;
      const verdict = passed === results.length ? 'passed' : 'failed';
      const lines = results.map((r) => r.status === 'passed'
        ? `✓ ${r.usecase_key} — ${r.name}: passed (${r.steps.length} steps, ${secs(r.duration_ms)})`
        : `✗ ${r.usecase_key} — ${r.name}: ${r.status}${r.failed_step ? ` at step ${r.failed_step}` : ''}: ${r.error ?? ''}`);
      await kernel.dispatch('ir.message.post', {
        res_model: 'ir.module',
        res_id: mod.items[0].id,
        subject: `QA replay ${verdict}: ${passed}/${results.length} use case${results.length === 1 ? '' : 's'} of ${module} (${run.browser})`,
        body: [`Run ${run.id} on ${run.browser} (${secs(run.duration_ms)}):`, ...lines].join('\n'),
        message_type: 'notification',
        link: runLink(run.id),
      }, sys);
    } catch (err) {
      log(`  (chatter message on ${module} not posted: ${errMsg(err)})`);
    }
  }
}

async function runBrowser(kernel: Kernel, o: { qs: QaSettings; opts: ReplayOptions; sys: Principal; base: string; browser: string; usecases: Usecase[]; traceDir: string }): Promise<RunOutcome> {
  const { qs, opts, sys } = o;
  const started = Date.now();
  const created = await kernel.dispatch<{ id: string }>('fw.create', {
    model: 'qa.run',
    values: { sandbox_tenant: qs.QA_SANDBOX_TENANT_KEY, browser: o.browser, headless: qs.QA_E2E_HEADLESS, status: 'running', started_at: new Date(started).toISOString(), usecase_count: o.usecases.length },
  }, sys);
  const run: RunOutcome = { id: created.id, browser: o.browser, status: 'passed', error: null, trace_path: null, duration_ms: 0, results: [] };
  opts.log(`run ${run.id}: ${o.usecases.length} use case${o.usecases.length === 1 ? '' : 's'} of ${opts.tenant} on ${o.browser} against sandbox ${qs.QA_SANDBOX_TENANT_KEY}`);
  let browser: Browser | null = null;
  let context: BrowserContext | null = null;
  try {
    browser = await launch(o.browser, qs);
    context = await browser.newContext({
      viewport: qs.resolution, locale: 'en-US', timezoneId: 'UTC',
      // anonymous requests (the login) name the sandbox; signed-in ones carry it in their token
      extraHTTPHeaders: { 'x-tenant': qs.QA_SANDBOX_TENANT_KEY },
    });
    await context.tracing.start({ screenshots: true, snapshots: true, title: `fw QA run ${run.id}` });
    const page = await context.newPage();
    // leaving a dirty form must not stop the next use case; other dialogs are dismissed (Playwright's default)
    page.on('dialog', (d) => { void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => undefined); });
    await opts.onPage?.(page, { id: run.id, browser: o.browser });
    for (const uc of o.usecases) run.results.push(await replayUsecase(kernel, { qs, opts, sys, page, base: o.base, runId: run.id, traceDir: o.traceDir, uc }));
  } catch (err) {
    run.status = 'error';
    run.error = errMsg(err);
    opts.log(`! run ${run.id}: ${run.error}`);
  } finally {
    if (context) {
      const file = path.join(o.traceDir, `${run.id}.zip`);
      try {
        fs.mkdirSync(o.traceDir, { recursive: true });
        await context.tracing.stop({ path: file });
        run.trace_path = path.relative(o.traceDir, file);
      } catch (err) {
        opts.log(`  (trace not saved: ${errMsg(err)})`);
      }
      await context.close().catch(() => undefined);
    }
    await browser?.close().catch(() => undefined);
  }
  const passed = run.results.filter((r) => r.status === 'passed').length;
  if (run.status !== 'error') {
    run.status = run.results.some((r) => r.status === 'error') ? 'error' : passed === run.results.length ? 'passed' : 'failed';
  }
  run.duration_ms = Date.now() - started;
  // each result links the run's trace (its form offers the download)
  if (run.trace_path) {
    for (const r of run.results) if (r.result_id) await kernel.dispatch('fw.update', { model: 'qa.run.result', id: r.result_id, values: { trace_path: run.trace_path } }, sys);
  }
  await kernel.dispatch('fw.update', {
    model: 'qa.run', id: run.id,
    values: {
      status: run.status, finished_at: new Date().toISOString(), duration_ms: run.duration_ms, passed_count: passed,
      failed_count: run.results.length - passed, trace_path: run.trace_path, error: run.error,
    },
  }, sys);
  if (run.results.length) await postChatter(kernel, sys, run, opts.log);
  return run;
}

/**
 * Replays the tenant's active use cases (or the one named `usecase`, 404 QA_USECASE_NOT_FOUND)
 * in every browser of QA_E2E_BROWSERS. Needs QA_E2E_ENABLED. Resolves with every run; a browser
 * that cannot run gives a run with status `error` instead of throwing.
 */
export async function replay(kernel: Kernel, opts: ReplayOptions): Promise<ReplayOutcome> {
  const qs = qaSettings(kernel.settings);
  if (!qs.QA_E2E_ENABLED) throw new FwError('QA_E2E_DISABLED', 400, 'replays run a browser only with QA_E2E_ENABLED=true');
  if (qs.QA_SANDBOX_TENANT_KEY === opts.tenant) {
    throw new FwError('QA_SANDBOX_IS_SOURCE', 400, `the use cases of ${opts.tenant} cannot be replayed on ${opts.tenant} itself: QA_SANDBOX_TENANT_KEY is reset before each use case`);
  }
  const started = Date.now();
  const sys = systemPrincipal(opts.tenant);
  const usecases = await loadUsecases(kernel, sys, opts.usecase);
  if (opts.fromStep !== undefined && opts.fromStep !== null) {
    const total = usecases[0]?.steps.length ?? 0;
    if (!opts.usecase || !Number.isInteger(opts.fromStep) || opts.fromStep < 1 || opts.fromStep > total) {
      throw new FwError('QA_FROM_STEP_INVALID', 400, opts.usecase
        ? `--from ${String(opts.fromStep)}: use case ${opts.usecase} has steps 1 to ${total}`
        : 'replaying from a step needs the use case (--usecase <key>)');
    }
  }
  if (!usecases.length) return { usecases: 0, runs: [], duration_ms: Date.now() - started };
  const traceDir = path.resolve(qs.QA_E2E_TRACE_DIR);
  const { server, base } = await startServer(kernel);
  const runs: RunOutcome[] = [];
  try {
    for (const browser of qs.QA_E2E_BROWSERS) runs.push(await runBrowser(kernel, { qs, opts, sys, base, browser, usecases, traceDir }));
  } finally {
    await server.close();
  }
  return { usecases: usecases.length, runs, duration_ms: Date.now() - started };
}
