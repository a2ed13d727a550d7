import { Option, type Command } from 'commander';
import type { Kernel } from '../kernel/kernel.js';
import type { Settings } from '../kernel/settings.js';
import { mark } from './timing.js';

/**
 * Shared by the command modules. Nothing here imports the kernel at load time: `fw --help` and a
 * usage error load commander and these modules only; an action imports what it needs when it runs.
 */

export const tenantOption = (): Option => new Option('-t, --tenant <tenant>', 'tenant key (default: DEFAULT_TENANT)');

/** Commands that keep the process alive after their action returns (a server, an MCP session). */
export const keepsRunning = new WeakSet<Command>();

/** Progress of a long command: on stderr, so stdout keeps only the results a script may read. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export async function settings(): Promise<Settings> {
  const { loadSettings } = await import('../kernel/settings.js');
  const s = loadSettings();
  mark('settings');
  return s;
}

/** Boots the kernel without the event worker, runs `fn`, and always closes it. */
export async function withKernel<T>(fn: (kernel: Kernel) => Promise<T>, s?: Settings): Promise<T> {
  const { Kernel } = await import('../kernel/kernel.js');
  mark('import kernel');
  const kernel = await Kernel.boot({ settings: s ?? (await settings()), worker: false });
  mark('boot kernel (load apps)');
  try {
    return await fn(kernel);
  } finally {
    await kernel.close();
    mark('close');
  }
}

/**
 * Only `fw tenant create` (and `fw serve`, for the default tenant) provisions tenants: every
 * other command refuses a tenant that does not exist instead of creating an empty, unseeded one.
 */
export async function existingTenant(kernel: Kernel | { tenants: { assertExists(tenant: string): Promise<void> } }, tenant: string): Promise<string> {
  const { FwError } = await import('../kernel/errors.js');
  try {
    await kernel.tenants.assertExists(tenant);
  } catch (err) {
    if (err instanceof FwError && err.code === 'UNKNOWN_TENANT') {
      throw new FwError(err.code, err.status, `tenant "${tenant}" does not exist (create it with: fw tenant create ${tenant})`);
    }
    throw err;
  }
  return tenant;
}
