import type { ReactNode } from 'react';
import { useIntl } from 'react-intl';
import type { FieldInfo } from '../model/records.ts';
import { enumLabel, widgetParts } from './display.tsx';
import { ReferencePicker } from './ReferencePicker.tsx';
import { registerWidget, widgetRegistry } from './registry.ts';
import { fromZonedInput, toZonedInput } from './zoned-time.ts';

/** An editable field: value in, value out; `id` ties it to its label, `invalid` to its error. */
export interface InputProps {
  field: FieldInfo; id: string; value: unknown; onChange: (v: unknown) => void; onBlur: () => void;
  invalid: boolean; describedBy?: string; disabled?: boolean;
  /** defaults to `input-<field>`; lines of a One2Many give their own */
  testId?: string;
  /** an accessible name when no <label for> points at the input (One2Many line cells) */
  ariaLabel?: string;
}
export type InputWidget = (p: InputProps) => ReactNode;

const attrs = (p: InputProps) => ({
  id: p.id, name: p.field.name, 'aria-invalid': p.invalid || undefined, 'aria-describedby': p.describedBy,
  'aria-required': p.field.required || undefined, disabled: p.disabled, onBlur: p.onBlur, 'data-testid': p.testId ?? `input-${p.field.name}`, 'aria-label': p.ariaLabel,
});

const text: InputWidget = (p) => <input type="text" className="input" {...attrs(p)} value={String(p.value ?? '')} onChange={(e) => p.onChange(e.target.value)} />;
const textarea: InputWidget = (p) => <textarea className="input" rows={4} {...attrs(p)} value={String(p.value ?? '')} onChange={(e) => p.onChange(e.target.value)} />;
const number = (step: string): InputWidget => (p) => (
  <input type="number" step={step} className="input num" {...attrs(p)} value={p.value === null || p.value === undefined ? '' : String(p.value)}
    onChange={(e) => p.onChange(e.target.value === '' ? null : e.target.valueAsNumber)} />
);
const checkbox: InputWidget = (p) => <input type="checkbox" className="check" {...attrs(p)} checked={!!p.value} onChange={(e) => p.onChange(e.target.checked)} />;
/** datetime-local speaks wall-clock time, in the person's time zone; the API speaks UTC ISO strings (./zoned-time.ts) */
const datetime: InputWidget = (p) => <DateTimeInput {...p} />;
function DateTimeInput(p: InputProps) {
  const { timeZone } = useIntl();
  const v = p.value ? toZonedInput(String(p.value), timeZone) : '';
  return <input type="datetime-local" className="input" {...attrs(p)} value={v} onChange={(e) => p.onChange(e.target.value ? fromZonedInput(e.target.value, timeZone) : null)} />;
}
const select: InputWidget = (p) => (
  <select className="input" {...attrs(p)} value={String(p.value ?? '')} onChange={(e) => p.onChange(e.target.value || null)}>
    {!p.field.required && <option value="">—</option>}
    {(p.field.values ?? []).map((v) => <option key={v} value={v}>{enumLabel(v, p.field)}</option>)}
  </select>
);
const json: InputWidget = (p) => (
  <textarea className="input mono" rows={4} {...attrs(p)} value={typeof p.value === 'string' ? p.value : p.value === null || p.value === undefined ? '' : JSON.stringify(p.value, null, 2)}
    onChange={(e) => p.onChange(e.target.value)} />
);
const reference: InputWidget = (p) => <ReferencePicker {...p} />;

// fw's input widgets, registered as an app's are
for (const [name, input] of Object.entries({ money: number('0.01'), textarea })) registerWidget(name, { input });

/** The widget named by the view wins (the widget registry); else the field type's; else a text box. */
export const inputWidgets: { byWidget: Record<string, InputWidget>; byType: Record<string, InputWidget> } = {
  byWidget: widgetRegistry.input,
  byType: { char: text, text: textarea, integer: number('1'), float: number('any'), boolean: checkbox, datetime, enum: select, json, uuid: text, reference },
};

export function inputWidgetFor(field: FieldInfo): InputWidget {
  const [name] = widgetParts(field.widget);
  return (name && inputWidgets.byWidget[name]) || inputWidgets.byType[field.type] || text;
}

