import fs from 'node:fs';
import type { Command } from 'commander';
import { progress, settings, withKernel } from './common.js';
import { mark } from './timing.js';

const CREATE_USAGE = 'usage: fw tenant create <key...> | fw tenant create --from-file <file> | fw tenant create --count <n> --prefix <prefix>';
/** Most tenants `--count` makes in one command. */
export const MAX_BATCH_COUNT = 10_000;

/** Tenant keys of a file: one a line; `#` starts a comment; blank lines are skipped. */
export function parseTenantFile(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter(Boolean);
}

/**
 * `--count N --prefix p`: p1 … pN, the numbers zero-padded to the width of N (`shop-001` …
 * `shop-100`) so the keys sort in order. Both or neither; N a whole number from 1 to 10,000.
 * Refused with INVALID_BATCH (exit 1) before anything boots.
 */
export async function countedKeys(count: string | undefined, prefix: string | undefined): Promise<string[]> {
  if (count === undefined && prefix === undefined) return [];
  const { BadRequest } = await import('../kernel/errors.js');
  if (count === undefined || prefix === undefined) {
    throw new BadRequest(`--count and --prefix go together (${count === undefined ? '--prefix' : '--count'} alone given)`, {}, 'INVALID_BATCH');
  }
  if (!/^\d+$/.test(count) || Number(count) < 1 || Number(count) > MAX_BATCH_COUNT) {
    throw new BadRequest(`--count must be a whole number from 1 to ${MAX_BATCH_COUNT}, not "${count}"`, { count }, 'INVALID_BATCH');
  }
  const n = Number(count);
  const width = String(n).length;
  return Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(width, '0')}`);
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
    .option('--count <n>', 'create n tenants named <prefix>1 … <prefix>n (numbers zero-padded), with --prefix')
    .option('--prefix <prefix>', 'key prefix of --count')
    .action(async (args: string[], opts: { fromFile?: string; count?: string; prefix?: string }) => {
      const counted = await countedKeys(opts.count, opts.prefix);
      const fromFile = opts.fromFile ? readTenantFile(opts.fromFile) : [];
      const keys = [...new Set([...args, ...fromFile, ...counted])];
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
