/**
 * `action_ms` is the time of the action alone: the slow-motion pauses of a polished run, the
 * progress/narration hooks and the screenshots around a step are not counted in it. A step
 * without a policy keeps its screenshot (`always` by default); a polished run, which films the
 * steps, takes none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSteps } from '../../src/apps/qa/replay/engine.ts';
import { checkStep } from '../../src/apps/qa/steps.ts';
import { launchChromium } from './helpers/replay-kernel.ts';

let browser: Browser;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-timing-'));
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('replay timings', () => {
  it('action_ms leaves out slow-motion pauses, hooks and screenshots', async () => {
    const page = await browser.newPage();
    await page.setContent('<input aria-label="Name">');
    // pauses far longer than a click on a static page takes, even on a busy machine
    const SLOWMO = 2000;
    const HOOK = 1000;
    const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const steps = [
      { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Name' }]] }, value: { kind: 'literal', value: 'Ada' }, screenshot: 'always' },
    ].map((s) => checkStep(s));
    const ctx = { baseUrl: 'http://127.0.0.1:9', variables: {}, secrets: {}, fixturesDir: dir, screenshotDir: path.join(dir, 'shots'), defaultTimeoutMs: 5000 };
    await runSteps(page, steps, ctx); // warm: the first action of a fresh page is slower
    const t0 = Date.now();
    const results = await runSteps(page, steps, { ...ctx, slowMoMs: SLOWMO, hooks: { beforeStep: () => pause(HOOK), afterStep: () => pause(HOOK) } });
    const wall = Date.now() - t0;
    expect(results.map((r) => r.status)).toEqual(['passed']);
    expect(results[0]!.screenshot_path).toBeTruthy();
    // the step spent 2 × SLOWMO + 2 × HOOK around its action (plus a screenshot)
    expect(wall).toBeGreaterThanOrEqual(2 * SLOWMO + 2 * HOOK);
    for (const r of results) {
      expect(r.action_ms).toBeGreaterThan(0);
      expect(r.action_ms, 'the pauses around the step are not in action_ms').toBeLessThan(SLOWMO);
    }
    await page.close();
  }, 60_000);

  it('a step without a screenshot policy keeps one (a screenshot per step); `noScreenshots` (polish) takes none', async () => {
    const page = await browser.newPage();
    await page.setContent('<button>Go</button>');
    const steps = [{ kind: 'click', target: { candidates: [[{ by: 'role', value: 'button', name: 'Go' }]] } }].map((s) => checkStep(s));
    expect(steps[0]!.screenshot).toBe('always');
    const ctx = { baseUrl: 'http://127.0.0.1:9', variables: {}, secrets: {}, fixturesDir: dir, screenshotRoot: dir, defaultTimeoutMs: 5000 };
    const kept = await runSteps(page, steps, { ...ctx, screenshotDir: path.join(dir, 'kept') });
    expect(kept[0]).toMatchObject({ status: 'passed', screenshot_path: 'kept/001-click.png' });
    expect(fs.readFileSync(path.join(dir, 'kept/001-click.png')).subarray(1, 4).toString()).toBe('PNG');
    const filmed = await runSteps(page, steps, { ...ctx, screenshotDir: path.join(dir, 'filmed'), noScreenshots: true });
    expect(filmed[0]).toMatchObject({ status: 'passed', screenshot_path: null });
    expect(fs.existsSync(path.join(dir, 'filmed'))).toBe(false);
    await page.close();
  }, 60_000);
});
