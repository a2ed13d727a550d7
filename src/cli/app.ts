import type { Command } from 'commander';
import { existingTenant, settings, tenantOption, withKernel } from './common.js';

export function registerApp(program: Command): void {
  const app = program.command('app').description('apps installed in a tenant').helpCommand(false);

  app.command('uninstall')
    .description('drop an inactive app\'s tables and data from a tenant (refused while another installed app depends on it)')
    .argument('<app>', 'the app to remove')
    .addOption(tenantOption())
    .option('--yes', 'really drop its tables and data (without it: only say what would go)')
    .action(async (name: string, opts: { tenant?: string; yes?: boolean }) => {
      const s = await settings();
      await withKernel(async (kernel) => {
        const tenant = await existingTenant(kernel, opts.tenant ?? s.DEFAULT_TENANT);
        const { planUninstall, uninstallApp } = await import('../kernel/modules/uninstall.js');
        const done = opts.yes ? await uninstallApp(kernel, tenant, name) : null;
        const plan = done ?? await planUninstall(kernel, tenant, name);
        const cleared = `${plan.cleared.length ? `; every value of ${plan.cleared.join(', ')} set to NULL` : ''}${plan.deleted.length ? `; the rows with a value in ${plan.deleted.join(', ')} deleted` : ''}`;
        const what = `${plan.tables.length ? `tables ${plan.tables.join(', ')}` : 'no tables'}; ${plan.records.length} menu/action record(s)${cleared}`;
        if (!opts.yes) {
          console.log(`would drop from ${tenant}: ${what}`);
          console.error('nothing done: add --yes to drop them with all their data');
          process.exitCode = 1;
          return;
        }
        const rows = done ? [
          ...Object.entries(done.rows.nulled).map(([column, n]) => `${n} value(s) of ${column} set to NULL`),
          ...Object.entries(done.rows.deleted).map(([column, n]) => `${n} row(s) with a value in ${column} deleted`),
        ] : [];
        console.log(`uninstalled ${name} from ${tenant}: dropped ${what}${rows.length ? ` (${rows.join(', ')})` : ''}`);
      }, s);
    });
}
