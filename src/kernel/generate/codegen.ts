import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BadRequest } from '../errors.js';

/**
 * The project's typed GraphQL documents: graphql-codegen on its `codegen.ts`, in a process of its
 * own (it loads the config and the SDL itself). The generator is one of fw's dependencies, so it
 * is found from fw, not from the project's node_modules/.bin (npm links the binaries of direct
 * dependencies only). Resolves to false when the project has no codegen.ts; throws
 * CODEGEN_FAILED, after writing the generator's report (the document, its line, the error) to
 * `report`, when a document does not match the SDL.
 */
export async function runCodegen(root: string, fwRoot: string, report: (text: string) => void = (t) => process.stderr.write(t)): Promise<boolean> {
  if (!fs.existsSync(path.join(root, 'codegen.ts'))) return false;
  const pkg = createRequire(path.join(fwRoot, 'package.json')).resolve('@graphql-codegen/cli/package.json');
  const bin = path.join(path.dirname(pkg), 'esm', 'bin.js');
  // graphql-codegen prints no report at all under NODE_ENV=test (a test runner's, or a shell's)
  const { NODE_ENV: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [bin, '--config', 'codegen.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d; });
  child.stderr.on('data', (d: Buffer) => { out += d; });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) {
    // shown only when it failed: a success's progress lines say nothing
    report(out);
    throw new BadRequest(`graphql-codegen failed (exit ${code}): fix the documents it names, or run fw generate if the SDL is stale`, { root }, 'CODEGEN_FAILED');
  }
  return true;
}
