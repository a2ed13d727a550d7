/**
 * A team project builds the web client from the installed fw (`fw build web`), so every package
 * the client, the foundation apps' web/ code and the build itself import must be one of fw's
 * `dependencies`: npm installs those into the project, never the devDependencies. The team-project
 * test links all of this checkout's node_modules and would not notice a package left in
 * devDependencies; this reads the imports and the manifest instead.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FW } from '../helpers/team-project.ts';

const pkg = JSON.parse(fs.readFileSync(path.join(FW, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; files: string[] };

/** Every source file under `dir` (recursively) with one of the extensions. */
function sources(dir: string, exts = ['.ts', '.tsx']): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => exts.some((e) => f.endsWith(e)) && !f.split(path.sep).includes('gql'))
    .map((f) => path.join(dir, f));
}

/** The packages a file imports at run time or build time (type-only imports are erased). */
function importedPackages(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
    if (m[1]) continue;
    const spec = m[2];
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || spec.startsWith('@fw/')) continue;
    out.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  }
  for (const m of text.matchAll(/import\(\s*['"]([^'"./][^'"]*)['"]\s*\)/g)) {
    const spec = m[1];
    if (spec.startsWith('node:') || spec.startsWith('@fw/')) continue;
    out.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  }
  return out;
}

describe("fw's package as a team project installs it", () => {
  const files = [
    ...sources(path.join(FW, 'web', 'src')),
    ...fs.readdirSync(path.join(FW, 'src', 'apps')).flatMap((app) => sources(path.join(FW, 'src', 'apps', app, 'web'))),
    path.join(FW, 'web', 'vite.config.ts'),
    ...sources(path.join(FW, 'web', 'build')),
    path.join(FW, 'src', 'cli', 'build.ts'),
    path.join(FW, 'src', 'kernel', 'dev', 'web.ts'),
  ];

  it('reads the imports it checks (the client imports react, the build vite)', () => {
    const all = new Set(files.flatMap(importedPackages));
    expect(all).toContain('react');
    expect(all).toContain('@tanstack/react-query');
    expect(all).toContain('vite');
    // a type-only import is not a dependency
    expect(importedPackages(path.join(FW, 'web', 'src', 'api', 'client.ts'))).not.toContain('@graphql-typed-document-node/core');
  });

  it("every package the client, the apps' web code and the client build import is a dependency, not a devDependency", () => {
    const missing = files.flatMap((f) => importedPackages(f).filter((p) => !(p in pkg.dependencies)).map((p) => `${path.relative(FW, f)}: ${p}`));
    expect(missing).toEqual([]);
  });

  it('the code generator fw build web runs for a project is a dependency too', () => {
    expect(pkg.dependencies).toHaveProperty(['@graphql-codegen/cli']);
    expect(pkg.dependencies).toHaveProperty(['@graphql-codegen/client-preset']);
  });

  it('the package ships the client sources, its prebuilt bundle and its typed documents (a project without client code serves that bundle)', () => {
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: FW, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>;
    const names = new Set(packed[0].files.map((f) => f.path));
    for (const f of ['web/vite.config.ts', 'web/build/gql-documents.ts', 'web/index.html', 'web/src/extend.ts', 'web/src/gql/index.ts', 'web/dist/index.html', 'src/cli/build.ts']) expect(names, f).toContain(f);
    expect([...names].some((f) => f.startsWith('web/node_modules/'))).toBe(false);
  });
});

/** Whether a package ships type declarations of its own: any `.d.ts` (`.d.mts`, `.d.cts`) outside its own node_modules. */
function shipsTypes(name: string): boolean {
  const dir = path.join(FW, 'node_modules', name);
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .some((f) => /\.d\.[cm]?ts$/.test(f) && !f.split(path.sep).includes('node_modules'));
}

describe("a project's tsc reads fw's server sources (fw ships TypeScript)", () => {
  it('every package the server imports has its types installed with fw: its own, or its @types package among the dependencies', () => {
    const server = sources(path.join(FW, 'src')).filter((f) => !f.split(path.sep).includes('web'));
    const packages = new Set(server.flatMap(importedPackages));
    expect(packages).toContain('better-sqlite3');
    // a scaffolded project's `tsc --noEmit` failed with TS7016 on better-sqlite3 and pluralize,
    // whose @types packages were devDependencies of fw, which npm does not install for a project
    const untyped = [...packages].filter((p) => fs.existsSync(path.join(FW, 'node_modules', p)) && !shipsTypes(p))
      .filter((p) => !(`@types/${p.replace(/^@([^/]+)\//, '$1__')}` in pkg.dependencies));
    expect(untyped).toEqual([]);
  });
});
