/**
 * Model declarations → registry: every declaration mistake fails at boot with a BootError whose
 * message names the model/field and the rule (spec: Module conventions).
 */
import { describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl, HookDecl } from '../../src/kernel/app.ts';
import { defineModel, f, type FieldDecl, type ModelDecl } from '../../src/kernel/declare.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { AUTO_FIELDS } from '../../src/kernel/registry/model.ts';
import type { LoadedApp } from '../../src/kernel/registry/registry.ts';
import resCountry from '../../schema/base/res.country.ts';
import { fixtureApp } from '../helpers/kernel.ts';

const model = (key: string, fields: Record<string, FieldDecl> = {}, extra: Partial<ModelDecl> = {}): ModelDecl =>
  defineModel({ key, description: `Model ${key}`, fields: { name: f.char(50), ...fields }, ...extra });

/** A foundation app owning res.country plus the given models. */
const foundation = (models: ModelDecl[], extra: Parameters<typeof fixtureApp>[1] = {}): LoadedApp =>
  fixtureApp('fixture_base', { models: [resCountry, ...models], ...extra });

const noop: CommandDecl['handler'] = async () => null;

function bootFails(apps: LoadedApp[], message: RegExp): BootError {
  let err: unknown;
  try {
    createRegistry(apps);
  } catch (e) {
    err = e;
  }
  expect(err, 'registry should refuse to boot').toBeInstanceOf(BootError);
  expect((err as BootError).code).toBe('BOOT_ERROR');
  expect((err as BootError).message).toMatch(message);
  return err as BootError;
}

describe('a valid declaration', () => {
  it('gets the automatic fields dbid, record_uuid, created_at_utc, updated_at_utc and revision, read-only', () => {
    const reg = createRegistry([foundation([model('res.thing', { size: f.integer() })])]);
    const m = reg.model('res.thing');
    expect([...m.fields.keys()].slice(0, 5)).toEqual([...AUTO_FIELDS]);
    for (const name of AUTO_FIELDS) expect(m.fields.get(name)).toMatchObject({ auto: true, readonly: true, notNull: true });
  });

  it('gets the generic fw.* commands from the kernel, beside its own model commands', () => {
    const reg = createRegistry([foundation([model('res.thing')], {
      commands: [{ name: 'res.thing.archive', handler: noop }],
    })]);
    for (const c of ['fw.create', 'fw.read_one', 'fw.update', 'fw.delete', 'fw.search', 'fw.count', 'fw.read_group']) {
      expect(reg.commands.get(c)?.kernel).toBe(true);
    }
    expect(reg.command('res.thing.archive')).toMatchObject({ model: 'res.thing', kernel: false, app: 'fixture_base' });
  });

  it('a required Reference defaults to on_delete restrict, an optional one to set null', () => {
    const reg = createRegistry([foundation([model('res.thing', {
      must: f.reference('res.country', { required: true }),
      may: f.reference('res.country'),
    })])]);
    expect(reg.model('res.thing').fields.get('must')!.onDelete).toBe('restrict');
    expect(reg.model('res.thing').fields.get('may')!.onDelete).toBe('set null');
  });

  it('record_name defaults to "name" and default_order to "dbid asc"', () => {
    const m = createRegistry([foundation([model('res.thing')])]).model('res.thing');
    expect(m.recordName).toBe('name');
    expect(m.defaultOrder).toEqual([{ field: 'dbid', direction: 'asc' }]);
  });

  it('a user-domain app may reference res.* models from its own {domain}.{name} models', () => {
    const reg = createRegistry([
      foundation([]),
      fixtureApp('shop.orders', { models: [model('shop.order', { country: f.reference('res.country') })] }),
    ]);
    expect(reg.model('shop.order').app).toBe('shop.orders');
  });
});

describe('model keys and field names', () => {
  it.each(['Res.Thing', 'thing', 'res..thing', 'res.thing-x', '1res.thing', 'res.'])('the model key "%s" is refused: keys are dotted lower_snake_case', (key) => {
    bootFails([foundation([model(key)])], /must be dotted lower_snake_case/);
  });

  it.each([...AUTO_FIELDS, 'id'])('declaring the automatic field "%s" is refused', (name) => {
    bootFails([foundation([model('res.thing', { [name]: f.char(10) })])], new RegExp(`model res.thing, field ${name}: "${name}" is an automatic field`));
  });

  it.each(['Name', 'first-name', '2nd', '_x'])('the field name "%s" is refused: field names are lower_snake_case', (name) => {
    bootFails([foundation([model('res.thing', { [name]: f.char(10) })])], /field names are lower_snake_case/);
  });

  it.each(['country_rel', 'rev_things'])('the field name "%s" is refused: _rel and rev_ names are reserved for relations', (name) => {
    bootFails([foundation([model('res.thing', { [name]: f.char(10) })])], /reserved for relations/);
  });

  it('a model without a description is refused', () => {
    bootFails([foundation([{ key: 'res.thing', description: '', fields: {} }])], /model res.thing: description is required/);
  });

  it('a model declared twice (by two apps) is refused, naming both apps', () => {
    bootFails([foundation([model('res.thing')]), fixtureApp('other_base', { models: [model('res.thing')] })],
      /model res.thing is declared by both fixture_base and other_base/);
  });
});

describe('field rules', () => {
  it('a Char size must be a positive integer', () => {
    bootFails([foundation([model('res.thing', { code: f.char(0) })])], /field code: Char size must be a positive integer/);
  });

  it('an Enum default must be one of its values', () => {
    bootFails([foundation([model('res.thing', { state: f.enum(['draft', 'done'], { default: 'archived' }) })])],
      /field state: default "archived" is not one of draft, done/);
  });

  it('an Enum needs at least one value, and values must not repeat', () => {
    bootFails([foundation([model('res.thing', { state: f.enum([]) })])], /an Enum needs at least one value/);
    bootFails([foundation([model('res.thing', { state: f.enum(['a', 'a']) })])], /Enum values repeat/);
  });

  it('an Enum label names one of its values: a label for another (a typo) would never show', () => {
    bootFails([foundation([model('res.thing', { state: f.enum(['qa', 'done'], { labels: { q_a: 'QA' } }) })])], /field state: a label for "q_a", which is not one of qa, done/);
  });

  it('a DateTime default can only be "now"', () => {
    bootFails([foundation([model('res.thing', { at: f.datetime({ default: 'tomorrow' as 'now' }) })])], /a DateTime default can only be "now"/);
  });

  it('on_delete "set null" on a required Reference is refused', () => {
    bootFails([foundation([model('res.thing', { country: f.reference('res.country', { required: true, on_delete: 'set null' }) })])],
      /field country: on_delete "set null" needs an optional field/);
  });

  it('a Reference to a model that is not loaded is refused', () => {
    bootFails([foundation([model('res.thing', { owner: f.reference('res.nobody') })])],
      /model res.thing, field owner: Reference target "res.nobody" is not a loaded model/);
  });

  it('a One2Many to a model that is not loaded is refused', () => {
    bootFails([foundation([model('res.thing', { parts: f.one2many('res.part', 'thing') })])],
      /One2Many target "res.part" is not a loaded model/);
  });

  it('a One2Many whose inverse does not exist is refused', () => {
    bootFails([foundation([
      model('res.thing', { parts: f.one2many('res.part', 'thing') }),
      model('res.part'),
    ])], /field parts: inverse "res.part.thing" must be a Reference to res.thing/);
  });

  it('a One2Many whose inverse is not a Reference is refused', () => {
    bootFails([foundation([
      model('res.thing', { parts: f.one2many('res.part', 'thing') }),
      model('res.part', { thing: f.char(36) }),
    ])], /inverse "res.part.thing" must be a Reference to res.thing/);
  });

  it('a One2Many whose inverse references another model is refused', () => {
    bootFails([foundation([
      model('res.thing', { parts: f.one2many('res.part', 'country') }),
      model('res.part', { country: f.reference('res.country') }),
    ])], /inverse "res.part.country" must be a Reference to res.thing/);
  });

  it('a One2Many cannot be required or unique', () => {
    bootFails([foundation([
      model('res.thing', { parts: f.one2many('res.part', 'thing', { required: true }) }),
      model('res.part', { thing: f.reference('res.thing') }),
    ])], /a One2Many cannot be required or unique/);
  });
});

describe('model options', () => {
  it('default_order naming an unknown field is refused', () => {
    bootFails([foundation([model('res.thing', {}, { default_order: 'rank desc' })])],
      /model res.thing: default_order field "rank" is not a stored field/);
  });

  it('default_order naming a One2Many (not stored) is refused', () => {
    bootFails([foundation([
      model('res.thing', { parts: f.one2many('res.part', 'thing') }, { default_order: 'parts asc' }),
      model('res.part', { thing: f.reference('res.thing') }),
    ])], /default_order field "parts" is not a stored field/);
  });

  it('default_order must read "<field> asc" or "<field> desc"', () => {
    bootFails([foundation([model('res.thing', {}, { default_order: 'name sideways' })])], /must read "<field> asc" or "<field> desc"/);
  });

  it('record_name, name_search_fields and unique_together must name fields', () => {
    bootFails([foundation([model('res.thing', {}, { record_name: 'title' })])], /record_name "title" is not a field/);
    bootFails([foundation([model('res.thing', {}, { name_search_fields: ['title'] })])], /name_search_fields has unknown field "title"/);
    bootFails([foundation([model('res.thing', {}, { unique_together: [['name', 'title']] })])], /unique_together names unknown field "title"/);
  });

  it('create_command naming a command that is not registered is refused', () => {
    bootFails([foundation([model('res.thing', {}, { create_command: 'res.thing.enroll' })])],
      /model res.thing: create_command res.thing.enroll is not a registered command/);
  });
});

describe('key prefixes and user domains', () => {
  it('a user-domain app declaring a res.* model is refused, the rule first, naming the schema file', () => {
    bootFails([foundation([]), fixtureApp('shop.orders', { models: [model('res.order')] })],
      /^app shop.orders: res.\* and ir.\* belong to the foundation; user-domain apps cannot declare res.order \(schema\/shop.orders\/res.order.ts\)$/);
  });

  it('a user-domain app declaring an ir.* model is refused', () => {
    bootFails([foundation([]), fixtureApp('shop.orders', { models: [model('ir.order')] })], /user-domain apps cannot declare ir.order/);
  });

  it('a user-domain app must name its models {domain}.{name}: the prefix rule is stated first', () => {
    const err = bootFails([foundation([]), fixtureApp('shop.orders', { models: [model('crm.order')] })],
      /^app shop.orders: models of domain shop are named shop.<name>; model crm.order must be named shop.<name> \(schema\/shop.orders\/crm.order.ts\)$/);
    expect(err.details).toEqual({ app: 'shop.orders', model: 'crm.order' });
  });

  it('a user-domain app adding a command to a res.* model is refused with a clear message naming its file', () => {
    bootFails([foundation([]), fixtureApp('shop.orders', { commands: [{ name: 'res.country.annex', handler: noop }] })],
      /^app shop.orders \(src\/apps\/shop.orders\/index.ts\): res.\* and ir.\* are framework models; user-domain apps must not add commands to them \(command res.country.annex\)$/);
  });

  it('a user-domain app naming a command res.* or ir.* is refused even when no such model exists', () => {
    bootFails([foundation([]), fixtureApp('shop.orders', { commands: [{ name: 'res.partner.merge', handler: noop }] })],
      /res.\* and ir.\* are framework models; user-domain apps must not add commands to them \(command res.partner.merge\)/);
    bootFails([foundation([]), fixtureApp('shop.orders', { commands: [{ name: 'ir.cron.tick', handler: noop }] })],
      /must not add commands to them \(command ir.cron.tick\)/);
    // an explicit model that does not exist: the domain rule, not "unknown model"
    bootFails([foundation([]), fixtureApp('shop.orders', { commands: [{ name: 'shop.merge', model: 'res.partner', handler: noop }] })],
      /must not add commands to them \(command shop.merge targets res.partner\)/);
  });

  it('a user-domain app adding a command to an ir.* model (named explicitly) is refused', () => {
    bootFails([foundation([]), fixtureApp('shop.orders', { commands: [{ name: 'shop.replay', model: 'ir.event', handler: noop }] })],
      /user-domain apps must not add commands to them \(command shop.replay targets ir.event\)/);
  });

  it('a user-domain app adding a command to another domain\'s model, or named in another domain, is refused', () => {
    bootFails([
      foundation([]),
      fixtureApp('crm.sales', { models: [model('crm.deal')] }),
      fixtureApp('shop.orders', { commands: [{ name: 'crm.deal.steal', handler: noop }] }),
    ], /a user-domain app's commands are named shop.<…>; command crm.deal.steal, outside domain shop/);
    bootFails([
      foundation([]),
      fixtureApp('crm.sales', { models: [model('crm.deal')] }),
      fixtureApp('shop.orders', { commands: [{ name: 'shop.steal', model: 'crm.deal', handler: noop }] }),
    ], /command shop.steal targets crm.deal, outside domain shop/);
  });

  it('a user-domain app\'s commands inside its domain are accepted, with or without a model', () => {
    const reg = createRegistry([foundation([]), fixtureApp('shop.orders', {
      models: [model('shop.order')],
      commands: [{ name: 'shop.order.confirm', handler: noop }, { name: 'shop.sync', handler: noop }],
    })]);
    expect(reg.command('shop.order.confirm').model).toBe('shop.order');
    expect(reg.command('shop.sync').model).toBeUndefined();
  });

  it('a foundation app may add commands to res.* models', () => {
    const reg = createRegistry([foundation([], { commands: [{ name: 'res.country.annex', handler: noop }] })]);
    expect(reg.command('res.country.annex').model).toBe('res.country');
  });
});

describe('commands, hooks and handlers', () => {
  it('an app command using the reserved fw.* prefix is refused', () => {
    bootFails([foundation([], { commands: [{ name: 'fw.archive', handler: noop }] })], /command fw.archive uses the reserved fw.\* prefix/);
  });

  it('the same command name registered twice is refused', () => {
    const c: CommandDecl = { name: 'res.country.annex', handler: noop };
    bootFails([foundation([], { commands: [c] }), fixtureApp('other_base', { commands: [c] })],
      /command res.country.annex is already registered by fixture_base/);
  });

  it('a command naming an unknown model is refused', () => {
    bootFails([foundation([], { commands: [{ name: 'x.go', model: 'res.nobody', handler: noop }] })], /targets unknown model res.nobody/);
  });

  it('a hook point must read pre.<model>.<op> or post.<model>.<op>', () => {
    const hooks: HookDecl[] = [{ point: 'before.res.country.create' }];
    bootFails([foundation([], { hooks })], /hook point "before.res.country.create" must read pre.<model>.<op>/);
  });

  it('a hook point that never runs is refused: unknown model, unknown operation, or a model-less name no app declares', () => {
    bootFails([foundation([], { hooks: [{ point: 'pre.res.contry.create' }] })],
      /hook point "pre.res.contry.create" never runs: no loaded model is named res.contry and no app declares it in hookPoints/);
    bootFails([foundation([], { hooks: [{ point: 'post.res.country.archive' }] })],
      /hook point "post.res.country.archive" never runs: model res.country has no operation "archive"/);
    // a command without a model runs no hooks, so pre.<app>.<verb> of it is refused too
    bootFails([foundation([], { commands: [{ name: 'fixture.free', handler: noop }], hooks: [{ point: 'pre.fixture.free' }] })],
      /hook point "pre.fixture.free" never runs/);
  });

  it('hook points that run are accepted: create, update and delete of a model, the verb of its commands, and points an app declares', () => {
    const reg = createRegistry([
      foundation([], {
        commands: [{ name: 'res.country.archive', handler: noop }],
        hookPoints: ['pre.fixture.sync'],
      }),
      fixtureApp('other_base', {
        hooks: ['pre.res.country.create', 'post.res.country.update', 'pre.res.country.delete', 'post.res.country.archive', 'pre.fixture.sync']
          .map((point) => ({ point })),
      }),
    ]);
    expect(reg.hooksAt('post.res.country.archive').map((h) => h.app)).toEqual(['other_base']);
    expect(reg.hooksAt('pre.fixture.sync').map((h) => h.app)).toEqual(['other_base']);
  });

  it('a declared hook point must read pre.<name>.<op> or post.<name>.<op>', () => {
    bootFails([foundation([], { hookPoints: ['around.fixture.sync'] })], /declared hook point "around.fixture.sync" must read pre.<name>.<op>/);
  });

  it('a record command (record: true) without a model is refused', () => {
    bootFails([foundation([], { commands: [{ name: 'fixture.touch', record: true, handler: noop }] })],
      /command fixture.touch is a record command \(record: true\) without a model/);
  });

  it('track_fields needs a post hook on a loaded model and stored fields', () => {
    bootFails([foundation([], { hooks: [{ point: 'pre.res.country.update', track_fields: ['code'] }] })], /track_fields needs a post hook/);
    bootFails([foundation([], { hooks: [{ point: 'post.res.nobody.update', track_fields: ['code'] }] })], /track_fields needs a post hook on a loaded model/);
    bootFails([foundation([], { hooks: [{ point: 'post.res.country.update', track_fields: ['flag'] }] })], /tracks unknown field flag/);
  });

  it('hooks of one point are ordered by sequence (lower first), ties in app load order', () => {
    const h = (sequence: number | undefined, tag: string): HookDecl => ({ point: 'pre.res.country.create', sequence, handler: () => void tag });
    const reg = createRegistry([
      foundation([], { hooks: [h(20, 'a20'), h(undefined, 'a10')] }),
      fixtureApp('other_base', { hooks: [h(5, 'b5'), h(10, 'b10')] }),
    ]);
    expect(reg.hooksAt('pre.res.country.create').map((x) => `${x.app}:${x.sequence ?? 10}`))
      .toEqual(['other_base:5', 'fixture_base:10', 'other_base:10', 'fixture_base:20']);
  });

  it('an event handler id used twice is refused', () => {
    const eh: EventHandlerDecl = { id: 'dup', event: 'x.happened', handler: async () => {} };
    bootFails([foundation([], { eventHandlers: [eh, eh] })], /event handler id dup is used twice/);
  });
});

describe('event handlers listen to events something emits', () => {
  const listen = (event: string): EventHandlerDecl => ({ id: `fixture.on_${event.replace(/\W/g, '_')}`, event, handler: async () => {} });
  const tracked: HookDecl = { point: 'post.res.country.update', track_fields: ['code'] };

  it('a handler of an event no loaded app emits is refused, naming the app file, the handler and the closest known event', () => {
    const err = bootFails([foundation([], { hooks: [tracked], eventHandlers: [listen('res.country.feild_changed')] })],
      /^src\/apps\/fixture_base\/index.ts: event handler fixture.on_res_country_feild_changed listens to "res.country.feild_changed", which no loaded app emits .* \(did you mean res.country.field_changed\?\)$/);
    expect(err.details).toEqual({ app: 'fixture_base', handler: 'fixture.on_res_country_feild_changed', event: 'res.country.feild_changed' });
  });

  it('with nothing close, the refusal suggests nothing', () => {
    const err = bootFails([foundation([], { eventHandlers: [listen('fixture.something_else')] })], /listens to "fixture.something_else", which no loaded app emits/);
    expect(err.message).not.toContain('did you mean');
  });

  it('<model>.field_changed is emitted only for a model with tracked fields; CRUD names are not emitted', () => {
    bootFails([foundation([], { eventHandlers: [listen('res.country.field_changed')] })], /listens to "res.country.field_changed"/);
    bootFails([foundation([], { eventHandlers: [listen('res.country.created')] })], /listens to "res.country.created"/);
  });

  it('accepted: an event an app lists in `events`, a command\'s emit effect, <model>.field_changed of a tracked model — from any loaded app', () => {
    const reg = createRegistry([
      foundation([], {
        hooks: [tracked],
        events: ['fixture.synced'],
        commands: [{ name: 'fixture.ping', effects: [{ emit: 'fixture.pinged' }], handler: noop }],
      }),
      fixtureApp('other_base', { eventHandlers: [listen('fixture.synced'), listen('fixture.pinged'), listen('res.country.field_changed')] }),
    ]);
    expect(reg.handlersFor('fixture.pinged').map((h) => h.id)).toEqual(['fixture.on_fixture_pinged']);
  });

  it('an event declared by an app that is not loaded does not count', () => {
    bootFails([foundation([]), fixtureApp('other_base', { eventHandlers: [listen('gone.synced')] })], /listens to "gone.synced"/);
  });
});

describe('unknown names suggest the closest known one', () => {
  it('a Reference target, a One2Many target', () => {
    bootFails([foundation([model('res.thing', { country: f.reference('res.contry') })])],
      /Reference target "res.contry" is not a loaded model \(did you mean res.country\?\)/);
    bootFails([foundation([model('res.thing', { lines: f.one2many('res.countries', 'x') })])],
      /One2Many target "res.countries" is not a loaded model \(did you mean res.country\?\)/);
  });

  it('fields named by default_order, record_name, name_search_fields, unique_together and access.fields', () => {
    const fields = { code: f.char(5) };
    bootFails([foundation([model('res.thing', fields, { default_order: 'cdoe asc' })])], /default_order field "cdoe" is not a stored field \(did you mean code\?\)/);
    bootFails([foundation([model('res.thing', fields, { record_name: 'nme' })])], /record_name "nme" is not a field \(did you mean name\?\)/);
    bootFails([foundation([model('res.thing', fields, { name_search_fields: ['cod'] })])], /unknown field "cod" \(did you mean code\?\)/);
    bootFails([foundation([model('res.thing', fields, { unique_together: [['name', 'coed']] })])], /unknown field "coed" \(did you mean code\?\)/);
    bootFails([foundation([model('res.thing', fields, { access: { fields: { kode: { read: ['admin'] } } } })])], /unknown field "kode" \(did you mean code\?\)/);
  });

  it('a record rule has a domain or follows a Reference (or a Char model and Uuid id pair), exactly one', () => {
    const fields = { country: f.reference('res.country'), res_model: f.char(100), res_id: f.uuid(), code: f.char(5) };
    const rules = (r: object) => ({ access: { rules: [r] } } as Partial<ModelDecl>);
    bootFails([foundation([model('res.thing', fields, rules({ follow: 'country', domain: [] }))])], /access.rules\[0\] needs either a domain or follow \(exactly one\)/);
    bootFails([foundation([model('res.thing', fields, rules({}))])], /access.rules\[0\] needs either a domain or follow/);
    bootFails([foundation([model('res.thing', fields, rules({ follow: 'contry' }))])], /follows "contry", which is not a Reference field \(did you mean country\?\)/);
    bootFails([foundation([model('res.thing', fields, rules({ follow: 'code' }))])], /follows "code", which is not a Reference field/);
    bootFails([foundation([model('res.thing', fields, rules({ follow: { model: 'res_id', id: 'res_id' } }))])], /follows \{ model: "res_id" \}, which is not a Char field/);
    bootFails([foundation([model('res.thing', fields, rules({ follow: { model: 'res_model', id: 'code' } }))])], /follows \{ id: "code" \}, which is not a Uuid field/);
  });

  it('a command\'s model, a hook point\'s model, a tracked field, an effect\'s model or command', () => {
    bootFails([foundation([], { commands: [{ name: 'x.go', model: 'res.countr', handler: noop }] })], /targets unknown model res.countr \(did you mean res.country\?\)/);
    bootFails([foundation([], { hooks: [{ point: 'pre.res.contry.create' }] })], /no loaded model is named res.contry and no app declares it in hookPoints \(did you mean res.country\?\)/);
    bootFails([foundation([], { hooks: [{ point: 'post.res.country.update', track_fields: ['cdoe'] }] })], /tracks unknown field cdoe \(did you mean code\?\)/);
    bootFails([foundation([], { commands: [{ name: 'x.go', effects: [{ read: 'res.cuontry' }], handler: noop }] })], /names an unknown model \(did you mean res.country\?\)/);
    bootFails([foundation([], { commands: [{ name: 'x.go', effects: [{ dispatch: 'fw.serch' }], handler: noop }] })], /names an unknown command \(did you mean fw.search\?\)/);
  });
});
