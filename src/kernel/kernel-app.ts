import type { AppModule } from './app.js';
import type { LoadedApp } from './registry/registry.js';
import irEvent from '../../schema/kernel/ir.event.js';
import irModule from '../../schema/kernel/ir.module.js';
import { eventCommands } from './events/commands.js';
import { FW_ROOT } from './modules/loader.js';

/** The kernel's own tables and commands, present in every registry ahead of any app. */
export function kernelApp(): LoadedApp {
  const module: AppModule = {
    manifest: {
      name: 'kernel',
      summary: 'fw kernel',
      description: 'Event outbox and kernel commands',
      author: 'fw',
      category: 'Kernel',
      version: '1.0.0',
      depends: [],
      data: [],
    },
    commands: eventCommands,
  };
  return { name: 'kernel', domain: null, manifest: module.manifest, module, models: [irEvent, irModule], dataFiles: [], root: FW_ROOT };
}
