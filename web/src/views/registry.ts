import { lazy, type ComponentType } from 'react';
import type { Action } from '../app/nav.ts';
import type { Plan, SearchPlan } from '../app/meta.ts';
import type { ViewSearch } from '../app/search-params.ts';
import type { Where } from '../model/domain.ts';

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

/**
 * One registry of view types, each a folder of its own loaded on first use (Odoo's view
 * descriptors). A model may bring its own component for a view type (documents, connectors).
 */
type Loader = () => Promise<{ default: ComponentType<ViewProps<any>> }>; // eslint-disable-line @typescript-eslint/no-explicit-any

const typeLoaders: Record<string, Loader> = {
  list: () => import('./list/ListView.tsx'),
  kanban: () => import('./kanban/KanbanView.tsx'),
  form: () => import('./form/FormView.tsx'),
};
const modelLoaders: Record<string, Partial<Record<string, Loader>>> = {
  'storage.document': { list: () => import('../pages/documents/DocumentsView.tsx') },
  'ir.connector': { form: () => import('../pages/connectors/ConnectorForm.tsx') },
};

const lazies = new Map<Loader, ComponentType<ViewProps<any>>>(); // eslint-disable-line @typescript-eslint/no-explicit-any
/** Modules already downloaded: rendered directly, since a lazy component suspends once even then. */
const loaded = new Map<Loader, ComponentType<ViewProps<any>>>(); // eslint-disable-line @typescript-eslint/no-explicit-any
const loaderFor = (type: string, model: string): Loader | undefined => modelLoaders[model]?.[type] ?? typeLoaders[type];

/** The component of a view type for a model (a model's own first), loaded on first use. */
export function viewComponent(type: string, model: string): ComponentType<ViewProps<any>> | undefined { // eslint-disable-line @typescript-eslint/no-explicit-any
  const load = loaderFor(type, model);
  if (!load) return undefined;
  if (loaded.has(load)) return loaded.get(load);
  if (!lazies.has(load)) lazies.set(load, lazy(load));
  return lazies.get(load);
}

/** Starts loading a view's code while its plan and data are fetched (no waterfall). */
export function preloadView(type: string, model: string): Promise<void> {
  const load = loaderFor(type, model);
  return load ? load().then((m) => { loaded.set(load, m.default); }, () => {}) : Promise.resolve();
}

/** View types a person can switch between in the control panel (form opens from a record). */
export const SWITCHABLE = ['list', 'kanban'] as const;
