import fs from 'node:fs';
import path from 'node:path';
import type { AppManifest } from '../app.js';
import { BootError } from '../errors.js';

/**
 * The files of an app that only its manifest's `data` makes the loader read: view files
 * (`views/<app>/*.xml`, listed as `views/<name>.xml`) and translation files
 * (`src/apps/<app>/i18n/*.json`, listed as `i18n/<name>.json`). One of them left out of `data`
 * is never parsed nor served, so the view or the translation its author is editing silently
 * does not exist: the boot stops instead, naming the files and the entries to add.
 */

/** The files of `files` with extension `ext` that data does not list as `<prefix><file>`. Pure; sorted. */
const unlisted = (files: readonly string[], data: readonly string[], prefix: string, ext: string): string[] => {
  const listed = new Set(data.filter((d) => d.startsWith(prefix)).map((d) => d.slice(prefix.length)));
  return files.filter((f) => f.endsWith(ext) && !listed.has(f)).sort();
};

/** The view files of `views/<app>/` (names relative to it) data does not list. Pure; sorted. */
export function unlistedViews(files: readonly string[], data: readonly string[]): string[] {
  return unlisted(files, data, 'views/', '.xml');
}

/** The translation files of `src/apps/<app>/i18n/` (names relative to it) data does not list. Pure; sorted. */
export function unlistedTranslations(files: readonly string[], data: readonly string[]): string[] {
  return unlisted(files, data, 'i18n/', '.json');
}

function refuse(manifest: AppManifest, files: string[], entries: string[]): void {
  if (!files.length) return;
  const one = files.length === 1;
  throw new BootError(`src/apps/${manifest.name}/manifest.ts: ${files.join(', ')} ${one ? 'is' : 'are'} not listed in data `
    + `(add ${entries.map((e) => `'${e}'`).join(', ')}), so ${one ? 'it is' : 'they are'} never loaded`,
  { app: manifest.name, files });
}

/** Stops the boot when `views/<app>/` holds a view file the manifest does not list. */
export function refuseUnlistedViews(viewsDir: string, manifest: AppManifest): void {
  const dir = path.join(viewsDir, manifest.name);
  if (!fs.existsSync(dir)) return;
  const names = unlistedViews(fs.readdirSync(dir), manifest.data);
  refuse(manifest, names.map((f) => `views/${manifest.name}/${f}`), names.map((f) => `views/${f}`));
}

/** Stops the boot when `src/apps/<app>/i18n/` holds a translation file the manifest does not list. */
export function refuseUnlistedTranslations(appsDir: string, manifest: AppManifest): void {
  const dir = path.join(appsDir, manifest.name, 'i18n');
  if (!fs.existsSync(dir)) return;
  const names = unlistedTranslations(fs.readdirSync(dir), manifest.data);
  refuse(manifest, names.map((f) => `src/apps/${manifest.name}/i18n/${f}`), names.map((f) => `i18n/${f}`));
}
