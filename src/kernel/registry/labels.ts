import fs from 'node:fs';
import path from 'node:path';
import type { ResolvedField, ResolvedModel } from './model.js';
import type { Registry } from './registry.js';

/**
 * Model and field labels in a person's language, for answers built outside render plans (the
 * columns export and import offer): the `model.<model>.field.<field>` keys of the active apps'
 * translation files (`src/apps/<app>/i18n/<lang>.json`, listed in their manifests), which the
 * presentation app checks key by key at boot. Read once per registry; a file that is missing or
 * not an object translates nothing here (the boot check names it).
 */
const catalogs = new WeakMap<Registry, Map<string, Map<string, string>>>();

function catalogOf(registry: Registry, lang: string): Map<string, string> | undefined {
  let byLang = catalogs.get(registry);
  if (!byLang) {
    byLang = new Map();
    for (const app of registry.apps) {
      for (const file of app.translationFiles ?? []) {
        let entries: unknown;
        try {
          entries = JSON.parse(fs.readFileSync(file, 'utf8'));
        } catch {
          continue;
        }
        if (!entries || typeof entries !== 'object' || Array.isArray(entries)) continue;
        const language = path.basename(file, '.json');
        const catalog = byLang.get(language) ?? new Map<string, string>();
        byLang.set(language, catalog);
        for (const [key, text] of Object.entries(entries)) if (key.startsWith('model.') && typeof text === 'string') catalog.set(key, text);
      }
    }
    catalogs.set(registry, byLang);
  }
  return byLang.get(lang);
}

/** The field's label as its declaration gives it (its description, else its name). */
export const sourceLabel = (field: ResolvedField): string => field.description || field.name;

/** The field's label in `lang` when an app translates it, else its own. */
export function fieldLabel(registry: Registry, model: ResolvedModel, field: ResolvedField, lang: string | null | undefined): string {
  const text = lang ? catalogOf(registry, lang)?.get(`model.${model.key}.field.${field.name}`) : undefined;
  return text ?? sourceLabel(field);
}
