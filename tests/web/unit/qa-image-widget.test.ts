/**
 * The client pieces the QA results need, without a browser: the `image` display widget (a URL
 * template from the view, `widget="image:/api/…/{id}/…"`, fetched with the token: only paths of
 * this server), JSON shown on as few lines as reads well, and the sidebar leaving out the menus
 * of models the caller cannot read or of apps that are not active any more.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { IntlProvider } from 'react-intl';
import { describe, expect, it } from 'vitest';
import { visibleApps, type Action, type App } from '../../../web/src/app/nav.ts';
import { en } from '../../../web/src/i18n/en.ts';
import type { FieldInfo } from '../../../web/src/model/records.ts';
import { nameSelection, selection } from '../../../web/src/model/records.ts';
import { Display, displayWidgetFor, displayWidgets, prettyJson, widgetParts } from '../../../web/src/widgets/display.tsx';
import { imageUrl } from '../../../web/src/widgets/image.tsx';
import { inputWidgetFor, inputWidgets } from '../../../web/src/widgets/inputs.tsx';

const SHOT = 'image:/api/qa/run-steps/{id}/screenshot';
const f = (type: string, widget: string | null = null, extra: Partial<FieldInfo> = {}): FieldInfo => ({ name: 'x', label: 'Screenshot', type, widget, ...extra });
const render = (field: FieldInfo, value: unknown, record?: { id: string }) =>
  renderToStaticMarkup(createElement(IntlProvider, { locale: 'en-US', timeZone: 'UTC', messages: en }, createElement(Display, { field, value, models: new Map(), record })));

describe('the image widget', () => {
  it('is named by the part of `widget` before the colon; the rest is its argument', () => {
    expect(widgetParts(SHOT)).toEqual(['image', '/api/qa/run-steps/{id}/screenshot']);
    expect(widgetParts('badge')).toEqual(['badge', undefined]);
    expect(widgetParts(null)).toEqual([null, undefined]);
    expect(displayWidgetFor(f('char', SHOT))).toBe(displayWidgets.byWidget.image);
    // editing such a field falls back to its type
    expect(inputWidgetFor(f('char', SHOT))).toBe(inputWidgets.byType.char);
  });

  it('fills the template with the record id or the value, URL-encoded, and fetches only paths of this server', () => {
    expect(imageUrl('/api/qa/run-steps/{id}/screenshot', { id: 'a1b2' }, 'run/uc/001-click.png')).toBe('/api/qa/run-steps/a1b2/screenshot');
    expect(imageUrl('/api/files/{value}', { id: 'x' }, 'a b/c.png')).toBe('/api/files/a%20b%2Fc.png');
    expect(imageUrl('/api/x/{id}', { id: '../../graphql' }, 'v')).toBe('/api/x/..%2F..%2Fgraphql');
    // no image: an empty value, a template needing an id without one
    expect(imageUrl('/api/x/{id}', { id: 'a' }, null)).toBeNull();
    expect(imageUrl('/api/x/{id}', { id: 'a' }, '')).toBeNull();
    expect(imageUrl('/api/x/{id}', undefined, 'v')).toBeNull();
    // the token never leaves for another origin
    expect(imageUrl('https://evil.example/{id}', { id: 'a' }, 'v')).toBeNull();
    expect(imageUrl('//evil.example/{id}', { id: 'a' }, 'v')).toBeNull();
    expect(imageUrl('javascript:alert(1)', { id: 'a' }, 'v')).toBeNull();
    expect(imageUrl(undefined, { id: 'a' }, 'v')).toBeNull();
  });

  it('renders a placeholder while it loads, and a dash when there is no image', () => {
    const html = render(f('char', SHOT), 'run/uc/001-click.png', { id: 'a1b2' });
    expect(html).toContain('data-testid="image-widget"');
    expect(html).toContain('data-state="loading"');
    expect(html).toContain('aria-label="Screenshot (loading)"');
    expect(render(f('char', SHOT), null, { id: 'a1b2' })).toContain('—');
    expect(render(f('char', SHOT), 'x.png')).toContain('—');
  });
});

describe('JSON display', () => {
  it('keeps what fits on one line and puts one member per line otherwise', () => {
    expect(prettyJson({ kind: 'text', expected: 'Organizations' })).toBe('{"kind":"text","expected":"Organizations"}');
    const tried = [
      { candidate: 0, chain: "getByTestId('frobnicate')", reason: 'no match', count: 0 },
      { candidate: 1, chain: "getByRole('button', { name: 'Frobnicate' })", reason: 'no match', count: 0 },
    ];
    expect(prettyJson(tried, 90)).toBe([
      '[',
      `  {"candidate":0,"chain":"getByTestId('frobnicate')","reason":"no match","count":0},`,
      '  {',
      '    "candidate": 1,',
      `    "chain": "getByRole('button', { name: 'Frobnicate' })",`,
      '    "reason": "no match",',
      '    "count": 0',
      '  }',
      ']',
    ].join('\n'));
    expect(JSON.parse(prettyJson(tried, 10))).toEqual(tried);
    expect(prettyJson([], 0)).toBe('[]');
    expect(render(f('json'), { a: 1 })).toContain('<code class="json">{&quot;a&quot;:1}</code>');
  });
});

describe('References to a model named by its uuid', () => {
  it('select `id` only: GraphQL serves record_uuid as id', () => {
    const run = { key: 'qa.run', description: 'Run', record_name: 'record_uuid', name_search_fields: ['record_uuid'], names: {} as never };
    const result = { key: 'qa.run.result', description: 'Result', record_name: 'usecase_key', name_search_fields: [], names: {} as never };
    expect(nameSelection(run)).toBe('id');
    expect(nameSelection(result)).toBe('id usecase_key');
    const models = new Map([['qa.run', run]]);
    expect(selection([{ name: 'run_id', label: 'Run', type: 'reference', relation: 'qa.run' }], models)).toBe('id run_id { id }');
  });
});

describe('the sidebar', () => {
  const action = (key: string, model: string, views = ['list', 'form']): Action =>
    ({ key, id: key, name: key, model_key: model, view_type: 'list', domain: null, views: views.map((type) => ({ type, view_id: `${model}.${type}` })) }) as Action;
  const menu = (key: string, act: string | null, parent: string | null = null) =>
    ({ id: key, key, name: key, icon: null, category: 'application', sequence: 10, action: act, parent_key: parent });
  const app = (key: string, act: string | null, menus: ReturnType<typeof menu>[]): App =>
    ({ key, name: key, icon: null, category: 'application', sequence: 10, action: act, menus }) as App;
  const actions = [
    action('qa.action_runs', 'qa.run'), action('qa.action_modules', 'ir.module'), action('crm.action_leads', 'crm.lead'),
    // an action whose app's views are not served (the app is not active)
    action('old.action', 'ir.module', []),
  ];
  const apps = [
    app('qa.menu_root', null, [menu('qa.menu_runs', 'qa.action_runs'), menu('qa.menu_modules', 'qa.action_modules')]),
    app('crm.menu_root', null, [menu('crm.heading', null), menu('crm.menu_leads', 'crm.action_leads', 'crm.heading')]),
    app('settings', null, []),
    app('old.menu', 'old.action', []),
  ];
  const keys = (out: App[]) => out.map((a) => [a.key, a.menus.map((m) => m.key)]);

  it('leaves out what the caller cannot read, and an app or heading left with nothing to open', () => {
    expect(keys(visibleApps(apps, actions, () => true))).toEqual([
      ['qa.menu_root', ['qa.menu_runs', 'qa.menu_modules']], ['crm.menu_root', ['crm.heading', 'crm.menu_leads']], ['settings', []],
    ]);
    // a plain user: ir.module is not readable, crm.lead neither
    expect(keys(visibleApps(apps, actions, (m) => m === 'qa.run'))).toEqual([['qa.menu_root', ['qa.menu_runs']], ['settings', []]]);
    // QA turned off: its models and views leave the bootstrap (ir.module, the kernel's, stays
    // readable, but the QA action on it has no view any more), its menus stay in the database
    const off = actions.map((x) => (x.key.startsWith('qa.') ? { ...x, views: [] } : x));
    expect(keys(visibleApps(apps, off, (m) => !m.startsWith('qa.')))).toEqual([
      ['crm.menu_root', ['crm.heading', 'crm.menu_leads']], ['settings', []],
    ]);
  });
});

describe('the download widget', () => {
  const TRACE = 'download:/api/qa/runs/{id}/trace';
  it('is a Download button naming the file, with the image widget\'s template rules; nothing without a file', () => {
    expect(displayWidgetFor(f('char', TRACE))).toBe(displayWidgets.byWidget.download);
    const html = render(f('char', TRACE, { label: 'Trace' }), 'a1b2.zip', { id: 'a1b2' });
    expect(html).toContain('aria-label="Download a1b2.zip"');
    expect(html).toContain('>Download</button>');
    expect(html).toContain('data-testid="download-name">a1b2.zip</span>');
    expect(render(f('char', TRACE), null, { id: 'a1b2' })).toBe('<span class="muted">—</span>');
    // another origin is never fetched (the token would leave): no button
    expect(render(f('char', 'download://evil.example/{id}'), 'x.zip', { id: 'a1b2' })).toBe('<span class="muted">—</span>');
  });
});
