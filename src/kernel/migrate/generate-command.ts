import path from 'node:path';
import { kernelApp } from '../kernel-app.js';
import { loadAllApps, type ProjectLayout } from '../modules/loader.js';
import { replacingDrafts } from './drafts.js';
import { generateAppMigration, pendingChanges, pendingMessage, PROVIDERS, type ChainApp } from './chains.js';

/**
 * `fw migrate generate -m <description> --app <app>`: writes the app's next migration (only its
 * own tables) and names every other app of the project whose declarations are ahead of its chain,
 * since those changes are not picked up. Returns the lines to print.
 */
export async function migrateGenerate(layout: ProjectLayout, app: string, description: string, now?: Date): Promise<string[]> {
  const apps: ChainApp[] = [kernelApp(), ...(await loadAllApps(layout))];
  const target = apps.find((a) => a.name === app);
  // drafts fw dev wrote for the app are replaced by this migration, diffed from the last real one
  const { written, replaced } = target
    ? await replacingDrafts(target, () => generateAppMigration(layout.root, apps, app, { description, now }))
    : { written: await generateAppMigration(layout.root, apps, app, { description, now }), replaced: [] };
  const lines = written
    ? PROVIDERS.map((p) => `wrote ${path.relative(layout.root, path.join(layout.root, 'prisma', 'migrations', app, written.folder, `${p}.sql`))}`)
    : [`no changes: the declarations of ${app} match its last migration`];
  if (replaced.length) lines.push(`replaced the drafts ${replaced.join(', ')}`);
  for (const other of apps) {
    if (other.name === app || path.resolve(other.root ?? '') !== path.resolve(layout.root)) continue;
    const pending = pendingChanges(other);
    if (pending) lines.push(pendingMessage(other.name, pending));
  }
  return lines;
}
