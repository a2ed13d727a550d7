import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Button, ComboBox, Input, ListBox, ListBoxItem, Popover, type Key } from 'react-aria-components';
import { request } from '../api/client.ts';
import { useModels } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { displayName, nameSearchWhere, nameSelection, rowsDocument, type Row } from '../model/records.ts';
import { recordsKey } from '../model/useRecords.ts';
import type { InputProps } from './inputs.tsx';

/**
 * A Reference field: a combobox searching the target model's `name_search_fields` as the person
 * types, showing `record_name`; the value is `{ id, <record_name> }` (or null).
 *
 * The value changes only when the person picks an option, or empties the text and leaves the
 * field (an explicit clear). Focus, blur, Tab and Escape never change it. react-aria's combobox
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
  const results = useQuery({
    queryKey: recordsKey(field.relation ?? '', 'name_search', search ?? ''),
    queryFn: async () => (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(target!, nameSelection(target!)), {
      where: nameSearchWhere(target!, search ?? ''), limit: 8, offset: 0,
    })).rows,
    enabled: !!target && search !== null,
  });
  if (!target) return <span className="muted">{displayName(undefined, current)}</span>;
  const items: Row[] = search !== null ? results.data ?? [] : current ? [current] : [];
  const shown = focused && draft !== null ? draft : displayName(target, current);
  const backToValue = () => { setDraft(null); setSearch(null); typed.current = undefined; };
  return (
    <ComboBox
      className="combobox" aria-label={field.label} id={id} isDisabled={disabled} isInvalid={invalid}
      inputValue={shown} items={items} selectedKey={current?.id ?? null} menuTrigger="input" allowsEmptyCollection
      // the combobox's own text changes (typing, and its resets): shown only while focused
      onInputChange={(v) => { if (focused) setDraft(v); }}
      onSelectionChange={(key: Key | null) => {
        // null comes from the combobox's commits (blur with an option list that lacks the
        // value): never a person's choice, so it is not a clear
        const rec = key === null ? undefined : items.find((r) => r.id === key);
        if (rec && rec.id !== current?.id) onChange(rec);
        backToValue();
      }}
      onFocusChange={(isFocused) => {
        if (!isFocused) {
          // emptied by the person, then left: an explicit clear
          if (typed.current !== undefined && typed.current.trim() === '' && current) onChange(null);
          backToValue();
          onBlur();
        }
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
          {(r: Row) => <ListBoxItem id={r.id} className="menu-item" textValue={displayName(target, r)}>{displayName(target, r)}</ListBoxItem>}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}
