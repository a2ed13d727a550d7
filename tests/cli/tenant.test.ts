/**
 * `fw tenant create` and `fw tenant list` (src/cli/tenant.ts) on SQLite, each run on a temp DATA_DIR:
 * - several keys, or a file of keys (`--from-file`, one a line, `#` comments), are created with
 *   one boot, each reported (stdout) with its progress (stderr);
 * - every key is checked before anything is created: one bad key refuses the batch
 *   (INVALID_TENANT, exit 1, no tenant database written);
 * - a create without keys, an empty key file or a missing one is a usage error that boots nothing;
 * - `fw tenant list` reads the tenants without booting the kernel: it works when the active apps
 *   could not even load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/kernel.ts';
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
    expect(none.stderr.trim()).toBe('usage: fw tenant create <key...> | fw tenant create --from-file <file>');
    expect(emptyFile.stderr.trim()).toBe(`no tenant keys in ${empty}`);
    expect(missing.stderr.trim()).toBe(`cannot read tenant keys from ${path.join(dir, 'absent.txt')}: ENOENT`);
    for (const r of [none, emptyFile, missing]) expect(r.code).toBe(1);
    // a boot would have written the generated keys (secrets.json)
    expect(fs.readdirSync(dir)).toEqual(['empty.txt']);
  });
}, 180_000);
