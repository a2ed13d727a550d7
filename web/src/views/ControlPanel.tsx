import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Action } from '../app/nav.ts';
import type { SearchPlan } from '../app/meta.ts';
import { actionSegment, type ViewSearch } from '../app/search-params.ts';
import { useT } from '../i18n/index.tsx';
import { SearchBar } from './search/SearchBar.tsx';
import { SWITCHABLE } from './registry.ts';

/** Title, New button, search and the view switcher above a list or kanban view. */
export function ControlPanel({ title, action, org, search, searchPlan, current, canCreate = true, children, allowGroupBy }: {
  title: string; action: Action; org: string; search: ViewSearch; searchPlan: SearchPlan | null;
  current: string; canCreate?: boolean; children?: ReactNode; allowGroupBy?: boolean;
}) {
  const t = useT();
  const types = action.views.map((v) => v.type).filter((x) => (SWITCHABLE as readonly string[]).includes(x));
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
                {t(`view.type.${type}` as 'view.type.list')}
              </Link>
            ))}
          </div>
        )}
      </div>
      {searchPlan && <SearchBar plan={searchPlan} search={search} allowGroupBy={allowGroupBy} />}
    </div>
  );
}
