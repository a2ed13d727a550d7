#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so `npx fw …` works without a build step, in fw's own
// repository and in a team project that installed fw (where npm may have put tsx next to fw
// rather than inside it: resolved like any dependency).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const r = spawnSync(process.execPath, [tsx, path.join(root, 'src', 'cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
