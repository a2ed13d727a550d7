import fs from 'node:fs';
import path from 'node:path';
import type { Principal } from '../../../kernel/env.js';
import { NotFound } from '../../../kernel/errors.js';
import type { Registry } from '../../../kernel/registry/registry.js';
import { clientNamesOf, type ClientNames } from './client-names.js';
import { placeholderValues, resolvePlaceholders } from './domain-literal.js';
import { compileView, type RenderPlan } from './plan.js';
import { SOURCE_LANGUAGE, translatePlan, Translations } from './translations.js';
import { parseXml, ViewFileError } from './xml.js';

export interface ViewInfo { view_id: string; version: number; title: string; type: string; model: string; app: string }

/**
 * Every view declared in an active app's manifest `data`, parsed and validated once at boot
 * against the model registry; render plans are computed then and served from memory.
 */
export class ViewRegistry {
  private readonly plans = new Map<string, { plan: RenderPlan; app: string }>();
  /** Plans in another language than English, by language then view id: made on first use, then kept. */
  private readonly translated = new Map<string, Map<string, RenderPlan>>();
  /** The active apps' `i18n/<lang>.json`, checked against these views. */
  readonly translations: Translations;
  private readonly registry: Registry;
  /** The widgets, view types and pages the client knows: built-ins and the active apps' `web`. */
  readonly names: ClientNames;

  constructor(registry: Registry) {
    this.names = clientNamesOf(registry);
    for (const app of registry.apps) {
      for (const file of app.dataFiles.filter((f) => f.endsWith('.xml'))) {
        const rel = path.join('views', app.name, path.basename(file));
        const plan = compileView(parseXml(fs.readFileSync(file, 'utf8'), rel), rel, registry, this.names);
        const clash = this.plans.get(plan.view_id);
        if (clash) throw new ViewFileError(`${rel}: view id ${plan.view_id} is already declared by app ${clash.app}`);
        this.plans.set(plan.view_id, { plan: Object.freeze(plan), app: app.name });
      }
    }
    this.translations = new Translations(registry, new Map([...this.plans].map(([id, e]) => [id, e.plan])));
    this.registry = registry;
  }

  /** Every view's metadata, titles in `lang` (English by default). */
  list(lang = SOURCE_LANGUAGE): ViewInfo[] {
    return [...this.plans.values()].map(({ plan, app }) => ({
      view_id: plan.view_id, version: plan.version, title: this.inLanguage(plan, lang).title, type: plan.type, model: plan.model, app,
    })).sort((a, b) => a.view_id.localeCompare(b.view_id));
  }

  /** The plan with its texts in `lang`: the app translations' texts where they have one. */
  private inLanguage(plan: RenderPlan, lang: string): RenderPlan {
    if (lang === SOURCE_LANGUAGE || !this.translations.languages().includes(lang)) return plan;
    let byView = this.translated.get(lang);
    if (!byView) this.translated.set(lang, (byView = new Map()));
    let out = byView.get(plan.view_id);
    if (!out) {
      out = Object.freeze(translatePlan(plan, this.registry, (text, keys) => this.translations.text(lang, text, ...keys)));
      byView.set(plan.view_id, out);
    }
    return out;
  }

  /**
   * The cached plan in the caller's language (`lang`, English by default); search filter
   * placeholders (`%(month_start)s`, …) resolved for this request.
   */
  plan(viewId: string, principal: Principal, now = new Date(), lang = SOURCE_LANGUAGE): RenderPlan {
    const entry = this.plans.get(viewId);
    if (!entry) throw new NotFound(`unknown view "${viewId}"`, { view_id: viewId }, 'UNKNOWN_VIEW');
    const plan = this.inLanguage(entry.plan, lang);
    if (plan.type !== 'search') return plan;
    const values = placeholderValues(now, principal);
    return { ...plan, filters: (plan.filters as Array<{ domain: unknown }>).map((f) => ({ ...f, domain: resolvePlaceholders(f.domain, values) })) };
  }

  /** A registered view's metadata, or undefined. */
  info(viewId: string, lang = SOURCE_LANGUAGE): ViewInfo | undefined {
    const entry = this.plans.get(viewId);
    return entry && { view_id: viewId, version: entry.plan.version, title: this.inLanguage(entry.plan, lang).title, type: entry.plan.type, model: entry.plan.model, app: entry.app };
  }

  /** Views of a model by type, for actions. */
  viewsOf(model: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { plan } of this.plans.values()) if (plan.model === model && !out[plan.type]) out[plan.type] = plan.view_id;
    return out;
  }
}
