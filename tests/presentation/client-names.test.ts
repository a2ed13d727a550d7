/**
 * What a view may name of the web client, checked at boot without running client code: a
 * `widget=`, an app's view type (`<crm.funnel model=…>`) and a `js_class` must be fw's own or a
 * name an ACTIVE app declares in its manifest's `web`; anything else stops the boot with the file,
 * the element and the name. The manifest's `web` key itself is checked (kinds, prefix, no name
 * twice); the bootstrap tells the client which app owns which name and what an action opens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionEntry } from '../../src/apps/presentation/bootstrap.ts';
import { BUILTIN_VIEW_TYPES, BUILTIN_WIDGETS, clientNamesOf } from '../../src/apps/presentation/views/client-names.ts';
import { compileView } from '../../src/apps/presentation/views/plan.ts';
import { ViewRegistry } from '../../src/apps/presentation/views/registry.ts';
import { parseXml, ViewFileError } from '../../src/apps/presentation/views/xml.ts';
import type { AppManifest } from '../../src/kernel/app.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { loadAllApps, projectLayout } from '../../src/kernel/modules/loader.ts';
import { checkManifest } from '../../src/kernel/modules/order.ts';
import type { LoadedApp, Registry } from '../../src/kernel/registry/registry.ts';
import { fixtureApp } from '../helpers/kernel.ts';

let apps: LoadedApp[];
let registry: Registry;
/** The same apps without crm.sales: its client names are unknown then. */
let withoutCrm: Registry;
const dirs: string[] = [];

beforeAll(async () => {
  apps = await loadAllApps(projectLayout());
  registry = createRegistry(apps);
  withoutCrm = createRegistry(apps.filter((a) => a.name !== 'crm.sales'));
});
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

const fileOf = (id: string) => `views/test/${id.replace(/\./g, '_')}.xml`;
function compile(xml: string, reg = registry) {
  const id = /<view[^>]*\sid="([^"]*)"/.exec(xml)?.[1] ?? 'x';
  return compileView(parseXml(xml, fileOf(id)), fileOf(id), reg);
}
function failure(xml: string, reg = registry): string {
  try {
    compile(xml, reg);
  } catch (err) {
    expect(err).toBeInstanceOf(ViewFileError);
    return (err as Error).message;
  }
  throw new Error('the view compiled, but it should have been refused');
}
const userList = (body: string, attrs = '') => `<view id="res.user.list" version="1"><list model="res.user"${attrs}>${body}</list></view>`;
const funnel = (attrs: string, body = '') => `<view id="crm.lead.funnel" version="1" title="F"><crm.funnel model="crm.lead" ${attrs}>${body}</crm.funnel></view>`;

describe('widgets', () => {
  it('an unknown widget is refused at boot, naming the file, the element and the widget', () => {
    expect(failure(userList('<field name="name"/><field name="email" widget="map"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[2]>: unknown widget "map" (not built in, and no active app declares it in its manifest\'s web.widgets)');
  });

  it('the widget is checked wherever a field takes one: a form field, a nested list column, a kanban card', () => {
    expect(failure('<view id="res.user.form" version="1"><form model="res.user"><sheet><group><field name="name" widget="signature"/></group></sheet></form></view>'))
      .toBe('views/test/res_user_form.xml: <view/form[1]/sheet[1]/group[1]/field[1]>: unknown widget "signature" (not built in, and no active app declares it in its manifest\'s web.widgets)');
    expect(failure('<view id="storage.folder.form" version="1"><form model="storage.folder"><field name="children"><list><field name="name" widget="nope"/></list></field></form></view>'))
      .toContain('<view/form[1]/field[1]/list[1]/field[1]>: unknown widget "nope"');
    expect(failure('<view id="crm.lead.kanban" version="1"><kanban model="crm.lead" groupby_field="stage"><card_field name="name" widget="nope"/></kanban></view>'))
      .toContain('<view/kanban[1]/card_field[1]>: unknown widget "nope"');
  });

  it('`name:argument` checks the name only; fw\'s own widgets are known', () => {
    expect(failure(userList('<field name="name" widget="nope:/x/{id}"/>'))).toContain('unknown widget "nope"');
    for (const w of BUILTIN_WIDGETS) expect(compile(userList(`<field name="name" widget="${w}:arg"/>`)).fields[0].widget).toBe(`${w}:arg`);
  });

  it('an app\'s widget is known while the app is active, and refused when it is not', () => {
    expect(compile(userList('<field name="name" widget="crm.probability"/>')).fields[0].widget).toBe('crm.probability');
    expect(failure(userList('<field name="name" widget="crm.probability"/>'), withoutCrm)).toContain('unknown widget "crm.probability"');
  });
});

describe('view types', () => {
  it('an unknown view type is refused at boot, naming the file and the type', () => {
    expect(failure('<view id="crm.lead.gantt" version="1"><acme.gantt model="crm.lead"/></view>'))
      .toBe('views/test/crm_lead_gantt.xml: <view/acme.gantt[1]>: unknown view type <acme.gantt> (not built in, and no active app declares it in its manifest\'s web.views)');
    // the CRM app's type, once the app is not active
    expect(failure(funnel('stage_field="stage"'), withoutCrm)).toContain('unknown view type <crm.funnel>');
  });

  it('an app\'s view type compiles to a plan with its attributes as options, *_field attributes and <field> children as plan fields', () => {
    const plan = compile(funnel('stage_field="stage" measure_field="expected_revenue" colour="blue"', '<field name="name" widget="badge"/>'));
    expect(plan).toMatchObject({ view_id: 'crm.lead.funnel', type: 'crm.funnel', model: 'crm.lead', columns: ['name'] });
    expect(plan.options).toEqual({ stage_field: 'stage', measure_field: 'expected_revenue', colour: 'blue' });
    expect(plan.fields.map((f) => [f.name, f.widget])).toEqual([['stage', null], ['expected_revenue', null], ['name', 'badge']]);
  });

  it('a *_field attribute must name a field of the model; children are <field> only', () => {
    expect(failure(funnel('stage_field="phase"'))).toBe('views/test/crm_lead_funnel.xml: <view/crm.funnel[1]>: crm.lead has no field "phase"');
    expect(failure(funnel('stage_field="stage"', '<column value="new"/>')))
      .toBe('views/test/crm_lead_funnel.xml: <view/crm.funnel[1]/column[1]>: a <crm.funnel> view holds <field> elements, not <column>');
  });

  it('the id of an app\'s view ends with the type\'s name after the app prefix (crm.funnel → crm.lead.funnel)', () => {
    expect(failure('<view id="crm.lead.chart" version="1"><crm.funnel model="crm.lead" stage_field="stage"/></view>'))
      .toBe('views/test/crm_lead_chart.xml: <view/crm.funnel[1]>: view id crm.lead.chart says chart but the view is a <crm.funnel>');
  });
});

describe('js_class', () => {
  it('names an app\'s view component that draws a list, form or kanban plan', () => {
    expect(compile(userList('<field name="name"/>', ' js_class="storage.documents"')).js_class).toBe('storage.documents');
    expect(compile(userList('<field name="name"/>')).js_class).toBeUndefined(); // plans without one stay as they were
  });

  it('an unknown component, a built-in type\'s name, or one on a <search> is refused', () => {
    expect(failure(userList('<field name="name"/>', ' js_class="acme.table"')))
      .toBe('views/test/res_user_list.xml: <view/list[1]>: unknown view component js_class="acme.table" (no active app declares it in its manifest\'s web.views)');
    expect(failure(userList('<field name="name"/>', ' js_class="kanban"'))).toContain('unknown view component js_class="kanban"');
    expect(failure('<view id="res.organization.search" version="1"><search model="res.organization" js_class="storage.documents"><field name="name"/></search></view>'))
      .toBe('views/test/res_organization_search.xml: <view/search[1]>: js_class is for <list>, <form>, <kanban>, not <search>');
  });

  it('the documents list and the connector form name their apps\' components (web/src names no model)', () => {
    const views = new ViewRegistry(registry);
    expect(views.plan('storage.document.list', { kind: 'system' } as never).js_class).toBe('storage.documents');
    expect(views.plan('ir.connector.form', { kind: 'system' } as never).js_class).toBe('connectors.form');
  });
});

describe('at boot, over an app\'s view files', () => {
  function appWithView(name: string, file: string, xml: string): LoadedApp {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fw-client-names-${name}-`));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, file), xml);
    return { ...fixtureApp(name), dataFiles: [path.join(dir, file)] };
  }

  it('the view registry stops on an unknown widget or view type, naming the app\'s view file', () => {
    const widget = appWithView('zeta', 'res_country_list.xml', '<view id="res.country.list" version="1"><list model="res.country"><field name="name" widget="flag"/></list></view>');
    expect(() => new ViewRegistry(createRegistry([...apps, widget])))
      .toThrow(new ViewFileError('views/zeta/res_country_list.xml: <view/list[1]/field[1]>: unknown widget "flag" (not built in, and no active app declares it in its manifest\'s web.widgets)'));
    const type = appWithView('eta', 'res_country_map.xml', '<view id="res.country.map" version="1"><eta.map model="res.country"/></view>');
    expect(() => new ViewRegistry(createRegistry([...apps, type])))
      .toThrow(new ViewFileError('views/eta/res_country_map.xml: <view/eta.map[1]>: unknown view type <eta.map> (not built in, and no active app declares it in its manifest\'s web.views)'));
  });

  it('the same files boot once the app declares the names in its manifest\'s web', () => {
    const app = appWithView('theta', 'res_country_map.xml', '<view id="res.country.map" version="1"><theta.map model="res.country"><field name="name" widget="theta.flag"/></theta.map></view>');
    const declared = { ...app, manifest: { ...app.manifest, web: { widgets: ['theta.flag'], views: ['theta.map'] } } };
    const views = new ViewRegistry(createRegistry([...apps, declared]));
    expect(views.info('res.country.map')).toMatchObject({ type: 'theta.map', app: 'theta' });
  });
});

describe('the manifest\'s web key', () => {
  const manifest = (name: string, web: unknown): AppManifest =>
    ({ name, summary: 's', description: 'd', author: 'a', category: 'c', version: '1.0', depends: [], data: [], web }) as AppManifest;
  const refusal = (m: AppManifest) => {
    try {
      checkManifest(m, 'src/apps/x/manifest.ts');
    } catch (err) {
      expect(err).toBeInstanceOf(BootError);
      return (err as Error).message;
    }
    throw new Error('the manifest was accepted');
  };

  it('is optional, and holds widgets, views and pages as lists of names', () => {
    expect(() => checkManifest(manifest('acme.maps', undefined), 'm')).not.toThrow();
    expect(() => checkManifest(manifest('acme.maps', { widgets: ['acme.map'], views: ['acme.gantt'], pages: ['acme.dashboard'] }), 'm')).not.toThrow();
    expect(refusal(manifest('acme.maps', { screens: [] }))).toBe('src/apps/x/manifest.ts: unknown web key "screens" (keys: widgets, views, pages)');
    expect(refusal(manifest('acme.maps', { widgets: 'acme.map' }))).toBe('src/apps/x/manifest.ts: web.widgets must be a list of names');
    expect(refusal(manifest('acme.maps', ['acme.map']))).toBe('src/apps/x/manifest.ts: web must be an object of widgets, views, pages');
  });

  it('names carry the app\'s prefix: its domain for a domain app, its own name for a foundation app', () => {
    expect(refusal(manifest('acme.maps', { widgets: ['map'] }))).toBe('src/apps/x/manifest.ts: web.widgets name "map" must read <prefix>.<name> in lower-case letters, digits and _');
    expect(refusal(manifest('acme.maps', { widgets: ['crm.map'] }))).toBe('src/apps/x/manifest.ts: web.widgets name "crm.map" must start with the app\'s prefix "acme."');
    expect(refusal(manifest('storage', { views: ['documents.list'] }))).toContain('must start with the app\'s prefix "storage."');
    expect(refusal(manifest('acme.maps', { pages: ['acme.maps.home'] }))).toBe('src/apps/x/manifest.ts: web.pages name "acme.maps.home" must have two parts (acme.<name>)');
  });

  it('a name is declared once across the app\'s kinds', () => {
    expect(refusal(manifest('acme.maps', { widgets: ['acme.map'], views: ['acme.map'] }))).toBe('src/apps/x/manifest.ts: web name "acme.map" is declared twice');
  });

  it('the server\'s known names are fw\'s built-ins plus the active apps\' declarations', () => {
    const names = clientNamesOf(registry);
    for (const w of [...BUILTIN_WIDGETS, 'crm.probability']) expect(names.widgets.has(w), w).toBe(true);
    for (const v of [...BUILTIN_VIEW_TYPES, 'crm.funnel', 'storage.documents', 'connectors.form']) expect(names.views.has(v), v).toBe(true);
    expect(clientNamesOf(withoutCrm).widgets.has('crm.probability')).toBe(false);
  });
});

describe('what an action opens (bootstrap)', () => {
  const row = (extra: Record<string, unknown>) => ({ id: 'a1', name: 'A', model_key: 'crm.lead', view_type: 'list', domain: null, view_id: null, ...extra });

  it('an action whose view_id names a view of an app\'s type opens that view: its type becomes the action\'s view_type', () => {
    const views = new ViewRegistry(registry);
    const entry = actionEntry(row({ view_id: 'crm.lead.funnel' }), views);
    expect(entry).toMatchObject({ view_type: 'crm.funnel', page: null });
    expect((entry.views as Record<string, string>)['crm.funnel']).toBe('crm.lead.funnel');
  });

  it('an action whose view_id names a page an active app declares opens the page; without one, page is null', async () => {
    const app = { ...fixtureApp('iota'), manifest: { ...fixtureApp('iota').manifest, web: { pages: ['iota.dashboard'] } } };
    const views = new ViewRegistry(createRegistry([...apps, app]));
    expect(actionEntry(row({ view_id: 'iota.dashboard' }), views)).toMatchObject({ page: 'iota.dashboard', view_type: 'list' });
    expect(actionEntry(row({}), views)).toMatchObject({ page: null, view_type: 'list' });
    // a page of an app that is not active is no page: the name stays a (missing) view id as before
    expect(actionEntry(row({ view_id: 'iota.dashboard' }), new ViewRegistry(registry))).toMatchObject({ page: null });
  });
});
