import { registerView } from './registry.ts';

/**
 * fw's own view types, registered as an app's are: each a chunk of its own loaded on first use
 * (search has no component: the control panel draws it). Imported once by main.tsx.
 */
registerView('list', { load: () => import('./list/ListView.tsx') });
registerView('kanban', { load: () => import('./kanban/KanbanView.tsx') });
registerView('form', { load: () => import('./form/FormView.tsx') });
registerView('graph', { load: () => import('./graph/GraphView.tsx') });
registerView('pivot', { load: () => import('./pivot/PivotView.tsx') });
registerView('calendar', { load: () => import('./calendar/CalendarView.tsx') });
