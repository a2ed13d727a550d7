/**
 * The fixture of events-lease-setting.test.ts: an app with one event handler, and (run as a
 * script, `node --import tsx tests/durability/lease-worker.ts`) a worker process that dies in the
 * middle of a delivery, the way a server does on kill -9 or a power cut.
 *
 * The script boots a kernel with its event worker from its environment (like `fw serve`, so
 * EVENT_LEASE_SECONDS is read as an operator sets it), emits `dur_lease.ping` for the tag
 * FW_LEASE_TAG in tenant FW_LEASE_TENANT, and when its own worker starts delivering it writes the
 * time to FW_LEASE_MARKER and kills itself with SIGKILL: the claimed row stays `processing` under
 * the lease this process gave it, and no code of this process runs after the claim.
 *
 * No vitest import: this file runs outside the test runner.
 */
import fs from 'node:fs';
import type { AppManifest, CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { systemPrincipal, type Env, type FwEvent } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import type { LoadedApp } from '../../src/kernel/registry/registry.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

export const LEASE_EVENT = 'dur_lease.ping';
export const LEASE_HANDLER = 'dur_lease.collect';

/** The fixture app; `deliver` is what the handler does in this process. */
export function leaseApp(deliver: (env: Env, e: FwEvent) => Promise<void>): LoadedApp {
  const manifest: AppManifest = {
    name: 'dur_lease', summary: 'test fixture', description: 'lease takeover fixture', author: 'tests', category: 'Test',
    version: '1.0.0', depends: [], data: [],
  };
  const emit: CommandDecl = {
    name: 'dur_lease.emit',
    description: 'Emits one dur_lease.ping per tag',
    async handler(env, p) {
      for (const tag of p.tags as string[]) env.emit(LEASE_EVENT, { tag });
      return {};
    },
  };
  const handler: EventHandlerDecl = { id: LEASE_HANDLER, event: LEASE_EVENT, handler: deliver };
  return { name: 'dur_lease', domain: null, manifest, module: { manifest, commands: [emit], events: [LEASE_EVENT], eventHandlers: [handler] }, models: [], dataFiles: [] };
}

async function main(): Promise<void> {
  const tenant = process.env.FW_LEASE_TENANT!;
  const tag = process.env.FW_LEASE_TAG!;
  const marker = process.env.FW_LEASE_MARKER!;
  const app = leaseApp(async (_env, e) => {
    if (e.payload.tag !== tag) throw new Error(`this process only delivers ${tag}`);
    fs.writeFileSync(marker, JSON.stringify({ tag, at: Date.now() }));
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => {}); // SIGKILL is not deferred, but never return as if delivered
  });
  const kernel = await Kernel.boot({ settings: loadSettings(process.env), worker: true, apps: [app], log: () => {} });
  await kernel.tenants.get(tenant);
  await kernel.dispatch('dur_lease.emit', { tags: [tag] }, systemPrincipal(tenant));
  // the commit kicked the worker: it claims the row and the handler ends this process
  setTimeout(() => {
    console.error(`the worker did not deliver ${tag} within 30 s`);
    process.exit(2);
  }, 30_000);
}

if (process.argv[1]?.endsWith('lease-worker.ts')) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
