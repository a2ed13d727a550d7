/**
 * The web client's bootstrap payload (`GET /api/presentation/bootstrap`, `GET /api/base/bootstrap`,
 * GraphQL `presentationBootstrap`) for an admin and for a plain user: the user, the tenant, the
 * menu tree ordered by sequence with admin-only entries hidden from others, the seeded Documents
 * and Connectors entries, the actions with their views, and the models the caller may read with
 * their GraphQL names. GraphQL answers the same data typed, with menus and actions as flat lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootstrapDocument } from '../../generated/gql/graphql.ts';
import { adminToken, gqlOk } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Menu { key: string; name: string; sequence: number; category: string | null; action: string | null; children: Menu[] }
interface App { key: string; name: string; sequence: number; category: string | null; action: string | null; menus: Menu[] }
interface Bootstrap {
  user: { id: string; name: string; email: string };
  tenant_id: string;
  currency: string;
  apps: App[];
  actions: Record<string, { model_key: string; views: Record<string, string> }>;
  active_apps: Array<{ name: string }>;
  views: Array<{ view_id: string }>;
  models: Array<{ key: string; description: string; record_name: string; name_search_fields: string[]; archivable: boolean; access: Record<string, boolean>; names: Record<string, string> }>;
}

const ADMIN_ONLY = ['base.menu_users_orgs', 'base.menu_users', 'base.menu_organizations', 'base.menu_integrations', 'connectors.menu_connectors'];

let ts: TestServer;
let admin: string;
let user: string;
let userRecord: Record<string, any>;
let asAdmin: Bootstrap;
let asUser: Bootstrap;

/** Every menu key of a bootstrap payload, top-level apps included. */
const keysOf = (b: Bootstrap): string[] => {
  const out: string[] = [];
  const walk = (ms: Menu[]) => { for (const m of ms) { out.push(m.key); walk(m.children); } };
  for (const a of b.apps) { out.push(a.key); walk(a.menus); }
  return out;
};
const child = (ms: Menu[], key: string) => ms.find((m) => m.key === key);

beforeAll(async () => {
  ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ACTIVE_DOMAINS: 'crm' });
  admin = await adminToken(ts);
  userRecord = await ts.createUser(admin, { email: 'plain@example.com', name: 'Plain User', password: 'plain-pass-123' });
  user = (await ts.login('plain@example.com', 'plain-pass-123')).access_token;
  const a = await ts.request('GET', '/api/presentation/bootstrap', { token: admin });
  const u = await ts.request('GET', '/api/presentation/bootstrap', { token: user });
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expect(u.status, JSON.stringify(u.body)).toBe(200);
  asAdmin = a.body;
  asUser = u.body;
});

afterAll(async () => {
  await ts?.close();
});

describe('bootstrap for an admin', () => {
  it('carries the calling user {id, name, email} and the tenant id', async () => {
    const me = await ts.request('GET', '/api/auth/me', { token: admin });
    expect(asAdmin.user).toMatchObject({ id: expect.any(String), name: 'Administrator', email: 'admin@example.com' });
    expect(JSON.stringify(me.body)).toContain(asAdmin.user.id);
    expect(asAdmin.tenant_id).toBe('default');
    expect(asAdmin.currency).toBe('EUR'); // the CURRENCY setting's default
  });

  it('apps are the top-level menus ordered by sequence, each with its menu tree ordered by sequence', () => {
    expect(asAdmin.apps.map((a) => [a.key, a.sequence])).toEqual([['crm.menu_root', 10], ['storage.menu_documents', 20], ['base.menu_settings', 90]]);
    const ordered = (ms: Menu[]) => {
      expect(ms.map((m) => m.sequence)).toEqual([...ms.map((m) => m.sequence)].sort((x, y) => x - y));
      for (const m of ms) ordered(m.children);
    };
    for (const a of asAdmin.apps) ordered(a.menus);
  });

  it('the Documents top-level menu is present: category application, sequence 20, opening the documents action', () => {
    const docs = asAdmin.apps.find((a) => a.key === 'storage.menu_documents')!;
    expect(docs).toMatchObject({ name: 'Documents', category: 'application', sequence: 20, action: 'storage.action_documents' });
  });

  it('Settings holds Users & Organizations, Countries and Integrations > Connectors (sequence 40)', () => {
    const settings = asAdmin.apps.find((a) => a.key === 'base.menu_settings')!;
    expect(settings.menus.map((m) => m.name)).toEqual(['Users & Organizations', 'Countries', 'Integrations']);
    expect(child(settings.menus, 'base.menu_countries')).toMatchObject({ action: 'base.action_countries', children: [] });
    const uo = child(settings.menus, 'base.menu_users_orgs')!;
    expect(uo.children.map((m) => [m.name, m.action])).toEqual([['Users', 'base.action_users'], ['Organizations', 'base.action_organizations']]);
    const integrations = child(settings.menus, 'base.menu_integrations')!;
    expect(integrations.children).toEqual([
      expect.objectContaining({ key: 'connectors.menu_connectors', name: 'Connectors', sequence: 40, category: 'settings', action: 'connectors.action_connectors', children: [] }),
    ]);
  });

  it('actions map each action id to its model_key and views, and every menu action is in the map', () => {
    expect(asAdmin.actions['storage.action_documents']).toMatchObject({
      model_key: 'storage.document', views: { list: 'storage.document.list', form: 'storage.document.form' },
    });
    expect(asAdmin.actions['connectors.action_connectors']).toMatchObject({
      model_key: 'ir.connector', views: { list: 'ir.connector.list', form: 'ir.connector.form' },
    });
    expect(asAdmin.actions['crm.action_leads']).toMatchObject({
      model_key: 'crm.lead', views: { list: 'crm.lead.list', form: 'crm.lead.form', kanban: 'crm.lead.kanban', search: 'crm.lead.search' },
    });
    expect(asAdmin.actions['base.action_users']).toMatchObject({ model_key: 'res.user', views: { list: 'res.user.list', form: 'res.user.form' } });
    const viewIds = new Set(asAdmin.views.map((v) => v.view_id));
    for (const a of Object.values(asAdmin.actions)) for (const v of Object.values(a.views)) expect(viewIds).toContain(v);
    const actionsOfMenus: string[] = [];
    const walk = (ms: Array<Menu | App>) => {
      for (const m of ms) {
        if (m.action) actionsOfMenus.push(m.action);
        walk('children' in m ? m.children : m.menus);
      }
    };
    walk(asAdmin.apps);
    expect(actionsOfMenus.length).toBeGreaterThanOrEqual(5);
    for (const a of actionsOfMenus) expect(Object.keys(asAdmin.actions)).toContain(a);
  });

  it('active apps and view definitions are included', async () => {
    expect(asAdmin.active_apps.map((a) => a.name)).toEqual(['base', 'auth', 'presentation', 'connectors', 'storage', 'crm.sales']);
    expect(asAdmin.views).toEqual((await ts.request('GET', '/api/presentation/views', { token: admin })).body);
  });
});

describe('bootstrap for a plain user', () => {
  it('carries that user {id, name, email}', () => {
    expect(asUser.user).toMatchObject({ id: userRecord.id, name: 'Plain User', email: 'plain@example.com' });
    expect(asUser.tenant_id).toBe('default');
  });

  it('admin-only entries (Settings > Users & Organizations, Settings > Integrations > Connectors) are hidden, with their children', () => {
    const keys = keysOf(asUser);
    for (const k of ADMIN_ONLY) expect(keys, k).not.toContain(k);
    for (const k of ADMIN_ONLY) expect(keysOf(asAdmin), k).toContain(k);
  });

  it('entries open to everyone stay, in the same order: CRM > Leads and Documents', () => {
    const apps = asUser.apps.map((a) => a.key);
    expect(apps.indexOf('crm.menu_root')).toBeLessThan(apps.indexOf('storage.menu_documents'));
    expect(asUser.apps.find((a) => a.key === 'storage.menu_documents')).toMatchObject({ category: 'application', sequence: 20, action: 'storage.action_documents' });
    expect(asUser.apps.find((a) => a.key === 'crm.menu_root')!.menus.map((m) => m.key)).toEqual(['crm.menu_leads']);
    expect(asUser.actions['storage.action_documents']).toMatchObject({ model_key: 'storage.document', views: { list: 'storage.document.list' } });
  });
});

describe('models', () => {
  it('lists every model the caller may read, sorted by key, with its GraphQL names from the registry', () => {
    const keys = asAdmin.models.map((m) => m.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toEqual(expect.arrayContaining(['crm.lead', 'ir.event', 'ir.module', 'res.organization', 'res.user', 'storage.document']));
    const org = asAdmin.models.find((m) => m.key === 'res.organization')!;
    expect(org).toEqual({
      key: 'res.organization', description: 'Organization', record_name: 'name', name_search_fields: ['name', 'code'], archivable: true,
      access: { create: true, update: true, delete: true },
      names: {
        typeName: 'ResOrganization', one: 'resOrganization', many: 'resOrganizations', connection: 'resOrganizationsConnection',
        count: 'resOrganizationCount', groupBy: 'resOrganizationGroupBy', create: 'resOrganizationCreate', createMany: 'resOrganizationCreateMany',
        update: 'resOrganizationUpdate', updateMany: 'resOrganizationUpdateMany', delete: 'resOrganizationDelete',
        deleteMany: 'resOrganizationDeleteMany', changed: 'resOrganizationChanged', whereInput: 'ResOrganizationWhere',
        orderByInput: 'ResOrganizationOrderBy', createInput: 'ResOrganizationCreateInput', updateInput: 'ResOrganizationUpdateInput',
        groupByField: 'ResOrganizationGroupByField',
      },
    });
    expect(asAdmin.models.find((m) => m.key === 'res.country')!.names.many).toBe('resCountries');
    // archivable: a model with an is_active field the caller may read, and no other
    expect(asAdmin.models.find((m) => m.key === 'crm.lead')!.archivable).toBe(false);
  });

  it('is narrowed to the plain user\'s read access: admin-only models (ir.event, ir.module, ir.connector.param) are absent', () => {
    const keys = asUser.models.map((m) => m.key);
    for (const k of ['ir.event', 'ir.module', 'ir.connector.param']) {
      expect(keys, k).not.toContain(k);
      expect(asAdmin.models.map((m) => m.key), k).toContain(k);
    }
    expect(keys).toEqual(expect.arrayContaining(['crm.lead', 'res.organization', 'res.user', 'storage.document']));
    // what both may read is described the same way, but for what each role may do with it
    for (const m of asUser.models) expect({ ...m, access: null }).toEqual({ ...asAdmin.models.find((a) => a.key === m.key), access: null });
  });

  it('says what the caller\'s role may do with each model: a plain user creates and updates leads but deletes none, and only reads organizations', () => {
    expect(asUser.models.find((m) => m.key === 'crm.lead')!.access).toEqual({ create: true, update: true, delete: false });
    expect(asUser.models.find((m) => m.key === 'res.organization')!.access).toEqual({ create: false, update: false, delete: false });
    expect(asAdmin.models.find((m) => m.key === 'crm.lead')!.access).toEqual({ create: true, update: true, delete: true });
  });
});

/** The GraphQL answer for a REST payload: menus flattened (parent keys), the action map a list. */
function asGraphql(b: Bootstrap): Record<string, unknown> {
  const flat = (ms: Menu[], parent: string | null): unknown[] =>
    ms.flatMap(({ children, ...m }) => [{ ...m, parent_key: parent }, ...flat(children, m.key)]);
  return {
    ...b,
    apps: b.apps.map((a) => ({ ...a, menus: flat(a.menus, null) })),
    actions: Object.entries(b.actions).map(([key, a]) => ({
      key, ...a, views: Object.entries(a.views).map(([type, view_id]) => ({ type, view_id })),
    })),
  };
}

describe('the three ways to ask', () => {
  it('/api/base/bootstrap answers the same payload as /api/presentation/bootstrap; GraphQL the same data typed and flat', async () => {
    for (const [token, expected] of [[admin, asAdmin], [user, asUser]] as const) {
      const base = await ts.request('GET', '/api/base/bootstrap', { token });
      expect(base.status).toBe(200);
      expect(base.body).toEqual(expected);
      expect((await gqlOk(ts, BootstrapDocument, {}, { token })).presentationBootstrap).toEqual(asGraphql(expected));
    }
  });

  it('GraphQL menus are flat per app: every descendant in tree order, parent_key null under the app', async () => {
    const data = (await gqlOk(ts, BootstrapDocument, {}, { token: admin })).presentationBootstrap!;
    const settings = data.apps.find((a) => a.key === 'base.menu_settings')!;
    expect(settings.menus.map((m) => [m.key, m.parent_key])).toEqual([
      ['base.menu_users_orgs', null],
      ['base.menu_users', 'base.menu_users_orgs'],
      ['base.menu_organizations', 'base.menu_users_orgs'],
      ['base.menu_countries', null], ['base.menu_integrations', null],
      ['connectors.menu_connectors', 'base.menu_integrations'],
    ]);
    const leads = data.actions.find((a) => a.key === 'crm.action_leads')!;
    expect(leads.views).toEqual([
      { type: 'list', view_id: 'crm.lead.list' }, { type: 'form', view_id: 'crm.lead.form' },
      { type: 'kanban', view_id: 'crm.lead.kanban' }, { type: 'search', view_id: 'crm.lead.search' },
      // a view of the CRM app's own view type (its web code registers crm.funnel)
      { type: 'crm.funnel', view_id: 'crm.lead.funnel' },
      { type: 'graph', view_id: 'crm.lead.graph' }, { type: 'pivot', view_id: 'crm.lead.pivot' },
      { type: 'calendar', view_id: 'crm.lead.calendar' },
    ]);
    const userData = (await gqlOk(ts, BootstrapDocument, {}, { token: user })).presentationBootstrap!;
    expect(userData.apps.find((a) => a.key === 'base.menu_settings')!.menus).toEqual([]);
    expect(userData.models.map((m) => m.key)).not.toContain('ir.event');
  });

  it('bootstrap requires a token (401 on both routes)', async () => {
    expect((await ts.request('GET', '/api/presentation/bootstrap')).status).toBe(401);
    expect((await ts.request('GET', '/api/base/bootstrap')).status).toBe(401);
  });

  it('another tenant bootstraps with its own tenant id and user', async () => {
    const tokenB = await adminToken(ts, 'tenant-boot-b');
    const b = (await ts.request('GET', '/api/presentation/bootstrap', { token: tokenB })).body as Bootstrap;
    expect(b.tenant_id).toBe('tenant-boot-b');
    expect(b.user.email).toBe('admin@example.com');
    expect(b.user.id).not.toBe(asAdmin.user.id);
    expect(b.apps.map((a) => a.key)).toEqual(asAdmin.apps.map((a) => a.key));
  });
});

describe('the CURRENCY setting', () => {
  it('is an ISO 4217 code: anything else stops the boot with INVALID_CURRENCY', async () => {
    const { bootTestKernel } = await import('../helpers/kernel.ts');
    await expect(bootTestKernel({ settings: { ACTIVE_MODULES: 'base,auth,presentation', CURRENCY: 'euro' } }))
      .rejects.toMatchObject({ code: 'INVALID_CURRENCY', message: expect.stringContaining('CURRENCY must be an ISO 4217 code') });
    const ok = await bootTestKernel({ settings: { ACTIVE_MODULES: 'base,auth,presentation', CURRENCY: 'USD' } });
    await ok.cleanup();
  });
});
