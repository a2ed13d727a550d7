import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Locator, Page } from 'playwright-core';
import { DEFAULT_SCREENSHOT_POLICY, type LocatorChain, type StepAssertion, type StepData, type StepValue } from '../steps.js';
import { onOrigin } from '../same-origin.js';
import { chainToString, describeTried, matches, resolveTarget, StepFailure, toLocator, type ResolvedTarget, type TriedLocator } from './locate.js';

/**
 * The replay engine: runs use-case steps (src/apps/qa/steps.ts) on a Playwright page, one after
 * the other, and reports what each did. Steps are data: every kind maps to one Playwright call
 * here, nothing is evaluated.
 *
 * - Timeouts: a step's budget is its `timeout_ms`, else `ctx.defaultTimeoutMs`. Finding the
 *   target (locate.ts) and the action share that budget (one deadline per step).
 * - Retries: an action that fails because its element was detached or another element
 *   intercepted the pointer (a re-render, an animation, a closing overlay) is tried again on a
 *   fresh lookup of the same locator, up to MAX_ATTEMPTS. Each attempt may use an equal part of
 *   what is left of the budget, so a retry still has time; an attempt that merely ran out of its
 *   part while the step's deadline is still ahead is retried too. Other errors fail at once.
 * - `action_ms` times finding the target and the action (all attempts): not screenshots, hooks
 *   or slow-motion pauses.
 * - After the first failed step, the remaining steps are `skipped`.
 */
export const MAX_ATTEMPTS = 3;

export interface StepRunContext {
  /** `http://127.0.0.1:<port>`: navigate steps are paths under it. */
  baseUrl: string;
  /** `{{name}}` values (a `variable` value, or `{{name}}` inside a literal). */
  variables: Record<string, string>;
  /** Values of `secret` steps; never written to results or messages. */
  secrets: Record<string, string>;
  /** Where upload fixtures are looked up by name. */
  fixturesDir: string;
  /** Where this use case's screenshots go (created on demand). */
  screenshotDir: string;
  /** `screenshot_path` is stored relative to this folder (QA_E2E_TRACE_DIR); default screenshotDir. */
  screenshotRoot?: string;
  /** Take no screenshot whatever the steps' policies (a polished video films the steps instead). */
  noScreenshots?: boolean;
  defaultTimeoutMs: number;
  /** A pause before and after each step (polished videos); not part of `action_ms`. */
  slowMoMs?: number;
  /**
   * "Replay from here": the 1-based step the person wants to see. The steps before it are the
   * way there: they run (the page needs what they do), without screenshots or pauses.
   */
  fromStep?: number;
  hooks?: {
    beforeStep?(index: number, step: StepData): void | Promise<void>;
    afterStep?(index: number, step: StepData, result: StepResult): void | Promise<void>;
  };
}

export interface MatchedLocator {
  candidate: number;
  /** The matched chain as stored in the step. */
  chain: LocatorChain;
  /** The same chain as Playwright code. */
  code: string;
}

export interface StepResult {
  sequence: number;
  kind: StepData['kind'];
  caption: string | null;
  status: 'passed' | 'failed' | 'skipped';
  started_at: string | null;
  action_ms: number | null;
  matched_locator: MatchedLocator | null;
  tried_locators: TriedLocator[] | null;
  attempts: number;
  error: string | null;
  /** Relative to `screenshotRoot`. */
  screenshot_path: string | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
const RETRYABLE = /not attached|detached|intercepts pointer events|element is not stable|Execution context was destroyed|frame was detached/i;

class Budget {
  readonly start = Date.now();
  constructor(readonly ms: number) {}
  get left(): number { return Math.max(0, this.ms - (Date.now() - this.start)); }
}

/** `{{name}}` inside a literal is replaced when `name` is a known variable; anything else stays as typed. */
function interpolate(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi, (m, name: string) => (Object.hasOwn(vars, name) ? vars[name] : m));
}

export function resolveValue(v: StepValue | null | undefined, ctx: Pick<StepRunContext, 'variables' | 'secrets'>): string {
  if (!v) throw new StepFailure('the step has no value');
  if (v.kind === 'literal') return interpolate(v.value, ctx.variables);
  if (v.kind === 'variable') {
    if (!Object.hasOwn(ctx.variables, v.value)) throw new StepFailure(`variable {{${v.value}}} has no value (the use case's variables, or a built-in one)`);
    return ctx.variables[v.value];
  }
  if (!Object.hasOwn(ctx.secrets, v.value)) throw new StepFailure(`secret "${v.value}" is not provided (set QA_SECRET_${v.value.toUpperCase()})`);
  return ctx.secrets[v.value];
}

/** Error text with every secret value masked. */
function masked(text: string, secrets: Record<string, string>): string {
  let out = text;
  for (const s of Object.values(secrets)) if (s && s.length >= 3) out = out.split(s).join('•••');
  return out;
}

/** The first line of a Playwright error plus its call log's last lines: what it waited for. */
function errorText(err: unknown): string {
  const msg = String((err as Error)?.message ?? err);
  const lines = msg.split('\n').map((l) => l.trimEnd()).filter(Boolean);
  const head = lines[0] ?? msg;
  const log = lines.slice(1).filter((l) => /^\s*-/.test(l)).slice(-4).map((l) => l.trim());
  return log.length ? `${head} (${log.join(' ')})` : head;
}

// --------------------------------------------------------------------------------------------
// upload fixtures

const MIME: Record<string, string> = {
  '.txt': 'text/plain', '.csv': 'text/csv', '.json': 'application/json', '.pdf': 'application/pdf', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.html': 'text/html', '.md': 'text/markdown', '.xml': 'application/xml',
};
const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

/**
 * A fixture by name from `fixturesDir`; when no such file exists, a small generated file of that
 * name (deterministic content: a 1×1 PNG for .png, a one-page PDF for .pdf, a line of text
 * naming the fixture otherwise), so a recorded upload replays without shipping its file.
 */
export function uploadFile(fixturesDir: string, name: string): { name: string; mimeType: string; buffer: Buffer; generated: boolean } {
  const base = path.basename(name);
  if (!base || base !== name || base === '.' || base === '..') throw new StepFailure(`upload fixture "${name}" must be a plain file name`);
  const ext = path.extname(base).toLowerCase();
  const mimeType = MIME[ext] ?? 'application/octet-stream';
  const file = path.join(fixturesDir, base);
  if (fs.existsSync(file) && fs.statSync(file).isFile()) return { name: base, mimeType, buffer: fs.readFileSync(file), generated: false };
  let buffer: Buffer;
  if (ext === '.png') buffer = PNG_1PX;
  else if (ext === '.pdf') {
    buffer = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n'
      + '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
  } else if (ext === '.csv') buffer = Buffer.from(`name,value\nfixture,${base}\n`);
  else if (ext === '.json') buffer = Buffer.from(`${JSON.stringify({ fixture: base })}\n`);
  else buffer = Buffer.from(`fw QA fixture ${base}\n`);
  return { name: base, mimeType, buffer, generated: true };
}

// --------------------------------------------------------------------------------------------
// assertions: playwright-core has no `expect`; a poller with growing intervals does its job

const POLL = [100, 250, 500, 1000];

/**
 * Calls `check` until it passes or `ms` ran out; returns the last outcome. A check that throws
 * because the page was changing (detached element, navigation, a read that timed out) counts as
 * not yet passed, keeping the last value seen (`fallback` before any).
 */
export async function poll<T>(ms: number, check: () => Promise<{ ok: boolean; actual: T }>, fallback: T): Promise<{ ok: boolean; actual: T }> {
  const deadline = Date.now() + ms;
  let i = 0;
  let last = fallback;
  for (;;) {
    let r: { ok: boolean; actual: T };
    try {
      r = await check();
      last = r.actual;
    } catch (err) {
      if (!RETRYABLE.test(String((err as Error).message)) && !/Timeout/i.test(String((err as Error).message))) throw err;
      r = { ok: false, actual: last };
    }
    if (r.ok || Date.now() >= deadline) return r;
    await sleep(Math.min(POLL[Math.min(i++, POLL.length - 1)], deadline - Date.now()));
  }
}

/** `*` in an expected URL matches anything; a path compares with the page's path (and query, when it has one). */
function urlMatches(actual: string, expected: string): boolean {
  const u = new URL(actual);
  const candidates = expected.startsWith('/') ? [u.pathname + u.search, u.pathname] : [actual];
  const re = new RegExp(`^${expected.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return candidates.some((c) => re.test(c));
}

const truthy = (v: unknown) => v === undefined || v === null || v === true || v === 'true' || v === 1 || v === '1';

interface Outcome { matched: ResolvedTarget | null; attempts: number }

/** An action that failed on an element its locator had found. */
class ActionFailure extends StepFailure {
  constructor(message: string, readonly matched: ResolvedTarget, readonly attempts: number) {
    super(message, matched.tried);
  }
}

async function assertStep(page: Page, step: StepData, a: StepAssertion, budget: Budget, ctx: StepRunContext): Promise<Outcome> {
  const expected = a.expected === undefined ? undefined : typeof a.expected === 'string' ? interpolate(a.expected, ctx.variables) : a.expected;
  if (a.kind === 'url') {
    const r = await poll(budget.left, async () => ({ ok: urlMatches(page.url(), String(expected)), actual: page.url() }), page.url());
    if (!r.ok) throw new StepFailure(`expected the URL to be "${String(expected)}" but it is "${r.actual}" (after ${budget.ms} ms)`);
    return { matched: null, attempts: 1 };
  }
  const candidates = step.target?.candidates ?? [];
  if (a.kind === 'hidden') {
    // every candidate names the same element: it is hidden when none shows a visible element
    const r = await poll(budget.left, async () => {
      const shown: TriedLocator[] = [];
      for (let i = 0; i < candidates.length; i++) {
        const n = await toLocator(page, candidates[i]).filter({ visible: true }).count();
        if (n) shown.push({ candidate: i, chain: chainToString(candidates[i]), reason: matches(n), count: n });
      }
      return { ok: !shown.length, actual: shown };
    }, [] as TriedLocator[]);
    if (!r.ok) throw new StepFailure(`expected no visible element but ${describeTried(r.actual)} (after ${budget.ms} ms)`, r.actual);
    return { matched: null, attempts: 1 };
  }
  if (a.kind === 'count') {
    // the first candidate that matches anything decides (with expected 0: all must match nothing)
    const want = Number(expected);
    const r = await poll(budget.left, async () => {
      const counts: TriedLocator[] = [];
      for (let i = 0; i < candidates.length; i++) {
        const n = await toLocator(page, candidates[i]).count();
        counts.push({ candidate: i, chain: chainToString(candidates[i]), reason: n ? matches(n) : 'no match', count: n });
        if (n) break;
      }
      const decisive = counts[counts.length - 1];
      return { ok: (decisive?.count ?? 0) === want, actual: counts };
    }, [] as TriedLocator[]);
    if (!r.ok) throw new StepFailure(`expected ${want} element(s) but ${describeTried(r.actual)} (after ${budget.ms} ms)`, r.actual);
    const last = r.actual[r.actual.length - 1];
    return { matched: last ? { locator: toLocator(page, candidates[last.candidate]), candidate: last.candidate, chain: last.chain, tried: r.actual.slice(0, -1) } : null, attempts: 1 };
  }
  const found = await resolveTarget(page, step.target!, budget.left, budget.ms).catch((err: unknown) => {
    // a saved-value check (the recorder's, after a save) waits for the form to show the record read back
    if (err instanceof StepFailure && candidates.length && candidates.every((c) => c[0]?.by === 'css' && c[0].value.includes('[data-synced]'))) {
      throw new StepFailure(`the form never showed the saved record (the save failed, or the record was not read back): ${err.message}`, err.tried);
    }
    throw err;
  });
  const el = found.locator;
  const t = Math.max(50, budget.left);
  const check = async (what: string, read: (l: Locator) => Promise<unknown>, ok: (v: unknown) => boolean, show: (v: unknown) => string) => {
    const r = await poll<unknown>(t, async () => { const v = await read(el); return { ok: ok(v), actual: v }; }, null);
    if (!r.ok) throw new ActionFailure(`${found.chain}: expected ${what} but found ${show(r.actual)} (after ${budget.ms} ms)`, found, 1);
  };
  const quoted = (v: unknown) => JSON.stringify(v ?? null);
  const timeout = () => ({ timeout: Math.max(50, Math.min(2000, budget.left)) });
  switch (a.kind) {
    case 'visible': break; // resolveTarget found exactly one visible element
    case 'text': await check(`text ${quoted(norm(String(expected)))}`, async (l) => norm(await l.innerText(timeout())), (v) => v === norm(String(expected)), quoted); break;
    case 'contains_text': await check(`text containing ${quoted(norm(String(expected)))}`, async (l) => norm(await l.innerText(timeout())), (v) => String(v).includes(norm(String(expected))), quoted); break;
    case 'value': await check(`value ${quoted(String(expected))}`, (l) => l.inputValue(timeout()), (v) => v === String(expected), (v) => (v === '' ? '"" (empty)' : quoted(v))); break;
    case 'checked': {
      const want = truthy(expected);
      await check(want ? 'it checked' : 'it unchecked', (l) => l.isChecked(timeout()), (v) => v === want, (v) => (v ? 'it checked' : 'it unchecked'));
      break;
    }
    case 'enabled': await check('it enabled', (l) => l.isEnabled(timeout()), (v) => v === true, () => 'it disabled'); break;
    case 'disabled': await check('it disabled', (l) => l.isDisabled(timeout()), (v) => v === true, () => 'it enabled'); break;
  }
  return { matched: found, attempts: 1 };
}

// --------------------------------------------------------------------------------------------
// actions

/** Runs `act` on the resolved target, again on a detached or intercepted element (see the header). */
async function withRetries(page: Page, step: StepData, budget: Budget, act: (l: Locator, timeout: number, attempt: number) => Promise<void>): Promise<Outcome> {
  const found = await resolveTarget(page, step.target!, budget.left, budget.ms);
  let attempts = 0;
  for (;;) {
    attempts++;
    const part = Math.max(500, Math.round(budget.left / (MAX_ATTEMPTS - attempts + 1)));
    try {
      await act(found.locator, part, attempts);
      return { matched: found, attempts };
    } catch (err) {
      const msg = String((err as Error).message);
      const retry = attempts < MAX_ATTEMPTS && budget.left > 0 && (RETRYABLE.test(msg) || (/Timeout \d+ms exceeded/.test(msg) && budget.left > 250));
      if (!retry) throw new ActionFailure(`${found.chain}: ${errorText(err)}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`, found, attempts);
      await sleep(Math.min(100 * attempts, budget.left));
    }
  }
}

async function selectOption(page: Page, l: Locator, value: string, timeout: number): Promise<void> {
  const tag = await l.evaluate((el) => el.tagName.toLowerCase(), undefined, { timeout });
  if (tag === 'select') {
    // by value first, then by label
    const values = await l.evaluate((el) => Array.from((el as HTMLSelectElement).options).map((o) => o.value));
    await l.selectOption(values.includes(value) ? { value } : { label: value }, { timeout });
    return;
  }
  // a custom select (React Aria): open it, then pick the option by its accessible name
  await l.click({ timeout });
  await page.getByRole('option', { name: value, exact: true }).click({ timeout });
}

async function upload(page: Page, l: Locator, file: ReturnType<typeof uploadFile>, timeout: number): Promise<void> {
  const payload = { name: file.name, mimeType: file.mimeType, buffer: file.buffer };
  const isFileInput = await l.evaluate((el) => el instanceof HTMLInputElement && el.type === 'file', undefined, { timeout });
  if (isFileInput) {
    await l.setInputFiles(payload, { timeout });
    return;
  }
  // a button that opens a file picker
  const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout }), l.click({ timeout })]);
  await chooser.setFiles(payload, { timeout });
}

async function act(page: Page, step: StepData, budget: Budget, ctx: StepRunContext): Promise<Outcome> {
  switch (step.kind) {
    case 'chapter':
      return { matched: null, attempts: 0 };
    case 'navigate': {
      const value = resolveValue(step.value, ctx);
      const target = onOrigin(value, ctx.baseUrl);
      if (!target) throw new StepFailure(`navigate stays on the platform: "${value}" is not on ${new URL(ctx.baseUrl).origin}`);
      await page.goto(target.toString(), { timeout: Math.max(1000, budget.left), waitUntil: 'load' });
      return { matched: null, attempts: 1 };
    }
    case 'press': {
      const key = resolveValue(step.value, ctx);
      if (!step.target) {
        await page.keyboard.press(key);
        return { matched: null, attempts: 1 };
      }
      return withRetries(page, step, budget, (l, timeout) => l.press(key, { timeout }));
    }
    case 'click': return withRetries(page, step, budget, (l, timeout) => l.click({ timeout }));
    case 'hover': return withRetries(page, step, budget, (l, timeout) => l.hover({ timeout }));
    case 'fill': {
      const value = resolveValue(step.value, ctx);
      return withRetries(page, step, budget, (l, timeout) => l.fill(value, { timeout }));
    }
    case 'select': {
      const value = resolveValue(step.value, ctx);
      return withRetries(page, step, budget, (l, timeout) => selectOption(page, l, value, timeout));
    }
    case 'check':
    case 'uncheck': {
      const on = step.kind === 'check';
      // the last attempt forces: a styled checkbox often sits under its label, which takes the click
      return withRetries(page, step, budget, (l, timeout, attempt) => l.setChecked(on, { timeout, force: attempt === MAX_ATTEMPTS }));
    }
    case 'upload': {
      const file = uploadFile(ctx.fixturesDir, resolveValue(step.value, ctx));
      return withRetries(page, step, budget, (l, timeout) => upload(page, l, file, timeout));
    }
    case 'wait': {
      if (step.target) {
        const found = await resolveTarget(page, step.target, budget.left, budget.ms);
        return { matched: found, attempts: 1 };
      }
      const ms = Number(step.value ? resolveValue(step.value, ctx) : NaN);
      if (!Number.isFinite(ms) || ms < 0) throw new StepFailure('a wait step needs a target or a value in milliseconds');
      await page.waitForTimeout(Math.min(ms, 120_000));
      return { matched: null, attempts: 1 };
    }
    case 'assert':
      if (!step.assertion) throw new StepFailure('an assert step needs an assertion');
      return assertStep(page, step, step.assertion, budget, ctx);
  }
  throw new StepFailure(`unknown step kind "${String(step.kind)}"`);
}

// --------------------------------------------------------------------------------------------

async function screenshot(page: Page, ctx: StepRunContext, sequence: number, kind: string): Promise<string | null> {
  fs.mkdirSync(ctx.screenshotDir, { recursive: true });
  const file = path.join(ctx.screenshotDir, `${String(sequence).padStart(3, '0')}-${kind}.png`);
  try {
    await page.screenshot({ path: file, timeout: 10_000, animations: 'disabled', caret: 'hide' });
  } catch {
    return null; // a page that cannot be captured must not hide the step's own error
  }
  return path.relative(ctx.screenshotRoot ?? ctx.screenshotDir, file).split(path.sep).join('/');
}

/** A short name for a step in progress lines: its caption, else what it acts on. */
export function stepLabel(step: StepData): string {
  if (step.caption) return step.caption;
  const first = step.target?.candidates?.[0];
  const what = first ? chainToString(first) : '';
  const value = !step.value ? '' : step.value.kind === 'literal' ? step.value.value : step.value.kind === 'variable' ? `{{${step.value.value}}}` : '•••';
  if (step.kind === 'assert') return `${step.assertion?.kind ?? ''}${step.assertion?.expected !== undefined ? ` ${JSON.stringify(step.assertion.expected)}` : ''} ${what}`.trim();
  return [what, value].filter(Boolean).join(' ').slice(0, 120);
}

/**
 * Runs the steps in order and returns one result per step (sequence = index + 1). The page is
 * left where the last step put it.
 */
export async function runSteps(page: Page, steps: StepData[], ctx: StepRunContext): Promise<StepResult[]> {
  const results: StepResult[] = [];
  let failed = false;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const base = { sequence: i + 1, kind: step.kind, caption: step.caption ?? null };
    if (failed) {
      const skipped: StepResult = { ...base, status: 'skipped', started_at: null, action_ms: null, matched_locator: null, tried_locators: null, attempts: 0, error: null, screenshot_path: null };
      results.push(skipped);
      await ctx.hooks?.afterStep?.(i, step, skipped);
      continue;
    }
    await ctx.hooks?.beforeStep?.(i, step);
    const onTheWay = !!ctx.fromStep && i + 1 < ctx.fromStep;
    if (ctx.slowMoMs && !onTheWay) await sleep(ctx.slowMoMs);
    const budget = new Budget(step.timeout_ms ?? ctx.defaultTimeoutMs);
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    let outcome: Outcome | null = null;
    let error: unknown = null;
    try {
      outcome = await act(page, step, budget, ctx);
    } catch (err) {
      error = err;
    }
    const actionMs = Math.round((performance.now() - t0) * 10) / 10;
    if (ctx.slowMoMs && !onTheWay) await sleep(ctx.slowMoMs);
    const failure = error instanceof ActionFailure ? error : null;
    const matched = outcome?.matched ?? failure?.matched ?? null;
    const tried = step.target ? (matched?.tried ?? (error instanceof StepFailure ? error.tried : [])) : null;
    const policy = step.screenshot ?? DEFAULT_SCREENSHOT_POLICY;
    // on the way to `fromStep`, only a failure is worth a screenshot (the step it was meant to reach is not reached)
    const wanted = onTheWay ? !!error && policy !== 'never' : policy === 'always' || (policy === 'on_failure' && !!error);
    const shot = !ctx.noScreenshots && wanted ? await screenshot(page, ctx, i + 1, step.kind) : null;
    const result: StepResult = {
      ...base,
      status: error ? 'failed' : 'passed',
      started_at: startedAt,
      action_ms: actionMs,
      matched_locator: matched && step.target ? { candidate: matched.candidate, chain: step.target.candidates[matched.candidate], code: matched.chain } : null,
      tried_locators: tried,
      attempts: outcome?.attempts ?? failure?.attempts ?? 1,
      error: error ? masked(error instanceof StepFailure ? error.message : errorText(error), ctx.secrets) : null,
      screenshot_path: shot,
    };
    if (error) failed = true;
    results.push(result);
    await ctx.hooks?.afterStep?.(i, step, result);
  }
  return results;
}
