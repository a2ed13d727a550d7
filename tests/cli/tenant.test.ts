/**
 * `fw tenant create` and `fw tenant list` (src/cli/tenant.ts) on SQLite, each run on a temp DATA_DIR:
 * - several keys, or a file of keys (`--from-file`, one a line, `#` comments), are created with
 *   one boot, each reported (stdout) with its progress (stderr);
 * - every key is checked before anything is created: one bad key refuses the batch
 *   (INVALID_TENANT, exit 1, no tenant database written);
 * - a create without keys, an empty key file or a missing one is a usage error that boots nothing;
 * - `--count N --prefix p` creates p1 … pN, numbers zero-padded to N's width; a count that is not
 *   a whole number from 1 to 10,000, or one of the two options alone, is INVALID_BATCH (exit 1),
 *   and a prefix making bad keys INVALID_TENANT, nothing booted or written;
 * - on PostgreSQL, a batch makes tenants that are usable: each records the whole migration chain
 *   and its admin logs in.
 * - `fw tenant list` reads the tenants without booting the kernel: it works when the active apps
 *   could not even load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countedKeys } from '../../src/cli/tenant.ts';
import { anonymousPrincipal } from '../../src/kernel/env.ts';
import { SETTINGS } from '../../src/kernel/settings.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bootTestKernel, dropPgDatabases, PG_URL, tempDir, uniquePgPrefix, withPgClient } from '../helpers/kernel.ts';
import { fw } from './run.ts';

const dirs: string[] = [];
const dataDir = (): string => {
  const d = tempDir('cli-tenant');
  dirs.push(d);
  return d;
};
const tenantFiles = (dir: string): string[] => (fs.existsSync(path.join(dir, 'tenants')) ? fs.readdirSync(path.join(dir, 'tenants')).filter((f) => f.endsWith('.db')).sort() : []);

describe('fw tenant create (batches) and fw tenant list', () => {
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('creates every key given and every key of --from-file with one boot, reporting each; tenant list then lists them without booting the kernel', async () => {
    const dir = dataDir();
    const file = path.join(dir, 'tenants.txt');
    fs.writeFileSync(file, '# tenants of the spring intake\nbeta\n\n  gamma   # trailing comment\nacme\n');
    const create = await fw({ DATA_DIR: dir }, 'tenant', 'create', 'acme', 'delta', '--from-file', file);
    expect(create.code, create.stderr).toBe(0);
    // acme is named twice (argument and file): created once
    expect(create.stdout.trim().split('\n')).toEqual(['created tenant acme', 'created tenant delta', 'created tenant beta', 'created tenant gamma']);
    expect(create.stderr).toContain('[1/4] created acme');
    expect(create.stderr).toContain('[4/4] created gamma');
    expect(tenantFiles(dir)).toEqual(['acme.db', 'beta.db', 'delta.db', 'gamma.db']);

    // an app list that cannot load: a boot would fail, a listing does not need one
    const list = await fw({ DATA_DIR: dir, ACTIVE_MODULES: 'base,no-such-app' }, 'tenant', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(['acme', 'beta', 'delta', 'gamma']);
    const boot = await fw({ DATA_DIR: dir, ACTIVE_MODULES: 'base,no-such-app' }, 'tenant', 'create', 'acme');
    expect(boot.code).toBe(1);
  });

  it('one bad key, given or in the file, refuses the whole batch with INVALID_TENANT before any tenant is created', async () => {
    const [given, inFile] = [dataDir(), dataDir()];
    const file = path.join(inFile, 'tenants.txt');
    fs.writeFileSync(file, 'good-one\ngood-two\nBad_Key\n');
    const [a, b] = await Promise.all([
      fw({ DATA_DIR: given }, 'tenant', 'create', 'good-one', 'not_valid', 'good-two'),
      fw({ DATA_DIR: inFile }, 'tenant', 'create', '--from-file', file),
    ]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('INVALID_TENANT: invalid tenant "not_valid"');
    expect(a.stderr).toContain('nothing created (1 of 3 key(s) refused)');
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('INVALID_TENANT: invalid tenant "Bad_Key"');
    expect(tenantFiles(given)).toEqual([]);
    expect(tenantFiles(inFile)).toEqual([]);
  });

  it('no keys, an empty key file or a missing one: a usage error, exit 1, nothing booted or written', async () => {
    const dir = dataDir();
    const empty = path.join(dir, 'empty.txt');
    fs.writeFileSync(empty, '# nothing yet\n\n');
    const [none, emptyFile, missing] = await Promise.all([
      fw({ DATA_DIR: dir }, 'tenant', 'create'),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--from-file', empty),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--from-file', path.join(dir, 'absent.txt')),
    ]);
    expect(none.stderr.trim()).toBe('usage: fw tenant create <key...> | fw tenant create --from-file <file> | fw tenant create --count <n> --prefix <prefix>');
    expect(emptyFile.stderr.trim()).toBe(`no tenant keys in ${empty}`);
    expect(missing.stderr.trim()).toBe(`cannot read tenant keys from ${path.join(dir, 'absent.txt')}: ENOENT`);
    for (const r of [none, emptyFile, missing]) expect(r.code).toBe(1);
    // a boot would have written the generated keys (secrets.json)
    expect(fs.readdirSync(dir)).toEqual(['empty.txt']);
  });

  it('--count N --prefix p names the tenants p1 … pN, the numbers zero-padded to the width of N', async () => {
    expect(await countedKeys('3', 'shop-')).toEqual(['shop-1', 'shop-2', 'shop-3']);
    const twelve = await countedKeys('12', 's');
    expect([twelve[0], twelve[8], twelve[11]]).toEqual(['s01', 's09', 's12']);
    expect(await countedKeys(undefined, undefined)).toEqual([]);
    const dir = dataDir();
    const r = await fw({ DATA_DIR: dir }, 'tenant', 'create', '--count', '2', '--prefix', 'shop-', 'extra');
    expect(r.code, r.stderr).toBe(0);
    expect(tenantFiles(dir)).toEqual(['extra.db', 'shop-1.db', 'shop-2.db']);
  });

  it('bad batch arguments are refused with INVALID_BATCH (or INVALID_TENANT for the keys a prefix makes), exit 1, before anything boots', async () => {
    const dir = dataDir();
    const runs = await Promise.all([
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--count', '0', '--prefix', 'x-'),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--count', 'ten', '--prefix', 'x-'),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--count', '10001', '--prefix', 'x-'),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--count', '3'),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--prefix', 'x-'),
      fw({ DATA_DIR: dir }, 'tenant', 'create', '--count', '2', '--prefix', 'Bad_'),
    ]);
    const [zero, word, tooMany, countAlone, prefixAlone, badPrefix] = runs;
    expect(zero!.stderr.trim()).toBe('INVALID_BATCH: --count must be a whole number from 1 to 10000, not "0"');
    expect(word!.stderr.trim()).toBe('INVALID_BATCH: --count must be a whole number from 1 to 10000, not "ten"');
    expect(tooMany!.stderr.trim()).toBe('INVALID_BATCH: --count must be a whole number from 1 to 10000, not "10001"');
    expect(countAlone!.stderr.trim()).toBe('INVALID_BATCH: --count and --prefix go together (--count alone given)');
    expect(prefixAlone!.stderr.trim()).toBe('INVALID_BATCH: --count and --prefix go together (--prefix alone given)');
    expect(badPrefix!.stderr).toContain('INVALID_TENANT: invalid tenant "Bad_1"');
    for (const r of runs) expect(r.code).toBe(1);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('on PostgreSQL a batch creates tenants that are usable: each records the whole migration chain and its admin logs in', async () => {
    const prefix = uniquePgPrefix();
    try {
      const r = await fw({ DATA_DIR: dataDir(), DATABASE_URL: PG_URL, PG_DATABASE_PREFIX: prefix }, 'tenant', 'create', '--count', '2', '--prefix', 'pgb-');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toEqual(['created tenant pgb-1', 'created tenant pgb-2']);
      // what a tenant made one at a time by the same apps records (the CLI's default apps)
      const tk = await bootTestKernel({ provider: 'postgresql', pgPrefix: prefix, settings: { ACTIVE_MODULES: SETTINGS.ACTIVE_MODULES.default, ACTIVE_DOMAINS: '' } });
      const recorded = (t: string) => withPgClient(tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(t)), async (c) =>
        (await c.query<{ name: string; checksum: string }>('SELECT name, checksum FROM _fw_migrations ORDER BY name')).rows);
      try {
        const batch = [await recorded('pgb-1'), await recorded('pgb-2')];
        await tk.kernel.tenants.get('pgb-ref');
        const reference = await recorded('pgb-ref');
        expect(reference.length).toBeGreaterThan(5);
        for (const [i, t] of ['pgb-1', 'pgb-2'].entries()) {
          expect(batch[i]).toEqual(reference);
          const pair = await tk.kernel.dispatch<{ access_token: string }>('auth.login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, anonymousPrincipal(t));
          expect(pair.access_token).toBeTruthy();
        }
      } finally {
        await tk.cleanup();
      }
    } finally {
      await dropPgDatabases(prefix);
    }
  });
}, 180_000);
