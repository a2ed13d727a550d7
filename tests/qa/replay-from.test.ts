/**
 * "Replay from here" (issue 32 item 3): `fw e2e replay --usecase <key> --from <n>` shows a use
 * case from step n. The sandbox has no state to start from, so the steps before n still run (the
 * page needs what they do), as the way there: without screenshots or slow-motion pauses; from
 * step n on, a replay as usual. A step number the use case does not have is refused before any
 * browser starts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSteps } from '../../src/apps/qa/replay/engine.ts';
import { replay } from '../../src/apps/qa/replay/run.ts';
import { checkStep } from '../../src/apps/qa/steps.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { bootQaKernel, launchChromium, type QaKernel } from './helpers/replay-kernel.ts';

let browser: Browser;
let dir: string;
let q: QaKernel;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-from-'));
  browser = await launchChromium();
  q = await bootQaKernel();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await q?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('replay from a step', () => {
  it('the steps before it run without screenshots or pauses; from it on, every step keeps its screenshot', async () => {
    const page = await browser.newPage();
    await page.setContent('<input aria-label="Name"><button onclick="document.querySelector(\'p\').textContent = document.querySelector(\'input\').value">Go</button><p></p>');
    const steps = [
      { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Name' }]] }, value: { kind: 'literal', value: 'Ada' } },
      { kind: 'click', target: { candidates: [[{ by: 'role', value: 'button', name: 'Go' }]] } },
      { kind: 'assert', target: { candidates: [[{ by: 'css', value: 'p' }]] }, assertion: { kind: 'text', expected: 'Ada' } },
    ].map((s) => checkStep(s));
    const SLOWMO = 1500;
    const t0 = Date.now();
    const results = await runSteps(page, steps, {
      baseUrl: 'http://127.0.0.1:9', variables: {}, secrets: {}, fixturesDir: dir, screenshotDir: path.join(dir, 'shots'), screenshotRoot: dir,
      defaultTimeoutMs: 5000, slowMoMs: SLOWMO, fromStep: 3,
    });
    // the earlier steps did their work: the assertion on step 3 reads what they typed and clicked
    expect(results.map((r) => [r.sequence, r.status, r.screenshot_path])).toEqual([
      [1, 'passed', null], [2, 'passed', null], [3, 'passed', 'shots/003-assert.png'],
    ]);
    // only step 3 was slowed down (2 pauses), not the way there (4 more)
    expect(Date.now() - t0).toBeLessThan(4 * SLOWMO);
    await page.close();
  }, 60_000);

  it('a step the use case does not have, or no use case named, is refused before a browser starts (QA_FROM_STEP_INVALID)', async () => {
    await q.kernel.dispatch('qa.usecase.import', { usecase_key: 'org.from', module: 'base', start_path: '/default', steps: [{ kind: 'chapter', caption: 'One' }, { kind: 'chapter', caption: 'Two' }] }, systemPrincipal(q.tenant));
    for (const [usecase, fromStep, message] of [
      ['org.from', 3, '--from 3: use case org.from has steps 1 to 2'],
      ['org.from', 0, '--from 0: use case org.from has steps 1 to 2'],
      [null, 1, 'replaying from a step needs the use case (--usecase <key>)'],
    ] as const) {
      await expect(replay(q.kernel, { tenant: q.tenant, usecase, fromStep, log: () => {} })).rejects.toMatchObject({ code: 'QA_FROM_STEP_INVALID', message });
    }
    expect((await q.kernel.dispatch<{ items: unknown[] }>('fw.search', { model: 'qa.run' }, systemPrincipal(q.tenant))).items).toEqual([]);
  }, 60_000);
});
