import type { ReactNode } from 'react';
import { FormattedDate, FormattedNumber } from 'react-intl';
import { displayName, type FieldInfo, type Models } from '../model/records.ts';
import { currencyFor } from './currency.ts';
import { download } from './download.tsx';
import { image } from './image.tsx';
import { registerWidget, widgetRegistry } from './registry.ts';

/**
 * How a value is shown in a list cell, a kanban card or a read-only form field. `record` is the
 * row the value belongs to (when the caller has it), `arg` what follows the widget's name in the
 * view: `widget="image:/api/…/{id}/…"` is the widget `image` with that argument.
 */
export type DisplayWidget = (p: { field: FieldInfo; value: unknown; models: Models; record?: { id?: unknown } & Record<string, unknown>; arg?: string }) => ReactNode;

/** `widget="name:argument"` → `["name", "argument"]`; a plain name has no argument. */
export function widgetParts(widget: string | null | undefined): [string | null, string | undefined] {
  if (!widget) return [null, undefined];
  const i = widget.indexOf(':');
  return i < 0 ? [widget, undefined] : [widget.slice(0, i), widget.slice(i + 1)];
}

const empty = <span className="muted">—</span>;
/** No value to show (or to save): null, undefined or empty text. */
export const isEmpty = (v: unknown) => v === null || v === undefined || v === '';

const text: DisplayWidget = ({ value }) => (isEmpty(value) ? empty : String(value));
const number: DisplayWidget = ({ value }) => (isEmpty(value) ? empty : <FormattedNumber value={Number(value)} />);
const boolean: DisplayWidget = ({ value }) => (
  <input type="checkbox" checked={!!value} readOnly disabled aria-label={value ? 'yes' : 'no'} className="cell-check" />
);
const datetime: DisplayWidget = ({ value }) => (isEmpty(value) ? empty : (
  <time dateTime={String(value)}><FormattedDate value={String(value)} dateStyle="medium" timeStyle="short" /></time>
));
// a moment is shown in the user's time zone (the IntlProvider's, web/src/i18n); a calendar day
// (2026-03-01) is no moment: read as UTC midnight, it is shown in UTC so no zone moves it a day
const date: DisplayWidget = ({ value }) => (isEmpty(value) ? empty : (
  <time dateTime={String(value)}><FormattedDate value={String(value)} dateStyle="medium" {...(/^\d{4}-\d\d-\d\d$/.test(String(value)) ? { timeZone: 'UTC' } : {})} /></time>
));
const money: DisplayWidget = ({ value, arg, record }) => (isEmpty(value) ? empty : (
  <span className="num"><FormattedNumber value={Number(value)} style="currency" currency={currencyFor(arg, record)} /></span>
));
/**
 * An enum value as people read it: `closed_won` → "Closed won". Declarations name values as
 * identifiers; the label is derived from them the same way everywhere (badges, selects, the
 * statusbar, group headers), so a value is never shown raw.
 */
export function enumLabel(value: string, field?: Pick<FieldInfo, 'values' | 'value_labels'> | null): string {
  // the server's label in the user's language (docs/views.md#translations), when it sent one
  const translated = field?.value_labels?.[field.values?.indexOf(value) ?? -1];
  if (translated) return translated;
  const words = value.replace(/[_-]+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : value;
}
const badge: DisplayWidget = ({ field, value }) => (isEmpty(value) ? empty : (
  <span className={`badge badge-${String(value).replace(/[^a-z0-9_-]/gi, '')}`}>{field.type === 'enum' ? enumLabel(String(value), field) : String(value)}</span>
));
/**
 * bytes in binary multiples, with the unit names Intl formats (kB, MB, GB); below a kilobyte the
 * long unit name, since the short one does not take a plural ("20 byte")
 */
const filesize: DisplayWidget = ({ value }) => {
  const n = Number(value);
  if (isEmpty(value) || Number.isNaN(n)) return empty;
  const [div, unit] = n >= 1024 ** 3 ? [1024 ** 3, 'gigabyte'] : n >= 1024 ** 2 ? [1024 ** 2, 'megabyte'] : n >= 1024 ? [1024, 'kilobyte'] : [1, 'byte'];
  // a size is one word: "312.5 kB" never breaks in a narrow column
  return <span className="nowrap"><FormattedNumber value={n / div} style="unit" unit={unit} unitDisplay={div === 1 ? 'long' : 'short'} maximumFractionDigits={1} /></span>;
};
const reference: DisplayWidget = ({ field, value, models }) => {
  if (isEmpty(value)) return empty;
  const rec = typeof value === 'object' ? (value as Record<string, unknown>) : { id: String(value) };
  return displayName(field.relation ? models.get(field.relation) : undefined, rec);
};
/**
 * JSON on as few lines as reads well: what fits in `width` characters stays on one line, longer
 * lists and objects put one member per line (a form shows the block, a list cell folds it).
 */
export function prettyJson(value: unknown, width = 96, indent = ''): string {
  const flat = JSON.stringify(value) ?? String(value);
  if (flat.length + indent.length <= width || value === null || typeof value !== 'object') return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return `[\n${value.map((v) => inner + prettyJson(v, width, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, width, inner)}`).join(',\n')}\n${indent}}`;
}
const json: DisplayWidget = ({ value }) => (isEmpty(value) ? empty : <code className="json">{prettyJson(value)}</code>);
const one2many: DisplayWidget = ({ value }) => (Array.isArray(value) ? String(value.length) : empty);

// fw's display widgets, registered as an app's are (the server's list: src/apps/presentation/views/client-names.ts)
for (const [name, display] of Object.entries({ badge, date, money, filesize, datetime, image, download })) registerWidget(name, { display });

/** The widget named by the view wins (the widget registry); else the field type's; else plain text. */
export const displayWidgets: { byWidget: Record<string, DisplayWidget>; byType: Record<string, DisplayWidget> } = {
  byWidget: widgetRegistry.display,
  byType: { char: text, text, integer: number, float: number, boolean, datetime, json, uuid: text, enum: badge, reference, one2many },
};

export function displayWidgetFor(field: FieldInfo): DisplayWidget {
  const [name] = widgetParts(field.widget);
  return (name && displayWidgets.byWidget[name]) || displayWidgets.byType[field.type] || text;
}

export function Display({ field, value, models, record }: { field: FieldInfo; value: unknown; models: Models; record?: { id?: unknown } & Record<string, unknown> }) {
  const W = displayWidgetFor(field);
  return <>{W({ field, value, models, record, arg: widgetParts(field.widget)[1] })}</>;
}
