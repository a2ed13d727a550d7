/**
 * Typed command outputs (`CommandDecl.output`, src/kernel/output.ts): a command that declares an
 * output shape gets GraphQL object types instead of `JSON`; a type used by several commands is
 * built once; a name declared twice with different shapes, or clashing with a model's names, stops
 * the boot; a union becomes an interface of its shared fields (or a plain union); fields may be
 * computed from their parent (`from`) while REST answers the handler's result unchanged. A record
 * shape is the model's own object type; a command that returns nothing answers `Boolean` true.
 */
import { printSchema, printType, type GraphQLNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootError } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { o } from '../../src/kernel/output.ts';
import type { CommandDecl } from '../../src/kernel/app.ts';
import { buildGraphQLSchema } from '../../src/server/graphql/schema.ts';
import { gqlOk, startServerWithApps, type ApiServer } from '../helpers/api.ts';
import { fixtureApp } from '../helpers/kernel.ts';

const Point = o.object('FixturePoint', { x: o.int(), y: o.int(), label: o.nullable(o.string({ description: 'Optional label' })) });
const Shape = o.union('FixtureShape', 'kind', {
  circle: o.object('FixtureCircle', { kind: o.string(), centre: Point, radius: o.float() }),
  polygon: o.object('FixturePolygon', { kind: o.string(), points: o.list(Point) }),
});
const Bare = o.union('FixtureBare', 'kind', {
  a: o.object('FixtureA', { kind: o.string({ description: 'differs from B' }), a: o.int() }),
  b: o.object('FixtureB', { kind: o.nullable(o.string()), b: o.boolean() }),
});
const Drawing = o.object('FixtureDrawing', {
  title: o.string(),
  shapes: o.list(Shape),
  tags: o.list(o.string(), { nullable: true }),
  // computed for GraphQL only: REST answers the map as it is
  layers: o.list(o.object('FixtureLayer', { name: o.string(), visible: o.boolean() }), {
    from: (d) => Object.entries(d.layers as Record<string, boolean>).map(([name, visible]) => ({ name, visible })),
  }),
  meta: o.json(),
  bare: o.nullable(Bare),
}, { description: 'A drawing (test fixture)' });

const DRAWING = {
  title: 'Sketch',
  shapes: [{ kind: 'circle', centre: { x: 1, y: 2, label: null }, radius: 1.5 }, { kind: 'polygon', points: [{ x: 0, y: 0 }, { x: 3, y: 4, label: 'far' }] }],
  tags: null,
  layers: { base: true, notes: false },
  meta: { any: ['thing'] },
  bare: { kind: 'b', b: true },
};

const cmd = (name: string, extra: Partial<CommandDecl> = {}): CommandDecl =>
  ({ name, mutates: false, returns: 'json', handler: async () => DRAWING, ...extra });

const app = fixtureApp('fixture', {
  commands: [
    cmd('fixture.drawing', { output: Drawing, description: 'A drawing' }),
    // the same types declared again (same shapes): built once
    cmd('fixture.point', { output: o.nullable(Point), handler: async () => ({ x: 5, y: 6 }) }),
    cmd('fixture.points', { output: o.list(o.object('FixturePoint', { x: o.int(), y: o.int(), label: o.nullable(o.string()) })), handler: async () => [{ x: 1, y: 1 }] }),
    // `from` on the output itself: GraphQL gets a list where REST gets the pair
    cmd('fixture.pair', {
      output: o.list(Point, { from: (r) => [r.first, r.second] }),
      handler: async () => ({ first: { x: 1, y: 2 }, second: { x: 3, y: 4 } }),
    }),
    cmd('fixture.untyped'),
    cmd('fixture.nothing', { returns: 'void', handler: async () => undefined }),
    cmd('fixture.event', { output: o.object('FixtureEventHolder', { event: o.record('ir.event', { nullable: true }), count: o.int() }), handler: async () => ({ event: null, count: 0 }) }),
  ],
  subscriptions: [
    { name: 'fixturePoints', description: 'Points as they come', topic: async () => 'fixture.points', output: Point },
    { name: 'fixtureAnything', description: 'Untyped messages', topic: async () => 'fixture.any' },
  ],
});

/** Records of a model of the base app, typed as that model's object type (its References resolved as anywhere). */
const records = fixtureApp('fixture.records', {
  commands: [cmd('fixture.records.organizations', {
    output: o.object('FixtureOrganizations', {
      first: o.record('res.organization', { nullable: true }),
      all: o.list(o.record('res.organization')),
      // a record that is the result itself, beside a count: how qaRecordingPromote answers
      same: o.record('res.organization', { nullable: true, from: (r) => (r.all as unknown[])[0] ?? null }),
    }),
    handler: async (env) => {
      const { items } = await env.dispatch<{ items: Array<Record<string, unknown>> }>('fw.search', { model: 'res.organization', order: 'name asc' });
      return { first: items[0] ?? null, all: items };
    },
  })],
});

const typeOf = (schema: ReturnType<typeof buildGraphQLSchema>, name: string) => printType(schema.getType(name) as GraphQLNamedType);

describe('schema', () => {
  const schema = buildGraphQLSchema(createRegistry([app]), { defaultLimit: 50, maxLimit: 500 });

  it('commands with an output answer their object type, the others JSON', () => {
    const sdl = printSchema(schema);
    expect(sdl).toContain('fixtureDrawing: FixtureDrawing\n');
    expect(sdl).toContain('fixturePoint: FixturePoint\n');
    expect(sdl).toContain('fixturePoints: [FixturePoint!]\n');
    expect(sdl).toContain('fixturePair: [FixturePoint!]\n');
    expect(sdl).toContain('fixtureUntyped: JSON\n');
    expect(sdl).toContain('fixtureNothing: Boolean\n');
    // a subscription's messages: its output type, else JSON; never null
    expect(sdl).toContain('fixturePoints: FixturePoint!\n');
    expect(sdl).toContain('fixtureAnything: JSON!\n');
    expect(typeOf(schema, 'FixtureEventHolder')).toBe('type FixtureEventHolder {\n  count: Int!\n  event: IrEvent\n}');
    expect(typeOf(schema, 'FixtureDrawing')).toBe([
      '"""A drawing (test fixture)"""',
      'type FixtureDrawing {',
      '  bare: FixtureBare',
      '  layers: [FixtureLayer!]!',
      '  meta: JSON!',
      '  shapes: [FixtureShape!]!',
      '  tags: [String!]',
      '  title: String!',
      '}',
    ].join('\n'));
    expect(typeOf(schema, 'FixturePoint')).toBe('type FixturePoint {\n  """Optional label"""\n  label: String\n  x: Int!\n  y: Int!\n}');
  });

  it('a union whose members share fields is an interface of them; one sharing none is a plain union', () => {
    expect(typeOf(schema, 'FixtureShape')).toBe('interface FixtureShape {\n  kind: String!\n}');
    expect(typeOf(schema, 'FixtureCircle')).toBe('type FixtureCircle implements FixtureShape {\n  centre: FixturePoint!\n  kind: String!\n  radius: Float!\n}');
    expect(typeOf(schema, 'FixtureBare')).toBe('union FixtureBare = FixtureA | FixtureB');
  });
});

describe('boot checks', () => {
  const boot = (...commands: CommandDecl[]) => () => createRegistry([fixtureApp('fixture', { commands })]);

  it('a type name declared twice with different shapes is a boot error naming both commands', () => {
    const other = o.object('FixturePoint', { x: o.int(), y: o.string() });
    expect(boot(cmd('fixture.a', { output: Point }), cmd('fixture.b', { output: o.list(other) })))
      .toThrow(new BootError('app fixture: command fixture.b: output type FixturePoint is already declared with a different shape by app fixture: command fixture.a'));
    const nullable = o.object('FixturePoint', { x: o.int(), y: o.int(), label: o.string() });
    expect(boot(cmd('fixture.a', { output: Point }), cmd('fixture.b', { output: nullable }))).toThrow(/FixturePoint is already declared with a different shape/);
  });

  it('a record shape naming a model that is not active is a boot error naming the command', () => {
    expect(boot(cmd('fixture.a', { output: o.list(o.record('fixture.nowhere')) })))
      .toThrow(new BootError("app fixture: command fixture.a: o.record('fixture.nowhere') names no active model"));
  });

  it('a subscription\'s output is checked like a command\'s, against the commands\' types too', () => {
    const subscribed = (output: ReturnType<typeof o.object>, ...commands: CommandDecl[]) => () => createRegistry([fixtureApp('fixture', {
      commands, subscriptions: [{ name: 'fixtureTicks', description: 'ticks', topic: async () => 'ticks', output }],
    })]);
    expect(subscribed(o.object('FixtureTick', { at: o.record('fixture.nowhere') })))
      .toThrow(new BootError("app fixture: subscription fixtureTicks: o.record('fixture.nowhere') names no active model"));
    expect(subscribed(o.object('FixturePoint', { x: o.string() }), cmd('fixture.a', { output: Point })))
      .toThrow(/subscription fixtureTicks: output type FixturePoint is already declared with a different shape by app fixture: command fixture.a/);
  });

  it('output with returns record, a clash with a model type, bad names and lists of lists are boot errors', () => {
    expect(boot(cmd('fixture.a', { output: Point, returns: 'record' }))).toThrow(/declares both output and returns: 'record'/);
    expect(boot(cmd('fixture.a', { output: o.object('IrEvent', { id: o.id() }) })))
      .toThrow(new BootError('output type IrEvent clashes with a GraphQL name of model ir.event'));
    expect(boot(cmd('fixture.a', { output: o.object('Bad-Name', { id: o.id() }) }))).toThrow(/"Bad-Name" is not a GraphQL type name/);
    expect(boot(cmd('fixture.a', { output: o.object('FixtureGrid', { rows: o.list(o.list(o.int())) }) }))).toThrow(/a list of lists cannot be typed/);
    expect(boot(cmd('fixture.a', { output: o.union('FixtureU', 'kind', { a: o.object('FixtureUa', { a: o.int() }) }) })))
      .toThrow(/FixtureUa lacks the discriminator kind of FixtureU/);
  });
});

describe('over HTTP', () => {
  let ts: ApiServer;
  let token: string;
  beforeAll(async () => {
    ts = await startServerWithApps([app, records]);
    token = await ts.adminToken();
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('GraphQL resolves the typed fields, the union members by discriminator and the computed fields', async () => {
    const data = await gqlOk(ts, `{
      fixtureDrawing {
        title tags meta
        shapes { __typename kind ... on FixtureCircle { radius centre { x y } } ... on FixturePolygon { points { x label } } }
        layers { name visible }
        bare { __typename ... on FixtureB { b } }
      }
      fixturePoints { x y label }
      fixturePair { x y }
    }`, {}, { token });
    expect(data).toEqual({
      fixtureDrawing: {
        title: 'Sketch', tags: null, meta: { any: ['thing'] },
        shapes: [
          { __typename: 'FixtureCircle', kind: 'circle', radius: 1.5, centre: { x: 1, y: 2 } },
          { __typename: 'FixturePolygon', kind: 'polygon', points: [{ x: 0, label: null }, { x: 3, label: 'far' }] },
        ],
        layers: [{ name: 'base', visible: true }, { name: 'notes', visible: false }],
        bare: { __typename: 'FixtureB', b: true },
      },
      fixturePoints: [{ x: 1, y: 1, label: null }],
      fixturePair: [{ x: 1, y: 2 }, { x: 3, y: 4 }],
    });
  });

  it('a record shape answers the model\'s object type, its References resolved; a void command answers true', async () => {
    const { resCountries: [country] } = await gqlOk(ts, '{ resCountries(limit: 1, where: { code: { eq: "FR" } }) { id code } }', {}, { token });
    await gqlOk(ts, 'mutation($c: ID!) { resOrganizationCreate(input: { name: "Aardvark Ltd", country: $c }) { id } }', { c: country.id }, { token });
    const data = await gqlOk(ts, '{ fixtureRecordsOrganizations { first { id name } all { id name country { code } } same { id } } fixtureNothing }', {}, { token });
    const { first, all, same } = data.fixtureRecordsOrganizations;
    expect(all).toContainEqual({ id: expect.any(String), name: 'Aardvark Ltd', country: { code: 'FR' } });
    expect(first).toEqual({ id: all[0].id, name: all[0].name });
    expect(same).toEqual({ id: all[0].id });
    expect(data.fixtureNothing).toBe(true);
  });

  it('REST (POST /api/command) answers the handler results unchanged', async () => {
    const res = await ts.request('POST', '/api/command/fixture.drawing', { token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DRAWING);
    expect((await ts.request('POST', '/api/command/fixture.pair', { token, body: {} })).body).toEqual({ first: { x: 1, y: 2 }, second: { x: 3, y: 4 } });
  });
});
