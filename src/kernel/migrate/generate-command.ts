import path from 'node:path';
import { kernelApp } from '../kernel-app.js';
import { loadAllApps, type ProjectLayout } from '../modules/loader.js';
import { replacingDrafts } from './drafts.js';
import { generateAppMigration, pendingChanges, pendingMessage, PROVIDERS, type ChainApp } from './chains.js';
import { DATA_FILE } from './data-migration.js';
import { effectLine } from './safety.js';

export interface GenerateOptions {
  /** Write it even when it drops or narrows columns (refused otherwise: safety.ts). */
  allowDataLoss?: boolean;
  /** Also write a data.ts stub (data-migration.ts). */
  data?: boolean;
  now?: Date;
}

/**
 * `fw migrate generate -m <description> --app <app>`: writes the app's next migration (only its
 * own tables) and names every other app of the project whose declarations are ahead of its chain,
 * since those changes are not picked up. Returns the lines to print: first what each change
 * does to existing rows, then the files written.
 */
export async function migrateGenerate(layout: ProjectLayout, app: string, description: string, opts: GenerateOptions = {}): Promise<string[]> {
  const apps: ChainApp[] = [kernelApp(), ...(await loadAllApps(layout))];
  const target = apps.find((a) => a.name === app);
  const write = () => generateAppMigration(layout.root, apps, app, { description, ...opts });
  // drafts fw dev wrote for the app are replaced by this migration, diffed from the last real one
  const { written, replaced } = target ? await replacingDrafts(target, write) : { written: await write(), replaced: [] };
  const file = (folder: string, name: string): string => path.join('prisma', 'migrations', app, folder, name);
  const lines = written
    ? [
      ...written.effects.map(effectLine),
      ...PROVIDERS.map((p) => `wrote ${file(written.folder, `${p}.sql`)}`),
      ...(written.data ? [`wrote ${file(written.folder, DATA_FILE)}`] : []),
    ]
    : [`no changes: the declarations of ${app} match its last migration`];
  if (replaced.length) lines.push(`replaced the drafts ${replaced.join(', ')}`);
  for (const other of apps) {
    if (other.name === app || path.resolve(other.root ?? '') !== path.resolve(layout.root)) continue;
    const pending = pendingChanges(other);
    if (pending) lines.push(pendingMessage(other.name, pending));
  }
  return lines;
}
