/**
 * The `fw` CLI, spawned as an operator runs it (`tsx src/cli.ts …`) with its own DATA_DIR (or
 * PostgreSQL prefix): only `fw tenant create` creates tenants; `fw migrate upgrade` and
 * `fw events drain` refuse a tenant that does not exist with a clear message and exit code 1,
 * and create nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPostgresDatabases } from '../../src/kernel/migrate/runner.ts';
import { dropPgDatabases, PG_URL, PROVIDERS, tempDir, uniquePgPrefix } from '../helpers/kernel.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

interface Run { code: number | null; stdout: string; stderr: string }

describe.each(PROVIDERS)('fw CLI tenant commands on %s', (provider) => {
  let dataDir: string;
  const pgPrefix = uniquePgPrefix();

  beforeAll(() => {
    dataDir = tempDir('cli');
  });
  afterAll(async () => {
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** `fw <args>` in a process of its own, with settings from a clean environment. */
  const fw = (...args: string[]): Promise<Run> => new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(ROOT, 'src', 'cli.ts'), ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME,
        DATA_DIR: dataDir,
        DATABASE_URL: provider === 'postgresql' ? PG_URL : '',
        PG_DATABASE_PREFIX: pgPrefix,
        ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'silent',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

  /** Whether a tenant's database exists, looked at directly (not through the CLI). */
  const exists = async (tenant: string): Promise<boolean> => provider === 'sqlite'
    ? fs.existsSync(path.join(dataDir, 'tenants', `${tenant}.db`))
    : (await listPostgresDatabases(PG_URL, pgPrefix)).includes(`${pgPrefix}${tenant.replace(/-/g, '_')}`);

  it('commands other than `fw tenant create` refuse a tenant that does not exist: exit code 1, a clear message, nothing created', async () => {
    const [upgrade, drain, upgradeDefault] = await Promise.all([
      fw('migrate', 'upgrade', '-t', 'ghost'),
      fw('events', 'drain', '--tenant', 'ghost'),
      // without -t: the default tenant, which nothing has created yet either
      fw('migrate', 'upgrade'),
    ]);
    expect(upgrade.code, upgrade.stderr).toBe(1);
    // the error is the last line; the only other one a first run may print is where it generated the keys
    const lines = upgrade.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe('UNKNOWN_TENANT: tenant "ghost" does not exist (create it with: fw tenant create ghost)');
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^\[fw\] generated (JWT_SECRET_KEY|CONNECTOR_SECRET_KEY) into /);
    expect(drain.code, drain.stderr).toBe(1);
    expect(drain.stderr).toContain('UNKNOWN_TENANT: tenant "ghost" does not exist');
    expect(upgradeDefault.code, upgradeDefault.stderr).toBe(1);
    expect(upgradeDefault.stderr).toContain('UNKNOWN_TENANT: tenant "default" does not exist');
    expect(await exists('ghost')).toBe(false);
    expect(await exists('default')).toBe(false);
  });

  it('a tenant key that is not a valid key is refused with INVALID_TENANT and exit code 1', async () => {
    const res = await fw('migrate', 'upgrade', '-t', 'Not_A_Key');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain('INVALID_TENANT');
  });

  it('`fw tenant create` creates, migrates and seeds a tenant; then the other commands run on it with exit code 0', async () => {
    const create = await fw('tenant', 'create', 'acme');
    expect(create.code, create.stderr).toBe(0);
    expect(create.stdout).toContain('created tenant acme');
    expect(await exists('acme')).toBe(true);
    const [upgrade, drain, list, again] = await Promise.all([
      fw('migrate', 'upgrade', '-t', 'acme'),
      fw('events', 'drain', '-t', 'acme'),
      fw('tenant', 'list'),
      fw('tenant', 'create', 'acme'),
    ]);
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(upgrade.stdout).toContain('already up to date');
    expect(drain.code, drain.stderr).toBe(0);
    expect(drain.stdout).toMatch(/delivered \d+ event\(s\)/);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(['acme']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('tenant acme exists');
  });
}, 120_000);
