import fs from 'node:fs';
import path from 'node:path';
import type { AppManifest } from '../app.js';
import { BootError } from '../errors.js';

/**
 * The view files of an app's folder (`views/<app>/*.xml`, names relative to it) that its
 * manifest's `data` does not list (as `views/<name>.xml`): such a file is never parsed nor
 * served, so the view its author is editing silently does not exist. Pure; sorted.
 */
export function unlistedViews(files: readonly string[], data: readonly string[]): string[] {
  const listed = new Set(data.filter((d) => d.startsWith('views/')).map((d) => d.slice('views/'.length)));
  return files.filter((f) => f.endsWith('.xml') && !listed.has(f)).sort();
}

/**
 * Stops the boot when `views/<app>/` holds a view file the manifest does not list, naming the
 * files and the manifest to add them to.
 */
export function refuseUnlistedViews(viewsDir: string, manifest: AppManifest): void {
  const dir = path.join(viewsDir, manifest.name);
  if (!fs.existsSync(dir)) return;
  const unlisted = unlistedViews(fs.readdirSync(dir), manifest.data);
  if (!unlisted.length) return;
  const files = unlisted.map((f) => `views/${manifest.name}/${f}`);
  throw new BootError(`src/apps/${manifest.name}/manifest.ts: ${files.join(', ')} ${unlisted.length === 1 ? 'is' : 'are'} not listed in data `
    + `(add ${unlisted.map((f) => `'views/${f}'`).join(', ')}), so ${unlisted.length === 1 ? 'it is' : 'they are'} never loaded`,
  { app: manifest.name, files });
}
