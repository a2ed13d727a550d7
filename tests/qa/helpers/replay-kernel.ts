/**
 * A kernel for QA replay tests: SQLite files and QA_E2E_TRACE_DIR in a temp folder, QA automation
 * and replays on, the built web client served (the replay starts its own in-process server), no
 * event worker. `close()` closes the kernel and removes the folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kernel } from '../../../src/kernel/kernel.ts';
import { loadSettings } from '../../../src/kernel/settings.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WEB_DIST = process.env.FW_WEB_CLIENT_DIR ? path.resolve(process.env.FW_WEB_CLIENT_DIR) : path.join(ROOT, 'web/dist');
export const QA_MODULES = 'base,auth,presentation,connectors,storage';

export interface QaKernel {
  kernel: Kernel;
  dataDir: string;
  traceDir: string;
  tenant: string;
  close(): Promise<void>;
}

export async function bootQaKernel(overrides: Record<string, string> = {}): Promise<QaKernel> {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error(`the web client is not built (${WEB_DIST}/index.html): npm run build:web`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-'));
  const traceDir = path.join(dataDir, 'traces');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    ACTIVE_MODULES: QA_MODULES,
    ENABLE_QA_AUTOMATION: 'true',
    QA_E2E_ENABLED: 'true',
    QA_E2E_TRACE_DIR: traceDir,
    WEB_CLIENT_DIR: WEB_DIST,
    BCRYPT_COST: '4',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-pass-1',
    LOG_LEVEL: 'silent',
    EVENT_WORKER: 'false',
    ...overrides,
  });
  const kernel = await Kernel.boot({ settings, worker: false, log: () => {} });
  await kernel.tenants.get(settings.DEFAULT_TENANT);
  return {
    kernel, dataDir, traceDir, tenant: settings.DEFAULT_TENANT,
    async close() {
      await kernel.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian Chromium, headless, as replays launch it (for engine tests on static pages). */
export async function launchChromium(): Promise<import('playwright-core').Browser> {
  const { chromium } = await import('playwright-core');
  const { CHROMIUM_PATH } = await import('../../../src/apps/qa/replay/run.ts');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
