import { Option, type Command } from 'commander';
import { keepsRunning, progress } from './common.js';

/**
 * `fw dev`: serve the project and follow its files (src/kernel/dev/supervisor.ts). The hidden
 * option `--child` is the supervisor's own child: a spare server that loads its modules, waits
 * to be told to boot (first writing drafts and regenerating when declarations changed), and waits
 * again before listening.
 */
export function registerDev(program: Command, shellEnv: NodeJS.ProcessEnv): void {
  const cmd = program.command('dev')
    .description('serve the project on SQLite, reloading on every change of its declarations, views, data, code or .env')
    .option('--web [port]', "also serve the web client with hot reload (Vite) on this port (5173), fw's client and the apps' web/ code")
    .option('--allow-data-loss', 'let draft migrations drop or narrow columns of the dev database (fw migrate generate asks again when you finalise)')
    .addOption(new Option('--child').hideHelp())
    .action(async (opts: { child?: boolean; web?: boolean | string; allowDataLoss?: boolean }) => {
      const { projectLayout, FW_ROOT } = await import('../kernel/modules/loader.js');
      if (opts.child) {
        const { childHandshake } = await import('../kernel/dev/supervisor.js');
        // a supervisor gone (killed, crashed) takes its server with it
        process.on('disconnect', () => process.exit(0));
        // what every server loads, loaded while this process waits as the spare; apps are not
        const { startServer } = await import('../server/start.js');
        await import('../server/index.js');
        const { declarations } = await childHandshake.spare();
        // the .env as it is now, not as it was when the spare started
        const fs = await import('node:fs');
        for (const key of Object.keys(process.env)) if (!(key in shellEnv)) delete process.env[key];
        Object.assign(process.env, shellEnv);
        const envFile = (await import('node:path')).join(projectLayout().root, '.env');
        if (fs.existsSync(envFile)) process.loadEnvFile(envFile);
        const { prepareDeclarations, writeDevGenerated } = await import('../kernel/dev/prepare.js');
        const { mark } = await import('./timing.js');
        const prepared = declarations ? await prepareDeclarations(projectLayout(), mark, { allowDataLoss: opts.allowDataLoss }) : null;
        prepared?.lines.forEach(progress);
        // a failed generation fails this server's start (the last good one keeps running)
        prepared?.client.catch(() => {});
        await startServer({
          ...childHandshake,
          beforeTenant: prepared?.client,
          listening: () => {
            childHandshake.listening();
            void writeDevGenerated(projectLayout(), declarations).then((lines) => lines.forEach(progress), (err: unknown) => progress(`fw dev: the SDL and app types were not written: ${String(err)}`));
          },
        });
        return;
      }
      const path = await import('node:path');
      const { DevSupervisor } = await import('../kernel/dev/supervisor.js');
      const layout = projectLayout();
      const dev = new DevSupervisor({ root: layout.root, fwBin: path.join(FW_ROOT, 'bin', 'fw.js'), env: shellEnv, log: progress, allowDataLoss: opts.allowDataLoss });
      const stop = async () => {
        await dev.stop();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
      progress(`fw dev: watching ${layout.root}`);
      await dev.start();
      if (opts.web) {
        const { startWebDevServer } = await import('../kernel/dev/web.js');
        const web = await startWebDevServer(layout, { port: opts.web === true ? 5173 : Number(opts.web), log: progress });
        progress(`fw dev: web client with hot reload on ${web.url}`);
      }
    });
  keepsRunning.add(cmd);
}
