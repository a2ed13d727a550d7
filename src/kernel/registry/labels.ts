import type { ResolvedField, ResolvedModel } from './model.js';
import type { Registry } from './registry.js';
import { translationFilesOf, type TranslationFile } from './translation-files.js';

/**
 * Model and field labels in a person's language, for answers built outside render plans (the
 * columns export and import offer): the `model.<model>.field.<field>` keys of the active apps'
 * translation files (`translationFilesOf`, read once per registry), which the presentation app
 * checks key by key at boot.
 */
const catalogs = new WeakMap<Registry, Map<string, Map<string, string>>>();

function catalogOf(registry: Registry, lang: string): Map<string, string> | undefined {
  let byLang = catalogs.get(registry);
  if (!byLang) {
    byLang = new Map();
    let files: readonly TranslationFile[] = [];
    try {
      files = translationFilesOf(registry);
    } catch {
      // a broken file stops the boot where translations are checked; here it translates nothing
    }
    for (const { lang: language, entries } of files) {
      const catalog = byLang.get(language) ?? new Map<string, string>();
      byLang.set(language, catalog);
      for (const [key, text] of Object.entries(entries)) if (key.startsWith('model.') && typeof text === 'string') catalog.set(key, text);
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
