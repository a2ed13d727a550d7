import { canAccess, canReadField, holdsAny, isAdmin, namesOf } from '../../kernel/access.js';
import type { Env, Principal } from '../../kernel/env.js';
import type { Registry } from '../../kernel/registry/registry.js';
import { webNames } from '../../kernel/modules/web-manifest.js';
import type { ViewRegistry } from './views/registry.js';
import { callerLanguage } from './language.js';
import { presentationSettings } from './sse.js';

type Rec = Record<string, unknown>;
export interface MenuNode { id: string; key: string; name: string; icon: unknown; category: unknown; sequence: unknown; action: string | null; children: MenuNode[] }
export type FlatMenu = Omit<MenuNode, 'children'> & { parent_key: string | null };

/** GraphQL names of a model the client uses (from `modelNames`, so it never derives them). */
export const GRAPHQL_NAMES = ['typeName', 'one', 'many', 'connection', 'count', 'groupBy', 'create', 'createMany', 'update', 'updateMany',
  'delete', 'deleteMany', 'changed', 'whereInput', 'orderByInput', 'createInput', 'updateInput', 'groupByField'] as const;

/**
 * A model with a boolean `is_active` the principal may read is archivable: clients hide its
 * archived records (is_active false) unless asked, and offer Archive/Unarchive.
 */
export const ACTIVE_FIELD = 'is_active';

/** Every model the principal may read (role access, as the kernel checks it), sorted by key. */
export function readableModels(registry: Registry, principal: Principal, describe: (key: string, description: string) => string = (_k, d) => d): Rec[] {
  return [...registry.models.values()]
    .filter((m) => canAccess(m, principal, 'read'))
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((m) => ({
      key: m.key, description: describe(m.key, m.description), record_name: m.recordName, name_search_fields: [...m.nameSearchFields],
      archivable: archivable(m.fields.get(ACTIVE_FIELD), (f) => canReadField(m, f, principal)),
      // what the caller's role may do (record rules still decide per record): clients offer no more
      access: { create: canAccess(m, principal, 'create'), update: canAccess(m, principal, 'update'), delete: canAccess(m, principal, 'delete') },
      names: Object.fromEntries(GRAPHQL_NAMES.map((n) => [n, m.names[n]])),
    }));
}

const archivable = <F extends { type: string; stored: boolean }>(f: F | undefined, readable: (f: F) => boolean) =>
  !!f && f.type === 'boolean' && f.stored && readable(f);

/**
 * The menus under an app as one list in tree order (the GraphQL shape): each entry names its
 * parent's key, null for the app's direct children.
 */
export function flattenMenus(menus: readonly MenuNode[], parentKey: string | null = null): FlatMenu[] {
  return menus.flatMap(({ children, ...m }) => [{ ...m, parent_key: parentKey }, ...flattenMenus(children, m.key)]);
}

/** A menu entry's `roles` (comma-separated groups or roles; empty = everyone); administrators see every entry. */
const visibleTo = (principal: Principal) => (m: Rec) => {
  const roles = String(m.roles ?? '').split(',').map((r) => r.trim()).filter(Boolean);
  return roles.length === 0 || isAdmin(principal) || holdsAny(principal, roles);
};

/**
 * An action as the client opens it. Its `view_id` may name a registered view (the action opens
 * that view: an app's view type becomes its `view_type`, which ir.action's enum cannot hold) or
 * an app's page (`page`: the action opens that page instead of a view).
 */
export function actionEntry(a: Rec, views: ViewRegistry, lang?: string): Rec {
  const viewId = (a.view_id as string | null) ?? null;
  const page = viewId && views.names.pages.has(viewId) ? viewId : null;
  const named = viewId ? views.info(viewId) : undefined;
  const own = named ? { [named.type]: named.view_id } : viewId && !page ? { [a.view_type as string]: viewId } : {};
  return {
    id: a.id, name: lang && a.xml_id ? views.translations.text(lang, a.name as string, `action.${a.xml_id as string}`) : a.name, model_key: a.model_key, view_type: named?.type ?? a.view_type, domain: a.domain ?? null, page,
    views: { ...views.viewsOf(a.model_key as string), ...own },
  };
}

/**
 * What the web client needs to start: the user, the tenant, the menu tree (ordered by
 * sequence; entries restricted to other roles left out, with their children), actions with
 * their views, active apps, view definitions and the models the caller may read; names, titles,
 * model descriptions, group labels and app summaries in the caller's language
 * (docs/views.md#translations).
 */
export async function buildBootstrap(env: Env, views: ViewRegistry): Promise<Rec> {
  const { principal } = env;
  const lang = await callerLanguage(env);
  const tr = views.translations;
  const user = principal.user_id
    ? await env.dispatch<Rec>('fw.read_one', { model: 'res.user', id: principal.user_id, fields: ['name', 'email', 'role'] })
    : null;
  const menus = (await env.dispatch<{ items: Rec[] }>('fw.search', { model: 'ir.menu', order: 'sequence asc, name asc' })).items
    .filter(visibleTo(principal));
  const actions = (await env.dispatch<{ items: Rec[] }>('fw.search', { model: 'ir.action' })).items;
  const actionKey = new Map(actions.map((a) => [a.id as string, (a.xml_id as string) ?? (a.id as string)]));

  const nodes = new Map<string, MenuNode>(menus.map((m) => [m.id as string, {
    id: m.id as string, key: (m.xml_id as string) ?? (m.id as string),
    name: m.xml_id ? tr.text(lang, m.name as string, `menu.${m.xml_id as string}`) : m.name as string, icon: m.icon ?? null,
    category: m.category ?? null, sequence: m.sequence, action: m.action ? actionKey.get(m.action as string) ?? null : null, children: [],
  }]));
  const roots: MenuNode[] = [];
  for (const m of menus) {
    const node = nodes.get(m.id as string)!;
    if (!m.parent) roots.push(node);
    else nodes.get(m.parent as string)?.children.push(node); // a hidden parent hides its subtree
  }
  return {
    user: user ? { id: user.id, name: user.name, email: user.email, role: user.role, holds: [...namesOf(principal)] } : null,
    tenant_id: env.tenant,
    currency: presentationSettings(env.settings).CURRENCY,
    // a top-level entry may open an action itself (Documents has no sub-menus)
    apps: roots.map((r) => ({ key: r.key, name: r.name, icon: r.icon, category: r.category, sequence: r.sequence, action: r.action, menus: r.children })),
    actions: Object.fromEntries(actions.map((a) => [actionKey.get(a.id as string), actionEntry(a, views, lang)])),
    active_apps: env.registry.apps.filter((a) => a.name !== 'kernel').map((a) => ({
      name: a.name, summary: tr.text(lang, a.manifest.summary, `app.${a.name}.summary`), version: a.manifest.version, category: a.manifest.category,
      web: { widgets: webNames(a.manifest.web, 'widgets'), views: webNames(a.manifest.web, 'views'), pages: webNames(a.manifest.web, 'pages') },
    })),
    views: views.list(lang),
    groups: [...env.registry.groups.byName.values()].map((g) => ({
      name: g.name, label: tr.text(lang, g.label, `group.${g.name}`),
      description: g.description ? tr.text(lang, g.description, `group.${g.name}.description`) : null, implies: g.implies ?? [],
    })),
    models: readableModels(env.registry, principal, (key, description) => tr.text(lang, description, `model.${key}`)),
  };
}
