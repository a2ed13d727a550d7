import type { Command } from 'commander';
import { existingTenant, progress, settings, tenantOption, withKernel } from './common.js';
import { mark } from './timing.js';

export function registerMigrate(program: Command): void {
  const migrate = program.command('migrate').description('database migrations').helpCommand(false);

  migrate.command('generate')
    .description('write the migration SQL (both providers) for declaration changes')
    .requiredOption('-m, --message <description>', 'what the migration does')
    .requiredOption('--app <app>', 'the app the migration belongs to')
    .action(async (opts: { message: string; app: string }) => {
      const { PROVIDERS, printSchemaFor, writePrismaSchemas } = await import('../kernel/generate/index.js');
      const { fullRegistry } = await import('../kernel/generate/registry-all.js');
      const { generateMigration } = await import('../kernel/migrate/store.js');
      const { projectLayout } = await import('../kernel/modules/loader.js');
      const layout = projectLayout();
      progress('[1/2] loading every app');
      const registry = await fullRegistry(layout);
      if (!registry.apps.some((a) => a.name === opts.app)) throw new Error(`unknown app "${opts.app}"`);
      writePrismaSchemas(layout, registry);
      progress('[2/2] diffing the declarations against the last migration');
      const schemas = Object.fromEntries(PROVIDERS.map((p) => [p, printSchemaFor(registry, p)])) as Record<(typeof PROVIDERS)[number], string>;
      const written = await generateMigration(layout, schemas, { description: opts.message, app: opts.app });
      if (!written.length) console.log('no changes: the declarations match the last migration');
      for (const w of written) console.log(`wrote prisma/migrations/${w.provider}/${w.name}/migration.sql`);
    });

  migrate.command('upgrade')
    .description('apply pending migrations to a tenant database (idempotent)')
    .addOption(tenantOption())
    .action(async (opts: { tenant?: string }) => {
      const s = await settings();
      await withKernel(async (kernel) => {
        const tenant = await existingTenant(kernel, opts.tenant ?? s.DEFAULT_TENANT);
        const applied = await kernel.tenants.upgrade(tenant);
        mark('upgrade');
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'already up to date');
      }, s);
    });
}
