/**
 * The `fw` CLI entry (bin/fw.js and the package scripts run it with tsx). It builds the commander
 * program from the command groups in src/cli/; each action imports what it needs when it runs,
 * so `fw --help` and usage errors load no kernel, Prisma or fastify.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, Help } from 'commander';
import { findProjectRoot } from './kernel/modules/loader.js';
import { keepsRunning } from './cli/common.js';
import { FwError } from './kernel/errors.js';
import { registerApp } from './cli/app.js';
import { registerBuild } from './cli/build.js';
import { registerDev } from './cli/dev.js';
import { registerE2e } from './cli/e2e.js';
import { registerEvents } from './cli/events.js';
import { registerGenerate } from './cli/generate.js';
import { registerMcp } from './cli/mcp.js';
import { registerMigrate } from './cli/migrate.js';
import { registerNew } from './cli/new.js';
import { overview } from './cli/overview.js';
import { registerServe } from './cli/serve.js';
import { registerTenant } from './cli/tenant.js';
import { mark } from './cli/timing.js';

function buildProgram(shellEnv: NodeJS.ProcessEnv): Command {
  const program = new Command('fw')
    .description('fw — model-driven application platform')
    .enablePositionalOptions()
    .helpCommand(false)
    // the root help lists every command with its options (overview) instead of the groups only;
    // the groups' help (inheriting this) keeps commander's list
    .configureHelp({ visibleCommands: (cmd) => (cmd.parent ? new Help().visibleCommands(cmd) : []) })
    .showHelpAfterError();
  registerServe(program);
  registerDev(program, shellEnv);
  registerGenerate(program);
  registerBuild(program);
  registerMigrate(program);
  registerTenant(program);
  registerApp(program);
  registerNew(program);
  registerEvents(program);
  registerMcp(program);
  registerE2e(program);
  program.addHelpText('after', () => overview(program));
  return program;
}

/**
 * A project's `.env` (a team project written by `fw new project` has one): its settings, under
 * whatever the environment already sets. Read before any setting is.
 */
function loadProjectEnv(): void {
  const file = path.join(findProjectRoot(), '.env');
  if (fs.existsSync(file)) process.loadEnvFile(file);
}

// `fw dev` starts its servers from the shell's environment: each reads the .env as it is then
const shellEnv = { ...process.env };
loadProjectEnv();
mark('cli loaded');
const program = buildProgram(shellEnv);
let running = false;
program.hook('preAction', (_root, action) => {
  running = keepsRunning.has(action);
});
program.parseAsync(process.argv).then(
  () => {
    // a finished command exits now: an open pool or timer must not keep the process alive
    if (!running) process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    console.error(err instanceof FwError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
