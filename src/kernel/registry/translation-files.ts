import fs from 'node:fs';
import path from 'node:path';
import { BootError } from '../errors.js';
import type { Registry } from './registry.js';

/** One app's `i18n/<lang>.json` (docs/views.md#translations), parsed. */
export interface TranslationFile {
  /** `src/apps/<app>/i18n/<lang>.json`, for messages. */
  rel: string;
  lang: string;
  entries: Record<string, unknown>;
}

const parsed = new WeakMap<Registry, readonly TranslationFile[]>();

/**
 * The active apps' translation files (LoadedApp.translationFiles), read and parsed once per
 * registry for everything that translates: the presentation app's checked catalogue (render
 * plans, the bootstrap) and the kernel's field labels (export and import columns). A file that
 * is not a JSON object stops the boot naming it.
 */
export function translationFilesOf(registry: Registry): readonly TranslationFile[] {
  let files = parsed.get(registry);
  if (files) return files;
  files = registry.apps.flatMap((app) => (app.translationFiles ?? []).map((file) => {
    const rel = path.join('src/apps', app.name, 'i18n', path.basename(file));
    let entries: unknown;
    try {
      entries = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new BootError(`${rel}: not valid JSON (${(e as Error).message})`);
    }
    if (!entries || typeof entries !== 'object' || Array.isArray(entries)) throw new BootError(`${rel}: must be one JSON object of key → text`);
    return { rel, lang: path.basename(file, '.json'), entries: entries as Record<string, unknown> };
  }));
  parsed.set(registry, files);
  return files;
}
