import type { ComponentType } from 'react';
import { registerPage, type PageProps } from '../app/pages.ts';
import type { Plan } from '../app/meta.ts';
import type { BootstrapData } from '../app/nav.ts';
import { addMessages, type ExtensionMessages } from '../i18n/index.tsx';
import { registerView, type ViewProps } from '../views/registry.ts';
import { registerWidget, type WidgetDef } from '../widgets/registry.ts';

/**
 * What an app's `web/index.ts(x)` default-exports (`defineWebExtension({ … })` from @fw/web):
 * its widgets, view components and pages by name (the names its manifest's `web` declares), and
 * the messages they read with `useAppT`, per language (`{ en: {…}, fr: {…} }`).
 */
export interface WebExtension {
  widgets?: Record<string, WidgetDef>;
  views?: Record<string, ComponentType<ViewProps<any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  pages?: Record<string, ComponentType<PageProps>>;
  messages?: ExtensionMessages;
}

/** The names a screen needs, by kind. */
export interface WebNames { widgets: string[]; views: string[]; pages: string[] }
export type ActiveApp = BootstrapData['active_apps'][number];
const KINDS = ['widgets', 'views', 'pages'] as const;

/** An app's web code does not match what its manifest declares, or is missing from the build. */
export class ExtensionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtensionError';
  }
}

/**
 * Registers what an app's web entry exports, after checking it against the app's manifest: every
 * declared name registered, nothing undeclared (the server checked the views against the
 * manifest, so the two must agree). A name already taken is refused by its registry.
 */
export function installExtension(app: Pick<ActiveApp, 'name' | 'web'>, ext: WebExtension): void {
  for (const kind of KINDS) {
    const declared = new Set(app.web[kind]);
    const given = Object.keys(ext[kind] ?? {});
    for (const name of given) if (!declared.has(name)) throw new ExtensionError(`app ${app.name}: web/index registers ${kind} "${name}", which its manifest's web.${kind} does not declare`);
    for (const name of declared) if (!given.includes(name)) throw new ExtensionError(`app ${app.name}: its manifest's web.${kind} declares "${name}", which web/index does not register`);
  }
  // checked before anything is registered: a bad id or translation installs nothing of the app
  if (ext.messages) addMessages(app.name, ext.messages);
  for (const [name, def] of Object.entries(ext.widgets ?? {})) registerWidget(name, def);
  for (const [name, view] of Object.entries(ext.views ?? {})) registerView(name, view);
  for (const [name, page] of Object.entries(ext.pages ?? {})) registerPage(name, page);
}

/** The active apps that own any of `names` (from the bootstrap: each app's manifest `web`). */
export function ownersOf(apps: readonly ActiveApp[], names: WebNames): ActiveApp[] {
  return apps.filter((a) => KINDS.some((k) => names[k].some((n) => a.web[k].includes(n))));
}

const widgetOf = (w: string | null | undefined): string[] => (w ? [w.includes(':') ? w.slice(0, w.indexOf(':')) : w] : []);

/** The widgets, view type and js_class a render plan names (a form's nested lists included). */
export function namesOfPlan(plan: Plan): WebNames {
  const widgets = plan.fields.flatMap((f) => widgetOf(f.widget));
  if (plan.__typename === 'FormPlan') {
    for (const n of plan.nodes) for (const c of n.list?.columns ?? []) widgets.push(...widgetOf(c.widget));
  }
  return { widgets, views: [plan.type, plan.js_class ?? ''].filter(Boolean), pages: [] };
}
