import type { Command } from 'commander';
import { existingTenant, progress, settings, tenantOption } from './common.js';
import { mark } from './timing.js';

export function registerMigrate(program: Command): void {
  const migrate = program.command('migrate').description('database migrations').helpCommand(false);

  migrate.command('generate')
    .description("write the app's next migration (both engines) for changes to its own models")
    .requiredOption('-m, --message <description>', 'what the migration does')
    .requiredOption('--app <app>', 'the app the migration belongs to')
    .option('--allow-data-loss', 'write it even if it drops a table or column, narrows a type or adds a required column without a default')
    .option('--data', "also write a data.ts stub: TypeScript run in the migration's transaction (docs/migrations.md)")
    .action(async (opts: { message: string; app: string; allowDataLoss?: boolean; data?: boolean }) => {
      const { migrateGenerate } = await import('../kernel/migrate/generate-command.js');
      const { projectLayout } = await import('../kernel/modules/loader.js');
      progress(`diffing the declarations of ${opts.app} against its last migration`);
      for (const line of await migrateGenerate(projectLayout(), opts.app, opts.message, { allowDataLoss: opts.allowDataLoss, data: opts.data })) console.log(line);
    });

  migrate.command('upgrade')
    .description('apply pending migrations to a tenant database (idempotent)')
    .addOption(tenantOption())
    .action(async (opts: { tenant?: string }) => {
      const s = await settings();
      // no kernel: the active apps' chains are found from their manifests alone (bench/cli.ts)
      const path = await import('node:path');
      const { activeAppRoots, allAppRoots, FW_ROOT, projectLayout } = await import('../kernel/modules/loader.js');
      const { tenantPlan } = await import('../kernel/migrate/plan.js');
      const { refuseDrafts } = await import('../kernel/migrate/drafts.js');
      const { TenantDatabases } = await import('../kernel/db/tenants.js');
      const layout = projectLayout();
      const provider = s.DATABASE_URL ? 'postgresql' : 'sqlite';
      // the kernel's own chain (ir.event, ir.module) comes first, as in Kernel.boot
      const kernel = { name: 'kernel', root: FW_ROOT };
      const apps = [kernel, ...(await activeAppRoots(layout, s))];
      mark('load manifests');
      if (!s.FW_DEV) refuseDrafts(apps);
      const tenants = new TenantDatabases({
        settings: s,
        plan: tenantPlan(layout.fwRoot, apps, provider, async () => [kernel, ...(await allAppRoots(layout))]),
        clientsDir: path.join(layout.root, 'generated', 'prisma'),
      });
      try {
        const tenant = await existingTenant({ tenants }, opts.tenant ?? s.DEFAULT_TENANT);
        const applied = await tenants.upgrade(tenant);
        mark('upgrade');
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'already up to date');
      } finally {
        await tenants.close();
      }
    });
}
