import type { Command } from 'commander';
import { existingTenant, settings, tenantOption, withKernel } from './common.js';

export function registerEvents(program: Command): void {
  const events = program.command('events').description('the event outbox').helpCommand(false);
  events.command('drain')
    .description("deliver the tenant's due events now")
    .addOption(tenantOption())
    .action(async (opts: { tenant?: string }) => {
      const s = await settings();
      await withKernel(async (kernel) => {
        console.log(`delivered ${await kernel.worker.drain(await existingTenant(kernel, opts.tenant ?? s.DEFAULT_TENANT))} event(s)`);
      }, s);
    });
}
