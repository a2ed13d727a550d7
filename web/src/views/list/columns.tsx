import { useState } from 'react';
import { Button, Checkbox, Dialog, DialogTrigger, Popover } from 'react-aria-components';
import { useMe } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import type { FieldInfo } from '../../model/records.ts';

type Visibility = Record<string, boolean>;

/**
 * Optional columns (`optional="show|hide"`) are shown or hidden by the person, remembered per
 * user and view in this browser; columns without `optional` always show.
 */
export function useColumnVisibility(viewId: string, fields: readonly FieldInfo[]): [Visibility, (v: Visibility) => void] {
  const me = useMe();
  const key = `fw.columns.${me.id}.${viewId}`;
  const [stored, setStored] = useState<Visibility>(() => {
    try { return JSON.parse(localStorage.getItem(key) ?? '{}') as Visibility; } catch { return {}; }
  });
  const visible: Visibility = Object.fromEntries(fields.map((f) => [f.name, f.optional ? stored[f.name] ?? f.optional === 'show' : true]));
  return [visible, (v) => { localStorage.setItem(key, JSON.stringify(v)); setStored(v); }];
}

export function ColumnPicker({ fields, visible, setVisible }: { fields: readonly FieldInfo[]; visible: Visibility; setVisible: (v: Visibility) => void }) {
  const t = useT();
  const optional = fields.filter((f) => f.optional);
  if (!optional.length) return <span />;
  return (
    <DialogTrigger>
      <Button className="btn btn-ghost" data-testid="column-picker">{t('list.columns')}</Button>
      <Popover className="popover">
        <Dialog className="column-dialog" aria-label={t('list.columns')}>
          {optional.map((f) => (
            <Checkbox key={f.name} className="checkbox" isSelected={visible[f.name]} data-testid={`column-${f.name}`}
              onChange={(on) => setVisible({ ...visible, [f.name]: on })}>
              <span className="checkbox-box" aria-hidden="true" />{f.label}
            </Checkbox>
          ))}
        </Dialog>
      </Popover>
    </DialogTrigger>
  );
}
