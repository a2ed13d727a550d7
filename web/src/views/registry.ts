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
export const viewTypes: Record<string, ComponentType<ViewProps<any>>> = { // eslint-disable-line @typescript-eslint/no-explicit-any
  list: lazy(() => import('./list/ListView.tsx')),
  kanban: lazy(() => import('./kanban/KanbanView.tsx')),
  form: lazy(() => import('./form/FormView.tsx')),
};

export const modelViews: Record<string, Partial<Record<string, ComponentType<ViewProps<any>>>>> = { // eslint-disable-line @typescript-eslint/no-explicit-any
  'storage.document': { list: lazy(() => import('../pages/documents/DocumentsView.tsx')) },
  'ir.connector': { form: lazy(() => import('../pages/connectors/ConnectorForm.tsx')) },
};

/** View types a person can switch between in the control panel (form opens from a record). */
export const SWITCHABLE = ['list', 'kanban'] as const;
