import type { Locator, Page } from 'playwright-core';
import type { LocatorChain, LocatorSegment, StepTarget } from '../steps.js';

/**
 * Locator chains (src/apps/qa/steps.ts) → Playwright locators, and the search through a target's
 * ordered candidates.
 *
 * Policy of `resolveTarget` (budget = the step's timeout):
 * - Candidates are tried strictly in their recorded order, the most intentful first (test id,
 *   role + name, label …, CSS last). A candidate matches when it resolves to exactly ONE visible
 *   element; 0 elements is `no match`, only invisible ones `hidden`, several visible ones
 *   `<n> matches` (ambiguous: acting on one of them would be a guess).
 * - The first candidate may wait up to half the budget (FIRST_SHARE): the page is usually still
 *   rendering (a lazy chunk, a GraphQL round trip) and the first candidate is the one that should
 *   match. Once it has given up, the page has had time to settle, so each fallback waits for an
 *   equal share of what is left (at least MIN_FALLBACK_MS): a fallback that matches is found
 *   quickly, and a target where nothing matches fails within about the step's timeout.
 * - While a candidate waits, it is re-checked every POLL_MS; the reason recorded for a candidate
 *   that did not match is the last one observed when its share ran out.
 */
export const FIRST_SHARE = 0.5;
export const MIN_FALLBACK_MS = 300;
const POLL_MS = [0, 50, 100, 250, 500];

export type TriedReason = 'no match' | 'hidden' | '1 match' | `${number} matches`;
/** `1 match`, `3 matches`. */
export const matches = (n: number): TriedReason => (n === 1 ? '1 match' : `${n} matches`);
export interface TriedLocator { candidate: number; chain: string; reason: TriedReason; count: number }
export interface ResolvedTarget {
  locator: Locator;
  /** Index of the candidate that matched. */
  candidate: number;
  /** The matched chain, written as Playwright code (for messages and `matched_locator`). */
  chain: string;
  /** Candidates tried before it, in order, with why each did not match. */
  tried: TriedLocator[];
}

/** A step that could not be done; `tried` lists the locators tried and why each did not match. */
export class StepFailure extends Error {
  readonly tried: TriedLocator[];
  constructor(message: string, tried: TriedLocator[] = []) {
    super(message);
    this.name = 'StepFailure';
    this.tried = tried;
  }
}

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function segmentCode(s: LocatorSegment): string {
  const exact = s.exact !== undefined ? `, { exact: ${s.exact} }` : '';
  switch (s.by) {
    case 'testid': return `getByTestId(${q(s.value)})`;
    case 'role': {
      const opts = [s.name !== undefined ? `name: ${q(s.name)}` : null, s.exact !== undefined ? `exact: ${s.exact}` : null].filter(Boolean);
      return `getByRole(${q(s.value)}${opts.length ? `, { ${opts.join(', ')} }` : ''})`;
    }
    case 'label': return `getByLabel(${q(s.value)}${exact})`;
    case 'placeholder': return `getByPlaceholder(${q(s.value)}${exact})`;
    case 'text': return `getByText(${q(s.value)}${exact})`;
    case 'title': return `getByTitle(${q(s.value)}${exact})`;
    case 'alt': return `getByAltText(${q(s.value)}${exact})`;
    case 'css': return `locator(${q(s.value)})`;
    case 'nth': return `nth(${Number(s.value)})`;
  }
}

/** A chain written as the Playwright code it stands for: `getByRole('row', { name: 'Acme' }).getByTestId('edit')`. */
export function chainToString(chain: LocatorChain): string {
  return chain.map(segmentCode).join('.');
}

type Root = Page | Locator;

/** The Playwright locator of a chain: each segment narrows the previous one (`nth` picks among its matches). */
export function toLocator(page: Page, chain: LocatorChain): Locator {
  if (!chain.length) throw new StepFailure('an empty locator chain');
  let at: Root = page;
  let current: Locator | null = null;
  for (const s of chain) {
    const opts = s.exact !== undefined ? { exact: s.exact } : undefined;
    switch (s.by) {
      case 'testid': current = at.getByTestId(s.value); break;
      case 'role': current = at.getByRole(s.value as Parameters<Page['getByRole']>[0], { ...(s.name !== undefined ? { name: s.name } : {}), ...opts }); break;
      case 'label': current = at.getByLabel(s.value, opts); break;
      case 'placeholder': current = at.getByPlaceholder(s.value, opts); break;
      case 'text': current = at.getByText(s.value, opts); break;
      case 'title': current = at.getByTitle(s.value, opts); break;
      case 'alt': current = at.getByAltText(s.value, opts); break;
      case 'css': current = at.locator(s.value); break;
      case 'nth':
        if (!current) throw new StepFailure(`${chainToString(chain)}: nth needs a locator before it`);
        current = current.nth(Number(s.value));
        break;
    }
    at = current!;
  }
  return current!;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One look at a candidate: the visible match, or why there is none. */
async function probe(locator: Locator): Promise<{ ok: Locator } | { reason: TriedReason; count: number }> {
  const total = await locator.count();
  if (!total) return { reason: 'no match', count: 0 };
  const visible = locator.filter({ visible: true });
  const shown = await visible.count();
  if (shown === 1) return { ok: visible };
  if (!shown) return { reason: 'hidden', count: total };
  return { reason: matches(shown), count: shown };
}

/** Waits up to `ms` for the candidate to match exactly one visible element. */
async function waitFor(locator: Locator, ms: number): Promise<{ ok: Locator } | { reason: TriedReason; count: number }> {
  const deadline = Date.now() + ms;
  let i = 0;
  for (;;) {
    let r: Awaited<ReturnType<typeof probe>>;
    try {
      r = await probe(locator);
    } catch (err) {
      // a navigation replaced the document while we looked: look again
      if (!/context was destroyed|navigat/i.test(String((err as Error).message))) throw err;
      r = { reason: 'no match', count: 0 };
    }
    if ('ok' in r || Date.now() >= deadline) return r;
    await sleep(Math.min(POLL_MS[Math.min(++i, POLL_MS.length - 1)], Math.max(0, deadline - Date.now())));
  }
}

export function describeTried(tried: TriedLocator[]): string {
  return tried.map((t) => `#${t.candidate + 1} ${t.chain}: ${t.reason}`).join('; ');
}

/**
 * The first candidate (in order) that resolves to exactly one visible element, within about
 * `timeoutMs` (see the policy above). Throws a StepFailure carrying every candidate tried; its
 * message names `stepMs`, the step's whole budget, since what is left of it when the search starts
 * (`timeoutMs`) is a figure no author wrote.
 */
export async function resolveTarget(page: Page, target: StepTarget, timeoutMs: number, stepMs = timeoutMs): Promise<ResolvedTarget> {
  const candidates = target.candidates ?? [];
  if (!candidates.length) throw new StepFailure('the step has no locator candidates');
  const start = Date.now();
  const tried: TriedLocator[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const chain = candidates[i];
    const code = chainToString(chain);
    const left = Math.max(0, timeoutMs - (Date.now() - start));
    const share = candidates.length === 1 ? left
      : i === 0 ? Math.round(timeoutMs * FIRST_SHARE)
        : Math.max(MIN_FALLBACK_MS, Math.round(left / (candidates.length - i)));
    const r = await waitFor(toLocator(page, chain), share);
    if ('ok' in r) return { locator: r.ok, candidate: i, chain: code, tried };
    tried.push({ candidate: i, chain: code, reason: r.reason, count: r.count });
  }
  throw new StepFailure(`no locator matched exactly one visible element within ${stepMs} ms — tried ${describeTried(tried)}`, tried);
}
