import { parseArgs } from 'node:util';
import { generatePrismaClients, writePrismaSchemas } from './kernel/generate/index.js';
import { fullRegistry } from './kernel/generate/registry-all.js';
import { projectLayout } from './kernel/modules/loader.js';
import { loadSettings } from './kernel/settings.js';
import { Kernel } from './kernel/kernel.js';
import { FwError } from './kernel/errors.js';

const USAGE = `fw — model-driven application platform

  fw serve                                   start the HTTP server (HOST, PORT)
  fw generate                                declarations → prisma/<provider>/schema.prisma, Prisma clients, generated/schema.graphql
  fw migrate generate -m <description> --app <app>
                                             write the migration SQL (both providers) for declaration changes
  fw migrate upgrade -t <tenant>             apply pending migrations to a tenant database (idempotent)
  fw tenant create <key>                     create a tenant database, migrate and seed it
  fw tenant list                             list tenants
  fw events drain -t <tenant>                deliver the tenant's due events now
  fw mcp -t <tenant> --token <access token>  serve the caller's read-only AI tools over MCP on stdio
                                             (AI_ENABLED=true; the token may come from FW_MCP_TOKEN)
  fw e2e <record|import|replay|polish|gate>  QA automation (ENABLE_QA_AUTOMATION=true; fw e2e --help)`;

/**
 * Only `fw tenant create` (and `fw serve`, for the default tenant) provisions tenants: every
 * other command refuses a tenant that does not exist instead of creating an empty, unseeded one.
 */
async function existingTenant(kernel: Kernel, tenant: string): Promise<string> {
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

async function main(argv: string[]): Promise<number> {
  // fw e2e has options of its own (src/apps/qa/cli.ts)
  if (argv[0] === 'e2e') return (await import('./apps/qa/cli.js')).e2e(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { m: { type: 'string' }, app: { type: 'string' }, t: { type: 'string' }, tenant: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [cmd, sub, arg] = positionals;
  const layout = projectLayout();
  const tenantArg = values.t ?? values.tenant;
  if (values.help || !cmd) {
    console.log(USAGE);
    // asking for help is a success; a bare `fw` is a usage error
    return values.help ? 0 : 1;
  }
  if (cmd === 'serve') {
    const { startServer } = await import('./server/start.js');
    await startServer();
    return -1; // keep running
  }
  if (cmd === 'generate') {
    const registry = await fullRegistry(layout);
    const changed = writePrismaSchemas(layout, registry);
    generatePrismaClients(layout);
    const { writeSdl } = await import('./server/graphql/sdl.js');
    if (await writeSdl(layout)) changed.push('generated/schema.graphql');
    console.log(changed.length ? `wrote ${changed.join(', ')}` : 'schemas unchanged', '— clients generated');
    return 0;
  }
  if (cmd === 'migrate' && sub === 'generate') {
    if (!values.m || !values.app) throw new Error('usage: fw migrate generate -m <description> --app <app>');
    const { migrateGenerate } = await import('./kernel/migrate/generate-command.js');
    for (const line of await migrateGenerate(layout, values.app, values.m)) console.log(line);
    return 0;
  }
  const settings = loadSettings();
  if (cmd === 'migrate' && sub === 'upgrade') {
    const kernel = await Kernel.boot({ settings, worker: false });
    try {
      const tenant = await existingTenant(kernel, tenantArg ?? settings.DEFAULT_TENANT);
      const applied = await kernel.tenants.upgrade(tenant);
      console.log(applied.length ? `applied ${applied.join(', ')}` : 'already up to date');
    } finally {
      await kernel.close();
    }
    return 0;
  }
  if (cmd === 'tenant' && (sub === 'create' || sub === 'list')) {
    // a usage error boots nothing (a boot may write the data folder's generated keys)
    if (sub === 'create' && !arg) throw new Error('usage: fw tenant create <key>');
    const kernel = await Kernel.boot({ settings, worker: false });
    try {
      if (sub === 'list') {
        for (const t of await kernel.tenants.list()) console.log(t);
      } else if (arg) {
        const existed = await kernel.tenants.exists(arg);
        await kernel.tenants.get(arg);
        console.log(existed ? `tenant ${arg} exists (migrated and seeded)` : `created tenant ${arg}`);
      }
    } finally {
      await kernel.close();
    }
    return 0;
  }
  if (cmd === 'mcp') {
    // stdout carries the MCP messages only; every log goes to stderr
    const { serveMcpStdio } = await import('./apps/ai/mcp/stdio.js');
    await serveMcpStdio({ settings, tenant: tenantArg ?? settings.DEFAULT_TENANT, token: values.token });
    return -1; // keep serving until stdin closes
  }
  if (cmd === 'events' && sub === 'drain') {
    const kernel = await Kernel.boot({ settings, worker: false });
    try {
      console.log(`delivered ${await kernel.worker.drain(await existingTenant(kernel, tenantArg ?? settings.DEFAULT_TENANT))} event(s)`);
    } finally {
      await kernel.close();
    }
    return 0;
  }
  console.error(USAGE);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (err) => {
    console.error(err instanceof FwError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
