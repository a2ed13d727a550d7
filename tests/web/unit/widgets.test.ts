/**
 * The widget registry: the view's widget wins over the field type, each type has a fallback, and
 * what the widgets render (server-rendered with react-dom/server, formatted by react-intl).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { IntlProvider } from 'react-intl';
import { describe, expect, it } from 'vitest';
import type { FieldInfo } from '../../../web/src/model/records.ts';
import { setDefaultCurrency } from '../../../web/src/widgets/currency.ts';
import { Display, displayWidgetFor, displayWidgets } from '../../../web/src/widgets/display.tsx';
import { inputWidgetFor, inputWidgets } from '../../../web/src/widgets/inputs.tsx';

const f = (type: string, widget: string | null = null, extra: Partial<FieldInfo> = {}): FieldInfo => ({ name: 'x', label: 'X', type, widget, ...extra });
const models = new Map([['res.country', { key: 'res.country', description: 'Country', record_name: 'name', name_search_fields: ['name'], names: {} as never }]]);
const render = (field: FieldInfo, value: unknown) =>
  renderToStaticMarkup(createElement(IntlProvider, { locale: 'en-US', timeZone: 'UTC' }, createElement(Display, { field, value, models })));

describe('display widget registry', () => {
  it('the view widget wins over the field type; an unknown widget falls back to the type; an unknown type to text', () => {
    expect(displayWidgetFor(f('char', 'badge'))).toBe(displayWidgets.byWidget.badge);
    expect(displayWidgetFor(f('datetime', 'nope'))).toBe(displayWidgets.byType.datetime);
    expect(displayWidgetFor(f('mystery'))).toBe(displayWidgets.byType.char);
  });
  it('every field type of a render plan has a display widget', () => {
    for (const type of ['char', 'text', 'integer', 'float', 'boolean', 'datetime', 'json', 'uuid', 'enum', 'reference', 'one2many']) {
      expect(displayWidgets.byType[type], type).toBeTypeOf('function');
    }
  });
  it('badge, date, money and filesize format their values', () => {
    expect(render(f('char', 'badge'), 'won')).toContain('class="badge badge-won"');
    expect(render(f('datetime', 'date'), '2026-11-24T16:00:00.000Z')).toContain('Nov 24, 2026');
    expect(render(f('float', 'money'), 1234.5)).toContain('€1,234.50'); // the CURRENCY setting's default
    expect(render(f('integer', 'filesize'), 1536)).toContain('1.5 kB');
  });
  it('money is shown in a currency: the view\'s (money:USD), a field of the record holding one (money:cur), else the server\'s CURRENCY', () => {
    const money = (widget: string, value: number, record?: Record<string, unknown>) =>
      renderToStaticMarkup(createElement(IntlProvider, { locale: 'en-US', timeZone: 'UTC' }, createElement(Display, { field: f('float', widget), value, models, record })));
    expect(money('money:USD', 12)).toContain('$12.00');
    expect(money('money:cur', 12, { id: 'r', cur: 'GBP' })).toContain('£12.00');
    expect(money('money:cur', 12, { id: 'r', cur: 'not a code' })).toContain('€12.00');
    setDefaultCurrency('CHF');
    try {
      expect(money('money', 12)).toContain('CHF');
      setDefaultCurrency('chf'); // not a code: ignored
      expect(money('money', 12)).toContain('CHF');
    } finally {
      setDefaultCurrency('EUR');
    }
  });
  it('filesize below a kilobyte says bytes with the plural the number takes (1 byte, 20 bytes), never "20 byte"', () => {
    const size = (n: number) => render(f('integer', 'filesize'), n);
    expect(size(20)).toBe('<span class="nowrap">20 bytes</span>');
    expect(size(1)).toBe('<span class="nowrap">1 byte</span>');
    expect(size(0)).toBe('<span class="nowrap">0 bytes</span>');
    expect(size(1023)).toBe('<span class="nowrap">1,023 bytes</span>');
    expect(size(20 * 1024 ** 2)).toBe('<span class="nowrap">20 MB</span>');
  });
  it('a Reference shows the target record name; an empty value shows a dash', () => {
    expect(render(f('reference', null, { relation: 'res.country' }), { id: 'c', name: 'France' })).toBe('France');
    expect(render(f('char'), null)).toContain('—');
  });
});

describe('input widget registry', () => {
  it('each editable type has its input; the view widget wins; unknown types edit as text', () => {
    expect(inputWidgetFor(f('reference'))).toBe(inputWidgets.byType.reference);
    expect(inputWidgetFor(f('float', 'money'))).toBe(inputWidgets.byWidget.money);
    expect(inputWidgetFor(f('mystery'))).toBe(inputWidgets.byType.char);
  });
  it('an enum renders a select of its values, with an empty choice only when optional', () => {
    const html = (required: boolean) => renderToStaticMarkup(inputWidgetFor(f('enum', null, { values: ['new', 'won'], required }))({
      field: f('enum', null, { values: ['new', 'won'], required }), id: 'i', value: 'won', onChange: () => {}, onBlur: () => {}, invalid: false,
    }) as never);
    expect(html(true)).not.toContain('<option value="">');
    expect(html(false)).toContain('<option value="">');
    expect(html(true)).toContain('<option value="won" selected');
  });
});
