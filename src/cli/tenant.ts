import fs from 'node:fs';
import type { Command } from 'commander';
import { progress, settings, withKernel } from './common.js';
import { mark } from './timing.js';

const CREATE_USAGE = 'usage: fw tenant create <key...> | fw tenant create --from-file <file>';

/** Tenant keys of a file: one a line; `#` starts a comment; blank lines are skipped. */
export function parseTenantFile(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter(Boolean);
}

function readTenantFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read tenant keys from ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseTenantFile(text);
}

export function registerTenant(program: Command): void {
  const tenant = program.command('tenant').description('tenant databases').helpCommand(false);

  tenant.command('create')
    .description('create, migrate and seed tenant databases (one boot for all)')
    .argument('[keys...]', 'tenant keys')
    .option('--from-file <file>', 'read tenant keys from a file: one a line, # starts a comment')
    .action(async (args: string[], opts: { fromFile?: string }) => {
      const fromFile = opts.fromFile ? readTenantFile(opts.fromFile) : [];
      const keys = [...new Set([...args, ...fromFile])];
      // a usage error boots nothing (a boot may write the data folder's generated keys)
      if (!keys.length) throw new Error(opts.fromFile ? `no tenant keys in ${opts.fromFile}` : CREATE_USAGE);
      // every key is checked before the first tenant is created: a typo on line 40 of a file
      // must not leave 39 tenants behind and the rest missing
      const { checkTenantKey } = await import('../kernel/db/tenants.js');
      const { FwError } = await import('../kernel/errors.js');
      const refused: string[] = [];
      for (const key of keys) {
        try {
          checkTenantKey(key);
        } catch (err) {
          if (!(err instanceof FwError)) throw err;
          refused.push(`${err.code}: ${err.message}`);
        }
      }
      if (refused.length) {
        for (const line of refused) console.error(line);
        console.error(`nothing created (${refused.length} of ${keys.length} key(s) refused)`);
        process.exitCode = 1;
        return;
      }
      await withKernel(async (kernel) => {
        for (const [i, key] of keys.entries()) {
          const existed = await kernel.tenants.exists(key);
          await kernel.tenants.get(key);
          mark(`create ${key}`);
          console.log(existed ? `tenant ${key} exists (migrated and seeded)` : `created tenant ${key}`);
          if (keys.length > 1) progress(`[${i + 1}/${keys.length}] ${existed ? 'exists' : 'created'} ${key}`);
        }
      });
    });

  tenant.command('list')
    .description('list tenants (boots no kernel)')
    .action(async () => {
      const s = await settings();
      const { TenantDatabases } = await import('../kernel/db/tenants.js');
      mark('import tenants');
      // listing needs the settings only: no apps, no migrations, no Prisma client
      const tenants = new TenantDatabases({ settings: s, plan: { migrations: [], legacy: [], initials: async () => [] }, clientsDir: '' });
      for (const t of await tenants.list()) console.log(t);
      mark('list');
    });
}
