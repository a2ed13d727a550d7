/**
 * The `fw` CLI's commands and exit codes, spawned as an operator runs them (`tsx src/cli.ts …`),
 * beyond what tests/kernel/cli.test.ts covers (unknown tenants, tenant create/list) and
 * tests/cli/ (help, bad arguments, tenant batches):
 *
 * - `fw migrate upgrade` on a tenant with pending migrations applies them, a second run applies
 *   nothing ("already up to date"), both exit 0;
 * - `fw events drain` delivers what is due (a chain of two deliveries), a second run delivers 0;
 * - `fw generate` and `fw migrate generate` on a copy of the project (they rewrite the
 *   repository's generated files, so never on the working tree): a declaration change is written
 *   to both Prisma schemas, the clients and the SDL, a second run changes nothing; the migration
 *   is written for both providers, a second run finds no changes; dropping the field again is
 *   refused without --allow-data-loss.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { applyPostgresMigrations, applySqliteMigrations, ensurePostgresDatabase } from '../../src/kernel/migrate/runner.ts';
import { kernelApp } from '../../src/kernel/kernel-app.ts';
import { chainsOf } from '../../src/kernel/migrate/chains.ts';
import { loadActiveApps, projectLayout } from '../../src/kernel/modules/loader.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { bootTestKernel, dropPgDatabases, PG_URL, PROVIDERS, tempDir, uniquePgPrefix } from '../helpers/kernel.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const FOUNDATION = 'base,auth,presentation,connectors,storage';

interface Run { code: number | null; stdout: string; stderr: string }

/** `fw <args>` in a process of its own, with settings from a clean environment. */
function fw(env: Record<string, string>, args: string[], root = ROOT): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(root, 'src', 'cli.ts'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ADMIN_PASSWORD: 'admin-pass-1', BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.each(PROVIDERS)('fw CLI on %s: migrate upgrade and events drain', (provider) => {
  let dataDir: string;
  const pgPrefix = uniquePgPrefix();
  const env = () => ({
    DATA_DIR: dataDir, DATABASE_URL: provider === 'postgresql' ? PG_URL : '', PG_DATABASE_PREFIX: pgPrefix,
  });

  beforeAll(() => {
    dataDir = tempDir('cli-cmds');
  });
  afterAll(async () => {
    if (provider === 'postgresql') await dropPgDatabases(pgPrefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('`fw migrate upgrade` applies the pending migrations of a tenant and exits 0; run again, it applies nothing and exits 0', async () => {
    const migrations = chainsOf([kernelApp(), ...(await loadActiveApps(projectLayout(), loadSettings({})))], provider);
    expect(migrations.length).toBeGreaterThan(1);
    const names = migrations.map((m) => m.name);
    // a tenant left at the first migration (an older release created it)
    const tenant = 'older';
    const first = migrations.slice(0, 1);
    if (provider === 'sqlite') {
      await applySqliteMigrations(path.join(dataDir, 'tenants', `${tenant}.db`), first);
    } else {
      const db = `${pgPrefix}${tenant}`;
      await ensurePostgresDatabase(PG_URL, db);
      const url = new URL(PG_URL);
      url.pathname = `/${db}`;
      await applyPostgresMigrations(url.toString(), first);
    }

    const once = await fw(env(), ['migrate', 'upgrade', '-t', tenant]);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout.trim()).toBe(`applied ${names.slice(1).join(', ')}`);
    const twice = await fw(env(), ['migrate', 'upgrade', '--tenant', tenant]);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stdout.trim()).toBe('already up to date');
  });

  it('`fw events drain` delivers the due events (a delivery that emits the next one included) and exits 0; run again, it delivers 0', async () => {
    const create = await fw(env(), ['tenant', 'create', 'acme']);
    expect(create.code, create.stderr).toBe(0);

    // a change made by a server without a running worker: the outbox holds a due delivery
    const tk = await bootTestKernel({ provider, dataDir, pgPrefix, worker: false, settings: { ACTIVE_MODULES: FOUNDATION, ACTIVE_DOMAINS: '' } });
    let org: string;
    try {
      const sys = systemPrincipal('acme');
      org = (await tk.kernel.dispatch<{ items: Array<{ id: string }> }>('fw.search', { model: 'res.organization', domain: [['code', '=', 'default']] }, sys)).items[0].id;
      await tk.kernel.dispatch('fw.update', { model: 'res.organization', id: org, values: { code: 'acme-new' } }, sys);
      const rows = await delegateOf(await tk.kernel.tenants.get('acme'), tk.kernel.registry.model('ir.event')).findMany({});
      expect(rows.map((r) => [r.handler, r.status])).toEqual([['presentation.slug_changed_reload', 'pending']]);
    } finally {
      await tk.cleanup();
    }

    const drain = await fw(env(), ['events', 'drain', '-t', 'acme']);
    expect(drain.code, drain.stderr).toBe(0);
    // slug_changed_reload, then the web.client.reload it emitted (broadcast_reload)
    expect(drain.stdout.trim()).toBe('delivered 2 event(s)');
    const again = await fw(env(), ['events', 'drain', '-t', 'acme']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe('delivered 0 event(s)');

    const check = await bootTestKernel({ provider, dataDir, pgPrefix, worker: false, settings: { ACTIVE_MODULES: FOUNDATION, ACTIVE_DOMAINS: '' } });
    try {
      const rows = await delegateOf(await check.kernel.tenants.get('acme'), check.kernel.registry.model('ir.event')).findMany({ orderBy: { dbid: 'asc' } });
      expect(rows.map((r) => [r.handler, r.status])).toEqual([
        ['presentation.slug_changed_reload', 'done'],
        ['presentation.broadcast_reload', 'done'],
      ]);
    } finally {
      await check.cleanup();
    }
  });
}, 120_000);

describe('fw generate and fw migrate generate (on a copy of the project)', () => {
  let root: string;
  beforeAll(() => {
    root = path.join(tempDir('cli-project'), 'project');
    fs.mkdirSync(path.join(root, 'generated'), { recursive: true });
    for (const p of ['src', 'schema', 'views', 'prisma', 'package.json', 'tsconfig.json']) fs.cpSync(path.join(ROOT, p), path.join(root, p), { recursive: true });
    for (const p of ['generated/prisma', 'generated/schema.graphql']) fs.cpSync(path.join(ROOT, p), path.join(root, p), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  });
  afterAll(() => {
    if (root) fs.rmSync(path.dirname(root), { recursive: true, force: true });
  });

  const read = (p: string) => fs.readFileSync(path.join(root, p), 'utf8');
  const migrationDirs = () => fs.readdirSync(path.join(root, 'prisma', 'migrations', 'base')).sort();

  it('a new field reaches both Prisma schemas, both clients and the SDL; a second run changes nothing; the migration is written once for both providers', async () => {
    const decl = path.join(root, 'schema', 'base', 'res.country.ts');
    const src = fs.readFileSync(decl, 'utf8');
    expect(src).toMatch(/fields: \{\n/);
    fs.writeFileSync(decl, src.replace(/fields: \{\n/, "fields: {\n    docs_cli_note: f.char(80, { description: 'Added by the CLI test' }),\n"));

    const gen = await fw({}, ['generate'], root);
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stdout).toMatch(/^wrote .*prisma\/sqlite\/schema\.prisma/);
    expect(gen.stdout).toContain('prisma/postgresql/schema.prisma');
    expect(gen.stdout).toContain('generated/schema.graphql');
    expect(gen.stdout.trim()).toMatch(/— clients generated$/);
    for (const provider of ['sqlite', 'postgresql']) expect(read(`prisma/${provider}/schema.prisma`)).toMatch(/docs_cli_note\s+String\?/);
    expect(read('generated/schema.graphql')).toContain('docs_cli_note: String');
    expect(fs.readFileSync(path.join(root, 'generated', 'prisma', 'sqlite', 'models', 'ResCountry.ts'), 'utf8')).toContain('docs_cli_note');

    const again = await fw({}, ['generate'], root);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe('schemas unchanged — clients generated');

    const before = migrationDirs();
    const mig = await fw({}, ['migrate', 'generate', '-m', 'add docs cli note', '--app', 'base'], root);
    expect(mig.code, mig.stderr).toBe(0);
    const added = migrationDirs().filter((d) => !before.includes(d));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^\d{14}_add_docs_cli_note$/);
    for (const provider of ['sqlite', 'postgresql'] as const) {
      expect(mig.stdout).toContain(`wrote prisma/migrations/base/${added[0]}/${provider}.sql`);
      const sql = read(`prisma/migrations/base/${added[0]}/${provider}.sql`);
      expect(sql.split('\n')[0]).toBe('-- add docs cli note (app base)');
      expect(sql, sql).toMatch(/ALTER TABLE "res_country" ADD COLUMN\s+"docs_cli_note"/);
    }
    const noChange = await fw({}, ['migrate', 'generate', '-m', 'nothing new', '--app', 'base'], root);
    expect(noChange.code, noChange.stderr).toBe(0);
    expect(noChange.stdout.trim()).toBe('no changes: the declarations of base match its last migration');

    const unknownApp = await fw({}, ['migrate', 'generate', '-m', 'x', '--app', 'no.such.app'], root);
    expect(unknownApp.code).toBe(1);
    // the progress lines come first on stderr; the error is the last line
    expect(unknownApp.stderr.trim().split('\n').at(-1)).toMatch(/^UNKNOWN_APP: unknown app "no.such.app" \(apps: kernel, base, /);
  });

  it('dropping that field is refused (MIGRATION_LOSES_DATA, exit 1, the effect named, nothing written); --allow-data-loss writes it and prints the effect', async () => {
    const decl = path.join(root, 'schema', 'base', 'res.country.ts');
    fs.writeFileSync(decl, fs.readFileSync(decl, 'utf8').replace(/\n {4}docs_cli_note: .*\n/, '\n'));
    const before = migrationDirs();
    const refused = await fw({}, ['migrate', 'generate', '-m', 'drop docs cli note', '--app', 'base'], root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/MIGRATION_LOSES_DATA: the next migration of base would lose data:\n {2}res\.country\.docs_cli_note: column dropped — its data is lost/);
    expect(migrationDirs()).toEqual(before);
    const allowed = await fw({}, ['migrate', 'generate', '-m', 'drop docs cli note', '--app', 'base', '--allow-data-loss'], root);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout.split('\n')[0]).toBe('res.country.docs_cli_note: column dropped — its data is lost');
    expect(migrationDirs()).toHaveLength(before.length + 1);
  });
}, 300_000);
