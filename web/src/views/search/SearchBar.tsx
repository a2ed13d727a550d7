import { useNavigate } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { Button, Menu, MenuItem, MenuTrigger, Popover, Separator, type Selection } from 'react-aria-components';
import { useModels, type SearchPlan } from '../../app/meta.ts';
import type { ViewSearch } from '../../app/search-params.ts';
import { useT } from '../../i18n/index.tsx';
import { Favorites } from './Favorites.tsx';
import { fieldFacets } from './facets.ts';

/** The Filters menu's entry for an archivable model's archived records (no filter string can start with NUL). */
const ARCHIVED_KEY = '\u0000archived';

/**
 * The search view: typed text offers to search every search field (Enter) or one chosen field
 * ("Search Country for: fr", arrow keys then Enter, or a click), as Odoo's search view offers
 * from its `<field>` elements; filters and a group-by; each shown as a removable facet and kept
 * in the URL. Backspace in the empty box removes the last facet of text. An archivable model's
 * Filters menu has "Archived", which shows its archived records instead of its active ones.
 */
export function SearchBar({ plan, search, allowGroupBy = true, actionKey }: { plan: SearchPlan; search: ViewSearch; allowGroupBy?: boolean; actionKey?: string }) {
  const t = useT();
  const navigate = useNavigate();
  const models = useModels();
  const archivable = !!models.get(plan.model)?.archivable;
  // what is being typed; once applied it becomes a facet and the box is empty again
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const set = (patch: Partial<ViewSearch>) =>
    navigate({ to: '.', search: (s: ViewSearch) => ({ ...s, page: undefined, ...patch }) } as never);
  const fieldNames = plan.search_fields.map((f) => f.string).join(', ');
  const groupLabel = plan.group_by.find((g) => g.field === search.group_by)?.string;
  const facets = fieldFacets(plan, search);
  const typed = text.trim();
  // the first option searches every field (what Enter did before), then one per search field
  const options = typed && plan.search_fields.length
    ? [{ key: '', label: fieldNames }, ...(plan.search_fields.length > 1 ? plan.search_fields.map((f) => ({ key: f.name, label: f.string })) : [])]
    : [];
  const choose = (key: string) => {
    if (!typed) return;
    if (key) set({ field: [...(search.field ?? []), `${key}:${typed}`] });
    else set({ q: typed });
    setText('');
    setActive(0);
  };
  const open = options.length > 0;

  return (
    <div className="searchbar" role="search">
      <div className="facets">
        {search.q && <Facet label={`${fieldNames}: ${search.q}`} onRemove={() => set({ q: undefined })} />}
        {facets.map((f) => (
          <Facet key={f.name} label={`${f.label}: ${f.texts.join(` ${t('search.or')} `)}`} testId={`facet-field-${f.name}`}
            onRemove={() => set({ field: search.field?.filter((e) => !f.entries.includes(e)) })} />
        ))}
        {search.filter?.map((f) => (
          <Facet key={f} label={f} onRemove={() => set({ filter: search.filter!.filter((x) => x !== f) })} />
        ))}
        {archivable && search.archived && <Facet label={t('search.archived')} testId="facet-archived" onRemove={() => set({ archived: undefined })} />}
        {groupLabel && <Facet label={`${t('search.group_by')}: ${groupLabel}`} onRemove={() => set({ group_by: undefined })} />}
        <div className="search-combo">
          <input
            className="search-input" type="search" value={text} data-testid="search-input"
            role="combobox" aria-expanded={open} aria-controls={open ? listId : undefined} aria-autocomplete="list"
            aria-activedescendant={open ? `${listId}-${active}` : undefined}
            placeholder={t('search.placeholder')} aria-label={t('search.for', { field: fieldNames, text: '' })}
            onChange={(e) => { setText(e.target.value); setActive(0); }}
            onKeyDown={(e) => {
              if (open && e.key === 'ArrowDown') { e.preventDefault(); setActive((a) => (a + 1) % options.length); }
              if (open && e.key === 'ArrowUp') { e.preventDefault(); setActive((a) => (a - 1 + options.length) % options.length); }
              if (e.key === 'Escape' && text) { e.preventDefault(); setText(''); }
              if (e.key === 'Enter' && typed) { e.preventDefault(); choose(options[active]?.key ?? ''); }
              if (e.key === 'Backspace' && !text) {
                // the last facet of text goes: a field's last text, else the free text
                const last = search.field?.at(-1);
                if (last) set({ field: search.field!.slice(0, -1) });
                else if (search.q) set({ q: undefined });
              }
            }}
          />
          {open && (
            <ul className="search-options popover" role="listbox" id={listId} aria-label={t('search.options')} data-testid="search-options">
              {options.map((o, i) => (
                // the input keeps the focus (aria-activedescendant); a click must not blur it first
                <li key={o.key || '*'} id={`${listId}-${i}`} role="option" aria-selected={i === active}
                  className={`menu-item${i === active ? ' active' : ''}`} data-testid={`search-option-${o.key || 'all'}`}
                  onMouseDown={(e) => e.preventDefault()} onClick={() => choose(o.key)} onMouseEnter={() => setActive(i)}>
                  {t('search.for', { field: o.label, text: typed })}
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
      {(plan.filters.length > 0 || archivable) && (
        <MenuTrigger>
          <Button className="btn btn-ghost" data-testid="search-filters">{t('search.filters')}</Button>
          <Popover className="popover">
            <Menu className="menu" selectionMode="multiple"
              selectedKeys={new Set([...(search.filter ?? []), ...(search.archived ? [ARCHIVED_KEY] : [])])}
              onSelectionChange={(keys: Selection) => {
                const chosen = keys === 'all' ? [...plan.filters.map((f) => f.string), ARCHIVED_KEY] : [...keys].map(String);
                set({ filter: chosen.filter((k) => k !== ARCHIVED_KEY), archived: chosen.includes(ARCHIVED_KEY) || undefined });
              }}>
              {plan.filters.map((f) => <MenuItem key={f.string} id={f.string} className="menu-item">{f.string}</MenuItem>)}
              {archivable && plan.filters.length > 0 && <Separator className="menu-separator" />}
              {archivable && <MenuItem id={ARCHIVED_KEY} className="menu-item" data-testid="filter-archived">{t('search.archived')}</MenuItem>}
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
      {actionKey && <Favorites actionKey={actionKey} search={search} />}
    </div>
  );
}

function Facet({ label, onRemove, testId }: { label: string; onRemove: () => void; testId?: string }) {
  const t = useT();
  return (
    <span className="facet" data-testid="facet" data-facet={testId}>
      {label}
      <button type="button" className="facet-remove" aria-label={t('search.facet.remove', { label })} onClick={onRemove}>×</button>
    </span>
  );
}
