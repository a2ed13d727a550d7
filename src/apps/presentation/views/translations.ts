import fs from 'node:fs';
import { BootError } from '../../../kernel/errors.js';
import { enumValueLabel } from '../../../kernel/registry/model.js';
import type { Registry } from '../../../kernel/registry/registry.js';
import { translationFilesOf } from '../../../kernel/registry/translation-files.js';
import type { RenderPlan } from './plan.js';

/**
 * The apps' translations of what the server names in English (docs/views.md#translations): one
 * `i18n/<lang>.json` per app and language, listed in the manifest's `data`, keyed by stable ids:
 *
 *   model.<model>                       the model's description
 *   model.<model>.field.<field>         a field's label (where a view does not set its own)
 *   model.<model>.field.<field>.help    a field's help text
 *   enum.<model>.<field>.<value>        an enum value's label (`value_labels` of plan fields, kanban columns)
 *   view.<view_id>.title                a view's title
 *   view.<view_id>.string.<English>     any other text of that view (a page, a group, a button,
 *                                       a filter, a label the view sets itself)
 *   menu.<xml_id>, action.<xml_id>      a menu entry's or an action's name
 *   group.<group>                       a security group's label (manifest `groups`)
 *   group.<group>.description           a security group's description
 *   app.<app>.summary                   an app's summary (manifest `summary`)
 *
 * Read once at boot and checked: a key naming nothing, a text that is not a string, a key two
 * apps translate, or a language the client has no catalogue for stops the boot naming the file.
 * English is the declarations' own language; a text without a translation stays English.
 */
export const SOURCE_LANGUAGE = 'en';

/** The languages the client speaks: the values of `res.user.lang` (English when base is not loaded). */
export function clientLanguages(registry: Registry): readonly string[] {
  return registry.models.get('res.user')?.fields.get('lang')?.values ?? [SOURCE_LANGUAGE];
}

type Rec = Record<string, unknown>;
/** Looks a text up: its specific key first, then the key of what it is the default text of. */
type Lookup = (text: string, keys: ReadonlyArray<string | null>) => string;

/** The xml ids of the ir.menu / ir.action records the active apps' data files declare. */
function dataIds(registry: Registry, model: string): Set<string> {
  const out = new Set<string>();
  for (const app of registry.apps) {
    for (const file of app.dataFiles.filter((f) => f.endsWith('.json'))) {
      const blocks = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      if (!Array.isArray(blocks)) continue;
      for (const b of blocks as Rec[]) {
        if (b?.model !== model || !Array.isArray(b.records)) continue;
        for (const r of b.records as Rec[]) if (typeof r?.xml_id === 'string') out.add(r.xml_id);
      }
    }
  }
  return out;
}

/** Keys in plans that hold code or free JSON, never text people read. */
const NOT_TEXT = new Set(['domain', 'modifiers', 'options', 'default', 'values']);

/**
 * A render plan with every text people read passed through `lookup`: the title, field labels
 * (of the plan's model, or of a nested list's), group and page titles, buttons, filters, kanban
 * columns. `label`/`string` properties are the texts; the object they sit on says what they name.
 */
export function translatePlan(plan: RenderPlan, registry: Registry, lookup: Lookup): RenderPlan {
  const viewKey = (text: string) => `view.${plan.view_id}.string.${text}`;
  const fieldKey = (model: string, name: unknown, text: string): string | null => {
    const f = typeof name === 'string' ? registry.models.get(model)?.fields.get(name) : undefined;
    return f && f.description === text ? `model.${model}.field.${f.name}` : null;
  };
  const groupField = typeof plan.groupby_field === 'string' ? plan.groupby_field : null;
  const group = groupField ? registry.models.get(plan.model)?.fields.get(groupField) : undefined;
  const walk = (v: unknown, model: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, model));
    if (!v || typeof v !== 'object') return v;
    const o = v as Rec;
    const inner = typeof o.model === 'string' && typeof o.inverse === 'string' ? o.model : model; // a nested list
    const out: Rec = {};
    for (const [k, x] of Object.entries(o)) {
      if (NOT_TEXT.has(k)) out[k] = x;
      else if ((k === 'label' || k === 'string') && typeof x === 'string') {
        const named = fieldKey(model, o.field ?? o.name, x)
          ?? (groupField && typeof o.value === 'string' && (x === o.value || x === enumValueLabel(group ?? {}, o.value)) ? `enum.${plan.model}.${groupField}.${o.value}` : null);
        out[k] = lookup(x, [viewKey(x), named]);
      } else if (k === 'help' && typeof x === 'string') {
        const f = typeof o.name === 'string' ? registry.models.get(model)?.fields.get(o.name) : undefined;
        out[k] = lookup(x, [f && f.help === x ? `model.${model}.field.${f.name}.help` : null]);
      } else out[k] = walk(x, inner);
    }
    const f = Array.isArray(o.values) && typeof o.name === 'string' ? registry.models.get(model)?.fields.get(o.name) : undefined;
    if (f?.type === 'enum') {
      out.value_labels = (o.values as string[]).map((v) => lookup(enumValueLabel(f, v), [`enum.${model}.${f.name}.${v}`]));
    }
    return out;
  };
  const translated = walk(plan, plan.model) as RenderPlan;
  const registryTitle = registry.models.get(plan.model)?.description;
  translated.title = lookup(plan.title, [`view.${plan.view_id}.title`, plan.title === registryTitle ? `model.${plan.model}` : null]);
  return translated;
}

/** Every text of a plan a `view.<id>.string.<text>` key may translate. */
function planTexts(plan: RenderPlan, registry: Registry): Set<string> {
  const out = new Set<string>();
  const prefix = `view.${plan.view_id}.string.`;
  translatePlan(plan, registry, (text, keys) => {
    if (keys[0]?.startsWith(prefix)) out.add(text);
    return text;
  });
  return out;
}

/** What `check` answers for a `view.<id>.string.<text>` key whose text the view does not show. */
const STALE_TEXT = 'stale';

export class Translations {
  /** language → key → text */
  private readonly catalogs = new Map<string, Map<string, string>>();

  constructor(private readonly registry: Registry, plans: ReadonlyMap<string, RenderPlan>) {
    const languages = clientLanguages(registry);
    const menus = dataIds(registry, 'ir.menu');
    const actions = dataIds(registry, 'ir.action');
    const texts = new Map<string, Set<string>>();
    const from = new Map<string, string>();
    for (const { rel, lang, entries } of translationFilesOf(registry)) {
      if (lang === SOURCE_LANGUAGE) throw new BootError(`${rel}: English is the declarations' own language; translate into ${languages.filter((l) => l !== SOURCE_LANGUAGE).join(', ') || 'another language'}`);
      if (!languages.includes(lang)) throw new BootError(`${rel}: the client has no language "${lang}" (res.user.lang is one of ${languages.join(', ')})`);
      const catalog = this.catalogs.get(lang) ?? new Map<string, string>();
      this.catalogs.set(lang, catalog);
      for (const [key, text] of Object.entries(entries)) {
        if (typeof text !== 'string' || !text.trim()) throw new BootError(`${rel}: "${key}" must be a non-empty text`);
        const problem = this.check(key, plans, menus, actions, texts);
        // a view text the view no longer shows: the view's English changed and its translation
        // has not caught up yet (fw dev reloads on every edit); it translates nothing, as
        // Odoo's terms whose source changed, and is not worth a boot failure
        if (problem === STALE_TEXT) continue;
        if (problem) throw new BootError(`${rel}: unknown key "${key}" (${problem})`);
        const other = from.get(`${lang}\0${key}`);
        if (other) throw new BootError(`${rel}: "${key}" is already translated by ${other}`);
        from.set(`${lang}\0${key}`, rel);
        catalog.set(key, text);
      }
    }
  }

  /** What is wrong with a key, or null when it names something that exists. */
  private check(key: string, plans: ReadonlyMap<string, RenderPlan>, menus: Set<string>, actions: Set<string>, texts: Map<string, Set<string>>): string | null {
    const { registry } = this;
    const dot = key.indexOf('.');
    const kind = key.slice(0, dot);
    const rest = key.slice(dot + 1);
    switch (kind) {
      case 'model': {
        const at = rest.indexOf('.field.');
        const model = registry.models.get(at < 0 ? rest : rest.slice(0, at));
        if (!model) return `no model "${at < 0 ? rest : rest.slice(0, at)}"`;
        if (at < 0) return null;
        const [name, part, ...more] = rest.slice(at + '.field.'.length).split('.');
        const f = model.fields.get(name);
        if (!f) return `${model.key} has no field "${name}"`;
        if (part === undefined) return null;
        if (part !== 'help' || more.length) return 'a field key ends in .field.<field> or .field.<field>.help';
        return f.help ? null : `${model.key}.${name} declares no help`;
      }
      case 'enum': {
        const model = [...registry.models.keys()].filter((m) => rest.startsWith(`${m}.`)).sort((a, b) => b.length - a.length)[0];
        if (!model) return 'no model at the start of it';
        const [field, ...value] = rest.slice(model.length + 1).split('.');
        const f = registry.model(model).fields.get(field);
        if (!f?.values) return `${model}.${field} is not an enum field`;
        return f.values.includes(value.join('.')) ? null : `${model}.${field} has no value "${value.join('.')}"`;
      }
      case 'view': {
        const id = [...plans.keys()].find((v) => rest.startsWith(`${v}.`));
        if (!id) return 'no view of that id';
        const tail = rest.slice(id.length + 1);
        if (tail === 'title') return null;
        if (!tail.startsWith('string.')) return 'a view key ends in .title or .string.<text>';
        let known = texts.get(id);
        if (!known) texts.set(id, (known = planTexts(plans.get(id)!, registry)));
        return known.has(tail.slice('string.'.length)) ? null : STALE_TEXT;
      }
      case 'menu': return menus.has(rest) ? null : 'no ir.menu record of that xml_id';
      case 'action': return actions.has(rest) ? null : 'no ir.action record of that xml_id';
      case 'group': {
        // group names are dotted (base.admin): the longest declared one the key starts with
        const group = [...registry.groups.byName.values()].filter((g) => rest === g.name || rest.startsWith(`${g.name}.`))
          .sort((a, b) => b.name.length - a.name.length)[0];
        if (!group) return 'no active app declares that group';
        const tail = rest.slice(group.name.length);
        if (tail === '') return null;
        if (tail !== '.description') return 'a group key is group.<group> or group.<group>.description';
        return group.description ? null : `${group.name} declares no description`;
      }
      case 'app': {
        if (!rest.endsWith('.summary')) return 'an app key is app.<app>.summary';
        const name = rest.slice(0, -'.summary'.length);
        return registry.apps.some((a) => a.name === name && name !== 'kernel') ? null : `no active app "${name}"`;
      }
      default: return 'keys start with model., enum., view., menu., action., group. or app.';
    }
  }

  /** Languages with at least one translation. */
  languages(): string[] {
    return [...this.catalogs.keys()];
  }

  /** The text for the first key this language translates, else `text` (English). */
  text(lang: string, text: string, ...keys: ReadonlyArray<string | null>): string {
    const catalog = this.catalogs.get(lang);
    if (!catalog) return text;
    for (const k of keys) if (k !== null && catalog.has(k)) return catalog.get(k)!;
    return text;
  }
}
