import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BootError } from '../errors.js';
import type { ProjectLayout } from '../modules/loader.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import type { ModelDecl } from '../declare.js';
import { chainDir, generateAppMigration, pendingChanges, PROVIDERS, readChain, SNAPSHOT, snapshotBefore, snapshotDiff, type ChainApp, type WrittenMigration } from './chains.js';
import { sha256Hex, type StoredMigration } from './runner.js';

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

/** What MIGRATION_LOSES_DATA tells a developer under fw dev, which takes no flag per change. */
export const DEV_LOSS_REMEDY =
  'or restart fw dev with --allow-data-loss to apply it to the dev database (fw migrate generate asks again when you finalise); until then the last good server keeps running';

export const isDraft = (folder: string): boolean => folder.endsWith(DRAFT_SUFFIX);

/** The app's draft folders, oldest first. */
export function draftsOf(app: Pick<ChainApp, 'name' | 'root'>): string[] {
  if (!app.root) return [];
  const dir = chainDir(app.root, app.name);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => isDraft(f) && fs.existsSync(path.join(dir, f, SNAPSHOT))).sort();
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
export async function writeDrafts(layout: ProjectLayout, apps: readonly ChainApp[], opts: { now?: Date; allowDataLoss?: boolean } = {}): Promise<WrittenMigration[]> {
  const out: WrittenMigration[] = [];
  for (const app of apps) {
    if (!app.root || path.resolve(app.root) !== path.resolve(layout.root) || !pendingChanges(app)) continue;
    const written = await generateAppMigration(layout.root, apps, app.name, {
      description: DRAFT_SUFFIX.slice(1), now: opts.now, allowDataLoss: opts.allowDataLoss, lossRemedy: DEV_LOSS_REMEDY,
    });
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

// ---------------------------------------------------------------------------------------------
// Drafts that left the chain after a dev tenant applied them

/** Where a dev server keeps the snapshot of each draft it has seen: `<DATA_DIR>/dev/drafts/<app>/<folder>.json`. */
const keptSnapshot = (dataDir: string, app: string, folder: string): string => path.join(dataDir, 'dev', 'drafts', app, `${folder}.json`);

/**
 * Under `fw dev`, what brings a dev tenant back in line with its chains when drafts it applied are
 * no longer there: the developer deleted them (to start the change again), or `fw migrate
 * generate` replaced them while the tenant had applied only some (the real migration would then
 * run into the columns the drafts made). Left alone, the tenant keeps their tables and columns
 * and records them as applied, and the next draft adding one of them back fails for good
 * ("duplicate column") — a draft is never rewritten.
 *
 * For each app, the applied drafts from the first one missing from the chain onwards are undone
 * in one step: the SQL from the newest one's declarations (a copy kept in `DATA_DIR` when the
 * tenant was opened with it in the chain) back to the chain's migration before the first, and
 * the tenant forgets them; the chain's drafts and migrations after that point then apply as
 * usual. Their dev data is gone with them, as the developer asked by deleting them.
 */
export function draftRewinds(
  apps: readonly ChainApp[], dataDir: string, provider: DbProvider, say: (line: string) => void = () => {},
): (applied: readonly string[]) => Promise<StoredMigration[]> {
  return async (applied) => {
    const out: StoredMigration[] = [];
    for (const app of apps) {
      const drafts = draftsOf(app);
      for (const d of drafts) {
        const copy = keptSnapshot(dataDir, app.name, d);
        if (fs.existsSync(copy)) continue;
        fs.mkdirSync(path.dirname(copy), { recursive: true });
        fs.copyFileSync(path.join(chainDir(app.root!, app.name), d, SNAPSHOT), copy);
      }
      const prefix = `${app.name}/`;
      const mine = applied.filter((n) => n.startsWith(prefix) && isDraft(n)).map((n) => n.slice(prefix.length)).sort();
      const first = mine.findIndex((d) => !drafts.includes(d));
      if (first < 0) continue;
      const undo = mine.slice(first);
      const tip = keptSnapshot(dataDir, app.name, undo.at(-1)!);
      if (!fs.existsSync(tip)) {
        throw new BootError(
          `the dev database holds the draft migration ${app.name}/${undo.at(-1)}, which is no longer in prisma/migrations/${app.name}, ` +
            `and fw dev kept no copy of it to undo it: put the folder back, or remove the dev database under ${dataDir} to start it again`,
          { app: app.name, drafts: undo }, 'DRAFT_GONE',
        );
      }
      const from = JSON.parse(fs.readFileSync(tip, 'utf8')) as ModelDecl[];
      const sql = await snapshotDiff(apps, app, from, snapshotBefore(app, undo[0]), provider);
      out.push({ name: `${app.name}/~rewind_dev`, sql, checksum: sha256Hex(sql), forgetNames: undo.map((d) => prefix + d) });
      say(`fw dev: ${prefix}${undo[0]} is no longer in prisma/migrations/${app.name}: undoing ${undo.map((d) => prefix + d).join(', ')} in the dev database, then applying the chain from there`);
    }
    return out;
  };
}
