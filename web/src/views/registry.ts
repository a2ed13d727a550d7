import { lazy, type ComponentType } from 'react';
import type { Action } from '../app/nav.ts';
import type { Plan, SearchPlan } from '../app/meta.ts';
import type { ViewSearch } from '../app/search-params.ts';
import type { Where } from '../model/domain.ts';
import { DuplicateNameError } from '../widgets/registry.ts';

/** What every view type receives: its plan, the action, the search state and the filter built from it. */
export interface ViewProps<P extends Plan = Plan> {
  plan: P;
  action: Action;
  search: ViewSearch;
  searchPlan: SearchPlan | null;
  /** action domain AND search facets, as a GraphQL `where` */
  where: Where;
  org: string;
  recordId?: string;
}

type AnyView = ComponentType<ViewProps<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Loader = () => Promise<{ default: AnyView }>;

/**
 * One registry of view components by name (Odoo's view descriptors): fw's view types, each a
 * folder of its own loaded on first use, and the apps' (a view type, `<acme.gantt model=…>`, or
 * a component drawing a built-in type's plan, `<list js_class="acme.table">`), registered
 * from their web/ code once it is loaded (web/src/extensions.ts). A name is registered once.
 */
const loaders = new Map<string, Loader>();
const lazies = new Map<string, AnyView>();
/** Components already at hand: rendered directly, since a lazy component suspends once even then. */
const loaded = new Map<string, AnyView>();

/** Registers a view component, or a loader of one (a chunk downloaded on first use). */
export function registerView(name: string, view: AnyView | { load: Loader }): void {
  if (loaders.has(name) || loaded.has(name)) throw new DuplicateNameError('view', name);
  if ('load' in view) loaders.set(name, view.load);
  else loaded.set(name, view);
}

export const viewNames = (): string[] => [...new Set([...loaders.keys(), ...loaded.keys()])].sort();

/** The component registered under `name` (a view type, or a plan's js_class), loaded on first use. */
export function viewComponent(name: string): AnyView | undefined {
  if (loaded.has(name)) return loaded.get(name);
  const load = loaders.get(name);
  if (!load) return undefined;
  if (!lazies.has(name)) lazies.set(name, lazy(load));
  return lazies.get(name);
}

/** Starts loading a built-in view's code while its plan and data are fetched (no waterfall). */
export function preloadView(name: string): Promise<void> {
  const load = loaded.has(name) ? undefined : loaders.get(name);
  return load ? load().then((m) => { loaded.set(name, m.default); }, () => {}) : Promise.resolve();
}

/** fw's own view types (src/apps/presentation/views/client-names.ts holds the server's copy). */
export const BUILTIN_VIEW_TYPES: readonly string[] = ['list', 'form', 'kanban', 'search', 'graph', 'pivot', 'calendar'];

/** fw's view types a person can switch between in the control panel (form opens from a record). */
export const SWITCHABLE = ['list', 'kanban', 'calendar', 'graph', 'pivot'] as const;

