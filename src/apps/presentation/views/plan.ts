import crypto from 'node:crypto';
import { domainToWhere } from '../../../kernel/data/domain.js';
import { didYouMean } from '../../../kernel/registry/closest.js';
import { enumValueLabel, type ResolvedField, type ResolvedModel } from '../../../kernel/registry/model.js';
import type { Registry } from '../../../kernel/registry/registry.js';
import { BUILTIN_VIEW_TYPES, clientNamesOf, widgetName, type ClientNames } from './client-names.js';
import { analysis } from './analysis.js';
import { parseDomainLiteral, placeholderValues, resolvePlaceholders } from './domain-literal.js';
import { fieldsOf, ModifierError, parseModifier, type ModifierName, type Modifiers } from './modifiers.js';
import { ViewFileError, type XmlNode } from './xml.js';

/** A built-in view type, or the name of a view type an app's web client registers (`crm.funnel`). */
export type ViewType = 'list' | 'form' | 'kanban' | 'search' | 'graph' | 'pivot' | 'calendar' | (string & {});

export interface PlanField {
  name: string;
  label: string;
  type: string;
  widget: string | null;
  optional: 'show' | 'hide' | null;
  required: boolean;
  readonly: boolean;
  relation: string | null;
  values: string[] | null;
  /**
   * The labels of `values`: in a translated plan (docs/views.md#translations), or in English when
   * the field declares some (EnumField.labels); else absent, the client derives them
   */
  value_labels?: string[];
  /** The model's default for a new record (`"now"` for a DateTime stamped at creation); null when none */
  default: unknown;
  /** The field's help text (declared `help`), shown under its input; null when none */
  help: string | null;
}

export interface PlanButton { string: string; name: string; type: string; special: string | null; special_accept: string | null; modifiers?: Modifiers }

export interface NestedListColumn {
  name: string; label: string; type: string; widget: string | null; optional: string | null;
  required: boolean; readonly: boolean; relation: string | null; values: string[] | null; value_labels?: string[]; default: unknown;
}
/**
 * The list a One2Many field of a form holds; `inverse` is the Reference of the line model that
 * points back at the form's record (what a client sets on a new line).
 */
export interface NestedList { model: string; inverse: string; default_order: string; limit: number | null; columns: NestedListColumn[] }

/** One node of a form plan's `sheet` (the REST shape: a tree). */
export type SheetNode =
  | { kind: 'group'; string: string | null; children: SheetNode[]; modifiers?: Modifiers }
  | { kind: 'notebook'; pages: Array<{ string: string; children: SheetNode[]; modifiers?: Modifiers }> }
  | (PlanField & { kind: 'field'; list?: NestedList; modifiers?: Modifiers })
  | (PlanButton & { kind: 'button' })
  | { kind: 'separator'; string: string | null };

/** A render plan: everything a client needs to draw the view, computed once at boot. */
export interface RenderPlan {
  view_id: string;
  version: number;
  title: string;
  type: ViewType;
  model: string;
  fields: PlanField[];
  [key: string]: unknown;
}

const VIEW_ID = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2,}$/;
/** Views whose body may name a view component of an app (`js_class`, as in Odoo) to draw their plan. */
const JS_CLASS_TYPES = ['list', 'form', 'kanban'];

/**
 * The last part of a view id for a view type: the type itself for a built-in (`crm.lead.list`),
 * the name after the app's prefix for an app's type (`crm.funnel` → `crm.lead.funnel`).
 */
const idSuffixOf = (type: string): string => (BUILTIN_VIEW_TYPES.includes(type) ? type : type.slice(type.indexOf('.') + 1).replace(/\./g, '_'));

export class Ctx {
  fields = new Map<string, PlanField>();
  constructor(readonly file: string, readonly registry: Registry, readonly model: ResolvedModel, readonly names: ClientNames) {}
  fail(node: XmlNode, message: string): never {
    throw new ViewFileError(`${this.file}: <${node.path}>: ${message}`);
  }
  attr(node: XmlNode, name: string): string {
    const v = node.attrs[name];
    if (v === undefined || v === '') this.fail(node, `missing attribute "${name}"`);
    return v;
  }
  field(node: XmlNode, model = this.model): ResolvedField {
    const name = this.attr(node, 'name');
    const f = model.fields.get(name);
    if (!f || f.private) {
      this.fail(node, `${model.key} has no field "${name}"${didYouMean(name, [...model.fields.values()].filter((x) => !x.private).map((x) => x.name))}`);
    }
    return f;
  }
  /**
   * The modifiers an element declares (`allowed` names the ones it may have), parsed against the
   * model; a field an expression reads joins the plan's fields so the client loads its value.
   */
  modifiers(node: XmlNode, allowed: readonly ModifierName[]): Modifiers | undefined {
    const out: Modifiers = {};
    for (const name of ['invisible', 'readonly', 'required'] as const) {
      const text = node.attrs[name];
      if (text === undefined) continue;
      if (!allowed.includes(name)) this.fail(node, `<${node.tag}> takes no ${name} attribute (only ${allowed.join(', ')})`);
      const isField = (n: string) => { const f = this.model.fields.get(n); return !!f && !f.private; };
      try {
        out[name] = parseModifier(text, isField);
      } catch (err) {
        if (!(err instanceof ModifierError)) throw err;
        this.fail(node, `${name}="${text}": ${err.message}`);
      }
      for (const field of fieldsOf(out[name]!)) {
        if (!this.fields.has(field)) this.planField({ ...node, attrs: { name: field } }, this.model.fields.get(field)!);
      }
    }
    return Object.keys(out).length ? out : undefined;
  }
  /**
   * The `widget` attribute of a field element, refused unless the client knows the name: one of
   * fw's widgets or one an active app declares in its manifest's `web.widgets`.
   */
  widget(node: XmlNode): string | null {
    const widget = node.attrs.widget;
    if (widget === undefined) return null;
    const name = widgetName(widget);
    if (!this.names.widgets.has(name)) this.fail(node, `unknown widget "${name}" (not built in, and no active app declares it in its manifest's web.widgets)`);
    return widget;
  }
  planField(node: XmlNode, f: ResolvedField): PlanField {
    const optional = node.attrs.optional ?? null;
    if (optional !== null && optional !== 'show' && optional !== 'hide') this.fail(node, `optional must be show or hide`);
    const p: PlanField = {
      name: f.name,
      label: node.attrs.label ?? node.attrs.string ?? f.description,
      type: f.type,
      widget: this.widget(node),
      optional: optional as PlanField['optional'],
      required: f.required,
      readonly: f.readonly || f.auto,
      relation: f.target ?? null,
      values: f.values ? [...f.values] : null,
      ...declaredLabels(f),
      default: f.default ?? null,
      help: f.help ?? null,
    };
    if (!this.fields.has(f.name)) this.fields.set(f.name, p);
    return p;
  }
}

/**
 * Compiles one parsed view file into its render plan, validating it against the registry and
 * against the names the web client knows (`names`: built-ins and the active apps' `web`).
 */
export function compileView(root: XmlNode, file: string, registry: Registry, names: ClientNames = clientNamesOf(registry)): RenderPlan {
  const fail = (n: XmlNode, m: string): never => { throw new ViewFileError(`${file}: <${n.path}>: ${m}`); };
  if (root.tag !== 'view') fail(root, 'the root element must be <view>');
  const id = root.attrs.id ?? fail(root, 'missing attribute "id"');
  if (!VIEW_ID.test(id)) fail(root, `view id "${id}" must read {domain}.{model_name}.{view_type}`);
  if (root.children.length === 1 && !names.views.has(root.children[0].tag)) {
    fail(root.children[0], `unknown view type <${root.children[0].tag}> (not built in, and no active app declares it in its manifest's web.views)`);
  }
  const expectedFile = `${id.replace(/\./g, '_')}.xml`;
  if (!file.endsWith(`/${expectedFile}`) && file !== expectedFile) fail(root, `view ${id} must live in a file named ${expectedFile}`);
  const version = Number(root.attrs.version);
  if (!Number.isInteger(version) || version < 1) fail(root, `version "${root.attrs.version ?? ''}" must be an integer ≥ 1`);
  if (root.children.length !== 1) fail(root, 'a view holds exactly one of <list>, <form>, <kanban>, <search>, <graph>, <pivot>, <calendar> or an app\'s view type');
  const body = root.children[0];
  const type: ViewType = body.tag;
  const suffix = idSuffixOf(type);
  const idType = id.slice(id.lastIndexOf('.') + 1);
  if (idType !== suffix) fail(body, `view id ${id} says ${idType} but the view is a <${type}>`);
  const modelKey = body.attrs.model ?? fail(body, 'missing attribute "model"');
  if (id !== `${modelKey}.${suffix}`) fail(body, `view id ${id} does not match its model ${modelKey} (expected ${modelKey}.${suffix})`);
  const model = registry.models.get(modelKey) ?? fail(body, `unknown model "${modelKey}"${didYouMean(modelKey, registry.models.keys())}`);
  const ctx = new Ctx(file, registry, model, names);
  const plan: RenderPlan = { view_id: id, version, title: root.attrs.title ?? model.description, type, model: model.key, fields: [] };
  // only a view that names one carries it: plans without stay as they were
  const js = jsClass(ctx, body);
  if (js) plan.js_class = js;
  if (type === 'list') Object.assign(plan, compileList(ctx, body));
  else if (type === 'form') Object.assign(plan, compileForm(ctx, body));
  else if (type === 'kanban') Object.assign(plan, compileKanban(ctx, body));
  else if (type === 'search') Object.assign(plan, compileSearch(ctx, body));
  else if (type === 'graph' || type === 'pivot') Object.assign(plan, analysis(ctx, body));
  else if (type === 'calendar') Object.assign(plan, compileCalendar(ctx, body));
  else Object.assign(plan, compileAppView(ctx, body));
  plan.fields = [...ctx.fields.values()];
  return plan;
}

/**
 * `js_class="storage.documents"` on a <list>, <form> or <kanban>: an app's view component draws
 * the plan instead of fw's (Odoo's js_class). Null when the view does not name one.
 */
function jsClass(ctx: Ctx, body: XmlNode): string | null {
  const name = body.attrs.js_class;
  if (name === undefined) return null;
  if (!JS_CLASS_TYPES.includes(body.tag)) ctx.fail(body, `js_class is for <${JS_CLASS_TYPES.join('>, <')}>, not <${body.tag}>`);
  if (BUILTIN_VIEW_TYPES.includes(name) || !ctx.names.views.has(name)) ctx.fail(body, `unknown view component js_class="${name}" (no active app declares it in its manifest's web.views)`);
  return name;
}

/**
 * The body of a view of an app's view type (`<crm.funnel model="crm.lead" stage_field="stage">`):
 * its attributes are the component's `options` (an attribute named `*_field` must name a field of
 * the model, which joins the plan's fields) and its <field> children the `columns` it shows.
 */
function compileAppView(ctx: Ctx, node: XmlNode) {
  const options: Record<string, string> = {};
  for (const [key, value] of Object.entries(node.attrs)) {
    if (key === 'model') continue;
    if (key.endsWith('_field')) {
      const fieldNode = { ...node, attrs: { name: value } };
      ctx.planField(fieldNode, ctx.field(fieldNode));
    }
    options[key] = value;
  }
  const columns = node.children.map((c) => {
    if (c.tag !== 'field') ctx.fail(c, `a <${node.tag}> view holds <field> elements, not <${c.tag}>`);
    return ctx.planField(c, ctx.field(c)).name;
  });
  return { options, columns };
}

/** A view's list, or (`nested`) the list a One2Many field of a form holds, even one on its own model. */
function compileList(ctx: Ctx, node: XmlNode, model = ctx.model, nested = false) {
  const order = node.attrs.default_order ?? null;
  if (order) {
    const m = /^(\w+)\s+(asc|desc)$/.exec(order.trim());
    if (!m || !model.fields.get(m[1])?.stored) ctx.fail(node, `default_order "${order}" must read "<field> asc|desc" with a stored field`);
  }
  const limit = node.attrs.limit === undefined ? null : Number(node.attrs.limit);
  if (limit !== null && (!Number.isInteger(limit) || limit < 1)) ctx.fail(node, `limit must be a positive integer`);
  // Odoo's editable lists: rows are edited in place, new ones added at the top or the bottom
  const editable = node.attrs.editable ?? null;
  if (editable !== null && (nested || !EDITABLE.includes(editable))) {
    ctx.fail(node, nested ? 'editable is for a view\'s <list>; a form\'s One2Many lines are always edited in place' : `editable must be one of ${EDITABLE.join(', ')}, not "${editable}"`);
  }
  const aggregates: Record<string, string> = {};
  const seen = new Set<string>();
  const columns = node.children.map((c) => {
    if (c.tag !== 'field') ctx.fail(c, `a list holds <field> elements, not <${c.tag}>`);
    const f = ctx.field(c, model);
    // a column per field: a second one is a slip (its width, its sort and its cell would clash)
    if (seen.has(f.name)) ctx.fail(c, `the list shows ${f.name} twice`);
    seen.add(f.name);
    const agg = listAggregate(ctx, c, f);
    if (agg) aggregates[f.name] = agg;
    return nested ? nestedField(ctx, c, f) : ctx.planField(c, f).name;
  });
  const out = { default_order: order ?? model.defaultOrder.map((o) => `${o.field} ${o.direction}`).join(', '), limit, columns };
  return nested ? out : { ...out, aggregates, editable };
}

const EDITABLE = ['top', 'bottom'];

const AGGREGATES = ['sum', 'avg', 'min', 'max'];
/**
 * What a list column shows per group when the list is grouped: `aggregate="sum|avg|min|max|none"`
 * on its <field>; a number column (integer, float) sums by default, others show nothing.
 */
function listAggregate(ctx: Ctx, node: XmlNode, f: ResolvedField): string | null {
  const numeric = (f.type === 'integer' || f.type === 'float') && !f.auto;
  const declared = node.attrs.aggregate;
  if (declared === undefined) return numeric ? 'sum' : null;
  if (declared === 'none') return null;
  if (!AGGREGATES.includes(declared)) ctx.fail(node, `aggregate must be one of ${AGGREGATES.join(', ')} or none, not "${declared}"`);
  if ((declared === 'sum' || declared === 'avg') && !numeric) ctx.fail(node, `aggregate="${declared}" needs a number field; ${f.name} is ${f.type}`);
  if (f.type === 'reference' || f.type === 'json' || f.type === 'boolean' || f.type === 'one2many') ctx.fail(node, `aggregate="${declared}" cannot apply to a ${f.type} field`);
  return declared;
}

function nestedField(ctx: Ctx, node: XmlNode, f: ResolvedField): NestedListColumn {
  // a nested list's <field> takes the same attributes as a top-level list's, `optional` included
  const optional = node.attrs.optional ?? null;
  if (optional !== null && optional !== 'show' && optional !== 'hide') ctx.fail(node, `optional must be show or hide`);
  return {
    name: f.name, label: node.attrs.label ?? f.description, type: f.type, widget: ctx.widget(node), optional,
    required: f.required, readonly: f.readonly || f.auto, relation: f.target ?? null, values: f.values ? [...f.values] : null,
    ...declaredLabels(f), default: f.default ?? null,
  };
}

/** An Enum's `value_labels` when it declares labels: the client derives the others, not these. */
const declaredLabels = (f: ResolvedField): { value_labels?: string[] } =>
  (f.values && f.labels ? { value_labels: f.values.map((v) => enumValueLabel(f, v)) } : {});

function button(ctx: Ctx, node: XmlNode): PlanButton {
  const name = ctx.attr(node, 'name');
  if (!ctx.registry.commands.has(name)) ctx.fail(node, `button names unknown command "${name}"${didYouMean(name, ctx.registry.commands.keys())}`);
  const type = node.attrs.type ?? 'object';
  if (type !== 'object') ctx.fail(node, `button type must be "object"`);
  const special = node.attrs.special ?? null;
  if (special !== null && special !== 'file_upload') ctx.fail(node, `unknown special "${special}"`);
  return withModifiers({ string: node.attrs.string ?? name, name, type, special, special_accept: node.attrs['special-accept'] ?? null }, ctx.modifiers(node, ['invisible']));
}

/** `modifiers` only when the element declares some (plans without them stay as they were). */
const withModifiers = <T extends object>(node: T, modifiers: Modifiers | undefined): T & { modifiers?: Modifiers } =>
  modifiers ? { ...node, modifiers } : node;

function formNode(ctx: Ctx, node: XmlNode): SheetNode {
  switch (node.tag) {
    case 'group':
      return withModifiers({ kind: 'group', string: node.attrs.string ?? null, children: node.children.map((c) => formNode(ctx, c)) }, ctx.modifiers(node, ['invisible']));
    case 'notebook':
      return {
        kind: 'notebook',
        pages: node.children.map((p) => {
          if (p.tag !== 'page') ctx.fail(p, 'a notebook holds <page> elements');
          return withModifiers({ string: ctx.attr(p, 'string'), children: p.children.map((c) => formNode(ctx, c)) }, ctx.modifiers(p, ['invisible']));
        }),
      };
    case 'field': {
      const f = ctx.field(node);
      const out: SheetNode = withModifiers({ kind: 'field', ...ctx.planField(node, f) }, ctx.modifiers(node, ['invisible', 'readonly', 'required']));
      const nested = node.children.find((c) => c.tag === 'list');
      if (nested) {
        if (f.type !== 'one2many') ctx.fail(nested, `only a One2Many field can hold a nested list (${f.name} is ${f.type})`);
        out.list = { model: f.target!, inverse: f.inverse!, ...compileList(ctx, nested, ctx.registry.model(f.target!), true) } as NestedList;
      }
      return out;
    }
    case 'button':
      return { kind: 'button', ...button(ctx, node) };
    case 'separator':
      return { kind: 'separator', string: node.attrs.string ?? null };
    default:
      return ctx.fail(node, `unexpected <${node.tag}> in a form`);
  }
}

function compileForm(ctx: Ctx, node: XmlNode) {
  let header: Record<string, unknown> | null = null;
  let sheet: SheetNode[] = [];
  let chatter = false;
  for (const c of node.children) {
    if (c.tag === 'header') {
      const buttons: unknown[] = [];
      let statusbar: unknown = null;
      for (const h of c.children) {
        if (h.tag === 'button') buttons.push(button(ctx, h));
        else if (h.tag === 'statusbar') {
          const fieldNode = { ...h, attrs: { name: ctx.attr(h, 'field') } };
          const f = ctx.field(fieldNode);
          if (f.type !== 'enum') ctx.fail(h, `statusbar field ${f.name} must be an Enum`);
          const values = (h.attrs.values ?? f.values!.join(',')).split(',').map((v) => v.trim());
          for (const v of values) if (!f.values!.includes(v)) ctx.fail(h, `statusbar value "${v}" is not a value of ${f.name}`);
          ctx.planField(fieldNode, f);
          // clickable="1": a person moves the record by clicking a stage (when the field is writable)
          const clickable = h.attrs.clickable ?? '0';
          if (clickable !== '0' && clickable !== '1') ctx.fail(h, `clickable must be 1 or 0, not "${clickable}"`);
          statusbar = { field: f.name, values, clickable: clickable === '1' && !f.readonly };
        } else ctx.fail(h, `a header holds <button> and <statusbar>, not <${h.tag}>`);
      }
      header = { statusbar, buttons };
    } else if (c.tag === 'sheet') {
      sheet = c.children.map((x) => formNode(ctx, x));
    } else if (c.tag === 'chatter') {
      chatter = true;
    } else {
      sheet.push(formNode(ctx, c));
    }
  }
  return { header, sheet, chatter };
}

function compileKanban(ctx: Ctx, node: XmlNode) {
  const groupNode = { ...node, attrs: { name: ctx.attr(node, 'groupby_field') } };
  const g = ctx.field(groupNode);
  ctx.planField(groupNode, g);
  const columns: unknown[] = [];
  const cards: string[] = [];
  for (const c of node.children) {
    if (c.tag === 'column') {
      const value = ctx.attr(c, 'value');
      if (g.values && !g.values.includes(value)) ctx.fail(c, `column value "${value}" is not a value of ${g.name}`);
      columns.push({ value, label: c.attrs.label ?? value });
    } else if (c.tag === 'card_field') {
      cards.push(ctx.planField(c, ctx.field(c)).name);
    } else ctx.fail(c, `a kanban holds <column> and <card_field>, not <${c.tag}>`);
  }
  return { groupby_field: g.name, columns, card_fields: cards };
}

const CALENDAR_MODES = ['month', 'week', 'day'];
/** The field types a calendar lays out on days: a date-time (a date shown as one is a date-time with widget="date"). */
const CALENDAR_DATE_TYPES = ['datetime'];

/**
 * `<calendar model date_start date_stop? color? mode?>` (Odoo's attributes): records on the days
 * of `date_start` (through `date_stop` when given), coloured by `color`'s value, their `<field>`s
 * on the card (the model's record name when none).
 */
function compileCalendar(ctx: Ctx, node: XmlNode) {
  const dateField = (attr: string): string | null => {
    const name = attr === 'date_start' ? ctx.attr(node, attr) : node.attrs[attr];
    if (name === undefined) return null;
    const fieldNode = { ...node, attrs: { name } };
    const f = ctx.field(fieldNode);
    if (!CALENDAR_DATE_TYPES.includes(f.type)) ctx.fail(node, `${attr}="${name}" must name a date or date-time field; ${name} is ${f.type}`);
    return ctx.planField(fieldNode, f).name;
  };
  const start = dateField('date_start')!;
  const stop = dateField('date_stop');
  if (stop === start) ctx.fail(node, `date_stop must name another field than date_start`);
  const mode = node.attrs.mode ?? 'month';
  if (!CALENDAR_MODES.includes(mode)) ctx.fail(node, `mode must be one of ${CALENDAR_MODES.join(', ')}, not "${mode}"`);
  let color: string | null = null;
  if (node.attrs.color !== undefined) {
    const colorNode = { ...node, attrs: { name: node.attrs.color } };
    const f = ctx.field(colorNode);
    if (f.type === 'one2many' || f.type === 'json') ctx.fail(node, `color="${f.name}" cannot colour by a ${f.type} field`);
    color = ctx.planField(colorNode, f).name;
  }
  const cards = node.children.map((c) => {
    if (c.tag !== 'field') ctx.fail(c, `a calendar holds <field> elements, not <${c.tag}>`);
    return ctx.planField(c, ctx.field(c)).name;
  });
  if (!cards.length) cards.push(ctx.planField({ ...node, attrs: { name: ctx.model.recordName } }, ctx.model.fields.get(ctx.model.recordName)!).name);
  return { date_start: start, date_stop: stop, color, mode, card_fields: cards };
}

function compileSearch(ctx: Ctx, node: XmlNode) {
  const fields: unknown[] = [];
  const filters: unknown[] = [];
  const groupBy: unknown[] = [];
  for (const c of node.children) {
    if (c.tag === 'field') {
      const f = ctx.field(c);
      ctx.planField(c, f);
      fields.push({ name: f.name, string: c.attrs.string ?? f.description });
    } else if (c.tag === 'filter') {
      const text = ctx.attr(c, 'domain');
      let domain: unknown;
      try {
        domain = parseDomainLiteral(text);
        // checked now with sample placeholder values; resolved for real per request
        const sample = resolvePlaceholders(domain, placeholderValues(new Date(), { user_id: crypto.randomUUID(), organization_id: crypto.randomUUID() }));
        domainToWhere(ctx.model, sample, { registry: ctx.registry, provider: 'postgresql' });
      } catch (err) {
        ctx.fail(c, `filter domain ${text} does not parse: ${(err as Error).message}`);
      }
      filters.push({ string: ctx.attr(c, 'string'), domain });
    } else if (c.tag === 'group_by') {
      const fieldNode = { ...c, attrs: { name: ctx.attr(c, 'field') } };
      const f = ctx.field(fieldNode);
      // in the plan's fields, so a client knows what it groups by (a Reference's target, an enum's values)
      ctx.planField(fieldNode, f);
      groupBy.push({ string: c.attrs.string ?? f.description, field: f.name });
    } else ctx.fail(c, `a search holds <field>, <filter> and <group_by>, not <${c.tag}>`);
  }
  return { search_fields: fields, filters, group_by: groupBy };
}
