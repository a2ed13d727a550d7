import type { BootstrapQuery } from '../gql/graphql.ts';

export type BootstrapData = NonNullable<BootstrapQuery['presentationBootstrap']>;
export type App = BootstrapData['apps'][number];
export type Menu = App['menus'][number];
export type Action = BootstrapData['actions'][number];

/** The first action an app opens: its own, else its first menu's in tree order. */
export const firstAction = (app: App): string | null => app.action ?? app.menus.find((m) => m.action)?.action ?? null;

/** The app an action belongs to (for the sidebar's current section). */
export const appOfAction = (apps: readonly App[], actionKey: string | null): App | undefined =>
  actionKey ? apps.find((a) => a.action === actionKey || a.menus.some((m) => m.action === actionKey)) : undefined;

/** Depth of a menu in its app's flat list (0 = a direct child of the app). */
export function menuDepth(menus: readonly Menu[], m: Menu): number {
  let depth = 0;
  let parent = m.parent_key;
  while (parent) {
    depth++;
    parent = menus.find((x) => x.key === parent)?.parent_key ?? null;
  }
  return depth;
}

export const orgSlug = (org: { code?: string | null; id: string } | null | undefined) => org?.code || '-';

/** The view ids of an action by type. */
export const viewIdsOf = (action: Action | undefined): Record<string, string> =>
  Object.fromEntries((action?.views ?? []).map((v) => [v.type, v.view_id]));

/** Which view an action URL shows: a record → form; else `?view=` when the action has it; else the action's type. */
export function viewTypeOf(action: Action | undefined, view: string | undefined, record: string | undefined): string {
  const ids = viewIdsOf(action);
  return record ? 'form' : view && ids[view] ? view : action?.view_type ?? 'list';
}

/** The first action that shows `model` in a form (how a Reference or a One2Many line opens its record). */
export const formActionOf = (actions: readonly Action[], model: string): Action | undefined =>
  actions.find((a) => a.model_key === model && a.views.some((v) => v.type === 'form'));

/**
 * The apps and menus a person can use: an entry whose action opens a model the caller may not
 * read, or has no view to open it with (an app that is not active any more leaves its menus and
 * actions in the database, but its models and views leave the bootstrap), is left out, and so are a heading and an app left with nothing to open.
 * An entry without an action that never had children (a bare heading) stays as it was.
 */
export function visibleApps(apps: readonly App[], actions: readonly Action[], readable: (model: string) => boolean): App[] {
  const opens = (key: string | null | undefined) => {
    if (!key) return true;
    const a = actions.find((x) => x.key === key);
    // the views of an app that is not active are not served: its actions have none to open
    // an action opening an app's page needs no view (the page's app is active: the bootstrap named it)
    return !!a && readable(a.model_key) && (!!a.page || a.views.some((v) => v.type === a.view_type));
  };
  const out: App[] = [];
  for (const app of apps) {
    let menus = app.menus.filter((m) => opens(m.action));
    // a heading whose entries all went goes too (deepest first, so nested headings fold up)
    for (let changed = true; changed;) {
      changed = false;
      const next = menus.filter((m) => m.action || !app.menus.some((c) => c.parent_key === m.key) || menus.some((c) => c.parent_key === m.key));
      if (next.length !== menus.length) { menus = next; changed = true; }
    }
    const ownOk = opens(app.action);
    if (!ownOk && !menus.some((m) => m.action)) continue;
    if (!app.action && app.menus.length > 0 && menus.length === 0) continue;
    out.push({ ...app, action: ownOk ? app.action : null, menus });
  }
  return out;
}
