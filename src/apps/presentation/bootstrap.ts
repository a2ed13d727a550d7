import type { Env } from '../../kernel/env.js';
import type { ViewRegistry } from './views/registry.js';

type Rec = Record<string, unknown>;
interface MenuNode { id: string; key: string; name: string; icon: unknown; category: unknown; sequence: unknown; action: string | null; children: MenuNode[] }

const visibleTo = (role: string) => (m: Rec) => {
  const roles = String(m.roles ?? '').split(',').map((r) => r.trim()).filter(Boolean);
  return roles.length === 0 || role === 'admin' || roles.includes(role);
};

/**
 * What the web client needs to start: the user, the tenant, the menu tree (ordered by
 * sequence; entries restricted to other roles left out, with their children), actions with
 * their views, active apps and view definitions.
 */
export async function buildBootstrap(env: Env, views: ViewRegistry): Promise<Rec> {
  const { principal } = env;
  const user = principal.user_id
    ? await env.dispatch<Rec>('fw.read_one', { model: 'res.user', id: principal.user_id, fields: ['name', 'email', 'role'] })
    : null;
  const menus = (await env.dispatch<{ items: Rec[] }>('fw.search', { model: 'ir.menu', order: 'sequence asc, name asc' })).items
    .filter(visibleTo(principal.kind === 'system' ? 'admin' : principal.role));
  const actions = (await env.dispatch<{ items: Rec[] }>('fw.search', { model: 'ir.action' })).items;
  const actionKey = new Map(actions.map((a) => [a.id as string, (a.xml_id as string) ?? (a.id as string)]));

  const nodes = new Map<string, MenuNode>(menus.map((m) => [m.id as string, {
    id: m.id as string, key: (m.xml_id as string) ?? (m.id as string), name: m.name as string, icon: m.icon ?? null,
    category: m.category ?? null, sequence: m.sequence, action: m.action ? actionKey.get(m.action as string) ?? null : null, children: [],
  }]));
  const roots: MenuNode[] = [];
  for (const m of menus) {
    const node = nodes.get(m.id as string)!;
    if (!m.parent) roots.push(node);
    else nodes.get(m.parent as string)?.children.push(node); // a hidden parent hides its subtree
  }
  return {
    user: user ? { id: user.id, name: user.name, email: user.email, role: user.role } : null,
    tenant_id: env.tenant,
    // a top-level entry may open an action itself (Documents has no sub-menus)
    apps: roots.map((r) => ({ key: r.key, name: r.name, icon: r.icon, category: r.category, sequence: r.sequence, action: r.action, menus: r.children })),
    actions: Object.fromEntries(actions.map((a) => [actionKey.get(a.id as string), {
      id: a.id, name: a.name, model_key: a.model_key, view_type: a.view_type, domain: a.domain ?? null,
      views: { ...views.viewsOf(a.model_key as string), ...(a.view_id ? { [a.view_type as string]: a.view_id } : {}) },
    }])),
    active_apps: env.registry.apps.filter((a) => a.name !== 'kernel').map((a) => ({ name: a.name, summary: a.manifest.summary, version: a.manifest.version, category: a.manifest.category })),
    views: views.list(),
  };
}
