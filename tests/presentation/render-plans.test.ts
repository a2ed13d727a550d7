/**
 * Render plans of every shipped view (snapshot), served by REST, by the command bus and by
 * GraphQL alike; search-view placeholders resolved per request; unknown views answer 404
 * UNKNOWN_VIEW. Boots the default foundation apps plus the crm domain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListViewsDocument, ViewPlanDocument } from '../../generated/gql/graphql.ts';
import { viewsOf } from '../../src/apps/presentation/index.ts';
import { flattenSheet } from '../../src/apps/presentation/views/flatten.ts';
import type { SheetNode } from '../../src/apps/presentation/views/plan.ts';
import type { Principal } from '../../src/kernel/env.ts';
import { gql, gqlError, gqlOk } from '../helpers/api.ts';
import { expectFwError, userPrincipal } from '../helpers/kernel.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

const SHIPPED = [
  'crm.lead.calendar', 'crm.lead.form', 'crm.lead.funnel', 'crm.lead.graph', 'crm.lead.kanban', 'crm.lead.list', 'crm.lead.pivot', 'crm.lead.search',
  'ir.connector.form', 'ir.connector.list',
  'res.country.list', 'res.country.search', 'res.organization.form', 'res.organization.list', 'res.organization.search',
  'res.user.form', 'res.user.list',
  'storage.document.form', 'storage.document.list',
  'storage.folder.form', 'storage.folder.list',
];

let ts: TestServer;
let token: string;
let me: { id: string; organization: string | null };
let admin: Principal;

/** First day of the month of `d`, 00:00 UTC, as ISO text. */
const monthStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString();

beforeAll(async () => {
  ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ACTIVE_DOMAINS: 'crm' });
  token = (await ts.loginAdmin()).access_token;
  const boot = await ts.request('GET', '/api/presentation/bootstrap', { token });
  const users = await ts.request('GET', `/api/data/res.user/${boot.body.user.id}`, { token });
  me = { id: users.body.id, organization: users.body.organization };
  admin = userPrincipal('default', { user_id: me.id, role: 'admin', organization_id: me.organization });
});

afterAll(async () => {
  await ts?.close();
});

const get = (url: string, t = token) => ts.request('GET', url, { token: t });

/** The GraphQL answer expected for a REST plan (tests/api/operations/presentation.graphql selects every field). */
/** GraphQL selects a plan field's `value_labels` (null in English); the REST plan has it only when translated. */
function withValueLabels(x: unknown): any {
  if (Array.isArray(x)) return x.map(withValueLabels);
  if (!x || typeof x !== 'object') return x;
  const o = Object.fromEntries(Object.entries(x).map(([k, v]) => [k, withValueLabels(v)]));
  return 'values' in o && 'type' in o && 'name' in o && !('value_labels' in o) ? { ...o, value_labels: null } : o;
}

function asGraphql(restPlan: Record<string, any>): Record<string, unknown> {
  const rest = withValueLabels(restPlan);
  // GraphQL selects js_class (null when none); the REST plan has it only when the view names one
  const { sheet, columns, ...plan }: Record<string, any> = { js_class: null, ...rest };
  const typename = rest.type.includes('.') ? 'AppViewPlan' : `${rest.type[0].toUpperCase()}${rest.type.slice(1)}Plan`;
  // GraphQL selects a header button's `modifiers` (null when none); the REST plan leaves it out
  const header = plan.header ? { ...plan.header, buttons: plan.header.buttons.map((b: Record<string, unknown>) => ({ modifiers: null, ...b })) } : plan.header;
  if (rest.type === 'form') return { __typename: typename, ...plan, header, nodes: flattenSheet(sheet as SheetNode[]) };
  if (rest.type === 'kanban') return { __typename: typename, ...plan, kanban_columns: columns };
  if (typename === 'AppViewPlan') return { __typename: typename, ...plan, app_columns: columns };
  return { __typename: typename, js_class: null, ...rest };
}

describe('view list', () => {
  it('GET /api/presentation/views lists every shipped view with its metadata, sorted by id', async () => {
    const res = await get('/api/presentation/views');
    expect(res.status).toBe(200);
    expect(res.body.map((v: { view_id: string }) => v.view_id)).toEqual(SHIPPED);
    expect(res.body.find((v: { view_id: string }) => v.view_id === 'storage.document.list'))
      .toEqual({ view_id: 'storage.document.list', version: 1, title: 'Documents', type: 'list', model: 'storage.document', app: 'storage' });
    expect(res.body.find((v: { view_id: string }) => v.view_id === 'crm.lead.kanban'))
      .toEqual({ view_id: 'crm.lead.kanban', version: 1, title: 'Pipeline', type: 'kanban', model: 'crm.lead', app: 'crm.sales' });
  });

  it('presentation.list_views (command bus, HTTP command route) and GraphQL presentationListViews give the same list', async () => {
    const rest = (await get('/api/presentation/views')).body;
    expect(await ts.kernel.dispatch('presentation.list_views', {}, admin)).toEqual({ views: rest });
    const cmd = await ts.request('POST', '/api/command/presentation.list_views', { token, body: {} });
    expect(cmd.status, JSON.stringify(cmd.body)).toBe(200);
    expect(cmd.body).toEqual({ views: rest });
    const data = await gqlOk(ts, ListViewsDocument, {}, { token });
    expect(data.presentationListViews).toEqual({ views: rest });
  });

  it('lists only views of models the caller\'s role may read (REST, command, GraphQL); their plans are 403 ACCESS_DENIED', async () => {
    // the qa role may not read crm.lead (schema/crm.sales/crm.lead.ts); every other shipped view's model it may
    await ts.createUser(token, { email: 'quinn-views@example.com', password: 'qa-pass-1234', role: 'qa', organization: me.organization ?? undefined });
    const qa = (await ts.login('quinn-views@example.com', 'qa-pass-1234')).access_token;
    const res = await get('/api/presentation/views', qa);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.map((v: { view_id: string }) => v.view_id)).toEqual(SHIPPED.filter((id) => !id.startsWith('crm.lead.')));
    const cmd = await ts.request('POST', '/api/command/presentation.list_views', { token: qa, body: {} });
    expect(cmd.body).toEqual({ views: res.body });
    expect((await gqlOk(ts, ListViewsDocument, {}, { token: qa })).presentationListViews).toEqual({ views: res.body });

    // the plan of such a view answers as the model's records do
    expectError(await get('/api/presentation/view/crm.lead.list', qa), 403, 'ACCESS_DENIED');
    expectError(await get('/api/data/crm.lead', qa), 403, 'ACCESS_DENIED');
    gqlError(await gql(ts, ViewPlanDocument, { viewId: 'crm.lead.kanban' }, { token: qa }), 'ACCESS_DENIED');
    expect((await get('/api/presentation/view/res.organization.list', qa)).status).toBe(200);
    // an unknown view is still 404
    expectError(await get('/api/presentation/view/crm.lead.gantt', qa), 404, 'UNKNOWN_VIEW');
  });

  it('the presentation routes require a bearer token', async () => {
    expectError(await ts.request('GET', '/api/presentation/views'), 401);
    expectError(await ts.request('GET', '/api/presentation/view/res.user.list'), 401);
    expectError(await ts.request('GET', '/api/presentation/view/res.user.list', { token: 'not-a-token' }), 401);
  });
});

describe('render plans', () => {
  it('the plan of every shipped view matches its snapshot (request-time placeholder values normalised)', async () => {
    const before = monthStart(new Date());
    const ids = (await get('/api/presentation/views')).body.map((v: { view_id: string }) => v.view_id);
    const after = monthStart(new Date());
    for (const id of ids) {
      const res = await get(`/api/presentation/view/${id}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const text = JSON.stringify(res.body).replaceAll(before, '<month_start>').replaceAll(after, '<month_start>').replaceAll(me.id, '<user_id>');
      expect(JSON.parse(text), id).toMatchSnapshot(id);
    }
  });

  it('every plan carries view_id, version, title, type, model and fields with name, label, type, widget, optional, required, readonly, relation, values, default', async () => {
    for (const id of SHIPPED) {
      const plan = (await get(`/api/presentation/view/${id}`)).body;
      // crm.lead.funnel is a view of the CRM app's own type (its web code registers crm.funnel)
      expect(plan).toMatchObject({ view_id: id, version: 1, type: id === 'crm.lead.funnel' ? 'crm.funnel' : id.split('.')[2], model: id.split('.').slice(0, 2).join('.') });
      expect(typeof plan.title).toBe('string');
      expect(plan.fields.length).toBeGreaterThan(0);
      for (const f of plan.fields) {
        // value_labels only for an Enum that declares labels (res.user role): the client derives the rest
        const keys = Object.keys(f).filter((k) => !(k === 'value_labels' && f.type === 'enum')).sort();
        expect(keys).toEqual(['default', 'help', 'label', 'name', 'optional', 'readonly', 'relation', 'required', 'type', 'values', 'widget']);
      }
      const typeKeys = { list: ['default_order', 'limit', 'columns', 'aggregates'], form: ['header', 'sheet', 'chatter'], kanban: ['groupby_field', 'columns', 'card_fields'], graph: ['chart_type', 'groupby', 'measure', 'available_measures'], pivot: ['rows', 'cols', 'measures', 'available_measures'], search: ['search_fields', 'filters', 'group_by'], calendar: ['date_start', 'date_stop', 'color', 'mode', 'card_fields'], 'crm.funnel': ['options', 'columns'] }[plan.type as 'list'];
      for (const k of typeKeys) expect(plan, `${id} has ${k}`).toHaveProperty(k);
    }
  });

  it('a field label defaults to the field description; a label attribute overrides it', async () => {
    const list = (await get('/api/presentation/view/res.organization.list')).body;
    expect(list.fields.find((f: { name: string }) => f.name === 'code').label).toBe('Workspace slug');
    // the field's help is its own key, never part of the label (a list shows labels as column titles)
    expect(list.fields.find((f: { name: string }) => f.name === 'code').help).toMatch(/^Lowercase letters, digits and hyphens/);
    const form = (await get('/api/presentation/view/res.organization.form')).body;
    expect(form.fields.find((f: { name: string }) => f.name === 'code').label).toBe('Workspace slug');
  });

  it('form plans carry statusbar, buttons with special=file_upload and special-accept, nested One2Many lists and chatter', async () => {
    const form = (await get('/api/presentation/view/ir.connector.form')).body;
    expect(form.header.statusbar).toEqual({ field: 'status', values: ['draft', 'connected', 'error'], clickable: false });
    expect(form.header.buttons).toContainEqual({
      string: 'Import configuration', name: 'ir.connector.import_config', type: 'object', special: 'file_upload', special_accept: '.json,application/json',
    });
    const page = form.sheet.find((n: { kind: string }) => n.kind === 'notebook').pages[0];
    expect(page.children[0]).toMatchObject({ kind: 'field', name: 'param_ids', type: 'one2many', relation: 'ir.connector.param', list: { model: 'ir.connector.param' } });
    expect(form.chatter).toBe(false);
    expect((await get('/api/presentation/view/storage.document.form')).body.chatter).toBe(true);
  });

  it('the %(month_start)s filter is resolved to the first day of the current month (UTC) at request time', async () => {
    for (const [id, filter, field] of [['res.organization.search', 'Created this month', 'created_at_utc'], ['crm.lead.search', 'Won this month', 'closed_at']]) {
      const before = monthStart(new Date());
      const plan = (await get(`/api/presentation/view/${id}`)).body;
      const after = monthStart(new Date());
      const domain = plan.filters.find((f: { string: string }) => f.string === filter).domain;
      const term = domain.find((t: unknown[]) => t[0] === field);
      expect(term[1]).toBe('>=');
      expect([before, after]).toContain(term[2]);
      expect(new Date(term[2]).getUTCDate()).toBe(1);
      expect(term[2]).toMatch(/T00:00:00\.000Z$/);
      expect(JSON.stringify(plan)).not.toContain('%(');
    }
  });

  it('the month_start value follows the clock: the cached plan is resolved anew for each request time', () => {
    const views = viewsOf(ts.kernel.registry);
    const jan = views.plan('res.organization.search', admin, new Date('2031-01-17T10:00:00Z'));
    const mar = views.plan('res.organization.search', admin, new Date('2031-03-31T23:59:59Z'));
    const term = (p: { filters: unknown }) => (p.filters as Array<{ string: string; domain: unknown[][] }>).find((f) => f.string === 'Created this month')!.domain[0];
    expect(term(jan as never)).toEqual(['created_at_utc', '>=', '2031-01-01T00:00:00.000Z']);
    expect(term(mar as never)).toEqual(['created_at_utc', '>=', '2031-03-01T00:00:00.000Z']);
  });

  it('%(user_id)s resolves to the calling user', async () => {
    const plan = (await get('/api/presentation/view/crm.lead.search')).body;
    expect(plan.filters.find((f: { string: string }) => f.string === 'Mine').domain).toEqual([['salesperson', '=', me.id]]);
    const user = await ts.createUser(token, { email: 'plan-user@example.com', password: 'user-pass-123' });
    const userToken = (await ts.login('plan-user@example.com', 'user-pass-123')).access_token;
    const other = (await get('/api/presentation/view/crm.lead.search', userToken)).body;
    expect(other.filters.find((f: { string: string }) => f.string === 'Mine').domain).toEqual([['salesperson', '=', user.id]]);
  });

  it('plans are computed once and cached: a non-search view is served as the same object every time', () => {
    const views = viewsOf(ts.kernel.registry);
    expect(viewsOf(ts.kernel.registry)).toBe(views);
    expect(views.plan('res.user.form', admin)).toBe(views.plan('res.user.form', admin));
    expect(Object.isFrozen(views.plan('res.user.form', admin))).toBe(true);
  });

  it('presentation.get_view_plan (command bus, HTTP command route) and GraphQL presentationGetViewPlan(view_id:) give the REST plan', async () => {
    for (const id of SHIPPED) {
      const rest = (await get(`/api/presentation/view/${id}`)).body;
      expect(await ts.kernel.dispatch('presentation.get_view_plan', { view_id: id }, admin), id).toEqual(rest);
      const cmd = await ts.request('POST', '/api/command/presentation.get_view_plan', { token, body: { view_id: id } });
      expect(cmd.body, id).toEqual(rest);
      // GraphQL: the same keys, typed, with a form's sheet flattened into `nodes`
      const data = await gqlOk(ts, ViewPlanDocument, { viewId: id }, { token });
      expect(data.presentationGetViewPlan, id).toEqual(asGraphql(rest));
    }
  });

  it('GraphQL ViewPlan is an interface with one object type per view type, picked by the plan\'s type', async () => {
    const typenames = await Promise.all(SHIPPED.map(async (id) =>
      (await gqlOk(ts, 'query($id: String!) { presentationGetViewPlan(view_id: $id) { __typename type } }', { id }, { token })).presentationGetViewPlan));
    // an app's view type (crm.funnel) is an AppViewPlan
    for (const t of typenames) expect(t.__typename).toBe(t.type.includes('.') ? 'AppViewPlan' : `${t.type[0].toUpperCase()}${t.type.slice(1)}Plan`);
    const iface = await gqlOk(ts, '{ __type(name: "ViewPlan") { kind fields { name } possibleTypes { name } } }', {}, { token });
    expect(iface.__type.kind).toBe('INTERFACE');
    expect(iface.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(['fields', 'js_class', 'model', 'title', 'type', 'version', 'view_id']);
    expect(iface.__type.possibleTypes.map((p: { name: string }) => p.name).sort()).toEqual(['AppViewPlan', 'CalendarPlan', 'FormPlan', 'GraphPlan', 'KanbanPlan', 'ListPlan', 'PivotPlan', 'SearchPlan']);
    // the form's sheet is only reachable flattened: no recursive type to select
    const form = await gqlOk(ts, '{ __type(name: "FormPlan") { fields { name } } }', {}, { token });
    expect(form.__type.fields.map((f: { name: string }) => f.name)).not.toContain('sheet');
  });

  it('an unknown view answers 404 UNKNOWN_VIEW on REST, on the command bus and on GraphQL', async () => {
    const res = await get('/api/presentation/view/res.user.kanban');
    expectError(res, 404, 'UNKNOWN_VIEW');
    expect(res.body.error.message).toBe('unknown view "res.user.kanban"');
    await expectFwError(ts.kernel.dispatch('presentation.get_view_plan', { view_id: 'no.such.view' }, admin), 404, 'UNKNOWN_VIEW');
    expectError(await ts.request('POST', '/api/command/presentation.get_view_plan', { token, body: { view_id: 'no.such.view' } }), 404, 'UNKNOWN_VIEW');
    gqlError(await gql(ts, '{ presentationGetViewPlan(view_id: "no.such.view") { view_id } }', {}, { token }), 'UNKNOWN_VIEW');
  });
});
