/**
 * The client's open registries: fw's own widgets and view types register the names the server
 * checks views against (one list each, src/apps/presentation/views/client-names.ts); a name is
 * registered once; an app's web entry must register exactly what its manifest declares; a plan
 * tells which names (and so which apps' chunks) a screen needs. An app's messages join the
 * catalogue in each language it ships; a command result's message is read in the user's language.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createIntl } from 'react-intl';
import { describe, expect, it } from 'vitest';
import { BUILTIN_VIEW_TYPES as SERVER_VIEW_TYPES, BUILTIN_WIDGETS } from '../../../src/apps/presentation/views/client-names.ts';
import { pageComponent, registerPage } from '../../../web/src/app/pages.ts';
import { resultMessage } from '../../../web/src/app/result-message.ts';
import { ExtensionError, installExtension, namesOfPlan, ownersOf } from '../../../web/src/extensions/install.ts';
import { ExtensionMessageError, I18nProvider, setLanguage, useAppT } from '../../../web/src/i18n/index.tsx';
import { BUILTIN_VIEW_TYPES, registerView, viewComponent } from '../../../web/src/views/registry.ts';
import '../../../web/src/widgets/display.tsx';
import '../../../web/src/widgets/inputs.tsx';
import { DuplicateNameError, registerWidget, widgetNames, widgetRegistry } from '../../../web/src/widgets/registry.ts';

const web = (o: Partial<Record<'widgets' | 'views' | 'pages', string[]>>) => ({ widgets: [], views: [], pages: [], ...o });
const Nothing = () => null;

describe('fw\'s own names', () => {
  it('the widgets fw registers are the server\'s built-in list', () => {
    expect(widgetNames().filter((n) => !n.includes('.'))).toEqual([...BUILTIN_WIDGETS].sort());
  });
  it('the client\'s built-in view types are the server\'s list (web/src/views/builtin.ts registers each but search)', () => {
    expect([...BUILTIN_VIEW_TYPES].sort()).toEqual([...SERVER_VIEW_TYPES].sort());
  });
});

describe('registries refuse a name twice', () => {
  it('a widget name is registered once per use (display, input)', () => {
    expect(() => registerWidget('badge', { display: Nothing })).toThrow(new DuplicateNameError('display widget', 'badge'));
    expect(() => registerWidget('money', { input: Nothing })).toThrow(DuplicateNameError);
    registerWidget('test.stars', { display: Nothing });
    expect(widgetRegistry.display['test.stars']).toBe(Nothing);
    expect(() => registerWidget('test.stars', { display: Nothing })).toThrow('display widget "test.stars" is already registered');
    expect(() => registerWidget('test.empty', {})).toThrow('widget "test.empty" has neither a display nor an input form');
  });
  it('a view name and a page name are registered once', () => {
    registerView('test.board', { load: async () => ({ default: Nothing }) });
    expect(() => registerView('test.board', Nothing)).toThrow(new DuplicateNameError('view', 'test.board'));
    registerView('test.gantt', Nothing);
    expect(viewComponent('test.gantt')).toBe(Nothing);
    expect(() => registerView('test.gantt', Nothing)).toThrow(DuplicateNameError);
    registerPage('test.home', Nothing);
    expect(pageComponent('test.home')).toBe(Nothing);
    expect(() => registerPage('test.home', Nothing)).toThrow(new DuplicateNameError('page', 'test.home'));
  });
});

describe('installing an app\'s web entry', () => {
  it('registers what the manifest declares', () => {
    installExtension({ name: 'ok.app', web: web({ widgets: ['ok.flag'], views: ['ok.map'], pages: ['ok.home'] }) },
      { widgets: { 'ok.flag': { display: Nothing } }, views: { 'ok.map': Nothing }, pages: { 'ok.home': Nothing } });
    expect(widgetRegistry.display['ok.flag']).toBe(Nothing);
    expect(viewComponent('ok.map')).toBe(Nothing);
    expect(pageComponent('ok.home')).toBe(Nothing);
  });
  it('refuses a name the manifest does not declare, and a declared name the entry does not register', () => {
    expect(() => installExtension({ name: 'bad.app', web: web({}) }, { widgets: { 'bad.flag': { display: Nothing } } }))
      .toThrow(new ExtensionError('app bad.app: web/index registers widgets "bad.flag", which its manifest\'s web.widgets does not declare'));
    expect(() => installExtension({ name: 'bad.app', web: web({ views: ['bad.map'] }) }, {}))
      .toThrow(new ExtensionError('app bad.app: its manifest\'s web.views declares "bad.map", which web/index does not register'));
  });
  it('refuses a name another app (or fw) already registered', () => {
    expect(() => installExtension({ name: 'dup.app', web: web({ views: ['ok.map'] }) }, { views: { 'ok.map': Nothing } })).toThrow(DuplicateNameError);
  });
});

describe('which apps a screen needs', () => {
  const apps = [
    { name: 'crm.sales', web: web({ widgets: ['crm.probability'], views: ['crm.funnel'] }) },
    { name: 'storage', web: web({ views: ['storage.documents'] }) },
    { name: 'base', web: web({}) },
  ];
  const field = (widget: string | null) => ({ name: 'x', label: 'X', type: 'char', widget, optional: null, required: false, readonly: false, relation: null, values: null, default: null, help: null });

  it('a plan names its type, js_class and widgets (argument cut off), a form its nested lists\' widgets too', () => {
    const list = { __typename: 'ListPlan', type: 'list', js_class: 'storage.documents', fields: [field('crm.probability'), field('image:/x/{id}'), field(null)] } as never;
    expect(namesOfPlan(list)).toEqual({ widgets: ['crm.probability', 'image'], views: ['list', 'storage.documents'], pages: [] });
    const form = { __typename: 'FormPlan', type: 'form', js_class: null, fields: [], nodes: [{ list: { columns: [{ widget: 'crm.probability' }] } }, { list: null }] } as never;
    expect(namesOfPlan(form).widgets).toEqual(['crm.probability']);
  });
  it('only the apps owning a needed name are loaded', () => {
    expect(ownersOf(apps, { widgets: ['badge'], views: ['list'], pages: [] })).toEqual([]);
    expect(ownersOf(apps, { widgets: ['crm.probability'], views: ['list'], pages: [] }).map((a) => a.name)).toEqual(['crm.sales']);
    expect(ownersOf(apps, { widgets: [], views: ['storage.documents', 'crm.funnel'], pages: [] }).map((a) => a.name)).toEqual(['crm.sales', 'storage']);
  });
});

describe('an app\'s messages', () => {
  const messages = {
    en: { 'msg.hello': 'Hello {name}', 'msg.bye': 'Goodbye' },
    fr: { 'msg.hello': 'Bonjour {name}', 'msg.bye': 'Au revoir' },
  };
  function Greeting() {
    const t = useAppT<typeof messages>();
    return createElement('p', null, `${t('msg.hello', { name: 'Ada' })} / ${t('msg.bye')}`);
  }
  const render = () => renderToStaticMarkup(createElement(I18nProvider, null, createElement(Greeting)));

  it('are read in the user\'s language once the app is installed, English where fw has no catalogue', async () => {
    installExtension({ name: 'msg', web: web({}) }, { messages });
    await setLanguage('fr');
    expect(render()).toBe('<p>Bonjour Ada / Au revoir</p>');
    await setLanguage('de'); // fw speaks no German: the app's English, as fw's own texts
    expect(render()).toBe('<p>Hello Ada / Goodbye</p>');
    await setLanguage('en');
    expect(render()).toBe('<p>Hello Ada / Goodbye</p>');
  });

  it('a translation lacking an id shows that id in the app\'s English', async () => {
    installExtension({ name: 'half', web: web({}) }, { messages: { en: { 'half.a': 'A', 'half.b': 'B' }, fr: { 'half.a': 'À' } } as never });
    await setLanguage('fr');
    const Both = () => { const t = useAppT(); return createElement('p', null, `${t('half.a')} ${t('half.b')}`); };
    expect(renderToStaticMarkup(createElement(I18nProvider, null, createElement(Both)))).toBe('<p>À B</p>');
    await setLanguage('en');
  });

  it('an id must start with the app\'s prefix, is the app\'s alone, and a translation may not name an id English lacks; messages come one object per language; a refused entry installs nothing', () => {
    expect(() => installExtension({ name: 'shop.sales', web: web({}) }, { messages: { en: { 'sales.total': 'Total' } } }))
      .toThrow(new ExtensionMessageError('app shop.sales: message "sales.total" must start with the app\'s prefix "shop."'));
    expect(() => installExtension({ name: 'list', web: web({}) }, { messages: { en: { 'list.empty': 'x' } } })).toThrow(new DuplicateNameError('message', 'list.empty'));
    expect(() => installExtension({ name: 'msg.other', web: web({}) }, { messages: { en: { 'msg.hello': 'Hi' } } })).toThrow(new DuplicateNameError('message', 'msg.hello'));
    expect(() => installExtension({ name: 'typo', web: web({ widgets: ['typo.w'] }) }, {
      widgets: { 'typo.w': { display: Nothing } },
      messages: { en: { 'typo.a': 'A' }, fr: { 'typo.a': 'A', 'typo.b': 'B' } } as never,
    })).toThrow(new ExtensionMessageError('app typo: messages.fr has "typo.b", which messages.en does not'));
    expect(widgetRegistry.display['typo.w']).toBeUndefined();
    // the English-only shape, { id: text }, is named for what it is
    expect(() => installExtension({ name: 'flat', web: web({}) }, { messages: { 'flat.a': 'A' } as never }))
      .toThrow(new ExtensionMessageError('app flat: messages is one object per language, English required ({ en: { id: text }, fr: { … } })'));
  });
});

describe('a command result\'s message', () => {
  const intl = createIntl({ locale: 'fr', messages: { 'msg.tested': 'le webhook a répondu {status}' } });
  it('is its message_id formatted with its values when the catalogue has the id, else its English message, else nothing', () => {
    expect(resultMessage(intl, { message: 'webhook answered 204', message_id: 'msg.tested', message_values: { status: 204 } })).toBe('le webhook a répondu 204');
    expect(resultMessage(intl, { message: 'driver words', message_id: 'msg.unknown' })).toBe('driver words');
    expect(resultMessage(intl, { message: 'no id' })).toBe('no id');
    expect(resultMessage(intl, { success: true } as never)).toBeNull();
    expect(resultMessage(intl, null)).toBeNull();
  });
});
