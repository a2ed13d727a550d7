/**
 * A team project's node_modules as `npm install` lays it out, made in seconds from this checkout:
 * fw as a copy of what `npm pack` packs, each of fw's dependencies linked from this checkout's
 * node_modules, flat (one copy each, as npm hoists them), and the binaries in .bin with `fw`.
 * A real install packs fw the same way (the project's `.npmrc` sets install-links) but compiles
 * better-sqlite3 from source on this offline machine: minutes (docs/decisions.md).
 *
 * Run as a script (`tsx tests/helpers/team-project.ts <project>`) for shell-driven tests.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const FW = path.resolve(import.meta.dirname, '../..');

export function installProject(project: string): void {
  const nm = path.join(project, 'node_modules');
  fs.mkdirSync(path.join(nm, '.bin'), { recursive: true });
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: FW, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>;
  for (const { path: rel } of packed[0].files) {
    fs.mkdirSync(path.dirname(path.join(nm, 'fw', rel)), { recursive: true });
    fs.copyFileSync(path.join(FW, rel), path.join(nm, 'fw', rel));
  }
  for (const entry of fs.readdirSync(path.join(FW, 'node_modules'))) {
    if (entry.startsWith('.')) continue;
    fs.symlinkSync(path.join(FW, 'node_modules', entry), path.join(nm, entry));
  }
  for (const bin of fs.readdirSync(path.join(FW, 'node_modules', '.bin'))) {
    fs.symlinkSync(fs.realpathSync(path.join(FW, 'node_modules', '.bin', bin)), path.join(nm, '.bin', bin));
  }
  fs.symlinkSync(path.join(nm, 'fw', 'bin', 'fw.js'), path.join(nm, '.bin', 'fw'));
}

/** A port nothing listens on right now (for a project's server). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  installProject(path.resolve(process.argv[2] ?? '.'));
}
