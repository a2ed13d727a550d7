import { createRegistry } from '../kernel.js';
import { kernelApp } from '../kernel-app.js';
import { generatePrismaClientAsync, writeClientFingerprint, writePrismaSchemas } from '../generate/index.js';
import { writeDrafts } from '../migrate/drafts.js';
import { effectLine } from '../migrate/safety.js';
import { loadAllApps, type ProjectLayout } from '../modules/loader.js';

/**
 * `fw dev`'s step after a declaration changed, run by the next server before it boots (a fresh
 * process: the supervisor's module cache would hold the old declarations, and the apps this loads
 * are the ones the boot then finds in the cache): a draft migration for every app of the project
 * whose declarations are ahead of its chain, then the Prisma schemas, and the SQLite client only
 * when its schema text changed (a label or help text leaves it as it was), generated while the
 * server boots (`client`: awaited before a tenant is opened). The SDL, which the
 * server does not read, is written once it listens (`writeDevGenerated`). Returns the lines to print.
 */
export async function prepareDeclarations(
  layout: ProjectLayout,
  mark: (phase: string) => void = () => {},
  opts: { allowDataLoss?: boolean } = {},
): Promise<{ lines: string[]; client: Promise<void> }> {
  const apps = await loadAllApps(layout);
  const registry = createRegistry(apps);
  mark('load apps');
  const drafts = await writeDrafts(layout, [kernelApp(), ...apps], { allowDataLoss: opts.allowDataLoss });
  mark('drafts');
  const lines = drafts.flatMap((d) => [
    // what the dev database loses is said, as fw migrate generate says it
    ...d.effects.filter((e) => e.loses).map((e) => `${d.app}: ${effectLine(e)}`),
    `draft migration prisma/migrations/${d.app}/${d.folder} (finalise with fw migrate generate -m "…" --app ${d.app})`,
  ]);
  const changed = writePrismaSchemas(layout, registry);
  // what the client is generated from below (awaited before a tenant opens): boot checks it
  writeClientFingerprint(layout, registry);
  // the dev server runs on SQLite; `fw generate` brings the PostgreSQL client along later. The
  // client is generated while the server boots; it must be there before a tenant is opened
  const client = changed.some((f) => f.includes('sqlite'))
    ? generatePrismaClientAsync(layout, 'sqlite').then(() => {
      mark('prisma');
      process.stderr.write('generated the SQLite Prisma client\n');
    })
    : Promise.resolve();
  return { lines, client };
}

/**
 * Once the server listens (nothing it reads): generated/schema.graphql for the declarations as
 * they are now (for clients and codegen), when they changed, and generated/fw-types.ts (the
 * typed `fw.create`, commands' payloads: docs/app-api.md) after any change, commands being app
 * code. Returns the lines to print.
 */
export async function writeDevGenerated(layout: ProjectLayout, declarations: boolean): Promise<string[]> {
  const lines: string[] = [];
  if (declarations) {
    const { writeSdl } = await import('../../server/graphql/sdl.js');
    if (await writeSdl(layout)) lines.push('wrote generated/schema.graphql');
  }
  const { writeAppTypes } = await import('../generate/app-types.js');
  if (writeAppTypes(layout.root, createRegistry(await loadAllApps(layout)))) lines.push('wrote generated/fw-types.ts');
  return lines;
}
