import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, ComboBox, Input, ListBox, ListBoxItem, Popover } from 'react-aria-components';
import { request } from '../api/client.ts';
import { useModels } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { displayName, nameSearchWhere, nameSelection, rowsDocument, type Row } from '../model/records.ts';
import { recordsKey } from '../model/useRecords.ts';
import type { InputProps } from './inputs.tsx';

/**
 * A Reference field: a combobox searching the target model's `name_search_fields` as the person
 * types, showing `record_name`; the value is `{ id, <record_name> }` (or null).
 */
export function ReferencePicker({ field, id, value, onChange, invalid, describedBy, disabled, testId }: InputProps) {
  const t = useT();
  const models = useModels();
  const target = field.relation ? models.get(field.relation) : undefined;
  const current = value && typeof value === 'object' ? (value as Row) : null;
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? displayName(target, current);
  const results = useQuery({
    queryKey: recordsKey(field.relation ?? '', 'name_search', text ?? ''),
    queryFn: async () => (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(target!, nameSelection(target!)), {
      where: nameSearchWhere(target!, text ?? ''), limit: 8, offset: 0,
    })).rows,
    enabled: !!target && text !== null,
  });
  if (!target) return <span className="muted">{displayName(undefined, current)}</span>;
  const items = results.data ?? [];
  return (
    <ComboBox
      className="combobox" aria-label={field.label} id={id} isDisabled={disabled} isInvalid={invalid}
      inputValue={shown} items={items} menuTrigger="input" allowsEmptyCollection
      onInputChange={(v) => { setText(v); if (!v) onChange(null); }}
      onSelectionChange={(key) => {
        const rec = items.find((r) => r.id === key);
        if (rec) { onChange(rec); setText(null); }
      }}
      onBlur={() => setText(null)}
    >
      <div className="combobox-row">
        <Input className="input" aria-describedby={describedBy} data-testid={testId ?? `input-${field.name}`} placeholder={t('reference.search', { model: target.description })} />
        <Button className="btn-icon" aria-label={t('reference.search', { model: target.description })} onPress={() => setText(text ?? '')}>▾</Button>
      </div>
      <Popover className="popover">
        <ListBox className="listbox" renderEmptyState={() => <div className="muted pad">{t('reference.no_results')}</div>}>
          {(r: Row) => <ListBoxItem id={r.id} className="menu-item" textValue={displayName(target, r)}>{displayName(target, r)}</ListBoxItem>}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}
