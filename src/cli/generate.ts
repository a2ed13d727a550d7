import type { Command } from 'commander';
import { progress } from './common.js';
import { mark } from './timing.js';

export function registerGenerate(program: Command): void {
  program.command('generate')
    .description('declarations → Prisma schemas and clients, generated/schema.graphql, generated/fw-types.ts')
    .action(() => generate());
}

/** `fw generate`: the project's Prisma schemas and clients, its SDL and its app types, from every app it has. */
export async function generate(): Promise<void> {
  const { generatePrismaClients, writeClientFingerprint, writePrismaSchemas } = await import('../kernel/generate/index.js');
  const { fullRegistry } = await import('../kernel/generate/registry-all.js');
  const { projectLayout } = await import('../kernel/modules/loader.js');
  const layout = projectLayout();
  progress('[1/5] loading every app');
  const registry = await fullRegistry(layout);
  mark('load apps');
  progress('[2/5] writing the Prisma schemas');
  const changed = writePrismaSchemas(layout, registry);
  progress('[3/5] generating the Prisma clients');
  generatePrismaClients(layout);
  writeClientFingerprint(layout, registry);
  mark('prisma generate');
  progress('[4/5] writing the GraphQL SDL');
  const { writeSdl } = await import('../server/graphql/sdl.js');
  if (await writeSdl(layout)) changed.push('generated/schema.graphql');
  mark('sdl');
  progress('[5/5] writing the app types');
  const { writeAppTypes } = await import('../kernel/generate/app-types.js');
  if (writeAppTypes(layout.root, registry)) changed.push('generated/fw-types.ts');
  mark('app types');
  console.log(changed.length ? `wrote ${changed.join(', ')}` : 'schemas unchanged', '— clients generated');
}
