import { createRegistry } from '../kernel.js';
import { kernelApp } from '../kernel-app.js';
import { generatePrismaClients, writePrismaSchemas } from '../generate/index.js';
import { writeDrafts } from '../migrate/drafts.js';
import { loadAllApps, type ProjectLayout } from '../modules/loader.js';

/**
 * `fw dev`'s step after a declaration changed, run in a fresh process (`fw dev --prepare`: the
 * supervisor's own module cache holds the old declarations): a draft migration for every app of
 * the project whose declarations are ahead of its chain, then the Prisma schemas, and the SQLite
 * client only when its schema text changed (a label or help text leaves it as it was), then the
 * SDL. Returns the lines to print.
 */
export async function prepareDeclarations(layout: ProjectLayout): Promise<string[]> {
  const apps = await loadAllApps(layout);
  const registry = createRegistry(apps);
  const drafts = await writeDrafts(layout, [kernelApp(), ...apps]);
  const lines = drafts.map((d) => `draft migration prisma/migrations/${d.app}/${d.folder} (finalise with fw migrate generate -m "…" --app ${d.app})`);
  const changed = writePrismaSchemas(layout, registry);
  // the dev server runs on SQLite; `fw generate` brings the PostgreSQL client along later
  if (changed.some((f) => f.includes('sqlite'))) {
    generatePrismaClients(layout, ['sqlite']);
    lines.push('generated the SQLite Prisma client');
  }
  const { writeSdl } = await import('../../server/graphql/sdl.js');
  if (await writeSdl(layout)) lines.push('wrote generated/schema.graphql');
  return lines;
}
