import { ValidationError } from '../../kernel/errors.js';

/**
 * A step is data, never code to evaluate. This module is the one contract between the recorder
 * (web client), `fw e2e import`, the stored rows and the replay engine.
 */
export const STEP_KINDS = ['navigate', 'click', 'fill', 'press', 'select', 'check', 'uncheck', 'upload', 'hover', 'assert', 'wait', 'chapter'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/**
 * One link of a locator chain, in the order of intent a person would use: a test id, a role with
 * its accessible name, a label, a placeholder, a text; CSS last. `nth` picks among matches.
 */
export const LOCATOR_BY = ['testid', 'role', 'label', 'placeholder', 'text', 'title', 'alt', 'css', 'nth'] as const;
export interface LocatorSegment {
  by: (typeof LOCATOR_BY)[number];
  /** test id, role, label text, placeholder, text, CSS selector, or the index for `nth` */
  value: string;
  /** accessible name for `role` */
  name?: string;
  exact?: boolean;
}
/** A chain narrows step by step: `[{by:'role',value:'row',name:'Acme'}, {by:'role',value:'button',name:'Edit'}]`. */
export type LocatorChain = LocatorSegment[];

export interface StepTarget {
  /** Tried in order until one matches exactly one element: the most intentful first, CSS last. */
  candidates: LocatorChain[];
  /**
   * The field hides what is typed (a password input, a one-time code): a literal filled into it
   * is stored as a secret whatever its locators say (recordings.ts `maskSecrets`). The recorder
   * sets it; an edit keeps it.
   */
  secret?: boolean;
}

/** `literal` text, a `{{variable}}` filled at replay, or a `secret` named here and never stored. */
export interface StepValue { kind: 'literal' | 'variable' | 'secret'; value: string }

export const ASSERTION_KINDS = ['visible', 'hidden', 'text', 'contains_text', 'value', 'url', 'count', 'checked', 'enabled', 'disabled'] as const;
export interface StepAssertion { kind: (typeof ASSERTION_KINDS)[number]; expected?: string | number }

export const SCREENSHOT_POLICIES = ['always', 'on_failure', 'never'] as const;
/**
 * A replay keeps a screenshot of every step unless the step says otherwise (`on_failure` keeps
 * only the failing step's, `never` none): the report shows each step as it looked.
 */
export const DEFAULT_SCREENSHOT_POLICY: (typeof SCREENSHOT_POLICIES)[number] = 'always';

export interface StepData {
  kind: StepKind;
  target?: StepTarget | null;
  /** fill / select / press (the key) / upload (a fixture file name) / navigate (a path) / wait (ms) */
  value?: StepValue | null;
  assertion?: StepAssertion | null;
  timeout_ms?: number | null;
  screenshot?: (typeof SCREENSHOT_POLICIES)[number];
  /** One sentence narrating the step (captions and speech in polished videos). */
  caption?: string | null;
  /** Page URL when the step was recorded (informational). */
  url?: string | null;
}

const NEEDS_TARGET: ReadonlySet<StepKind> = new Set(['click', 'fill', 'select', 'check', 'uncheck', 'upload', 'hover']);
const NEEDS_VALUE: ReadonlySet<StepKind> = new Set(['navigate', 'fill', 'press', 'select', 'upload']);
const VARIABLE = /^[a-z_][a-z0-9_]{0,63}$/i;
const MAX_TIMEOUT_MS = 120_000;

type Issue = { field: string; code: string; message: string };
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkChain(chain: unknown, at: string, issues: Issue[]): void {
  if (!Array.isArray(chain) || !chain.length || chain.length > 8) {
    issues.push({ field: at, code: 'INVALID_LOCATOR', message: `${at} must be a chain of 1 to 8 locator segments` });
    return;
  }
  chain.forEach((seg, i) => {
    const f = `${at}[${i}]`;
    if (!isObj(seg) || !(LOCATOR_BY as readonly string[]).includes(String(seg.by))) {
      issues.push({ field: f, code: 'INVALID_LOCATOR', message: `${f}.by must be one of ${LOCATOR_BY.join(', ')}` });
      return;
    }
    if (typeof seg.value !== 'string' || !seg.value || seg.value.length > 500) issues.push({ field: f, code: 'INVALID_LOCATOR', message: `${f}.value must be 1 to 500 characters` });
    if (seg.by === 'nth' && !/^-?\d{1,4}$/.test(String(seg.value))) issues.push({ field: f, code: 'INVALID_LOCATOR', message: `${f}: nth takes an index` });
    if (seg.name !== undefined && (typeof seg.name !== 'string' || seg.name.length > 500)) issues.push({ field: f, code: 'INVALID_LOCATOR', message: `${f}.name must be text` });
    if (seg.exact !== undefined && typeof seg.exact !== 'boolean') issues.push({ field: f, code: 'INVALID_LOCATOR', message: `${f}.exact must be a boolean` });
    const extra = Object.keys(seg).filter((k) => !['by', 'value', 'name', 'exact'].includes(k));
    if (extra.length) issues.push({ field: f, code: 'UNKNOWN_FIELD', message: `${f} has unknown keys: ${extra.join(', ')}` });
  });
}

const DOCUMENT = /^\s*(html|body|:root)(\s*>\s*body)?\s*$/i;
/** A chain that only names the page itself (`body`, `html`, `:root`), optionally with an `nth`. */
const namesDocument = (chain: LocatorChain) => chain.every((s) => s.by === 'nth' || (s.by === 'css' && DOCUMENT.test(s.value))) && chain.some((s) => s.by === 'css');

/**
 * A recorded step must point at something a person acted on. A click whose every candidate is
 * the page itself (`body`, `html`) was not tied to an element (it landed on an overlay, or the
 * recorder missed its target): replayed, it would "pass" anywhere and the failure would show up
 * on a later step. The recorder refuses it (422 QA_LOCATOR_TOO_BROAD), and the recorder bar
 * says so.
 */
export function refuseDocumentTarget(step: StepData): void {
  const candidates = step.target?.candidates ?? [];
  if (!candidates.length || !candidates.every(namesDocument)) return;
  throw new ValidationError(`this ${step.kind} step points at the whole page (${candidates.map((c) => c.map((x) => x.value).join(' ')).join(', ')}), not at an element: it was not recorded`, {
    errors: [{ field: 'target', code: 'QA_LOCATOR_TOO_BROAD', message: 'click the control itself; a step on body or html would pass anywhere' }],
  }, 'QA_LOCATOR_TOO_BROAD');
}

/**
 * Checks a step and returns it normalised (default screenshot policy), or throws a
 * ValidationError naming each problem (422 VALIDATION_FAILED with `details.errors`).
 */
export function checkStep(input: Record<string, unknown>): StepData {
  const issues: Issue[] = [];
  const kind = input.kind as StepKind;
  if (!(STEP_KINDS as readonly string[]).includes(String(kind))) issues.push({ field: 'kind', code: 'INVALID_VALUE', message: `kind must be one of ${STEP_KINDS.join(', ')}` });
  const target = input.target;
  if (target !== undefined && target !== null) {
    if (!isObj(target) || !Array.isArray(target.candidates) || !target.candidates.length || target.candidates.length > 6) {
      issues.push({ field: 'target', code: 'INVALID_LOCATOR', message: 'target must be { candidates: [chain, …] } with 1 to 6 chains' });
    } else {
      target.candidates.forEach((c, i) => checkChain(c, `target.candidates[${i}]`, issues));
      if (target.secret !== undefined && typeof target.secret !== 'boolean') issues.push({ field: 'target', code: 'INVALID_LOCATOR', message: 'target.secret is true or false' });
    }
  } else if (NEEDS_TARGET.has(kind) || (kind === 'assert' && isObj(input.assertion) && input.assertion.kind !== 'url')) {
    issues.push({ field: 'target', code: 'REQUIRED', message: `a ${kind} step needs a target` });
  }
  const value = input.value;
  if (value !== undefined && value !== null) {
    if (!isObj(value) || !['literal', 'variable', 'secret'].includes(String(value.kind)) || typeof value.value !== 'string' || value.value.length > 10_000) {
      issues.push({ field: 'value', code: 'INVALID_VALUE', message: 'value must be { kind: literal | variable | secret, value: text }' });
    } else if (value.kind !== 'literal' && !VARIABLE.test(value.value)) {
      issues.push({ field: 'value', code: 'INVALID_VALUE', message: `a ${value.kind} names a variable: letters, digits and _` });
    }
  } else if (NEEDS_VALUE.has(kind)) {
    issues.push({ field: 'value', code: 'REQUIRED', message: `a ${kind} step needs a value` });
  }
  const assertion = input.assertion;
  if (kind === 'assert') {
    if (!isObj(assertion) || !(ASSERTION_KINDS as readonly string[]).includes(String(assertion.kind))) {
      issues.push({ field: 'assertion', code: 'REQUIRED', message: `an assert step needs an assertion of kind ${ASSERTION_KINDS.join(', ')}` });
    } else if (['text', 'contains_text', 'value', 'url', 'count'].includes(String(assertion.kind)) && assertion.expected === undefined) {
      issues.push({ field: 'assertion', code: 'REQUIRED', message: `a ${String(assertion.kind)} assertion needs "expected"` });
    } else if (assertion.kind === 'count' && !Number.isInteger(assertion.expected)) {
      issues.push({ field: 'assertion', code: 'INVALID_VALUE', message: 'a count assertion expects an integer' });
    }
  } else if (assertion !== undefined && assertion !== null) {
    issues.push({ field: 'assertion', code: 'INVALID_VALUE', message: 'only assert steps carry an assertion' });
  }
  const timeout = input.timeout_ms;
  if (timeout !== undefined && timeout !== null && (!Number.isInteger(timeout) || (timeout as number) < 0 || (timeout as number) > MAX_TIMEOUT_MS)) {
    issues.push({ field: 'timeout_ms', code: 'INVALID_VALUE', message: `timeout_ms is an integer from 0 to ${MAX_TIMEOUT_MS}` });
  }
  const screenshot = input.screenshot ?? DEFAULT_SCREENSHOT_POLICY;
  if (!(SCREENSHOT_POLICIES as readonly string[]).includes(String(screenshot))) issues.push({ field: 'screenshot', code: 'INVALID_VALUE', message: `screenshot is ${SCREENSHOT_POLICIES.join(', ')}` });
  if (input.caption !== undefined && input.caption !== null && (typeof input.caption !== 'string' || input.caption.length > 500)) {
    issues.push({ field: 'caption', code: 'INVALID_VALUE', message: 'caption is text of at most 500 characters' });
  }
  if (issues.length) throw new ValidationError(`invalid step: ${issues.map((i) => i.message).join('; ')}`, { errors: issues });
  return {
    kind,
    target: (target as StepTarget | undefined) ?? null,
    value: (value as StepValue | undefined) ?? null,
    assertion: (assertion as StepAssertion | undefined) ?? null,
    timeout_ms: (timeout as number | undefined) ?? null,
    screenshot: screenshot as StepData['screenshot'],
    caption: (input.caption as string | undefined) ?? null,
    url: typeof input.url === 'string' ? input.url.slice(0, 1000) : null,
  };
}

/** The columns a step is stored in (recording steps and use-case steps share them). */
export const stepColumns = (s: StepData) => ({
  kind: s.kind, target: s.target ?? undefined, value: s.value ?? undefined, assertion: s.assertion ?? undefined,
  timeout_ms: s.timeout_ms ?? null, screenshot: s.screenshot ?? DEFAULT_SCREENSHOT_POLICY, caption: s.caption ?? null, url: s.url ?? null,
});

/** A stored row back to step data. */
export function stepOf(row: Record<string, unknown>): StepData {
  return {
    kind: row.kind as StepKind, target: (row.target as StepTarget | null) ?? null, value: (row.value as StepValue | null) ?? null,
    assertion: (row.assertion as StepAssertion | null) ?? null, timeout_ms: (row.timeout_ms as number | null) ?? null,
    screenshot: (row.screenshot as StepData['screenshot']) ?? DEFAULT_SCREENSHOT_POLICY, caption: (row.caption as string | null) ?? null, url: (row.url as string | null) ?? null,
  };
}
