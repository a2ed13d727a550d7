import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Button, Dialog, Heading, Menu, MenuItem, MenuTrigger, Modal, Popover, Separator } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { errorMessage } from '../../app/errors.ts';
import { useMe } from '../../app/meta.ts';
import { validateViewSearch, type ViewSearch } from '../../app/search-params.ts';
import { toast } from '../../app/toast.tsx';
import { graphql } from '../../gql/index.ts';
import { useT } from '../../i18n/index.tsx';
import { useFavoritesT } from './messages.ts';

const SavedFiltersDocument = graphql(`
  query SavedFilters($action: String!) {
    irFilters(where: { action_key: { eq: $action } }, orderBy: [{ name: asc }], limit: 200) { id name search shared is_default user { id } }
  }
`);
const SaveFilterDocument = graphql(`
  mutation SaveFilter($input: IrFilterCreateInput!) { irFilterCreate(input: $input) { id } }
`);
const DeleteFilterDocument = graphql(`
  mutation DeleteFilter($id: ID!) { irFilterDelete(id: $id) { id } }
`);

/** What a saved filter keeps of a view's search: what selects, groups and orders the records, not the page. */
const SAVED_KEYS = ['q', 'field', 'filter', 'archived', 'group_by', 'order'] as const;
export function savedPart(s: ViewSearch): ViewSearch {
  const out: Record<string, unknown> = {};
  for (const k of SAVED_KEYS) if (s[k] !== undefined) out[k] = s[k];
  return out as ViewSearch;
}
const sameSearch = (a: ViewSearch, b: ViewSearch) => JSON.stringify(savedPart(a)) === JSON.stringify(savedPart(b));
const isEmpty = (s: ViewSearch) => Object.keys(savedPart(s)).length === 0 && !s.view;

const SAVE_KEY = '\u0000save';
const DELETE_KEY = '\u0000delete';

/**
 * The search bar's Favorites menu (Odoo's favorites): the person's saved searches of this action
 * and those shared with the organization (`ir.filter`, records that follow access rules), "Save
 * current search…" (a name, shared or not, the default or not), and Delete for the person's own
 * favorite now applied. The default favorite is applied when the action opens with no search in
 * its URL (from the menu), never after the person changed or cleared the search.
 */
export function Favorites({ actionKey, search }: { actionKey: string; search: ViewSearch }) {
  const t = useT();
  const tf = useFavoritesT();
  const me = useMe();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const queryKey = ['saved-filters', me.organization?.id ?? '', actionKey];
  const saved = useQuery({ queryKey, queryFn: () => request(SavedFiltersDocument, { action: actionKey }), staleTime: 60_000 });
  const items = saved.data?.irFilters ?? [];
  const [dialog, setDialog] = useState(false);
  const apply = (s: unknown, replace = false) =>
    navigate({ to: '.', search: (cur: ViewSearch) => ({ view: cur.view, ...savedPart(validateViewSearch((s ?? {}) as Record<string, unknown>)) }), replace } as never);

  // the default applies once, to an action opened with an empty search
  const considered = useRef(false);
  const openedEmpty = useRef(isEmpty(search));
  useEffect(() => {
    if (considered.current || !saved.data) return;
    considered.current = true;
    const def = items.find((f) => f.is_default && f.user?.id === me.id) ?? items.find((f) => f.is_default);
    if (def && openedEmpty.current) apply(def.search, true);
  }, [saved.data]); // eslint-disable-line react-hooks/exhaustive-deps

  const current = items.find((f) => sameSearch(validateViewSearch((f.search ?? {}) as Record<string, unknown>), search));
  const canDelete = current && current.user?.id === me.id;

  async function remove(id: string, name: string) {
    try {
      await request(DeleteFilterDocument, { id });
      toast(tf('favorites.deleted', { name }));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await qc.invalidateQueries({ queryKey });
  }

  return (
    <>
      <MenuTrigger>
        <Button className="btn btn-ghost" data-testid="search-favorites">★ {tf('favorites.title')}</Button>
        <Popover className="popover">
          <Menu className="menu" selectionMode="single" selectedKeys={current ? [current.id] : []}
            onAction={(key) => {
              if (key === SAVE_KEY) setDialog(true);
              else if (key === DELETE_KEY && current) void remove(current.id, current.name);
              else {
                const f = items.find((x) => x.id === key);
                if (f) apply(f.search);
              }
            }}>
            {items.map((f) => (
              <MenuItem key={f.id} id={f.id} className="menu-item" data-testid={`favorite-${f.name}`}
                textValue={f.name}>
                {f.name}{f.shared && <span className="menu-note"> · {tf('favorites.shared')}</span>}{f.is_default && <span className="menu-note"> · {tf('favorites.default')}</span>}
              </MenuItem>
            ))}
            {items.length > 0 && <Separator className="menu-separator" />}
            <MenuItem id={SAVE_KEY} className="menu-item" data-testid="favorite-save">{tf('favorites.save')}</MenuItem>
            {canDelete ? <MenuItem id={DELETE_KEY} className="menu-item menu-danger" data-testid="favorite-delete">{tf('favorites.delete', { name: current.name })}</MenuItem> : null}
          </Menu>
        </Popover>
      </MenuTrigger>
      {dialog && (
        <SaveDialog actionKey={actionKey} search={search} onClose={() => setDialog(false)}
          onSaved={() => void qc.invalidateQueries({ queryKey })} />
      )}
    </>
  );
}

function SaveDialog({ actionKey, search, onClose, onSaved }: { actionKey: string; search: ViewSearch; onClose: () => void; onSaved: () => void }) {
  const t = useT();
  const tf = useFavoritesT();
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const [isDefault, setIsDefault] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) return;
    setBusy(true);
    try {
      await request(SaveFilterDocument, { input: { name: name.trim(), action_key: actionKey, search: savedPart(search), shared, is_default: isDefault } });
      toast(tf('favorites.saved', { name: name.trim() }));
      onSaved();
      onClose();
    } catch (err) {
      // the dialog stays open with what was typed
      toast(errorMessage(t, err), 'error');
      setBusy(false);
    }
  }

  return (
    <Modal isOpen onOpenChange={(open) => { if (!open) onClose(); }} isDismissable className="modal">
      <Dialog className="dialog" data-testid="favorite-dialog">
        <Heading slot="title">{tf('favorites.save.title')}</Heading>
        <form onSubmit={(e) => void submit(e)} className="favorite-form">
          <label className="field-label" htmlFor="favorite-name">{tf('favorites.name')}</label>
          <input id="favorite-name" className="input" value={name} required autoFocus maxLength={200}
            onChange={(e) => setName(e.target.value)} data-testid="favorite-name" />
          <label className="check-row"><input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} data-testid="favorite-shared" /> {tf('favorites.share')}</label>
          <label className="check-row"><input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} data-testid="favorite-default" /> {tf('favorites.use_default')}</label>
          <div className="dialog-actions">
            <Button className="btn" onPress={onClose} data-testid="favorite-cancel">{t('common.cancel')}</Button>
            <Button type="submit" className="btn btn-primary" isDisabled={busy || !name.trim()} data-testid="favorite-submit">{t('common.save')}</Button>
          </div>
        </form>
      </Dialog>
    </Modal>
  );
}
