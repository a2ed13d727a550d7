/**
 * View files: parsing (DOCTYPE and entities refused, malformed XML names the line) and the boot-time
 * validation of every rule of the view definition format, each failing with a message that names
 * the file and the element path. Crafted XML is compiled against the real registry of every app in
 * the project; the cross-file rules (globally unique ids, only declared files discovered) run a
 * ViewRegistry over apps whose data files live in temp folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compileView } from '../../src/apps/presentation/views/plan.ts';
import { ViewRegistry } from '../../src/apps/presentation/views/registry.ts';
import { parseXml, ViewFileError } from '../../src/apps/presentation/views/xml.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { loadAllApps, projectLayout } from '../../src/kernel/modules/loader.ts';
import type { LoadedApp } from '../../src/kernel/registry/registry.ts';
import type { Registry } from '../../src/kernel/registry/registry.ts';
import { fixtureApp } from '../helpers/kernel.ts';

let apps: LoadedApp[];
let registry: Registry;
const dirs: string[] = [];

beforeAll(async () => {
  apps = await loadAllApps(projectLayout());
  registry = createRegistry(apps);
});

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The file a view with this id must live in, under a test app's views folder. */
const fileOf = (id: string) => `views/test/${id.replace(/\./g, '_')}.xml`;

/** Parses and compiles one view text as `file` (by default the file its id asks for). */
function compile(xml: string, file?: string) {
  const id = /<view[^>]*\sid="([^"]*)"/.exec(xml)?.[1] ?? 'x';
  const f = file ?? fileOf(id);
  return compileView(parseXml(xml, f), f, registry);
}

/** The ViewFileError message compiling `xml` fails with. */
function failure(xml: string, file?: string): string {
  try {
    compile(xml, file);
  } catch (err) {
    expect(err).toBeInstanceOf(ViewFileError);
    return (err as Error).message;
  }
  throw new Error('the view compiled, but it should have been refused');
}

const list = (body: string, attrs = 'model="res.user"') =>
  `<view id="res.user.list" version="1" title="T">\n  <list ${attrs}>\n${body}\n  </list>\n</view>`;
const form = (body: string, model = 'res.user') =>
  `<view id="${model}.form" version="1" title="T">\n  <form model="${model}">\n${body}\n  </form>\n</view>`;
const kanban = (attrs: string, body: string) =>
  `<view id="crm.lead.kanban" version="1" title="T">\n  <kanban model="crm.lead" ${attrs}>\n${body}\n  </kanban>\n</view>`;
const calendar = (attrs: string, body = '<field name="name"/>') =>
  `<view id="crm.lead.calendar" version="1" title="T">\n  <calendar model="crm.lead" ${attrs}>\n${body}\n  </calendar>\n</view>`;
const search = (body: string) =>
  `<view id="res.organization.search" version="1" title="T">\n  <search model="res.organization">\n${body}\n  </search>\n</view>`;

describe('XML parsing', () => {
  it('a DOCTYPE declaration is refused before anything is parsed, naming the file', () => {
    const xml = '<?xml version="1.0"?>\n<!DOCTYPE view SYSTEM "http://127.0.0.1:1/evil.dtd">\n<view id="res.user.list" version="1"><list model="res.user"/></view>';
    expect(() => parseXml(xml, 'views/test/res_user_list.xml'))
      .toThrow(new ViewFileError('views/test/res_user_list.xml: DOCTYPE and ENTITY declarations are not allowed in view files'));
  });

  it('a billion-laughs entity bomb is refused, not expanded', () => {
    const lol = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) lol.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE view [\n${lol.join('\n')}\n]>\n<view id="res.user.list" version="1" title="&lol9;"><list model="res.user"/></view>`;
    // refused before the validator or the parser sees a byte, so nothing is ever expanded (counts,
    // not a duration: timing figures belong to bench/)
    const validate = vi.spyOn(XMLValidator, 'validate');
    const parse = vi.spyOn(XMLParser.prototype, 'parse');
    try {
      expect(() => parseXml(xml, 'views/test/res_user_list.xml')).toThrow(/views\/test\/res_user_list\.xml: DOCTYPE and ENTITY declarations are not allowed/);
      expect(validate).not.toHaveBeenCalled();
      expect(parse).not.toHaveBeenCalled();
      // the spies do see a well-formed view go through both
      parseXml('<view id="res.user.list" version="1" title="T"><list model="res.user"><field name="name"/></list></view>', 'views/test/ok.xml');
      expect(validate).toHaveBeenCalledTimes(1);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      validate.mockRestore();
      parse.mockRestore();
    }
  });

  it('an ENTITY declaration without a DOCTYPE is refused too (also lower case, external SYSTEM entities)', () => {
    expect(() => parseXml('<!ENTITY xxe SYSTEM "file:///etc/passwd">\n<view id="a.b.list"/>', 'views/test/a_b_list.xml'))
      .toThrow(/DOCTYPE and ENTITY declarations are not allowed/);
    expect(() => parseXml('<!doctype view>\n<view id="a.b.list"/>', 'views/test/a_b_list.xml'))
      .toThrow(/DOCTYPE and ENTITY declarations are not allowed/);
  });

  it('malformed XML is refused with the file and the line of the error', () => {
    const xml = '<view id="res.user.list" version="1">\n  <list model="res.user">\n    <field name="name">\n  </list>\n</view>';
    let message = '';
    try {
      parseXml(xml, 'views/test/res_user_list.xml');
    } catch (err) {
      expect(err).toBeInstanceOf(ViewFileError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/^views\/test\/res_user_list\.xml: line 4: /);
  });

  it('an unclosed attribute quote names its line', () => {
    expect(() => parseXml('<view id="res.user.list" version="1">\n\n\n  <list model="res.user>\n  </list>\n</view>', 'views/test/res_user_list.xml'))
      .toThrow(/^views\/test\/res_user_list\.xml: line \d+: /);
  });

  it('a file with two root elements is refused', () => {
    expect(() => parseXml('<view id="a"/>\n<view id="b"/>', 'views/test/a.xml')).toThrow(ViewFileError);
  });

  it('element paths index repeated tags: view/form[1]/sheet[1]/group[2]/field[1]', () => {
    const root = parseXml(form('<sheet><group><field name="name"/></group><group><field name="email"/></group></sheet>'), 'x.xml');
    expect(root.path).toBe('view');
    expect(root.children[0].children[0].children[1].children[0].path).toBe('view/form[1]/sheet[1]/group[2]/field[1]');
  });
});

describe('view header rules', () => {
  it('a view id must read {domain}.{model_name}.{view_type}', () => {
    expect(failure('<view id="Res.User.list" version="1"><list model="res.user"><field name="name"/></list></view>', 'views/test/Res_User_list.xml'))
      .toBe('views/test/Res_User_list.xml: <view>: view id "Res.User.list" must read {domain}.{model_name}.{view_type}');
    expect(failure('<view id="res.user.table" version="1"><list model="res.user"/></view>', 'views/test/res_user_table.xml'))
      .toBe('views/test/res_user_table.xml: <view/list[1]>: view id res.user.table says table but the view is a <list>');
    expect(failure('<view id="user.list" version="1"><list model="res.user"/></view>', 'views/test/user_list.xml'))
      .toBe('views/test/user_list.xml: <view>: view id "user.list" must read {domain}.{model_name}.{view_type}');
  });

  it('a view id must be present', () => {
    expect(failure('<view version="1"><list model="res.user"/></view>', 'views/test/x.xml'))
      .toBe('views/test/x.xml: <view>: missing attribute "id"');
  });

  it('the file name must be the view id with . replaced by _ plus .xml', () => {
    expect(failure(list('<field name="name"/>'), 'views/test/users.xml'))
      .toBe('views/test/users.xml: <view>: view res.user.list must live in a file named res_user_list.xml');
    expect(failure(list('<field name="name"/>'), 'views/test/res.user.list.xml'))
      .toBe('views/test/res.user.list.xml: <view>: view res.user.list must live in a file named res_user_list.xml');
  });

  it('version must be an integer ≥ 1 (0, negative, fractional, text and missing are refused)', () => {
    for (const v of ['0', '-1', '1.5', 'one', '']) {
      expect(failure(`<view id="res.user.list" version="${v}"><list model="res.user"/></view>`))
        .toBe(`views/test/res_user_list.xml: <view>: version "${v}" must be an integer ≥ 1`);
    }
    expect(failure('<view id="res.user.list"><list model="res.user"/></view>'))
      .toBe('views/test/res_user_list.xml: <view>: version "" must be an integer ≥ 1');
    expect(compile(list('<field name="name"/>').replace('version="1"', 'version="3"')).version).toBe(3);
  });

  it('the model must be a registered model', () => {
    expect(failure('<view id="res.partner.list" version="1">\n  <list model="res.partner"><field name="name"/></list>\n</view>'))
      .toBe('views/test/res_partner_list.xml: <view/list[1]>: unknown model "res.partner"');
  });

  it('the body must be one of list, form, kanban, search, calendar and match the id', () => {
    expect(failure('<view id="res.user.list" version="1"><tree model="res.user"/></view>'))
      .toBe('views/test/res_user_list.xml: <view/tree[1]>: unknown view type <tree> (not built in, and no active app declares it in its manifest\'s web.views)');
    expect(failure('<view id="res.user.list" version="1"><form model="res.user"/></view>'))
      .toBe('views/test/res_user_list.xml: <view/form[1]>: view id res.user.list says list but the view is a <form>');
    expect(failure('<view id="res.user.list" version="1"><list model="res.user"/><list model="res.user"/></view>'))
      .toBe('views/test/res_user_list.xml: <view>: a view holds exactly one of <list>, <form>, <kanban>, <search>, <graph>, <pivot>, <calendar> or an app\'s view type');
  });
});

describe('unknown names suggest the closest known one', () => {
  it('a misspelt model, field or button command is told the name it may have meant', () => {
    expect(failure('<view id="res.usr.list" version="1">\n  <list model="res.usr"><field name="name"/></list>\n</view>'))
      .toBe('views/test/res_usr_list.xml: <view/list[1]>: unknown model "res.usr" (did you mean res.user?)');
    expect(failure(list('<field name="emial"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: res.user has no field "emial" (did you mean email?)');
    expect(failure(form('<header><button name="res.user.regster" type="object" string="Go"/></header>')))
      .toMatch(/button names unknown command "res.user.regster" \(did you mean res.user.register\?\)$/);
  });

  it('a private field is never suggested', () => {
    expect(failure(list('<field name="password_hasj"/>'))).toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: res.user has no field "password_hasj"');
  });

  it('a list shows each field once', () => {
    expect(failure(list('<field name="name"/><field name="email"/><field name="name" widget="badge"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[3]>: the list shows name twice');
  });
});

describe('fields', () => {
  it('every <field name> must be a field of the model', () => {
    expect(failure(list('    <field name="name"/>\n    <field name="nickname"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[2]>: res.user has no field "nickname"');
  });

  it('a private field (password_hash) counts as unknown: views cannot expose it', () => {
    expect(failure(list('<field name="password_hash"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: res.user has no field "password_hash"');
  });

  it('a form field deep in sheet/notebook/page is checked and named by its path', () => {
    expect(failure(form('<sheet><group><field name="name"/></group><notebook><page string="A"/><page string="B"><field name="shoe_size"/></page></notebook></sheet>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/sheet[1]/notebook[1]/page[2]/field[1]>: res.user has no field "shoe_size"');
  });

  it('optional must be show or hide', () => {
    expect(failure(list('<field name="name" optional="maybe"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: optional must be show or hide');
    const plan = compile(list('<field name="name" optional="hide"/><field name="email" optional="show"/>'));
    expect(plan.fields.map((f) => [f.name, f.optional])).toEqual([['name', 'hide'], ['email', 'show']]);
  });

  it('a list column\'s aggregate is sum, avg, min, max or none; a number column sums by default; sum/avg need a number', () => {
    expect(failure(list('<field name="name" aggregate="total"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: aggregate must be one of sum, avg, min, max or none, not "total"');
    expect(failure(list('<field name="name" aggregate="sum"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: aggregate="sum" needs a number field; name is char');
    expect(failure(list('<field name="organization" aggregate="max"/>')))
      .toBe('views/test/res_user_list.xml: <view/list[1]/field[1]>: aggregate="max" cannot apply to a reference field');
    expect(compile(list('<field name="name" aggregate="min"/><field name="email"/>')).aggregates).toEqual({ name: 'min' });
  }, );

  it('view modifiers are parsed against the model and refused with the file, element and attribute', () => {
    const plan = compile(form('<header><button name="res.user.activate" invisible="is_active"/></header><sheet><group invisible="role == \'qa\'"><field name="name" readonly="not is_active" required="role in [\'admin\']"/></group></sheet>'));
    expect(plan.header).toMatchObject({ buttons: [{ modifiers: { invisible: { field: 'is_active' } } }] });
    const sheet = plan.sheet as Array<Record<string, any>>;
    expect(sheet[0].modifiers).toEqual({ invisible: { op: '==', args: [{ field: 'role' }, { const: 'qa' }] } });
    expect(sheet[0].children[0].modifiers).toEqual({
      readonly: { op: 'not', args: [{ field: 'is_active' }] },
      required: { op: 'in', args: [{ field: 'role' }, { const: ['admin'] }] },
    });
    // a field an expression reads is loaded by the client even when the form does not show it
    expect(plan.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['is_active', 'role']));
    expect(failure(form('<sheet><field name="name" invisible="rol == \'qa\'"/></sheet>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/sheet[1]/field[1]>: invisible="rol == \'qa\'": unknown field "rol"');
    expect(failure(form('<sheet><group readonly="1"><field name="name"/></group></sheet>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/sheet[1]/group[1]>: <group> takes no readonly attribute (only invisible)');
    expect(failure(form('<sheet><field name="name" required="password_hash"/></sheet>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/sheet[1]/field[1]>: required="password_hash": unknown field "password_hash"');
  });

  it('optional must be show or hide in a nested One2Many list too', () => {
    const xml = form('<sheet><field name="users"><list><field name="name" optional="sometimes"/></list></field></sheet>', 'res.organization');
    expect(failure(xml))
      .toBe('views/test/res_organization_form.xml: <view/form[1]/sheet[1]/field[1]/list[1]/field[1]>: optional must be show or hide');
    const plan = compile(form('<sheet><field name="users"><list><field name="name"/><field name="email" optional="hide"/></list></field></sheet>', 'res.organization'));
    const nested = (plan.sheet as Array<{ list: { model: string; columns: Array<{ name: string; optional: string | null }> } }>)[0].list;
    expect(nested.model).toBe('res.user');
    expect(nested.columns.map((c) => [c.name, c.optional])).toEqual([['name', null], ['email', 'hide']]);
  });

  it('a nested list is only allowed inside a One2Many field', () => {
    expect(failure(form('<sheet><field name="organization"><list><field name="name"/></list></field></sheet>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/sheet[1]/field[1]/list[1]>: only a One2Many field can hold a nested list (organization is reference)');
  });

  it('the fields of a nested list are fields of the child model', () => {
    expect(failure(form('<sheet><field name="users"><list><field name="name"/><field name="code"/></list></field></sheet>', 'res.organization')))
      .toBe('views/test/res_organization_form.xml: <view/form[1]/sheet[1]/field[1]/list[1]/field[2]>: res.user has no field "code"');
  });

  it('list default_order must read "<field> asc|desc" with a stored field, and limit must be a positive integer', () => {
    expect(failure(list('<field name="name"/>', 'model="res.user" default_order="name sideways"')))
      .toBe('views/test/res_user_list.xml: <view/list[1]>: default_order "name sideways" must read "<field> asc|desc" with a stored field');
    expect(failure(list('<field name="name"/>', 'model="res.user" default_order="nope asc"')))
      .toMatch(/^views\/test\/res_user_list\.xml: <view\/list\[1\]>: default_order "nope asc"/);
    expect(failure(list('<field name="name"/>', 'model="res.user" limit="0"')))
      .toBe('views/test/res_user_list.xml: <view/list[1]>: limit must be a positive integer');
  });

  it('editable is top or bottom on a view\'s list (null when absent), never on a form\'s One2Many list', () => {
    expect(compile(list('<field name="name"/>', 'model="res.user" editable="bottom"')).editable).toBe('bottom');
    expect(compile(list('<field name="name"/>', 'model="res.user" editable="top"')).editable).toBe('top');
    expect(compile(list('<field name="name"/>')).editable).toBeNull();
    expect(failure(list('<field name="name"/>', 'model="res.user" editable="inline"')))
      .toBe('views/test/res_user_list.xml: <view/list[1]>: editable must be one of top, bottom, not "inline"');
    expect(failure(form('<sheet><field name="users"><list editable="bottom"><field name="name"/></list></field></sheet>', 'res.organization')))
      .toBe('views/test/res_organization_form.xml: <view/form[1]/sheet[1]/field[1]/list[1]>: editable is for a view\'s <list>; a form\'s One2Many lines are always edited in place');
  });
});

describe('buttons and statusbar', () => {
  it('a button must name an existing command', () => {
    expect(failure(form('<header><button string="Go" name="res.user.activate" type="object"/><button string="Fly" name="res.user.fly" type="object"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/button[2]>: button names unknown command "res.user.fly"');
  });

  it('button type is object and special only file_upload', () => {
    expect(failure(form('<header><button string="Go" name="res.user.activate" type="action"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/button[1]>: button type must be "object"');
    expect(failure(form('<header><button string="Go" name="res.user.activate" type="object" special="camera"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/button[1]>: unknown special "camera"');
  });

  it('a statusbar field must be an Enum field of the model', () => {
    expect(failure(form('<header><statusbar field="email" values="a,b"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/statusbar[1]>: statusbar field email must be an Enum');
    expect(failure(form('<header><statusbar field="mood" values="a,b"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/statusbar[1]>: res.user has no field "mood"');
  });

  it('every statusbar value must be a value of the enum', () => {
    expect(failure(form('<header><statusbar field="role" values="user, superuser"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/statusbar[1]>: statusbar value "superuser" is not a value of role');
  });

  it('a statusbar without values shows every value of the enum', () => {
    const plan = compile(form('<header><statusbar field="role"/></header>'));
    expect(plan.header).toEqual({ statusbar: { field: 'role', values: ['admin', 'user', 'qa'], clickable: false }, buttons: [] });
  });

  it('clickable="1" makes a statusbar on a writable field clickable; a read-only field never is; other values are refused', () => {
    expect(compile(form('<header><statusbar field="role" clickable="1"/></header>')).header).toMatchObject({ statusbar: { clickable: true } });
    // ir.connector.status is read-only (only its commands move it): never clickable
    expect(compile(form('<header><statusbar field="status" clickable="1"/></header>', 'ir.connector')).header).toMatchObject({ statusbar: { clickable: false } });
    expect(failure(form('<header><statusbar field="role" clickable="yes"/></header>')))
      .toBe('views/test/res_user_form.xml: <view/form[1]/header[1]/statusbar[1]>: clickable must be 1 or 0, not "yes"');
  });
});

describe('kanban', () => {
  it('groupby_field must be a field of the model', () => {
    expect(failure(kanban('groupby_field="phase"', '<column value="new"/>')))
      .toBe('views/test/crm_lead_kanban.xml: <view/kanban[1]>: crm.lead has no field "phase"');
    expect(failure(kanban('', '<column value="new"/>')))
      .toBe('views/test/crm_lead_kanban.xml: <view/kanban[1]>: missing attribute "groupby_field"');
  });

  it('a column value must be a value of the groupby enum', () => {
    expect(failure(kanban('groupby_field="stage"', '<column value="new"/>\n<column value="archived" label="Archived"/>')))
      .toBe('views/test/crm_lead_kanban.xml: <view/kanban[1]/column[2]>: column value "archived" is not a value of stage');
  });

  it('card fields are fields of the model', () => {
    expect(failure(kanban('groupby_field="stage"', '<column value="new"/><card_field name="name"/><card_field name="budget"/>')))
      .toBe('views/test/crm_lead_kanban.xml: <view/kanban[1]/card_field[2]>: crm.lead has no field "budget"');
  });
});

const graph = (attrs: string, body: string) =>
  `<view id="crm.lead.graph" version="1" title="T">\n  <graph model="crm.lead" ${attrs}>\n${body}\n  </graph>\n</view>`;
const pivot = (body: string, attrs = '') =>
  `<view id="crm.lead.pivot" version="1" title="T">\n  <pivot model="crm.lead"${attrs}>\n${body}\n  </pivot>\n</view>`;

describe('graph', () => {
  it('compiles its chart type, one or two group-bys (a datetime by month unless told), its measure and the measures one may pick', () => {
    const plan = compile(graph('type="line"', '<field name="stage"/><field name="closed_at"/><field name="expected_revenue" type="measure"/>'));
    expect(plan).toMatchObject({
      type: 'graph', chart_type: 'line', measure: 'expected_revenue',
      groupby: [{ field: 'stage', interval: null }, { field: 'closed_at', interval: 'month' }],
      available_measures: ['__count', 'expected_revenue', 'probability'],
    });
    expect(plan.fields.map((f) => f.name)).toEqual(['stage', 'closed_at', 'expected_revenue', 'probability']);
    expect(compile(graph('', '<field name="created_at_utc" interval="week"/>'))).toMatchObject({ chart_type: 'bar', measure: '__count', groupby: [{ field: 'created_at_utc', interval: 'week' }] });
  });

  it('type is bar, line or pie', () => {
    expect(failure(graph('type="radar"', '<field name="stage"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]>: type must be one of bar, line, pie, not "radar"');
  });

  it('groups by one or two fields, never none or three', () => {
    expect(failure(graph('', '<field name="expected_revenue" type="measure"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]>: a graph groups by one or two fields (the axis, then the series), not 0');
    expect(failure(graph('', '<field name="stage"/><field name="country"/><field name="salesperson"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]>: a graph groups by one or two fields (the axis, then the series), not 3');
  });

  it('shows one measure, an Integer or Float field that is not automatic', () => {
    expect(failure(graph('', '<field name="stage"/><field name="expected_revenue" type="measure"/><field name="probability" type="measure"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]>: a graph shows one measure; expected_revenue, probability are declared');
    expect(failure(graph('', '<field name="stage"/><field name="name" type="measure"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/field[2]>: measure name must be a stored Integer or Float field that is not automatic (it is char)');
    expect(failure(graph('', '<field name="stage"/><field name="dbid" type="measure"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/field[2]>: measure dbid must be a stored Integer or Float field that is not automatic (it is integer)');
  });

  it('an interval is a granularity, only on a datetime field', () => {
    expect(failure(graph('', '<field name="closed_at" interval="fortnight"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/field[1]>: interval must be one of day, week, month, quarter, year, not "fortnight"');
    expect(failure(graph('', '<field name="stage" interval="month"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/field[1]>: interval is for a datetime field; stage is enum');
  });

  it('holds only <field> elements of the model, and no unknown attribute or role', () => {
    expect(failure(graph('', '<field name="stage"/><filter name="x"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/filter[1]>: a <graph> holds <field> elements, not <filter>');
    expect(failure(graph('', '<field name="phase"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/field[1]>: crm.lead has no field "phase"');
    expect(failure(graph('stacked="1"', '<field name="stage"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]>: <graph> takes no attribute "stacked"');
    expect(failure(graph('', '<field name="stage" type="col"/>')))
      .toBe('views/test/crm_lead_graph.xml: <view/graph[1]/field[1]>: a graph\'s group-bys take no type="col": the first is the axis, the second the series');
  });
});

describe('pivot', () => {
  it('compiles its row and column group-bys and its measures; none declared means the count', () => {
    expect(compile(pivot('<field name="stage" type="row"/><field name="country" type="row"/><field name="closed_at" type="col" interval="quarter"/><field name="expected_revenue" type="measure"/><field name="probability" type="measure"/>')))
      .toMatchObject({
        type: 'pivot', rows: [{ field: 'stage', interval: null }, { field: 'country', interval: null }], cols: [{ field: 'closed_at', interval: 'quarter' }],
        measures: ['expected_revenue', 'probability'], available_measures: ['__count', 'expected_revenue', 'probability'],
      });
    expect(compile(pivot('<field name="stage" type="row"/>'))).toMatchObject({ rows: [{ field: 'stage' }], cols: [], measures: ['__count'] });
  });

  it('every field says its role: row, col or measure', () => {
    expect(failure(pivot('<field name="stage"/>')))
      .toBe('views/test/crm_lead_pivot.xml: <view/pivot[1]/field[1]>: a pivot\'s <field> needs type="row", "col" or "measure"');
    expect(failure(pivot('<field name="stage" type="column"/>')))
      .toBe('views/test/crm_lead_pivot.xml: <view/pivot[1]/field[1]>: a pivot\'s <field> needs type="row", "col" or "measure", not "column"');
  });

  it('cannot group by a One2Many or JSON field, nor measure one twice, and takes no chart type', () => {
    expect(failure('<view id="res.organization.pivot" version="1">\n  <pivot model="res.organization"><field name="users" type="row"/></pivot>\n</view>'))
      .toBe('views/test/res_organization_pivot.xml: <view/pivot[1]/field[1]>: cannot group by users (a one2many field)');
    expect(failure(pivot('<field name="expected_revenue" type="measure"/><field name="expected_revenue" type="measure"/>')))
      .toBe('views/test/crm_lead_pivot.xml: <view/pivot[1]/field[2]>: measure expected_revenue is declared twice');
    expect(failure(pivot('<field name="stage" type="row"/>', ' type="bar"')))
      .toBe('views/test/crm_lead_pivot.xml: <view/pivot[1]>: <pivot> takes no attribute "type"');
  });
});

describe('calendar', () => {
  const where = 'views/test/crm_lead_calendar.xml: <view/calendar[1]>';
  it('date_start is required and names a date-time field of the model', () => {
    expect(failure(calendar(''))).toBe(`${where}: missing attribute "date_start"`);
    expect(failure(calendar('date_start="deadline"'))).toBe(`${where}: crm.lead has no field "deadline"`);
    expect(failure(calendar('date_start="name"'))).toBe(`${where}: date_start="name" must name a date or date-time field; name is char`);
  });

  it('date_stop, when given, names another date-time field', () => {
    expect(failure(calendar('date_start="date_deadline" date_stop="stage"'))).toBe(`${where}: date_stop="stage" must name a date or date-time field; stage is enum`);
    expect(failure(calendar('date_start="date_deadline" date_stop="date_deadline"'))).toBe(`${where}: date_stop must name another field than date_start`);
  });

  it('mode is month, week or day (month when not given)', () => {
    expect(failure(calendar('date_start="date_deadline" mode="year"'))).toBe(`${where}: mode must be one of month, week, day, not "year"`);
    expect(compile(calendar('date_start="date_deadline"')).mode).toBe('month');
    expect(compile(calendar('date_start="date_deadline" mode="week"')).mode).toBe('week');
  });

  it('color names a field with a value to colour by', () => {
    expect(failure(calendar('date_start="date_deadline" color="hue"'))).toBe(`${where}: crm.lead has no field "hue"`);
    expect(failure('<view id="ai.message.calendar" version="1"><calendar model="ai.message" date_start="created_at_utc" color="tool_calls"/></view>'))
      .toBe('views/test/ai_message_calendar.xml: <view/calendar[1]>: color="tool_calls" cannot colour by a json field');
  });

  it('holds <field>s, its cards; without any the card shows the record name', () => {
    expect(failure(calendar('date_start="date_deadline"', '<card_field name="name"/>')))
      .toBe('views/test/crm_lead_calendar.xml: <view/calendar[1]/card_field[1]>: a calendar holds <field> elements, not <card_field>');
    expect(failure(calendar('date_start="date_deadline"', '<field name="budget"/>')))
      .toBe('views/test/crm_lead_calendar.xml: <view/calendar[1]/field[1]>: crm.lead has no field "budget"');
    const plan = compile(calendar('date_start="date_deadline" date_stop="closed_at" color="salesperson"', ''));
    expect(plan).toMatchObject({ date_start: 'date_deadline', date_stop: 'closed_at', color: 'salesperson', card_fields: ['name'] });
    expect(plan.fields.map((f) => f.name)).toEqual(['date_deadline', 'closed_at', 'salesperson', 'name']);
  });
});

describe('search', () => {
  it('a filter domain that does not parse is refused', () => {
    expect(failure(search(`<filter string="Broken" domain="[('name', '=', 'x'"/>`)))
      .toMatch(/^views\/test\/res_organization_search\.xml: <view\/search\[1\]\/filter\[1\]>: filter domain \[\('name', '=', 'x' does not parse: /);
    expect(failure(search(`<filter string="Code" domain="[('name', '=', __import__('os'))]"/>`)))
      .toMatch(/^views\/test\/res_organization_search\.xml: <view\/search\[1\]\/filter\[1\]>: filter domain .* does not parse: unexpected "__import__/);
  });

  it('a filter domain naming an unknown field is refused', () => {
    expect(failure(search(`<filter string="A" domain="[('is_active', '=', True)]"/>\n<filter string="B" domain="[('revenue', '&gt;', 5)]"/>`)))
      .toBe(`views/test/res_organization_search.xml: <view/search[1]/filter[2]>: filter domain [('revenue', '>', 5)] does not parse: res.organization has no field "revenue"`);
  });

  it('a filter domain with an unknown placeholder is refused; known ones are accepted', () => {
    expect(failure(search(`<filter string="A" domain="[('created_at_utc', '&gt;=', '%(week_start)s')]"/>`)))
      .toBe(`views/test/res_organization_search.xml: <view/search[1]/filter[1]>: filter domain [('created_at_utc', '>=', '%(week_start)s')] does not parse: unknown placeholder %(week_start)s`);
    const plan = compile(search(`<filter string="A" domain="[('created_at_utc', '&gt;=', '%(month_start)s'), ('created_at_utc', '&lt;', '%(today)s')]"/>`));
    // the cached plan keeps the placeholder; it is resolved per request
    expect(plan.filters).toEqual([{ string: 'A', domain: [['created_at_utc', '>=', '%(month_start)s'], ['created_at_utc', '<', '%(today)s']] }]);
  });

  it('search fields and group_by fields are fields of the model', () => {
    expect(failure(search('<field name="name" string="Name"/><field name="slug" string="Slug"/>')))
      .toBe('views/test/res_organization_search.xml: <view/search[1]/field[2]>: res.organization has no field "slug"');
    expect(failure(search('<group_by string="Region" field="region"/>')))
      .toBe('views/test/res_organization_search.xml: <view/search[1]/group_by[1]>: res.organization has no field "region"');
  });
});

describe('view registry over app data files', () => {
  /** An app whose manifest data lists `files` (name → XML), written to a temp folder. */
  function appWithViews(name: string, files: Record<string, string>, declared = Object.keys(files)): LoadedApp {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fw-views-${name}-`));
    dirs.push(dir);
    for (const [file, xml] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), xml);
    return { ...fixtureApp(name), dataFiles: declared.map((f) => path.join(dir, f)) };
  }
  // a model no app ships a list view of
  const countryList = (title: string) =>
    `<view id="res.country.kanban" version="1" title="${title}"><kanban model="res.country" groupby_field="code"><card_field name="name"/></kanban></view>`;

  it('view ids are globally unique: a second app declaring the same id stops the registry, naming both', () => {
    const alpha = appWithViews('alpha', { 'res_country_kanban.xml': countryList('Alpha') });
    const beta = appWithViews('beta', { 'res_country_kanban.xml': countryList('Beta') });
    expect(() => new ViewRegistry(createRegistry([...apps, alpha, beta])))
      .toThrow(new ViewFileError('views/beta/res_country_kanban.xml: view id res.country.kanban is already declared by app alpha'));
  });

  it('an id already shipped by another app clashes as well', () => {
    const gamma = appWithViews('gamma', { 'res_user_list.xml': list('<field name="name"/>') });
    expect(() => new ViewRegistry(createRegistry([...apps, gamma])))
      .toThrow(new ViewFileError('views/gamma/res_user_list.xml: view id res.user.list is already declared by app base'));
  });

  it('the file name rule applies to the declared file, with the error naming views/<app>/<file>', () => {
    const delta = appWithViews('delta', { 'countries.xml': countryList('Countries') });
    expect(() => new ViewRegistry(createRegistry([...apps, delta])))
      .toThrow(new ViewFileError('views/delta/countries.xml: <view>: view res.country.kanban must live in a file named res_country_kanban.xml'));
  });

  it('files not declared in the manifest data are not discovered', () => {
    const eps = appWithViews('eps', { 'res_country_kanban.xml': countryList('Declared'), 'res_country_form.xml': '<view broken' }, ['res_country_kanban.xml']);
    const views = new ViewRegistry(createRegistry([...apps, eps]));
    expect(views.list().filter((v) => v.app === 'eps')).toEqual([
      { view_id: 'res.country.kanban', version: 1, title: 'Declared', type: 'kanban', model: 'res.country', app: 'eps' },
    ]);
  });

  it('every shipped view of every app compiles', () => {
    const ids = new ViewRegistry(registry).list().map((v) => v.view_id);
    expect(ids).toEqual([
      'ai.prompt.template.form', 'ai.prompt.template.list', 'ai.provider.config.form', 'ai.provider.config.list',
      'ai.provider.routing.form', 'ai.provider.routing.list', 'ai.skill.pack.form', 'ai.skill.pack.list',
      'ai.usage.log.list', 'ai.user.quota.form', 'ai.user.quota.list', 'ai.write.provenance.form', 'ai.write.provenance.list',
      'crm.lead.calendar', 'crm.lead.form', 'crm.lead.funnel', 'crm.lead.graph', 'crm.lead.kanban', 'crm.lead.list', 'crm.lead.pivot', 'crm.lead.search',
      'ir.connector.form', 'ir.connector.list',
      'ir.module.form', 'ir.module.list',
      'qa.run.form', 'qa.run.list', 'qa.run.result.form', 'qa.run.result.list', 'qa.run.result.search', 'qa.run.search',
      'qa.run.step.form', 'qa.run.step.list', 'qa.run.step.search',
      'qa.usecase.form', 'qa.usecase.list', 'qa.usecase.search', 'qa.usecase.step.form', 'qa.usecase.step.list',
      'res.country.list', 'res.country.search', 'res.organization.form', 'res.organization.list', 'res.organization.search',
      'res.user.form', 'res.user.list',
      'storage.document.form', 'storage.document.list',
      'storage.folder.form', 'storage.folder.list',
    ]);
  });
});
