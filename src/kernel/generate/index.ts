import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ProjectLayout } from '../modules/loader.js';
import type { Registry } from '../registry/registry.js';
import { printPrismaSchema, type DbProvider } from './prisma-schema.js';

export const PROVIDERS: DbProvider[] = ['sqlite', 'postgresql'];

export const prismaSchemaPath = (layout: ProjectLayout, provider: DbProvider): string =>
  path.join(layout.root, 'prisma', provider, 'schema.prisma');

export function printSchemaFor(registry: Registry, provider: DbProvider): string {
  return printPrismaSchema(registry.models.values(), { provider, clientOutput: `../../generated/prisma/${provider}` });
}

/** Writes `prisma/<provider>/schema.prisma` for both providers; returns the files that changed. */
export function writePrismaSchemas(layout: ProjectLayout, registry: Registry): string[] {
  const changed: string[] = [];
  for (const provider of PROVIDERS) {
    const file = prismaSchemaPath(layout, provider);
    const text = printSchemaFor(registry, provider);
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) continue;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    changed.push(file);
  }
  return changed;
}

/**
 * Runs `prisma generate` for both schemas. The CLI insists on locating its native schema engine
 * even though generation does not use it, and cannot download one offline; any existing file
 * satisfies the check (see shared/notes/stack-facts.md).
 */
export function generatePrismaClients(layout: ProjectLayout, providers: readonly DbProvider[] = PROVIDERS): void {
  for (const provider of providers) {
    const { command, args, options } = prismaGenerate(layout, provider);
    execFileSync(command, args, { ...options, stdio: ['ignore', 'ignore', 'inherit'] });
  }
}

/**
 * The same for one schema, without blocking the event loop: `fw dev`'s next server boots its
 * kernel while the client is generated (the client is first imported when a tenant is opened).
 */
export function generatePrismaClientAsync(layout: ProjectLayout, provider: DbProvider): Promise<void> {
  const { command, args, options } = prismaGenerate(layout, provider);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`prisma generate (${provider}) exited with ${code}`))));
  });
}

function prismaGenerate(layout: ProjectLayout, provider: DbProvider) {
  // the Prisma CLI fw depends on, wherever npm put it (a team project's node_modules, or fw's own)
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('prisma/package.json')), 'build', 'index.js');
  return {
    command: process.execPath,
    args: [cli, 'generate', '--schema', prismaSchemaPath(layout, provider)],
    options: {
      cwd: layout.root,
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    },
  };
}
