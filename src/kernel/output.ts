/**
 * Output shapes: what a command returns, declared as data (`CommandDecl.output`) with the `o.*`
 * constructors. GraphQL compiles them into object types (`outputTypes` in src/server/graphql/schema.ts);
 * nothing else reads them, so a REST answer is the handler's result unchanged.
 *
 * ```ts
 * const Tokens = o.object('AuthTokens', { access_token: o.string(), expires_in: o.int() });
 * { name: 'auth.login', output: Tokens, … }
 * ```
 *
 * Every shape is non-null unless `o.nullable(x)` or `{ nullable: true }` says otherwise. A field
 * reads `parent[<field name>]`, or what its `from(parent)` computes: that is how GraphQL gets a
 * shape REST does not have (a flattened tree, a map turned into a list) from the same result
 * (a `from` on the command's output itself receives the whole result).
 *
 * `o.record('qa.usecase')` is a record of a model as fw.read_one returns it: GraphQL answers the
 * model's own object type (its References resolved as everywhere else), OpenAPI refers to the
 * model's schema, and no shape repeats the model's fields.
 */

export type ScalarName = 'String' | 'Int' | 'Float' | 'Boolean' | 'ID' | 'JSON' | 'DateTime';
type Parent = Record<string, unknown>;

/** How one use of a shape behaves: as a field of an object, an item of a list or a command result. */
export interface ShapeOptions {
  nullable?: boolean;
  /** Field description, or the type description for `o.object` and `o.union`. */
  description?: string;
  /**
   * The field's value computed from its parent object instead of `parent[<field name>]`; on a
   * command's `output` itself, the GraphQL result computed from the handler's result.
   */
  from?: (parent: Parent) => unknown;
}

interface Use { nullable: boolean; description?: string; from?: (parent: Parent) => unknown }
export interface ScalarShape extends Use { kind: 'scalar'; scalar: ScalarName }
export interface ListShape extends Use { kind: 'list'; of: OutputShape }
export interface ObjectShape extends Use { kind: 'object'; name: string; fields: Readonly<Record<string, OutputShape>> }
/** A record of the model `model` (its key), as the bus reads it. */
export interface RecordShape extends Use { kind: 'record'; model: string }
/**
 * Objects told apart by the value of their `discriminator` field (`type: "list"` → ListPlan). A
 * member under the key `*` (UNION_OTHERS) takes every value no other member names (the plans of
 * view types apps register: `type: "crm.funnel"` → AppViewPlan).
 */
export interface UnionShape extends Use {
  kind: 'union';
  name: string;
  discriminator: string;
  members: Readonly<Record<string, ObjectShape>>;
}
export const UNION_OTHERS = '*';
export type NamedShape = ObjectShape | UnionShape;
export type OutputShape = ScalarShape | ListShape | RecordShape | NamedShape;

const use = (opts: ShapeOptions = {}): Use => ({ nullable: opts.nullable ?? false, description: opts.description, from: opts.from });
const scalar = (name: ScalarName) => (opts?: ShapeOptions): ScalarShape => ({ kind: 'scalar', scalar: name, ...use(opts) });

export const o = {
  string: scalar('String'),
  int: scalar('Int'),
  float: scalar('Float'),
  boolean: scalar('Boolean'),
  id: scalar('ID'),
  json: scalar('JSON'),
  datetime: scalar('DateTime'),
  list: (of: OutputShape, opts?: ShapeOptions): ListShape => ({ kind: 'list', of, ...use(opts) }),
  record: (model: string, opts?: ShapeOptions): RecordShape => ({ kind: 'record', model, ...use(opts) }),
  object: (name: string, fields: Record<string, OutputShape>, opts?: ShapeOptions): ObjectShape =>
    ({ kind: 'object', name, fields, ...use(opts) }),
  union: (name: string, discriminator: string, members: Record<string, ObjectShape>, opts?: ShapeOptions): UnionShape =>
    ({ kind: 'union', name, discriminator, members, ...use(opts) }),
  /** The same shape, nullable (for objects and unions: the same type, used as a nullable value). */
  nullable: <S extends OutputShape>(shape: S): S => ({ ...shape, nullable: true }),
};

const GQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Two uses are interchangeable: same kind, nullability, `from` and (by name) type. */
export function sameUse(a: OutputShape, b: OutputShape): boolean {
  if (a.kind !== b.kind || a.nullable !== b.nullable || a.from !== b.from) return false;
  if (a.kind === 'scalar') return a.scalar === (b as ScalarShape).scalar;
  if (a.kind === 'list') return sameUse(a.of, (b as ListShape).of);
  if (a.kind === 'record') return a.model === (b as RecordShape).model;
  return a.name === (b as NamedShape).name;
}

function sameType(a: NamedShape, b: NamedShape): boolean {
  if (a.kind !== b.kind) return false;
  const fa = a.kind === 'object' ? a.fields : a.members;
  const fb = b.kind === 'object' ? b.fields : (b as UnionShape).members;
  const ka = Object.keys(fa);
  if (a.kind === 'union' && a.discriminator !== (b as UnionShape).discriminator) return false;
  return ka.length === Object.keys(fb).length && ka.every((k) => k in fb && sameUse(fa[k], fb[k]));
}

/**
 * Every named type reachable from the given shapes, once per name. A name declared twice with
 * different fields (or member types) is an error naming both owners; so are names GraphQL refuses,
 * lists of lists (use `o.json()`), unions whose members are not objects holding the
 * discriminator, and records of a model `isModel` does not know.
 */
export function collectOutputTypes(shapes: Iterable<{ owner: string; shape: OutputShape }>, isModel: (key: string) => boolean): Map<string, NamedShape> {
  const types = new Map<string, { shape: NamedShape; owner: string }>();
  const visit = (shape: OutputShape, owner: string): void => {
    if (shape.kind === 'scalar') return;
    if (shape.kind === 'record') {
      if (!isModel(shape.model)) throw new Error(`${owner}: o.record('${shape.model}') names no active model`);
      return;
    }
    if (shape.kind === 'list') {
      if (shape.of.kind === 'list') throw new Error(`${owner}: a list of lists cannot be typed; use o.json()`);
      return visit(shape.of, owner);
    }
    if (!GQL_NAME.test(shape.name)) throw new Error(`${owner}: "${shape.name}" is not a GraphQL type name`);
    const seen = types.get(shape.name);
    if (seen) {
      if (!sameType(seen.shape, shape)) {
        throw new Error(`${owner}: output type ${shape.name} is already declared with a different shape by ${seen.owner}`);
      }
      return;
    }
    types.set(shape.name, { shape, owner });
    if (shape.kind === 'object') {
      for (const [name, f] of Object.entries(shape.fields)) {
        if (!GQL_NAME.test(name)) throw new Error(`${owner}: ${shape.name}.${name} is not a GraphQL field name`);
        visit(f, owner);
      }
    } else {
      if (!Object.keys(shape.members).length) throw new Error(`${owner}: union ${shape.name} has no members`);
      for (const m of Object.values(shape.members)) {
        if (m.kind !== 'object') throw new Error(`${owner}: union ${shape.name} members must be objects`);
        if (!(shape.discriminator in m.fields)) throw new Error(`${owner}: ${m.name} lacks the discriminator ${shape.discriminator} of ${shape.name}`);
        visit(m, owner);
      }
    }
  };
  for (const { owner, shape } of shapes) visit(shape, owner);
  return new Map([...types].map(([name, { shape }]) => [name, shape]));
}

/** The fields every member of a union declares the same way (its GraphQL interface fields). */
export function sharedFields(union: UnionShape): string[] {
  const [first, ...rest] = Object.values(union.members);
  return Object.keys(first.fields).filter((k) => rest.every((m) => k in m.fields && sameUse(first.fields[k], m.fields[k])));
}
