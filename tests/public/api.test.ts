/**
 * The public API (package.json `exports`, src/public/): what a team's project imports from fw,
 * kept apart from the kernel's implementation, and what the example domain app is written with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as publicErrors from 'fw/errors';
import pkg from '../../package.json' with { type: 'json' };
import * as kernelErrors from '../../src/kernel/errors.ts';
import { resolveRelative, staticGraph, staticSpecifiers, tsFiles } from './imports.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const rel = (file: string) => path.relative(ROOT, file);

/** The code entry points: every export but `./package.json`, as `fw/<name>` → file. */
const ENTRIES = Object.entries(pkg.exports).filter(([k]) => k !== './package.json')
  .map(([k, target]) => [`${pkg.name}/${k.slice(2)}`, path.join(ROOT, target)] as const);

/**
 * The layers a public entry point may reach: the public modules, the app contract (app.ts,
 * env.ts, kernel-handle.ts, and typed-app.ts, which types it from the generated file), declarations, output shapes, errors, and the types `Env` names
 * (the model registry, settings and the REDIS_PREFIX rule they check, the SQL reader interface). Not kernel.ts nor anything of the
 * command bus, the databases or the server.
 */
const ALLOWED = new Set([
  'src/public/app.ts', 'src/public/declare.ts', 'src/public/errors.ts', 'src/public/testing.ts',
  'src/kernel/app.ts', 'src/kernel/env.ts', 'src/kernel/kernel-handle.ts', 'src/kernel/typed-app.ts',
  'src/kernel/declare.ts', 'src/kernel/output.ts', 'src/kernel/errors.ts',
  'src/kernel/registry/registry.ts', 'src/kernel/registry/model.ts', 'src/kernel/registry/names.ts',
  'src/kernel/registry/closest.ts', 'src/kernel/registry/events.ts', 'src/kernel/registry/groups.ts', 'src/kernel/registry/declaration-keys.ts',
  'src/kernel/settings.ts', 'src/kernel/instance-secrets.ts', 'src/kernel/pubsub/names.ts', 'src/kernel/db/readers/types.ts',
  'src/kernel/migrate/data-context.ts',
]);

/** What a domain app's source may import by bare name from fw: the app-facing entry points (not fw/testing). */
const APP_ENTRIES = new Set(['fw/app', 'fw/declare', 'fw/errors']);

/**
 * Imports of one file of a domain app that are not the way a team writes them: a relative path
 * leaving the app's own folder (into the kernel, the server or another app), or an fw entry
 * point other than fw/app, fw/declare and fw/errors. Packages from npm and node: builtins are fine.
 */
function foreignImports(file: string, source: string, appDir: string): string[] {
  return staticSpecifiers(source).filter((spec) => {
    if (spec.startsWith('.')) {
      const target = path.resolve(path.dirname(file), spec);
      return path.relative(appDir, target).startsWith('..');
    }
    if (spec === pkg.name || spec.startsWith(`${pkg.name}/`)) return !APP_ENTRIES.has(spec);
    return spec.startsWith('/') || spec.startsWith('src/');
  });
}

/** Folders of domain apps: a name with a dot, under src/apps/ and schema/. */
const DOMAIN_APP_DIRS = ['src/apps', 'schema'].flatMap((top) =>
  fs.readdirSync(path.join(ROOT, top), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.includes('.'))
    .map((e) => path.join(ROOT, top, e.name)));

describe('package.json exports', () => {
  it('offers fw/app, fw/declare, fw/errors, fw/testing and fw/package.json, and keeps the fw binary', () => {
    expect(pkg.name).toBe('fw');
    expect(Object.keys(pkg.exports).sort()).toEqual(['./app', './declare', './errors', './package.json', './testing']);
    expect(pkg.bin).toEqual({ fw: 'bin/fw.js' });
    for (const [, file] of ENTRIES) expect(fs.existsSync(file), rel(file)).toBe(true);
  });

  it('resolves fw/* inside this repository to the same modules as the kernel paths (package self-reference)', async () => {
    const app = await import('fw/app');
    const kernelApp = await import('../../src/kernel/app.ts');
    expect(app.defineApp).toBe(kernelApp.defineApp);
    expect(publicErrors.FwError).toBe(kernelErrors.FwError);
  });
});

describe('a public entry point imports only the contract, declaration and error layers', () => {
  it.each(ENTRIES)('%s reaches no module outside those layers (kernel.ts least of all)', (_name, entry) => {
    const reached = [...staticGraph(entry)].map(rel);
    expect(reached).not.toContain('src/kernel/kernel.ts');
    expect(reached.filter((f) => !ALLOWED.has(f))).toEqual([]);
  });

  it('the walker follows type-only and re-export imports (a foundation app that names Kernel reaches kernel.ts)', () => {
    // storage's routes import the Kernel class and its internals: the graph must show it
    expect([...staticGraph(path.join(ROOT, 'src/apps/storage/routes.ts'))].map(rel)).toContain('src/kernel/kernel.ts');
    expect(staticSpecifiers([
      "import type { Kernel } from './kernel.js';",
      "export { x } from './x.js';",
      "export type {\n  A,\n  B,\n} from './ab.js';",
      "import './side-effect.js';",
      "// import { no } from './commented.js';",
      "const lazy = () => import('./dynamic.js');",
    ].join('\n'))).toEqual(['./kernel.js', './x.js', './ab.js', './side-effect.js']);
  });

  it('an unresolvable relative import fails the walk instead of being skipped', () => {
    expect(() => resolveRelative(path.join(ROOT, 'src/public/app.ts'), './missing.js')).toThrow(/cannot resolve \.\/missing\.js/);
  });
});

describe('a domain app imports fw by package name, never a kernel path', () => {
  it('there are domain apps to check (crm.sales)', () => {
    expect(DOMAIN_APP_DIRS.map(rel)).toEqual(expect.arrayContaining(['src/apps/crm.sales', 'schema/crm.sales']));
  });

  it.each(DOMAIN_APP_DIRS.map((d) => [rel(d), d]))('every file of %s imports only fw/app, fw/declare, fw/errors, npm packages and its own files', (_name, dir) => {
    const found = tsFiles(dir).flatMap((file) => foreignImports(file, fs.readFileSync(file, 'utf8'), dir).map((spec) => `${rel(file)}: ${spec}`));
    expect(found).toEqual([]);
  });

  it('a kernel path, another app\'s file or fw/testing in a domain app is reported', () => {
    const dir = path.join(ROOT, 'src/apps/crm.sales');
    const file = path.join(dir, 'index.ts');
    const source = [
      "import { defineApp } from '../../kernel/app.js';",
      "import { hashPassword } from '../base/services/passwords.js';",
      "import { bootTestKernel } from 'fw/testing';",
      "import { ValidationError } from 'fw/errors';",
      "import manifest from './manifest.js';",
      "import pluralize from 'pluralize';",
    ].join('\n');
    expect(foreignImports(file, source, dir)).toEqual(['../../kernel/app.js', '../base/services/passwords.js', 'fw/testing']);
  });
});

describe('fw/errors', () => {
  const isErrorClass = (v: unknown): v is typeof kernelErrors.FwError =>
    typeof v === 'function' && (v === kernelErrors.FwError || v.prototype instanceof kernelErrors.FwError);

  it('exports every FwError class of src/kernel/errors.ts, and nothing else but them', () => {
    const kernelClasses = new Map(Object.entries(kernelErrors).filter(([, v]) => isErrorClass(v)));
    const exported = new Map(Object.entries(publicErrors));
    expect([...exported.keys()].sort()).toEqual([...kernelClasses.keys()].sort());
    for (const [name, cls] of kernelClasses) expect(exported.get(name), name).toBe(cls);
  });
});

describe('docs/app-api.md', () => {
  /** One instance of each class, built as an app would, to read the code and status it answers with. */
  const SAMPLES: Record<string, () => kernelErrors.FwError> = {
    FwError: () => new publicErrors.FwError('MY_CODE', 418, 'm'),
    BadRequest: () => new publicErrors.BadRequest('m'),
    ValidationError: () => new publicErrors.ValidationError('m'),
    NotFound: () => new publicErrors.NotFound('m'),
    Conflict: () => new publicErrors.Conflict('m'),
    StaleRevision: () => new publicErrors.StaleRevision('crm.lead', 'id', 1, 2),
    UniqueViolation: () => new publicErrors.UniqueViolation('crm.lead', ['name']),
    AuthenticationRequired: () => new publicErrors.AuthenticationRequired(),
    AuthenticationFailed: () => new publicErrors.AuthenticationFailed(),
    TokenError: () => new publicErrors.TokenError('MY_TOKEN_CODE', 'm'),
    ExpiredTokenError: () => new publicErrors.ExpiredTokenError(),
    InvalidTokenError: () => new publicErrors.InvalidTokenError(),
    AccessDenied: () => new publicErrors.AccessDenied('m'),
    CsrfRefused: () => new publicErrors.CsrfRefused('m'),
    OrganizationNotAllowed: () => new publicErrors.OrganizationNotAllowed('acme'),
    NotAcceptable: () => new publicErrors.NotAcceptable('m'),
    PayloadTooLarge: () => new publicErrors.PayloadTooLarge('m'),
    Throttled: () => new publicErrors.Throttled('m', 3),
    DatabaseBusy: () => new publicErrors.DatabaseBusy('m', 1),
    BootError: () => new publicErrors.BootError('m'),
    MigrationRefused: () => new publicErrors.MigrationRefused('m', {}, 'MIGRATION_CHANGED'),
    DatabaseUnreachable: () => new publicErrors.DatabaseUnreachable('postgresql://127.0.0.1:1/x', new Error('m')),
    UndeclaredEffect: () => new publicErrors.UndeclaredEffect('m'),
  };
  /** `| \`Class\` | \`CODE\` or *given* | status or *given* | constructor |` rows of the errors table. */
  const rows = new Map([...fs.readFileSync(path.join(ROOT, 'docs/app-api.md'), 'utf8')
    .matchAll(/^\| `(\w+)` \| (?:`([A-Z_]+)`|\*given\*) \| (\d{3}|\*given\*) \|/gm)]
    .map((m) => [m[1], { code: m[2] ?? null, status: m[3] === '*given*' ? null : Number(m[3]) }]));

  it('lists every class of fw/errors with the code and status it answers with (*given*: the caller chooses)', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(publicErrors).sort());
    for (const [name, row] of rows) {
      const sample = SAMPLES[name];
      expect(sample, `a sample instance of ${name} in this test`).toBeDefined();
      const err = sample();
      expect(err.constructor.name).toBe(name);
      if (row.code !== null) expect(err.code, name).toBe(row.code);
      if (row.status !== null) expect(err.status, name).toBe(row.status);
    }
  });
});
