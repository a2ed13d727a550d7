import path from 'node:path';
import { rootDirs } from '../modules/loader.js';

/**
 * What a changed file asks of `fw dev`: `declarations` (schema/**: drafts, then a new server),
 * `restart` (views, data files, app code, domain lists, .env: a new server), or nothing (a file
 * the server never reads, such as an app's web/ client sources, built by the web client's build).
 */
export type ChangeKind = 'declarations' | 'restart' | null;

/** The folders and file `fw dev` watches under the project root. */
export function watchedPaths(root: string): { dirs: string[]; env: string } {
  const d = rootDirs(root);
  return { dirs: [d.schema, d.views, d.apps, d.domains], env: path.join(root, '.env') };
}

export function classify(root: string, file: string): ChangeKind {
  const d = rootDirs(root);
  const abs = path.resolve(root, file);
  const under = (dir: string) => abs.startsWith(dir + path.sep);
  if (abs === path.join(root, '.env')) return 'restart';
  if (under(d.schema)) return 'declarations';
  if (under(d.apps)) {
    const rel = path.relative(d.apps, abs).split(path.sep);
    // <app>/web/** is client code; editor backups and the like are not sources
    if (rel[1] === 'web' || rel.at(-1)!.endsWith('~') || rel.at(-1)!.startsWith('.#')) return null;
    return 'restart';
  }
  if (under(d.views) || under(d.domains)) return 'restart';
  return null;
}
