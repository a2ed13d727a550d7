/**
 * `fw e2e gate --module <key> --freshness-hours <n>`: exit 0 only if the latest run of every use
 * case of the module passed within the window; 1 naming the failing, stale or never-run use case
 * (a failure is a failure however old); 2 only when no use case of the module has any run at all
 * (results that are all older than the window are stale: exit 1); 64 for a usage error (unknown
 * option, module or tenant, invalid window), which is no verdict. Results are written as the
 * replay writes them (system principal).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

const env = (dataDir: string) => ({
  DATA_DIR: dataDir, ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true',
  ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'silent',
});
let dataDir: string;
let kernel: Kernel;
const sys = systemPrincipal('default');

async function usecase(key: string, module = 'base') {
  return kernel.dispatch<{ id: string }>('qa.usecase.import', { usecase_key: key, module, steps: [{ kind: 'navigate', value: { kind: 'literal', value: '/' } }] }, sys);
}
async function result(key: string, status: 'passed' | 'failed', hoursAgo: number, module = key.startsWith('other.') ? 'storage' : 'base') {
  const finished = new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
  const run = await kernel.dispatch<{ id: string }>('fw.create', { model: 'qa.run', values: { sandbox_tenant: 'qa-sandbox', status, finished_at: finished } }, sys);
  await kernel.dispatch('fw.create', { model: 'qa.run.result', values: { run_id: run.id, usecase_key: key, module, status, finished_at: finished, failed_step: status === 'failed' ? 3 : null, error: status === 'failed' ? 'step 3: no element matched' : null } }, sys);
}
function gate(module: string, hours: number | string) {
  return gateArgs('--module', module, '--freshness-hours', String(hours));
}
function gateArgs(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'e2e', 'gate', ...args], {
    env: { ...process.env, ...env(dataDir), DATABASE_URL: '' }, encoding: 'utf8', timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-gate-'));
  kernel = await Kernel.boot({ settings: loadSettings(env(dataDir)), worker: false, log: () => {} });
  await kernel.tenants.get('default');
  await usecase('gate.a');
  await usecase('gate.b');
  await usecase('other.c', 'storage');
});
afterAll(async () => {
  await kernel?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('fw e2e gate', () => {
  it('exits 2 when no use case of the module has any run', async () => {
    const r = gate('base', 24);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/never_run\s+gate\.a — no run yet/);
    expect(r.out).toContain('gate failed: no run of base (never run: gate.a, gate.b)');
    // an active app without use cases: nothing ran, no usage error
    const none = gate('auth', 24);
    expect(none.code, none.out).toBe(2);
    expect(none.out).toContain('gate failed: no run of auth (the module has no use case)');
  });

  it('exits 0 when the latest run of every use case passed within the window', async () => {
    await result('gate.a', 'failed', 5);
    await result('gate.a', 'passed', 1);
    await result('gate.b', 'passed', 2);
    const r = gate('base', 24);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('gate passed: 2 use case(s) of base passed within 24 h');
  });

  it('exits 1 naming a stale use case when the window is shorter than its last run', async () => {
    const r = gate('base', 1.5);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('gate.b (stale)');
  });

  it('exits 1, not 2, when runs exist but every one is older than the window, naming each stale use case', async () => {
    // gate.a last ran 1 h ago, gate.b 2 h ago: a 0.5 h window finds nothing fresh, yet both ran
    const r = gate('base', 0.5);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/stale\s+gate\.a — last run .+ is older than 0\.5 h/);
    expect(r.out).toMatch(/stale\s+gate\.b — last run .+ is older than 0\.5 h/);
    expect(r.out).toContain('gate failed: gate.a (stale), gate.b (stale)');
  });

  it('exits 1 when one use case is stale and the other never ran (a run exists for the module)', async () => {
    await usecase('other.d', 'storage');
    await result('other.d', 'passed', 30);
    const r = gate('storage', 24);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('gate failed: other.c (never_run), other.d (stale)');
  });

  it('exits 1 naming the failing use case when its latest run failed', async () => {
    await result('gate.b', 'failed', 0.1);
    const r = gate('base', 24);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/failed\s+gate\.b — step 3: no element matched/);
    expect(r.out).toContain('gate failed: gate.b (failed)');
  });

  it('a latest run that failed is reported as failed however old it is (exit 1), its age added to the reason, never as merely stale', async () => {
    await usecase('pres.e', 'presentation');
    await result('pres.e', 'failed', 30, 'presentation');
    const r = gate('presentation', 24);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/failed\s+pres\.e — step 3: no element matched; last run .+ is older than 24 h/);
    expect(r.out).toContain('gate failed: pres.e (failed)');
    const v = await kernel.dispatch<{ usecases: Array<Record<string, unknown>> }>('qa.gate', { module: 'presentation', freshness_hours: 24 }, sys);
    expect(v.usecases[0]).toMatchObject({ key: 'pres.e', status: 'failed', stale: true });
  });

  it('a misspelt --module is a usage error (exit 64, naming the active apps), not "never ran"', () => {
    const r = gate('bse', 24);
    expect(r.code, r.out).toBe(64);
    expect(r.out).toContain('fw e2e gate: module "bse" is neither an active app nor the module of any use case (active apps: ');
    expect(r.out).toContain('usage: fw e2e gate --module <app>');
    expect(r.out).not.toContain('gate failed');
  });

  it('an invalid --freshness-hours (0, negative, not a number, empty) is a usage error (exit 64), not a failed gate', () => {
    for (const hours of ['0', 'soon', '', 'Infinity']) {
      const r = gate('base', hours);
      expect(r.code, `${hours}: ${r.out}`).toBe(64);
      expect(r.out).toContain('--freshness-hours must be a number of hours more than 0');
    }
    // "-3" reads as an option to the argument parser: refused there, with the same exit code
    const negative = gate('base', '-3');
    expect(negative.code, negative.out).toBe(64);
    expect(negative.out).toMatch(/fw e2e gate: .*--freshness-hours/);
  }, 120_000); // several fw processes in a row: a loaded CI machine takes 6 s or more each

  it('a missing --module, an unknown option, a stray argument and an unknown tenant are usage errors (exit 64)', () => {
    const missing = gateArgs('--freshness-hours', '24');
    expect(missing.code, missing.out).toBe(64);
    expect(missing.out).toContain('fw e2e gate: --module <app> is required');
    const unknown = gateArgs('--modul', 'base');
    expect(unknown.code, unknown.out).toBe(64);
    expect(unknown.out).toMatch(/fw e2e gate: Unknown option '--modul'/);
    const stray = gateArgs('--module', 'base', 'extra');
    expect(stray.code, stray.out).toBe(64);
    expect(stray.out).toContain('unexpected argument "extra"');
    const tenant = gateArgs('--module', 'base', '-t', 'nope');
    expect(tenant.code, tenant.out).toBe(64);
    expect(tenant.out).toContain('unknown tenant "nope"');
  }, 120_000); // several fw processes in a row: a loaded CI machine takes 6 s or more each

  it('qa.gate itself refuses an unknown module (422 VALIDATION_FAILED, field code UNKNOWN_MODULE) and a non-finite window', async () => {
    await expect(kernel.dispatch('qa.gate', { module: 'bse' }, sys)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 422, details: { errors: [{ field: 'module', code: 'UNKNOWN_MODULE' }] } });
    await expect(kernel.dispatch('qa.gate', { module: 'base', freshness_hours: Infinity }, sys)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('is off without ENABLE_QA_AUTOMATION (exit 1, QA_DISABLED: a configuration problem, not a usage error)', () => {
    const off = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'e2e', 'gate', '--module', 'base'], {
      env: { ...process.env, ...env(dataDir), ENABLE_QA_AUTOMATION: 'false', DATABASE_URL: '' }, encoding: 'utf8', timeout: 60_000,
    });
    expect(off.status).toBe(1);
    expect(off.stderr).toContain('QA_DISABLED');
  });
});
