import type { Command } from 'commander';
import { progress } from './common.js';

/**
 * `fw build web`: the web client a project serves, fw's client with the project's apps' web/
 * code (each app a chunk of its own), into `<project>/web/dist`. The project's typed GraphQL
 * documents are generated first (its codegen.ts), so an app's `graphql(…)` calls are checked
 * against the project's SDL. fw's own repository builds the same way (`npm run build:web`).
 */
export function registerBuild(program: Command): void {
  const build = program.command('build').description('build what the project ships');
  build.command('web')
    .description("fw's web client with the project's apps' web/ code, into web/dist (runs the project's codegen first)")
    .option('--no-codegen', 'skip the typed documents (they are current)')
    .action((opts: { codegen: boolean }) => buildWeb({ codegen: opts.codegen }));
}

export async function buildWeb(opts: { codegen?: boolean } = {}): Promise<void> {
  const path = await import('node:path');
  const { projectLayout } = await import('../kernel/modules/loader.js');
  const layout = projectLayout();
  if (opts.codegen !== false) {
    const { runCodegen } = await import('../kernel/generate/codegen.js');
    // a project without codegen.ts has no typed documents of its own: nothing to run
    if (await runCodegen(layout.root, layout.fwRoot)) progress('[1/2] typed GraphQL documents written (codegen.ts)');
  }
  progress('[2/2] bundling the client');
  // web/vite.config.ts reads the project from FW_PROJECT_ROOT when it loads
  process.env.FW_PROJECT_ROOT = layout.root;
  const { build } = await import('vite');
  await build({ configFile: path.join(layout.fwRoot, 'web', 'vite.config.ts'), logLevel: 'warn' });
  progress(`wrote ${path.relative(process.cwd(), path.join(layout.root, 'web', 'dist')) || '.'}`);
}
