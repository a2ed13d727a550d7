import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ddlShape } from '../migrate/chains.js';
import type { ProjectLayout } from '../modules/loader.js';
import { BootError } from '../errors.js';
import type { LoadedApp, Registry } from '../registry/registry.js';
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

/**
 * What the generated clients were built from: per model, the shape that reaches the database
 * (`ddlShape`). Written next to the clients by `fw generate`; boot compares it with the
 * declarations, so forgetting `fw generate` stops the start-up with the command to run instead of
 * answering every write on the model with an opaque 500 (Prisma's "Unknown argument").
 */
const fingerprintPath = (layout: ProjectLayout): string => path.join(layout.root, 'generated', 'prisma', 'models.json');

export function writeClientFingerprint(layout: ProjectLayout, registry: Registry): void {
  const shapes = Object.fromEntries(ddlShape(registry.apps.flatMap((a) => a.models), 'client'));
  fs.mkdirSync(path.dirname(fingerprintPath(layout)), { recursive: true });
  fs.writeFileSync(fingerprintPath(layout), `${JSON.stringify(shapes, null, 1)}\n`);
}

/** Refuses the boot when a loaded app's models differ from what the generated clients know. */
export function checkGeneratedClient(layout: ProjectLayout, apps: readonly LoadedApp[]): void {
  const file = fingerprintPath(layout);
  if (!fs.existsSync(file)) {
    throw new BootError(`no generated database client for this project (${path.relative(layout.root, file) || file} is missing): run fw generate`);
  }
  const known = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  for (const app of apps) {
    if (!app.root) continue; // test fixtures bring no tables
    for (const [key, shape] of ddlShape(app.models, 'client')) {
      if (known[key] !== shape) {
        throw new BootError(`the generated database client is older than the declaration of ${key} (schema/${app.name}/${key}.ts): run fw generate (fw dev does it on save)`, { model: key });
      }
    }
  }
}
