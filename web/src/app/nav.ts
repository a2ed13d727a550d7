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
