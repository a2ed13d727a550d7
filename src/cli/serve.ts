import type { Command } from 'commander';
import { keepsRunning } from './common.js';

export function registerServe(program: Command): void {
  const cmd = program.command('serve')
    .description('start the HTTP server (HOST, PORT)')
    .action(async () => {
      const { startServer } = await import('../server/start.js');
      await startServer();
    });
  keepsRunning.add(cmd);
}
