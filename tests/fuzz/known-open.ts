/**
 * Failures the fuzzer found in code outside this work's remit, reported with a reproducer (see
 * tests/fuzz/regressions.test.ts, the `it.fails` cases) and not fixed here. A failure matching one
 * is counted apart ("known open") instead of failing the run, so the fuzzer keeps finding others;
 * the 5xx figure still counts it. Remove an entry once its bug is fixed: its regression test
 * then passes, and `it.fails` turns red as a reminder.
 */
import type { FuzzRequest, FuzzResponse } from './harness.ts';

export interface KnownOpen {
  id: string;
  summary: string;
  matches(req: FuzzRequest, res: FuzzResponse, rule: string, message: string): boolean;
}

/** Empty: every bug the fuzzer found so far is fixed (tests/fuzz/regressions.test.ts keeps each as a plain test). */
export const KNOWN_OPEN: KnownOpen[] = [];

export function knownOpen(req: FuzzRequest, res: FuzzResponse, rule: string, message = ''): KnownOpen | undefined {
  return KNOWN_OPEN.find((k) => k.matches(req, res, rule, message));
}
