/**
 * Apps translate what the server names in English (docs/views.md#translations): each app's
 * `i18n/<lang>.json`, listed in its manifest's data, is checked at boot, and render plans and the
 * bootstrap answer in the caller's language (res.user.lang); English users and callers without a
 * user read the declarations' English. Plans are cached per language.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewsOf } from '../../src/apps/presentation/index.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { ViewRegistry } from '../../src/apps/presentation/views/registry.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { loadActiveApps, projectLayout } from '../../src/kernel/modules/loader.ts';
import type { LoadedApp } from '../../src/kernel/registry/registry.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { gqlOk } from '../helpers/api.ts';
import { userPrincipal } from '../helpers/kernel.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Menu { key: string; name: string; children: Menu[] }
type Rec = Record<string, any>;

let ts: TestServer;
let admin: string;
let french: string;
let frenchId: string;

const flatMenus = (apps: Rec[]): Map<string, string> => {
  const out = new Map<string, string>();
  const walk = (ms: Menu[]) => { for (const m of ms) { out.set(m.key, m.name); walk(m.children); } };
  for (const a of apps) { out.set(a.key, a.name); walk(a.menus); }
  return out;
};
const label = (plan: Rec, field: string): string => plan.fields.find((f: Rec) => f.name === field).label;

beforeAll(async () => {
  ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ACTIVE_DOMAINS: 'crm' });
  admin = (await ts.loginAdmin()).access_token;
  frenchId = (await ts.createUser(admin, { email: 'francais@example.com', name: 'Français', password: 'francais-pass-123' })).id;
  french = (await ts.login('francais@example.com', 'francais-pass-123')).access_token;
  const set = await ts.request('POST', `/api/data/res.user/${frenchId}/set_preferences`, { token: french, body: { lang: 'fr' } });
  expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
});

afterAll(async () => {
  await ts?.close();
});

describe('a French user reads the apps\' French texts', () => {
  it('render plans carry French field labels, titles, view texts and kanban column labels', async () => {
    const list = (await ts.request('GET', '/api/presentation/view/crm.lead.list', { token: french })).body;
    expect(list.title).toBe('Pistes');
    expect(label(list, 'expected_revenue')).toBe('Revenu attendu');
    expect(list.fields.find((f: Rec) => f.name === 'stage').value_labels).toEqual(['Nouvelle', 'Qualifiée', 'Gagnée', 'Perdue']);
    const kanban = (await ts.request('GET', '/api/presentation/view/crm.lead.kanban', { token: french })).body;
    expect(kanban.columns.map((c: Rec) => c.label)).toEqual(['Nouvelle', 'Qualifiée', 'Gagnée', 'Perdue']);
    const form = (await ts.request('GET', '/api/presentation/view/res.user.form', { token: french })).body;
    expect(form.title).toBe('Utilisateur'); // the model's description, translated
    expect(label(form, 'name')).toBe('Nom affiché');
    expect(form.fields.find((f: Rec) => f.name === 'groups').help).toMatch(/^Groupes en plus de ceux du rôle/);
    expect(form.header.buttons.map((x: Rec) => x.string)).toContain('Désactiver');
    expect(form.fields.find((f: Rec) => f.name === 'role').value_labels).toEqual(['Administrateur', 'Utilisateur', 'Testeur QA']);
  });

  it('GraphQL answers the same French plan', async () => {
    const data = await gqlOk<Rec>(ts, '{ presentationGetViewPlan(view_id: "crm.lead.form") { title fields { name label } ... on FormPlan { nodes { string } } } }', undefined, { token: french });
    const plan = data.presentationGetViewPlan;
    expect(plan.title).toBe('Piste');
    expect(plan.fields.find((f: Rec) => f.name === 'salesperson').label).toBe('Commercial');
    expect(plan.nodes.map((n: Rec) => n.string)).toContain('Attribution');
  });

  it('the bootstrap carries French menus, actions, view titles and model descriptions', async () => {
    const b = (await ts.request('GET', '/api/presentation/bootstrap', { token: french })).body;
    const menus = flatMenus(b.apps);
    expect(menus.get('crm.menu_leads')).toBe('Pistes');
    expect(menus.get('storage.menu_folders')).toBe('Dossiers');
    expect(b.actions['crm.action_leads'].name).toBe('Pistes');
    expect(b.views.find((v: Rec) => v.view_id === 'crm.lead.pivot').title).toBe('Analyse des pistes');
    expect(b.models.find((m: Rec) => m.key === 'crm.lead').description).toBe('Piste');
  });

  it('the bootstrap carries French group labels and descriptions (group.<name>, group.<name>.description) and app summaries (app.<app>.summary)', async () => {
    const b = (await ts.request('GET', '/api/presentation/bootstrap', { token: french })).body;
    const admins = b.groups.find((g: Rec) => g.name === 'base.admin');
    expect(admins).toMatchObject({ label: 'Administrateur', description: 'Gère les utilisateurs, les paramètres et tous les enregistrements', implies: [] });
    expect(b.groups.find((g: Rec) => g.name === 'base.user').label).toBe('Utilisateur');
    const summary = (app: string) => b.active_apps.find((a: Rec) => a.name === app).summary;
    expect(summary('base')).toBe('Utilisateurs, organisations, pays et métadonnées de navigation');
    expect(summary('crm.sales')).toBe('Pistes (domaine d’exemple)');
    const data = await gqlOk<Rec>(ts, '{ presentationBootstrap { groups { name label description } active_apps { name summary } } }', undefined, { token: french });
    expect(data.presentationBootstrap.groups.find((g: Rec) => g.name === 'base.user').description).toBe('Travaille sur les enregistrements de son organisation');
    expect(data.presentationBootstrap.active_apps.find((a: Rec) => a.name === 'storage').summary).toBe('Documents versionnés sur le disque local ou un connecteur de stockage');
  });
});

describe('the language comes from the session', () => {
  it('after res.user.set_preferences the next view plan and bootstrap on the same token are in the new language', async () => {
    const user = await ts.createUser(admin, { email: 'switcher@example.com', name: 'Switcher', password: 'switcher-pass-123' });
    const token = (await ts.login('switcher@example.com', 'switcher-pass-123')).access_token;
    const title = async () => (await ts.request('GET', '/api/presentation/view/crm.lead.list', { token })).body.title;
    const groupLabel = async () => (await ts.request('GET', '/api/presentation/bootstrap', { token })).body.groups.find((g: Rec) => g.name === 'base.admin').label;
    expect(await title()).toBe('Leads'); // the session is now cached, English
    const set = async (lang: string) => expect((await ts.request('POST', `/api/data/res.user/${user.id}/set_preferences`, { token, body: { lang } })).status).toBe(200);
    await set('fr');
    expect(await title()).toBe('Pistes');
    expect(await groupLabel()).toBe('Administrateur');
    await set('en');
    expect(await title()).toBe('Leads');
    expect(await groupLabel()).toBe('Administrator');
  });

  it('the session\'s cached principal carries the language: a lang written behind the command bus\'s back (no hook forgets the session) is not read per request', async () => {
    const user = await ts.createUser(admin, { email: 'cached@example.com', name: 'Cached', password: 'cached-pass-1234' });
    const token = (await ts.login('cached@example.com', 'cached-pass-1234')).access_token;
    const title = async () => (await ts.request('GET', '/api/presentation/view/crm.lead.list', { token })).body.title;
    expect(await title()).toBe('Leads');
    const db = await ts.kernel.tenants.get(ts.kernel.settings.DEFAULT_TENANT);
    await delegateOf(db, ts.kernel.registry.model('res.user')).updateMany({ where: { record_uuid: user.id }, data: { lang: 'fr' } });
    expect(await title()).toBe('Leads'); // no read of res.user per plan
  });
});

describe('an English user reads the declarations unchanged', () => {
  it('plans and the bootstrap stay English', async () => {
    const list = (await ts.request('GET', '/api/presentation/view/crm.lead.list', { token: admin })).body;
    expect(list).toEqual(JSON.parse(JSON.stringify(viewsOf(ts.kernel.registry).plan('crm.lead.list', userPrincipal('default')))));
    expect(list.title).toBe('Leads');
    expect(label(list, 'expected_revenue')).toBe('Expected revenue');
    expect(list.fields.find((f: Rec) => f.name === 'stage')).not.toHaveProperty('value_labels'); // the client derives them
    // …except where the field declares labels, a derived one reading wrong (`qa` → "Qa")
    const form = (await ts.request('GET', '/api/presentation/view/res.user.form', { token: admin })).body;
    expect(form.fields.find((f: Rec) => f.name === 'role').value_labels).toEqual(['Admin', 'User', 'QA tester']);
    const b = (await ts.request('GET', '/api/presentation/bootstrap', { token: admin })).body;
    expect(flatMenus(b.apps).get('base.menu_settings')).toBe('Settings');
    expect(b.actions['crm.action_leads'].name).toBe('Leads');
    expect(b.models.find((m: Rec) => m.key === 'crm.lead').description).toBe('Lead');
  });

  it('a language without translations, or none, reads English', () => {
    const views = viewsOf(ts.kernel.registry);
    const p = userPrincipal('default');
    expect(views.plan('crm.lead.list', p, new Date(), 'de').title).toBe('Leads');
    expect(views.plan('crm.lead.list', p).title).toBe('Leads');
  });
});

describe('plans are cached per language', () => {
  it('each language has its own plan, made once', () => {
    const views = viewsOf(ts.kernel.registry);
    const p = userPrincipal('default');
    const fr = views.plan('crm.lead.list', p, new Date(), 'fr');
    expect(fr).not.toBe(views.plan('crm.lead.list', p, new Date(), 'en'));
    expect(fr.title).not.toBe(views.plan('crm.lead.list', p, new Date(), 'en').title);
    expect(views.plan('crm.lead.list', p, new Date(), 'fr')).toBe(fr);
  });
});

describe('translation files are checked at boot', () => {
  let apps: LoadedApp[];
  let dir: string;
  beforeAll(async () => {
    const settings = loadSettings({ ...process.env, ACTIVE_MODULES: 'base,auth,presentation', ACTIVE_DOMAINS: 'crm' });
    apps = await loadActiveApps(projectLayout(), settings);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-i18n-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Boots the views with crm.sales translated by `entries` in the file `<lang>.json`. */
  const boot = (lang: string, entries: unknown) => {
    const file = path.join(dir, `${lang}.json`);
    fs.writeFileSync(file, JSON.stringify(entries));
    return () => new ViewRegistry(createRegistry(apps.map((a) => (a.name === 'crm.sales' ? { ...a, translationFiles: [file] } : a))));
  };

  it('the shipped files pass', () => {
    expect(() => new ViewRegistry(createRegistry(apps))).not.toThrow();
  });

  it.each([
    ['model.crm.lead.field.nope', 'crm.lead has no field "nope"'],
    ['model.crm.nothing', 'no model "crm.nothing"'],
    ['model.crm.lead.field.name.help', 'crm.lead.name declares no help'],
    ['model.crm.lead.field.name.hint', 'a field key ends in .field.<field> or .field.<field>.help'],
    ['enum.crm.lead.stage.maybe', 'crm.lead.stage has no value "maybe"'],
    ['view.crm.lead.nowhere.title', 'no view of that id'],
    ['menu.crm.menu_nowhere', 'no ir.menu record of that xml_id'],
    ['action.crm.action_nowhere', 'no ir.action record of that xml_id'],
    ['group.crm.nobody', 'no active app declares that group'],
    ['group.base.user.help', 'a group key is group.<group> or group.<group>.description'],
    ['app.crm.sales', 'an app key is app.<app>.summary'],
    ['app.helpdesk.summary', 'no active app "helpdesk"'],
    ['label.crm.lead', 'keys start with model., enum., view., menu., action., group. or app.'],
  ])('an unknown key (%s) stops the boot naming the file', (key, why) => {
    expect(boot('fr', { [key]: 'x' })).toThrow(BootError);
    expect(boot('fr', { [key]: 'x' })).toThrow(`src/apps/crm.sales/i18n/fr.json: unknown key "${key}" (${why})`);
  });

  it('group and app keys follow the same rules: a group label base already translates stops the boot, the app\'s own summary passes', () => {
    expect(boot('fr', { 'group.base.user': 'Utilisatrice', 'app.crm.sales.summary': 'Pistes' })).toThrow('"group.base.user" is already translated by src/apps/base/i18n/fr.json');
    expect(boot('fr', { 'app.crm.sales.summary': 'Pistes' })).not.toThrow();
  });

  it('a view text the view no longer shows (its English was edited) translates nothing and does not stop the boot', () => {
    expect(boot('fr', { 'view.crm.lead.list.string.Not shown': 'Pas affiché', 'view.crm.lead.list.title': 'Pistes (test)' })).not.toThrow();
  });

  it('a file for a language the client does not have stops the boot', () => {
    expect(boot('de', { 'model.crm.lead': 'Interessent' })).toThrow('src/apps/crm.sales/i18n/de.json: the client has no language "de" (res.user.lang is one of en, fr)');
    expect(boot('en', { 'model.crm.lead': 'Lead' })).toThrow("src/apps/crm.sales/i18n/en.json: English is the declarations' own language");
  });

  it('a text that is not a string, or a key base already translates, stops the boot', () => {
    expect(boot('fr', { 'model.crm.lead': 3 })).toThrow('src/apps/crm.sales/i18n/fr.json: "model.crm.lead" must be a non-empty text');
    expect(boot('fr', ['model.crm.lead'])).toThrow('must be one JSON object of key → text');
    expect(boot('fr', { 'model.res.user': 'Usager' })).toThrow('src/apps/crm.sales/i18n/fr.json: "model.res.user" is already translated by src/apps/base/i18n/fr.json');
  });
});
