import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Action } from '../app/nav.ts';
import type { SearchPlan } from '../app/meta.ts';
import { actionSegment, type ViewSearch } from '../app/search-params.ts';
import { useT } from '../i18n/index.tsx';
import { SearchBar } from './search/SearchBar.tsx';
import { BUILTIN_VIEW_TYPES, SWITCHABLE } from './registry.ts';
import { useBootstrap } from '../app/meta.ts';

/** Title, New button, search and the view switcher above a list or kanban view. */
export function ControlPanel({ title, action, org, search, searchPlan, current, canCreate = true, children, allowGroupBy }: {
  title: string; action: Action; org: string; search: ViewSearch; searchPlan: SearchPlan | null;
  current: string; canCreate?: boolean; children?: ReactNode; allowGroupBy?: boolean;
}) {
  const t = useT();
  const boot = useBootstrap();
  // fw's list and kanban, and the view types apps register (a funnel), each with a view for the action's model
  const builtIn = (x: string) => (SWITCHABLE as readonly string[]).includes(x);
  const types = action.views.map((v) => v.type).filter((x) => builtIn(x) || !BUILTIN_VIEW_TYPES.includes(x));
  // an app's view type is labelled with its view's title
  const label = (type: string) => (builtIn(type) ? t(`view.type.${type}` as 'view.type.list')
    : boot.views.find((v) => v.view_id === action.views.find((x) => x.type === type)?.view_id)?.title ?? type);
  const segment = actionSegment(action.key);
  return (
    <div className="control-panel">
      <div className="cp-row">
        <h1 className="cp-title" data-testid="view-title">{title}</h1>
        {canCreate && (
          <Link to="/$org/$action/$record" params={{ org, action: segment, record: 'new' }} search={{}} className="btn btn-primary" data-testid="new-record">
            {t('common.new')}
          </Link>
        )}
        {children}
        <div className="cp-spacer" />
        {types.length > 1 && (
          <div className="view-switcher" role="group" aria-label={t('view.switch')}>
            {types.map((type) => (
              <Link key={type} to="/$org/$action" params={{ org, action: segment }} search={{ ...search, view: type, page: undefined }}
                className={`btn btn-ghost${type === current ? ' active' : ''}`} aria-current={type === current ? 'page' : undefined}
                data-testid={`switch-${type}`}>
                {label(type)}
              </Link>
            ))}
          </div>
        )}
      </div>
      {searchPlan && <SearchBar plan={searchPlan} search={search} allowGroupBy={allowGroupBy} actionKey={action.key} />}
    </div>
  );
}
