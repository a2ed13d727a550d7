import { o, UNION_OTHERS } from '../../kernel/output.js';
import { flattenMenus, GRAPHQL_NAMES, type MenuNode } from './bootstrap.js';
import { flattenSheet } from './views/flatten.js';
import type { SheetNode } from './views/plan.js';

/**
 * GraphQL result types of the presentation commands (src/kernel/output.ts). REST answers the
 * handlers' results as they are; GraphQL reads the same results, except where a field says
 * `from`: the form sheet and the menus become flat lists, the action map a list.
 */

const str = o.string();
const optStr = o.nullable(o.string());

export const ViewInfo = o.object('ViewInfo', {
  view_id: str, version: o.int(), title: str, type: str, model: str, app: o.string({ description: 'App that declares the view' }),
}, { description: 'A registered view (metadata, not its plan)' });

export const ViewList = o.object('ViewList', { views: o.list(ViewInfo) });

const PlanField = o.object('PlanField', {
  name: str,
  label: str,
  type: o.string({ description: 'char, text, integer, float, boolean, datetime, json, uuid, enum, reference or one2many' }),
  widget: optStr,
  optional: o.nullable(o.string({ description: 'show or hide' })),
  required: o.boolean(),
  readonly: o.boolean(),
  relation: o.nullable(o.string({ description: 'Target model of a Reference or One2Many' })),
  values: o.list(o.string(), { nullable: true, description: 'Values of an Enum field' }),
  value_labels: o.list(o.string(), { nullable: true, description: 'The labels of `values`, in their order, in the caller\'s language (docs/views.md#translations); null in English unless the field declares labels (`f.enum(values, { labels })`): the client derives them' }),
  default: o.json({ nullable: true, description: 'The default of a new record ("now": a DateTime stamped at creation); null when none' }),
  help: o.nullable(o.string({ description: 'Help text shown under the input (the field\'s declared help); null when none' })),
}, { description: 'A field a view shows' });

/** View modifiers (src/apps/presentation/views/modifiers.ts): expression trees the client evaluates. */
const modifiers = (what: string) => o.json({ nullable: true, description: `invisible, readonly, required of ${what}: expression trees over the record's values ({ const } | { field } | { op, args }); null when none` });

const PlanButton = o.object('PlanButton', {
  string: str, name: o.string({ description: 'The command the button dispatches' }), type: str,
  special: o.nullable(o.string({ description: 'file_upload or null' })), special_accept: optStr,
  modifiers: modifiers('a header button (invisible only)'),
});

const NestedList = o.object('NestedList', {
  model: str,
  default_order: str,
  limit: o.nullable(o.int()),
  inverse: o.string({ description: 'The Reference of the line model pointing back at the record (set it on a new line)' }),
  columns: o.list(o.object('NestedListColumn', {
    name: str, label: str, type: str, widget: optStr, optional: optStr,
    required: o.boolean(), readonly: o.boolean(), relation: optStr, values: o.nullable(o.list(o.string())),
    value_labels: o.nullable(o.list(o.string())),
    default: o.json({ nullable: true, description: 'The default of a new line; null when none' }),
  })),
}, { description: 'The list a One2Many field of a form holds' });

const FormNode = o.object('FormNode', {
  index: o.int({ description: 'Position in the list (document order)' }),
  parent: o.nullable(o.int({ description: 'Index of the enclosing group, notebook or page; null at the top of the sheet' })),
  kind: o.string({ description: 'group, notebook, page, field, button or separator' }),
  string: o.nullable(o.string({ description: 'Title of a group, page or separator; label of a field; text of a button' })),
  field: o.nullable(PlanField),
  button: o.nullable(PlanButton),
  list: o.nullable(NestedList),
  modifiers: modifiers('the node'),
}, { description: 'One node of a form sheet, flattened: parents come before their children' });

const AnalysisGroupBy = o.object('AnalysisGroupBy', {
  field: str, interval: o.nullable(o.string({ description: 'day, week, month, quarter or year for a datetime field; null otherwise' })),
}, { description: 'A group-by of a graph or pivot view' });

/** Keys every plan has; shared by all members, so they are the `ViewPlan` interface's fields. */
const planKeys = {
  view_id: str, version: o.int(), title: str,
  type: o.string({ description: 'list, form, kanban, search, graph, pivot, or a view type an app registers (crm.funnel)' }),
  model: str, fields: o.list(PlanField),
  js_class: o.nullable(o.string({ description: 'The app view component that draws this plan instead of fw\'s (js_class="storage.documents"); null when none' })),
};

export const ViewPlan = o.union('ViewPlan', 'type', {
  list: o.object('ListPlan', {
    ...planKeys, default_order: str, limit: o.nullable(o.int()), columns: o.list(str),
    aggregates: o.json({ description: 'column → sum | avg | min | max: what each group of a grouped list shows under the column' }),
    editable: o.nullable(o.string({ description: 'editable="top|bottom": rows are edited in place and new ones added there (Odoo\'s editable lists); null: a row opens its form' })),
  }),
  form: o.object('FormPlan', {
    ...planKeys,
    header: o.nullable(o.object('FormHeader', {
      statusbar: o.nullable(o.object('FormStatusbar', {
        field: str, values: o.list(str),
        clickable: o.boolean({ description: 'clickable="1" on a writable field: clicking a value sets it' }),
      })),
      buttons: o.list(PlanButton),
    })),
    chatter: o.boolean(),
    nodes: o.list(FormNode, {
      description: 'The sheet in document order; each node names its parent by index',
      from: (plan) => flattenSheet(plan.sheet as SheetNode[]),
    }),
  }),
  kanban: o.object('KanbanPlan', {
    ...planKeys,
    groupby_field: str,
    columns: o.list(o.object('KanbanColumn', { value: str, label: str })),
    card_fields: o.list(str),
  }),
  calendar: o.object('CalendarPlan', {
    ...planKeys,
    date_start: o.string({ description: 'The date-time field that places a record on a day' }),
    date_stop: o.nullable(o.string({ description: 'The date-time field where a record ends (it spans the days between); null when none' })),
    color: o.nullable(o.string({ description: 'The field whose value picks a record\'s colour; null when none' })),
    mode: o.string({ description: 'month, week or day: the range the calendar opens on' }),
    card_fields: o.list(str, { description: 'The fields a record\'s entry shows (the first is its title)' }),
  }),
  search: o.object('SearchPlan', {
    ...planKeys,
    search_fields: o.list(o.object('SearchField', { name: str, string: str })),
    filters: o.list(o.object('SearchFilter', {
      string: str, domain: o.json({ description: 'A domain ([[field, operator, value], …]) with its placeholders resolved' }),
    })),
    group_by: o.list(o.object('SearchGroupBy', { string: str, field: str })),
  }),
  graph: o.object('GraphPlan', {
    ...planKeys,
    chart_type: o.string({ description: 'bar, line or pie' }),
    groupby: o.list(AnalysisGroupBy, { description: 'One or two: the axis (or the slices), then the series' }),
    measure: o.string({ description: 'The field summed, or __count for the number of records' }),
    available_measures: o.list(str, { description: '__count and every number field a person may pick instead' }),
  }),
  pivot: o.object('PivotPlan', {
    ...planKeys,
    rows: o.list(AnalysisGroupBy, { description: 'Row group-bys, outermost first' }),
    cols: o.list(AnalysisGroupBy, { description: 'Column group-bys, outermost first' }),
    measures: o.list(str, { description: 'Fields summed per cell (__count: the number of records)' }),
    available_measures: o.list(str, { description: '__count and every number field a person may add' }),
  }),
  [UNION_OTHERS]: o.object('AppViewPlan', {
    ...planKeys,
    options: o.json({ description: 'The view body\'s attributes besides model (an attribute named *_field names a field of the plan)' }),
    columns: o.list(str, { description: 'The fields the view lists (its <field> elements), in order' }),
  }, { description: 'The plan of a view type an app\'s web client registers (docs/extend-client.md)' }),
}, { description: 'A render plan; the concrete type follows its `type`' });

const BootstrapMenu = o.object('BootstrapMenu', {
  id: o.id(), key: str, name: str, icon: optStr, category: optStr, sequence: o.int(),
  action: o.nullable(o.string({ description: 'xml_id of the action the entry opens' })),
  parent_key: o.nullable(o.string({ description: 'Key of the parent menu; null for direct children of the app' })),
}, { description: 'A menu entry under an app' });

const ModelGraphqlNames = o.object('ModelGraphqlNames', Object.fromEntries(GRAPHQL_NAMES.map((n) => [n, str])), { description: 'GraphQL names of a model (from the registry; never derive them)' });

export const Bootstrap = o.object('Bootstrap', {
  user: o.nullable(o.object('BootstrapUser', {
    id: o.id(), name: str, email: str, role: str,
    holds: o.list(str, { description: 'Every group and role name you hold (your role, your groups and what they imply): what the client shows or hides by' }),
  })),
  tenant_id: str,
  currency: o.string({ description: 'ISO 4217 code money is shown in unless a view names another (setting CURRENCY)' }),
  apps: o.list(o.object('BootstrapApp', {
    key: str, name: str, icon: optStr, category: optStr, sequence: o.int(), action: optStr,
    menus: o.list(BootstrapMenu, {
      description: 'Every menu under the app, in tree order',
      from: (app) => flattenMenus(app.menus as MenuNode[]),
    }),
  }, { description: 'A top-level menu entry' })),
  actions: o.list(o.object('BootstrapAction', {
    key: o.string({ description: 'xml_id of the action (else its id)' }),
    id: o.id(), name: str, model_key: str,
    view_type: o.string({ description: 'The view the action opens by default: list, form, kanban, or an app\'s view type its view_id names' }),
    domain: o.nullable(o.json()),
    page: o.nullable(o.string({ description: 'The app page the action opens instead of a view (its view_id names a page an app declares); null when none' })),
    views: o.list(o.object('ActionView', { type: str, view_id: str })),
  }), {
    from: (b) => Object.entries(b.actions as Record<string, Record<string, unknown>>).map(([key, a]) => ({
      key, ...a, views: Object.entries(a.views as Record<string, string>).map(([type, view_id]) => ({ type, view_id })),
    })),
  }),
  active_apps: o.list(o.object('ActiveApp', {
    name: str, summary: str, version: str, category: str,
    web: o.object('ActiveAppWeb', { widgets: o.list(str), views: o.list(str), pages: o.list(str) }, {
      description: 'What the app\'s web client code registers (its manifest\'s web): the client loads that code when a view names one of these',
    }),
  })),
  views: o.list(ViewInfo),
  groups: o.list(o.object('BootstrapGroup', {
    name: str, label: str, description: o.nullable(str), implies: o.list(str),
  }), { description: 'The groups the active apps declare (what res.user.groups may hold)' }),
  models: o.list(o.object('ModelInfo', {
    key: str, description: str, record_name: str, name_search_fields: o.list(str),
    archivable: o.boolean({ description: 'Has an is_active field you may read: lists hide archived records unless asked, forms offer Archive' }),
    access: o.object('ModelAccess', { create: o.boolean(), update: o.boolean(), delete: o.boolean() }, {
      description: 'What your role may do with the model\'s records (record rules still decide per record)',
    }),
    names: ModelGraphqlNames,
  }), { description: 'The models you may read' }),
}, { description: 'What the web client needs to start' });
