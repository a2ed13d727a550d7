import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useRef, useState } from 'react';
import { Button, ComboBox, Input, ListBox, ListBoxItem, Popover, type Key } from 'react-aria-components';
import { request } from '../api/client.ts';
import { errorMessage } from '../app/errors.ts';
import { useModels } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { useInputFields, useWritable } from '../model/access.ts';
import { createDocument, displayName, nameSearchWhere, nameSelection, rowsDocument, type ModelInfo, type Row } from '../model/records.ts';
import { recordsKey, useInvalidateModel } from '../model/useRecords.ts';
import type { InputProps } from './inputs.tsx';

// the dialog and its texts load on first use, not with the initial JavaScript
const SearchMoreDialog = lazy(() => import('./SearchMoreDialog.tsx'));

/** The options after the records: "Search more…" and "Create "<text>"" (ids no record has). */
const MORE = '\u0000more';
const CREATE = '\u0000create';
type Option = Row & { special?: 'more' | 'create' };

/**
 * Whether a record of `target` can be created from its name alone: the person may create (role
 * and schema), the model is named by a field, and that is the only field its create input
 * requires (every other required field has a default). Undefined while the input type loads.
 */
function useQuickCreate(target: ModelInfo | undefined, enabled: boolean): boolean {
  const writable = useWritable(target);
  const named = !!target && target.record_name !== 'id' && target.record_name !== 'record_uuid';
  const inputs = useInputFields(target?.names.createInput, enabled && named && writable.create);
  return named && writable.create && !!inputs && inputs.filter((f) => f.required).every((f) => f.name === target!.record_name);
}

/**
 * A Reference field: a combobox searching the target model's `name_search_fields` as the person
 * types, showing `record_name`; the value is `{ id, <record_name> }` (or null).
 *
 * The value changes only when the person picks an option, types the exact name of one offered
 * record and leaves the field or presses Enter (`settle`: other typed text is dropped, with a note
 * under the field), or empties the text and leaves the field (an explicit clear). Focus, blur, Tab
 * and Escape alone never change it. react-aria's combobox
 * resets its text to the selected item's text on blur; with the selection uncontrolled that text
 * was '' (the loaded record is not among the options), which this picker used to read as
 * "cleared" — tabbing through a form wrote null into every Reference on save. So the selection is
 * controlled (`selectedKey` is the value's id), what the input shows while the field is not
 * focused is always the value's name, and a clear is recognised from the person's own typing
 * (the input's native change event), never from the combobox's resets.
 */
export function ReferencePicker({ field, id, value, onChange, onBlur, invalid, describedBy, disabled, testId }: InputProps) {
  const t = useT();
  const models = useModels();
  const target = field.relation ? models.get(field.relation) : undefined;
  const current = value && typeof value === 'object' ? (value as Row) : null;
  const [focused, setFocused] = useState(false);
  // what the input shows while focused (null: the value's name)
  const [draft, setDraft] = useState<string | null>(null);
  // the search term of the options (null: no search, the options are the value itself)
  const [search, setSearch] = useState<string | null>(null);
  // what the person typed since the field got focus (undefined: nothing typed)
  const typed = useRef<string | undefined>(undefined);
  // "Search more…": the dialog open on this text (null: closed)
  const [more, setMore] = useState<string | null>(null);
  const [createError, setCreateError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  // typed text that was left without being taken (shown under the field until it is focused again)
  const [notTaken, setNotTaken] = useState<string | null>(null);
  const canCreate = useQuickCreate(target, search !== null);
  const invalidate = useInvalidateModel();
  const results = useQuery({
    queryKey: recordsKey(field.relation ?? '', 'name_search', search ?? ''),
    queryFn: async () => (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(target!, nameSelection(target!)), {
      where: nameSearchWhere(target!, search ?? ''), limit: 8, offset: 0,
    })).rows,
    enabled: !!target && search !== null,
  });
  if (!target) return <span className="muted">{displayName(undefined, current)}</span>;
  const text = (search ?? '').trim();
  const items: Option[] = search !== null
    ? [
      ...results.data ?? [],
      ...(results.data ? [{ id: MORE, special: 'more' as const }] : []),
      ...(results.data && canCreate && text ? [{ id: CREATE, special: 'create' as const }] : []),
    ]
    : current ? [current] : [];
  const shown = focused && draft !== null ? draft : displayName(target, current);
  const backToValue = () => { setDraft(null); setSearch(null); typed.current = undefined; };
  /**
   * Text typed but not picked, as the field is left (blur, Tab) or Enter commits it: taken when it
   * is exactly the name of one offered record (case and surrounding spaces aside), else dropped
   * and the person told so. `pickedCurrent`: the current value, chosen again from the options.
   */
  const settle = (pickedCurrent = false) => {
    const said = typed.current?.trim();
    if (!said) return; // nothing typed (an emptied text is a clear, decided on blur)
    const offered = search === typed.current ? results.data ?? [] : [];
    const exact = offered.filter((r) => displayName(target, r).trim().toLowerCase() === said.toLowerCase());
    if (exact.length === 1) {
      setNotTaken(null);
      if (exact[0].id !== current?.id) { setCreateError(null); onChange(exact[0]); }
    } else if (!pickedCurrent) setNotTaken(said);
  };

  /**
   * Creates the target record named `name` with the model's create mutation and picks it. A
   * refusal is shown under the field; the field keeps its value and the text stays to correct.
   */
  async function quickCreate(name: string) {
    setCreating(true);
    setCreateError(null);
    try {
      const r = await request<{ record: { id: string } }, { input: Record<string, unknown> }>(createDocument(target!), { input: { [target!.record_name]: name } });
      onChange({ id: r.record.id, [target!.record_name]: name });
      backToValue();
      void invalidate(target!.key);
    } catch (err) {
      setCreateError(errorMessage(t, err));
      setDraft(name);
      // the person asked for a new record, and is told why there is none: leaving the field does
      // not pick an existing record of that name instead (typing again settles the new text)
      typed.current = undefined;
    } finally {
      setCreating(false);
    }
  }
  return (
    <>
    <ComboBox
      className="combobox" aria-label={field.label} id={id} isDisabled={disabled} isInvalid={invalid}
      inputValue={shown} items={items} selectedKey={current?.id ?? null} menuTrigger="input" allowsEmptyCollection
      // the combobox's own text changes (typing, and its resets): shown only while focused
      onInputChange={(v) => { if (focused) setDraft(v); }}
      onSelectionChange={(key: Key | null) => {
        // null comes from the combobox's commits (blur with an option list that lacks the
        // value): never a person's choice, so it is not a clear
        const rec = key === null ? undefined : items.find((r) => r.id === key);
        if (rec?.special === 'more') { setMore(search ?? ''); backToValue(); return; }
        if (rec?.special === 'create') { void quickCreate(text); return; }
        if (rec && rec.id !== current?.id) { setCreateError(null); setNotTaken(null); onChange(rec); }
        // else the combobox committed without a pick (Enter, Tab, blur), or the current value was
        // chosen again: typed text is taken if it names exactly one offered record
        else settle(!!rec && !!results.data?.some((r) => r.id === rec.id));
        backToValue();
      }}
      onFocusChange={(isFocused) => {
        if (!isFocused) {
          // emptied by the person, then left: an explicit clear
          if (typed.current !== undefined && typed.current.trim() === '' && current) onChange(null);
          else settle();
          backToValue();
          onBlur();
        } else setNotTaken(null);
        setFocused(isFocused);
      }}
    >
      <div className="combobox-row">
        <Input className="input" aria-describedby={describedBy} data-testid={testId ?? `input-${field.name}`} placeholder={t('reference.search', { model: target.description })}
          onChange={(e) => { typed.current = e.target.value; setSearch(e.target.value); }}
          onKeyDown={(e) => { if (e.key === 'Escape') backToValue(); }} />
        <Button className="btn-icon" aria-label={t('reference.search', { model: target.description })} onPress={() => setSearch(search ?? '')}>▾</Button>
      </div>
      <Popover className="popover">
        <ListBox className="listbox" renderEmptyState={() => <div className="muted pad">{t('reference.no_results')}</div>}>
          {(r: Option) => {
            if (r.special === 'more') return <ListBoxItem id={r.id} className="menu-item menu-item-extra" textValue={t('reference.search_more')} data-testid="reference-search-more">{t('reference.search_more')}</ListBoxItem>;
            if (r.special === 'create') {
              const label = t('reference.create', { name: text });
              return <ListBoxItem id={r.id} className="menu-item menu-item-extra" textValue={label} isDisabled={creating} data-testid="reference-create">{label}</ListBoxItem>;
            }
            return <ListBoxItem id={r.id} className="menu-item" textValue={displayName(target, r)}>{displayName(target, r)}</ListBoxItem>;
          }}
        </ListBox>
      </Popover>
      {createError && <p className="field-error" role="alert" data-testid={`reference-create-error-${field.name}`}>{createError}</p>}
      {notTaken !== null && <p className="field-note" role="status" data-testid={`reference-not-taken-${field.name}`}>{t('reference.not_taken', { text: notTaken })}</p>}
    </ComboBox>
    {/* outside the combobox: the dialog's focus and keys are not the combobox's */}
    {more !== null && (
      <Suspense fallback={null}>
        <SearchMoreDialog target={target} title={field.label} initial={more} onClose={() => setMore(null)}
          onChoose={(rec) => { setMore(null); setCreateError(null); if (rec.id !== current?.id) onChange(rec); }} />
      </Suspense>
    )}
    </>
  );
}
