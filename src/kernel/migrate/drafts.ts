import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BootError } from '../errors.js';
import type { ProjectLayout } from '../modules/loader.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import { chainDir, generateAppMigration, pendingChanges, PROVIDERS, readChain, type ChainApp, type WrittenMigration } from './chains.js';
import type { StoredMigration } from './runner.js';

/**
 * Draft migrations: what `fw dev` writes into an app's chain when its declarations change, so the
 * dev server can apply them at once. A draft is an ordinary chain folder (`<stamp>_draft_dev`,
 * both engines and the snapshot) whose SQL starts with a marker line; it is never rewritten once
 * written (a dev tenant has applied it), a further change gets a further draft.
 *
 * Only a server started with FW_DEV (the one `fw dev` supervises) may apply drafts: every other
 * boot refuses them, naming the app and the command that finalises them. `fw migrate generate`
 * finalises: it removes the app's drafts, writes the real migration from the last non-draft
 * snapshot and lists the drafts it replaces (`replaces.json`), so a dev tenant that applied them
 * records the real migration as applied instead of running it again (Django's `replaces`).
 */

export const DRAFT_SUFFIX = '_draft_dev';
const REPLACES = 'replaces.json';

export const draftMarker = (app: string): string =>
  `-- DRAFT written by fw dev: finalise with fw migrate generate -m "<what changed>" --app ${app}`;

export const isDraft = (folder: string): boolean => folder.endsWith(DRAFT_SUFFIX);

/** The app's draft folders, oldest first. */
export function draftsOf(app: Pick<ChainApp, 'name' | 'root'>): string[] {
  if (!app.root) return [];
  const dir = chainDir(app.root, app.name);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => isDraft(f) && fs.existsSync(path.join(dir, f, 'models.json'))).sort();
}

/** Outside `fw dev`: a BootError for the first app whose chain holds drafts. */
export function refuseDrafts(apps: readonly Pick<ChainApp, 'name' | 'root'>[]): void {
  for (const app of apps) {
    const drafts = draftsOf(app);
    if (!drafts.length) continue;
    throw new BootError(
      `app ${app.name} has draft migrations written by fw dev (${drafts.map((d) => `prisma/migrations/${app.name}/${d}`).join(', ')}); ` +
        `only fw dev applies them: finalise with fw migrate generate -m "<what changed>" --app ${app.name}`,
      { app: app.name, drafts }, 'DRAFT_MIGRATION',
    );
  }
}

/**
 * `fw dev` after a declaration changed: a draft for every app of the project whose declarations
 * are ahead of its chain. Foundation apps (another root) are never given one.
 */
export async function writeDrafts(layout: ProjectLayout, apps: readonly ChainApp[], now?: Date): Promise<WrittenMigration[]> {
  const out: WrittenMigration[] = [];
  for (const app of apps) {
    if (!app.root || path.resolve(app.root) !== path.resolve(layout.root) || !pendingChanges(app)) continue;
    const written = await generateAppMigration(layout.root, apps, app.name, { description: DRAFT_SUFFIX.slice(1), now });
    if (!written) continue;
    const dir = path.join(chainDir(app.root, app.name), written.folder);
    for (const p of PROVIDERS) {
      const file = path.join(dir, `${p}.sql`);
      // generateAppMigration's first line is its description: the marker takes its place
      const body = fs.readFileSync(file, 'utf8').split('\n').slice(1).join('\n');
      fs.writeFileSync(file, `${draftMarker(app.name)}\n${body}`);
    }
    out.push(written);
  }
  return out;
}

/**
 * Runs `write` (which writes the app's real migration, or returns null) with the app's drafts
 * out of the chain, so it diffs from the last non-draft snapshot. Written: the drafts are gone
 * and the new migration lists them in `replaces.json`. Nothing to write (the drafts' changes
 * were undone): the drafts are gone too. A failure puts them back.
 */
export async function replacingDrafts(
  app: Pick<ChainApp, 'name' | 'root'>,
  write: () => Promise<WrittenMigration | null>,
): Promise<{ written: WrittenMigration | null; replaced: string[] }> {
  const drafts = draftsOf(app);
  if (!drafts.length || !app.root) return { written: await write(), replaced: [] };
  const dir = chainDir(app.root, app.name);
  const aside = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-drafts-'));
  for (const d of drafts) fs.cpSync(path.join(dir, d), path.join(aside, d), { recursive: true });
  for (const d of drafts) fs.rmSync(path.join(dir, d), { recursive: true });
  try {
    const written = await write();
    const replaced = drafts.map((d) => `${app.name}/${d}`);
    if (written) fs.writeFileSync(path.join(dir, written.folder, REPLACES), `${JSON.stringify(replaced, null, 2)}\n`);
    return { written, replaced };
  } catch (err) {
    for (const d of drafts) fs.cpSync(path.join(aside, d), path.join(dir, d), { recursive: true });
    throw err;
  } finally {
    fs.rmSync(aside, { recursive: true, force: true });
  }
}

/** A finalised migration and the drafts it took the place of. */
export interface Replacement { migration: StoredMigration; replaces: string[] }

/** Every migration of `apps` that replaced drafts (read from its `replaces.json`). */
export function replacementsOf(apps: readonly Pick<ChainApp, 'name' | 'root'>[], provider: DbProvider): Replacement[] {
  return apps.flatMap((app) => readChain(app, provider).flatMap((m) => {
    const file = path.join(chainDir(app.root!, app.name), m.folder, REPLACES);
    return fs.existsSync(file) ? [{ migration: m, replaces: JSON.parse(fs.readFileSync(file, 'utf8')) as string[] }] : [];
  }));
}
