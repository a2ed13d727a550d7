import type { Command } from 'commander';
import { progress } from './common.js';

export function registerNew(program: Command): void {
  const create = program.command('new').description('start a project or an app').helpCommand(false);

  create.command('project')
    .description('write a team project (fw\'s layout) depending on this fw, in <dir>')
    .argument('<dir>', 'folder of the new project (must be missing or empty)')
    .option('--fw <spec>', 'how package.json names fw: file:<checkout> (default: this one) or file:<fw-x.y.z.tgz> from npm pack')
    .action(async (dir: string, opts: { fw?: string }) => {
      const { newProject } = await import('../kernel/scaffold/index.js');
      const written = newProject(dir, { fwSpec: opts.fw });
      console.log(`wrote ${written.length} files in ${dir}`);
      console.log(`next: cd ${dir} && npm install && npx fw new app <domain>.<app>`);
    });

  create.command('app')
    .description('scaffold <domain>.<app> in this project: manifest, model, views, menu, command, hook, test, first migration')
    .argument('<name>', 'the app, <domain>.<app> (e.g. helpdesk.desk)')
    .option('--model <key>', 'its first model (default: the app name)')
    .action(async (name: string, opts: { model?: string }) => {
      const { newApp } = await import('../kernel/scaffold/index.js');
      const { projectLayout } = await import('../kernel/modules/loader.js');
      const layout = projectLayout();
      progress(`[1/3] writing ${name}`);
      const written = await newApp(layout.root, name, { model: opts.model });
      for (const f of written) console.log(`wrote ${f}`);
      // the project boots with the app at once: its client and its first migration exist
      progress('[2/3] generating the clients');
      const { generate } = await import('./generate.js');
      await generate();
      progress(`[3/3] writing the first migration of ${name}`);
      const { migrateGenerate } = await import('../kernel/migrate/generate-command.js');
      for (const line of await migrateGenerate(layout, name, 'initial schema')) console.log(line);
    });
}
