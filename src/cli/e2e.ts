import type { Command } from 'commander';

/** `fw e2e` keeps its own options and usage (src/apps/qa/cli.ts): everything after `e2e` is passed on as is. */
export function registerE2e(program: Command): void {
  program.command('e2e')
    .description('QA automation: record|import|replay|polish|gate (fw e2e --help)')
    .argument('[args...]', 'the e2e subcommand and its options')
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .action(async (args: string[]) => {
      const { e2e } = await import('../apps/qa/cli.js');
      process.exitCode = await e2e(args);
    });
}
