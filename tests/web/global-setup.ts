/**
 * vitest globalSetup: the browser tests (tests/web/) serve the built web client, so it must
 * exist. A missing web/dist/index.html is built once here (`npm run build:web`, as `npm ci`'s
 * postinstall does); a build older than web/src is only reported (FW_WEB_BUILD=1 rebuilds it).
 * Pointing FW_WEB_CLIENT_DIR at another build skips all of this.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  if (process.env.FW_WEB_CLIENT_DIR) return;
  const index = path.join(root, 'web/dist/index.html');
  const src = path.join(root, 'web/src');
  const missing = !fs.existsSync(index);
  const stale = !missing && fs.existsSync(src) && newestMtime(src) > fs.statSync(index).mtimeMs;
  if (missing || (stale && process.env.FW_WEB_BUILD === '1')) {
    console.log(`[tests/web] ${missing ? 'web/dist is missing' : 'web/dist is older than web/src'}: npm run build:web`);
    try {
      execFileSync('npm', ['run', 'build:web', '--silent'], { cwd: root, stdio: 'inherit' });
    } catch (err) {
      throw new Error(`the web client could not be built (npm run build:web): ${(err as Error).message}`);
    }
    if (!fs.existsSync(index)) throw new Error('npm run build:web finished but web/dist/index.html is still missing');
  } else if (stale) {
    console.warn('[tests/web] web/dist is older than web/src: the browser tests run the old build (npm run build:web, or FW_WEB_BUILD=1)');
  }
}
