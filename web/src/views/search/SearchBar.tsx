import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { Button, Menu, MenuItem, MenuTrigger, Popover, type Selection } from 'react-aria-components';
import type { SearchPlan } from '../../app/meta.ts';
import type { ViewSearch } from '../../app/search-params.ts';
import { useT } from '../../i18n/index.tsx';

/**
 * The search view: typed text (Enter applies it and empties the box), filters and a group-by,
 * each shown as a removable facet and kept in the URL; Backspace in the empty box removes the text facet.
 */
export function SearchBar({ plan, search, allowGroupBy = true }: { plan: SearchPlan; search: ViewSearch; allowGroupBy?: boolean }) {
  const t = useT();
  const navigate = useNavigate();
  // what is being typed; once applied it becomes a facet and the box is empty again
  const [text, setText] = useState('');
  const set = (patch: Partial<ViewSearch>) =>
    navigate({ to: '.', search: (s: ViewSearch) => ({ ...s, page: undefined, ...patch }) } as never);
  const fieldNames = plan.search_fields.map((f) => f.string).join(', ');
  const groupLabel = plan.group_by.find((g) => g.field === search.group_by)?.string;

  return (
    <div className="searchbar" role="search">
      <div className="facets">
        {search.q && <Facet label={`${fieldNames}: ${search.q}`} onRemove={() => set({ q: undefined })} />}
        {search.filter?.map((f) => (
          <Facet key={f} label={f} onRemove={() => set({ filter: search.filter!.filter((x) => x !== f) })} />
        ))}
        {groupLabel && <Facet label={`${t('search.group_by')}: ${groupLabel}`} onRemove={() => set({ group_by: undefined })} />}
        <input
          className="search-input" type="search" value={text} data-testid="search-input"
          placeholder={t('search.placeholder')} aria-label={t('search.for', { field: fieldNames, text: '' })}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && text.trim()) { set({ q: text.trim() }); setText(''); }
            if (e.key === 'Backspace' && !text && search.q) set({ q: undefined });
          }}
        />
      </div>
      {plan.filters.length > 0 && (
        <MenuTrigger>
          <Button className="btn btn-ghost" data-testid="search-filters">{t('search.filters')}</Button>
          <Popover className="popover">
            <Menu className="menu" selectionMode="multiple" selectedKeys={new Set(search.filter ?? [])}
              onSelectionChange={(keys: Selection) => set({ filter: keys === 'all' ? plan.filters.map((f) => f.string) : [...keys].map(String) })}>
              {plan.filters.map((f) => <MenuItem key={f.string} id={f.string} className="menu-item">{f.string}</MenuItem>)}
            </Menu>
          </Popover>
        </MenuTrigger>
      )}
      {allowGroupBy && plan.group_by.length > 0 && (
        <MenuTrigger>
          <Button className="btn btn-ghost" data-testid="search-groupby">{t('search.group_by')}</Button>
          <Popover className="popover">
            <Menu className="menu" selectionMode="single" selectedKeys={search.group_by ? [search.group_by] : []}
              onAction={(key) => set({ group_by: search.group_by === key ? undefined : String(key) })}>
              {plan.group_by.map((g) => <MenuItem key={g.field} id={g.field} className="menu-item">{g.string}</MenuItem>)}
            </Menu>
          </Popover>
        </MenuTrigger>
      )}
    </div>
  );
}

function Facet({ label, onRemove }: { label: string; onRemove: () => void }) {
  const t = useT();
  return (
    <span className="facet" data-testid="facet">
      {label}
      <button type="button" className="facet-remove" aria-label={t('search.facet.remove', { label })} onClick={onRemove}>×</button>
    </span>
  );
}
