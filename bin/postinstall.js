#!/usr/bin/env node
// After `npm ci` in fw's own repository: the Prisma clients, the SDL, the typed documents and the
// web client are built from the checkout. Installed as a dependency of a team's project, fw ships
// its prebuilt client and the project generates its own clients (its `postinstall: fw generate`),
// so nothing runs here: the packed fw has no tests/ folder, which is how the two are told apart.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!fs.existsSync(path.join(root, 'tests'))) process.exit(0);
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: false });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
run(bin('tsx'), ['src/cli.ts', 'generate']);
// `fw build web` runs the codegen (typed documents of the tests and the client) before bundling
run(bin('tsx'), ['src/cli.ts', 'build', 'web']);
