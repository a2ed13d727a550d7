/**
 * A small static import walker for the public-API tests: which modules a file names in its
 * `import … from` / `export … from` / side-effect `import '…'` statements (type-only ones
 * included, since they tie the types together just the same). Dynamic `import()` is left out on
 * purpose: it loads when called, not when the file is imported (fw/testing boots the kernel so).
 */
import fs from 'node:fs';
import path from 'node:path';

const STATIC = /(?:^|[;\n])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;

/** The module specifiers `source` imports statically, comments ignored. */
export function staticSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(STATIC)].map((m) => m[1]);
}

/** A relative specifier as the file it names (`./x.js` is `./x.ts` in this repository), else null. */
export function resolveRelative(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const p = path.resolve(path.dirname(from), spec);
  for (const c of [p.replace(/\.js$/, '.ts'), p, `${p}.ts`, path.join(p, 'index.ts')]) {
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  }
  throw new Error(`${from}: cannot resolve ${spec}`);
}

/** Every file `entry` reaches through relative static imports, itself included. */
export function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    for (const spec of staticSpecifiers(fs.readFileSync(file, 'utf8'))) {
      const target = resolveRelative(file, spec);
      if (target && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return seen;
}

/** Every .ts file under `dir`. */
export function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}
