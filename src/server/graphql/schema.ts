import { Readable } from 'node:stream';
import SchemaBuilder from '@pothos/core';
import type { GraphQLSchema } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { checkAccess } from '../../kernel/access.js';
import { AuthenticationRequired, BadRequest, FwError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import { requiredOnCreate, type ResolvedField, type ResolvedModel } from '../../kernel/registry/model.js';
import { commandFieldName, pascalName } from '../../kernel/registry/names.js';
import type { Registry, ResolvedCommand } from '../../kernel/registry/registry.js';
import type { Principal } from '../../kernel/env.js';
import { sharedFields, UNION_OTHERS, type NamedShape, type OutputShape, type UnionShape } from '../../kernel/output.js';
import type { Loaders } from './loaders.js';
import { publicCommandName, publicPayload } from '../commands.js';
import { asksOnlyId, selectedFields, selectedReferences } from './selection.js';
import { whereToDomain } from './where.js';

export interface GqlContext {
  kernel: Kernel;
  principal: Principal;
  loaders: Loaders;
}

export interface GqlLimits { defaultLimit: number; maxLimit: number }

type Rec = Record<string, unknown>;
type Args = Record<string, unknown>;

const builderOf = () => new SchemaBuilder<{
  Context: GqlContext;
  Scalars: { JSON: { Input: unknown; Output: unknown }; DateTime: { Input: string; Output: string }; File: { Input: File; Output: never } };
}>({});
type Builder = ReturnType<typeof builderOf>;
/** Pothos type references are built from registry data at run time, so they are handled untyped here. */
type AnyRef = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCALAR: Record<string, string> = {
  char: 'String', text: 'String', integer: 'Int', float: 'Float', boolean: 'Boolean',
  datetime: 'DateTime', json: 'JSON', uuid: 'ID', reference: 'ID',
};
const FILTER: Record<string, string> = {
  char: 'StringFilter', text: 'StringFilter', integer: 'IntFilter', float: 'FloatFilter', boolean: 'BooleanFilter',
  datetime: 'DateTimeFilter', uuid: 'IDFilter', reference: 'IDFilter',
};
const GQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * Compiles the GraphQL schema from the registry: per model an object type, typed filters,
 * list/connection/count/groupBy queries, CRUD and batch mutations, and a mutation (or query,
 * for non-mutating commands) per model command. Every resolver dispatches a command.
 */
export function buildGraphQLSchema(registry: Registry, limits: GqlLimits): GraphQLSchema {
  const b: Builder = builderOf();
  b.scalarType('JSON', { description: 'Any JSON value', serialize: (v) => v, parseValue: (v) => v });
  b.scalarType('DateTime', {
    description: 'ISO 8601 date-time, UTC',
    serialize: (v: unknown) => (v instanceof Date ? v.toISOString() : String(v)),
    parseValue: (v) => String(v),
  });
  b.scalarType('File', {
    description: 'A file of a multipart request (GraphQL multipart request spec)',
    serialize: () => { throw new Error('File is an input type'); },
    parseValue: (v) => v as File,
  });
  b.queryType({});
  b.mutationType({});
  b.subscriptionType({});
  const common = commonTypes(b);
  const enums = new Map<string, AnyRef>();
  const objects = new Map<string, AnyRef>();
  const wheres = new Map<string, AnyRef>();

  const enumOf = (m: ResolvedModel, f: ResolvedField): AnyRef | null => {
    if (!f.values!.every((v) => GQL_NAME.test(v))) return null;
    const name = `${m.names.typeName}${pascalName(f.name)}`;
    if (!enums.has(name)) enums.set(name, b.enumType(name, { values: [...f.values!] as [string, ...string[]] }));
    return enums.get(name);
  };
  const scalarType = (m: ResolvedModel, f: ResolvedField): AnyRef => (f.type === 'enum' ? enumOf(m, f) ?? 'String' : SCALAR[f.type]);

  for (const m of registry.models.values()) {
    objects.set(m.key, b.objectRef<Rec>(m.names.typeName));
    wheres.set(m.key, b.inputRef<Rec>(m.names.whereInput));
  }

  for (const m of registry.models.values()) {
    const n = m.names;
    const readable = [...m.fields.values()].filter((f) => !f.private && f.name !== 'record_uuid');
    const writable = [...m.fields.values()].filter((f) => f.stored && !f.auto && !f.readonly);

    objects.get(m.key).implement({
      description: m.description,
      fields: (t: AnyRef) => {
        const out: Rec = { id: t.exposeID('id', { nullable: false }) };
        for (const f of readable) {
          if (f.type === 'reference') {
            out[f.name] = t.field({
              type: objects.get(f.target!), nullable: true, description: f.description,
              resolve: (parent: Rec, _a: Args, ctx: GqlContext, info: AnyRef) => {
                const id = parent[f.name] as string | null | undefined;
                if (!id) return null;
                // read by the list's own statement (keepJoined): no load, no promise per item
                const joined = (parent as Joined)[JOINED];
                if (joined && f.name in joined) return joined[f.name];
                // `{ x { id } }` needs no load: the reference already is the id
                if (asksOnlyId(info.fieldNodes)) return { id };
                return ctx.loaders.byId(f.target!, fieldsOf(registry.model(f.target!), info, ctx)).load(id);
              },
            });
          } else if (f.type === 'one2many') {
            out[f.name] = t.field({
              type: [objects.get(f.target!)], nullable: false, description: f.description,
              resolve: (parent: Rec, _a: Args, ctx: GqlContext, info: AnyRef) =>
                ctx.loaders.children(f.target!, f.inverse!, fieldsOf(registry.model(f.target!), info, ctx)).load(parent.id as string),
            });
          } else {
            out[f.name] = t.field({
              type: scalarType(m, f), nullable: !f.notNull, description: f.description,
              resolve: (parent: Rec) => parent[f.name] ?? null,
            });
          }
        }
        return out;
      },
    });

    wheres.get(m.key).implement({
      fields: (t: AnyRef) => {
        const out: Rec = {
          AND: t.field({ type: [wheres.get(m.key)], required: false }),
          OR: t.field({ type: [wheres.get(m.key)], required: false }),
          NOT: t.field({ type: wheres.get(m.key), required: false }),
          id: t.field({ type: common.IDFilter, required: false }),
        };
        for (const f of m.fields.values()) {
          if (f.private || f.name === 'record_uuid') continue;
          if (f.type === 'reference') {
            out[f.name] = t.field({ type: refFilter(b, wheres, f.target!, registry), required: false });
          } else if (f.type === 'one2many') {
            out[f.name] = t.field({ type: listFilter(b, wheres, f.target!, registry), required: false });
          } else if (f.type === 'enum') {
            const e = enumOf(m, f);
            out[f.name] = t.field({ type: e ? enumFilter(b, e, `${m.names.typeName}${pascalName(f.name)}Filter`, common.pattern) : common.StringFilter, required: false });
          } else if (FILTER[f.type]) {
            out[f.name] = t.field({ type: common[FILTER[f.type]], required: false });
          }
        }
        return out;
      },
    });

    const orderFields = [...m.fields.values()].filter((f) => f.stored && !f.private && f.type !== 'json');
    const orderBy = b.inputType(n.orderByInput, {
      fields: (t: AnyRef) => Object.fromEntries(orderFields.map((f) => [f.name, t.field({ type: common.SortOrder, required: false })])),
    });
    const groupField = b.enumType(n.groupByField, {
      values: orderFields.map((f) => f.name) as [string, ...string[]],
    });
    const inputFields = (t: AnyRef, fields: ResolvedField[], create: boolean) => Object.fromEntries(fields.map((f) => [
      f.name,
      t.field({ type: scalarType(m, f), required: create && requiredOnCreate(f), description: f.description }),
    ]));
    const createCmd = m.createCommand ? registry.command(m.createCommand) : null;
    const createFields = createCmd?.inputFields ? [...createCmd.inputFields.values()] : writable;
    // GraphQL has no empty input object: a model with nothing to write (every field read-only,
    // automatic or computed) gets a create without `input` (a record of its defaults), no
    // createMany and no update (docs/api.md, "Models with nothing to write")
    const createInput = createFields.length ? b.inputType(n.createInput, { fields: (t: AnyRef) => inputFields(t, createFields, true) }) : null;
    const updateInput = writable.length ? b.inputType(n.updateInput, { fields: (t: AnyRef) => inputFields(t, writable, false) }) : null;

    const object = objects.get(m.key);
    const where = wheres.get(m.key);
    const order = (o: unknown) => (o as Rec[] | undefined)?.flatMap((x) => Object.entries(x).map(([k, v]) => `${k} ${v}`)).join(', ') || undefined;
    const search = (ctx: GqlContext, a: Args, limit: number, offset: number, count = false, fields?: string[], include?: Record<string, string[]>) =>
      ctx.kernel.dispatch<{ items: Rec[]; total?: number; included?: Record<string, Rec[]> }>('fw.search', {
        model: m.key, domain: whereToDomain(registry, m, a.where as Rec), order: order(a.orderBy), limit, offset, count, fields,
        ...(include && Object.keys(include).length ? { include } : {}),
      }, ctx.principal);
    const pageArg = (v: unknown, fallback: number) => {
      const x = (v as number | null | undefined) ?? fallback;
      // the same codes as the REST layer (API_MAX_PAGE_SIZE: "more is refused with 400 PAGE_TOO_LARGE")
      if (x < 0) throw new BadRequest('limit must be a non-negative integer', undefined, 'INVALID_PAGING');
      if (x > limits.maxLimit) throw new BadRequest(`limit may be at most ${limits.maxLimit}`, { max: limits.maxLimit }, 'PAGE_TOO_LARGE');
      return x;
    };

    b.queryField(n.one, (t: AnyRef) => t.field({
      type: object, nullable: true, args: { id: t.arg.id({ required: true }) },
      resolve: (_r: unknown, a: Args, ctx: GqlContext, info: AnyRef) => ctx.loaders.byId(m.key, fieldsOf(m, info, ctx)).load(String(a.id)),
    }));
    b.queryField(n.many, (t: AnyRef) => t.field({
      type: [object], nullable: false,
      args: { where: t.arg({ type: where }), orderBy: t.arg({ type: [orderBy] }), limit: t.arg.int(), offset: t.arg.int() },
      resolve: async (_r: unknown, a: Args, ctx: GqlContext, info: AnyRef) => {
        const include = selectedReferences(registry, m, info.fieldNodes, info.fragments, ctx.principal);
        const r = await search(ctx, a, pageArg(a.limit, limits.defaultLimit), (a.offset as number) ?? 0, false, fieldsOf(m, info, ctx), include);
        keepJoined(r.items, r.included);
        return r.items;
      },
    }));
    b.queryField(n.connection, (t: AnyRef) => t.field({
      type: common.connection(n.typeName, object), nullable: false,
      args: { where: t.arg({ type: where }), orderBy: t.arg({ type: [orderBy] }), first: t.arg.int(), after: t.arg.string() },
      resolve: async (_r: unknown, a: Args, ctx: GqlContext) => {
        const first = pageArg(a.first, limits.defaultLimit);
        const offset = a.after ? decodeCursor(String(a.after)) + 1 : 0;
        const r = await search(ctx, a, first, offset, true);
        const edges = r.items.map((node, i) => ({ node, cursor: encodeCursor(offset + i) }));
        return {
          edges, totalCount: r.total,
          pageInfo: { hasNextPage: offset + r.items.length < (r.total ?? 0), hasPreviousPage: offset > 0, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
        };
      },
    }));
    b.queryField(n.count, (t: AnyRef) => t.field({
      type: 'Int', nullable: false, args: { where: t.arg({ type: where }) },
      resolve: async (_r: unknown, a: Args, ctx: GqlContext) =>
        (await ctx.kernel.dispatch<{ count: number }>('fw.count', { model: m.key, domain: whereToDomain(registry, m, a.where as Rec) }, ctx.principal)).count,
    }));
    b.queryField(n.groupBy, (t: AnyRef) => t.field({
      type: [common.GroupResult], nullable: false,
      args: {
        by: t.arg({ type: [groupField], required: true }), where: t.arg({ type: where }),
        aggregates: t.arg({ type: 'JSON', description: 'field → sum | avg | min | max | count' }),
        granularity: t.arg({ type: 'JSON', description: 'datetime field of `by` → day | week | month | quarter | year: its key is the start of the bucket (UTC)' }),
      },
      resolve: async (_r: unknown, a: Args, ctx: GqlContext) => {
        const by = a.by as string[];
        // the same groupings as REST's `closed_at:month`, keyed by the field's name as `by` says it
        const groupby = groupbyOf(by, a.granularity);
        const r = await ctx.kernel.dispatch<{ groups: Rec[] }>('fw.read_group', {
          model: m.key, groupby, domain: whereToDomain(registry, m, a.where as Rec), aggregates: a.aggregates ?? undefined,
        }, ctx.principal);
        return r.groups.map((g) => ({
          key: Object.fromEntries(by.map((k, i) => [k, g[groupby[i]]])),
          count: g.count,
          aggregates: Object.fromEntries(Object.entries(g).filter(([k]) => !groupby.includes(k) && k !== 'count')),
        }));
      },
    }));

    // operations no role may run are left out of the schema rather than failing at run time
    const allowed = (letter: string) => Object.values(m.access.roles).some((l) => l.includes(letter));
    const mutation = (name: string, field: (t: AnyRef) => unknown) => {
      const letter = name.endsWith('Create') || name.endsWith('CreateMany') ? 'c' : name.includes('Update') ? 'u' : 'd';
      if (allowed(letter)) (b as AnyRef).mutationField(name, field);
    };
    mutation(n.create, (t) => t.field({
      type: object, nullable: false, args: createInput ? { input: t.arg({ type: createInput, required: true }) } : {},
      resolve: (_r: unknown, a: Args, ctx: GqlContext) => {
        const input = (a.input ?? {}) as Rec;
        return createCmd
          ? ctx.kernel.dispatch(createCmd.name, input, ctx.principal)
          : ctx.kernel.dispatch('fw.create', { model: m.key, values: input }, ctx.principal);
      },
    }));
    if (createInput) mutation(n.createMany, (t) => t.field({
      type: [object], nullable: false, args: { inputs: t.arg({ type: [createInput], required: true }) },
      resolve: (_r: unknown, a: Args, ctx: GqlContext) =>
        ctx.kernel.dispatch('fw.create_many', { model: m.key, values: a.inputs }, ctx.principal),
    }));
    if (updateInput) mutation(n.update, (t) => t.field({
      type: object, nullable: false,
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: updateInput, required: true }), revision: t.arg.int() },
      resolve: (_r: unknown, a: Args, ctx: GqlContext) =>
        ctx.kernel.dispatch('fw.update', { model: m.key, id: a.id, values: a.input, revision: a.revision ?? undefined }, ctx.principal),
    }));
    if (updateInput) mutation(n.updateMany, (t) => t.field({
      type: common.BatchResult, nullable: false,
      args: { where: t.arg({ type: where, required: true }), input: t.arg({ type: updateInput, required: true }) },
      resolve: (_r: unknown, a: Args, ctx: GqlContext) => ctx.kernel.dispatch('fw.update_many', {
        model: m.key, domain: whereToDomain(registry, m, a.where as Rec), values: a.input,
      }, ctx.principal),
    }));
    mutation(n.delete, (t) => t.field({
      type: common.DeleteResult, nullable: false, args: { id: t.arg.id({ required: true }) },
      resolve: (_r: unknown, a: Args, ctx: GqlContext) => ctx.kernel.dispatch('fw.delete', { model: m.key, id: a.id }, ctx.principal),
    }));
    mutation(n.deleteMany, (t) => t.field({
      type: common.BatchResult, nullable: false, args: { where: t.arg({ type: where, required: true }) },
      resolve: (_r: unknown, a: Args, ctx: GqlContext) =>
        ctx.kernel.dispatch('fw.delete_many', { model: m.key, domain: whereToDomain(registry, m, a.where as Rec) }, ctx.principal),
    }));

    const change = b.objectRef<Rec>(`${n.typeName}Change`).implement({
      fields: (t: AnyRef) => ({
        op: t.exposeString('op'), id: t.exposeID('id'),
        record: t.field({ type: object, nullable: true, resolve: (c: Rec) => c.record ?? null }),
      }),
    });
    b.subscriptionField(n.changed, (t: AnyRef) => t.field({
      type: change, nullable: false,
      description: `Creates, updates and deletes of ${m.key} records you can read`,
      subscribe: (_r: unknown, _a: Args, ctx: GqlContext) => {
        checkAccess(m, ctx.principal, 'read');
        // a change is delivered only if the subscriber may read the record now (record rules); a
        // delete only if the subscriber's rules let it read the record as it was
        return topicIterator(ctx, `changed:${m.key}`, async (msg) => {
          if (msg.op === 'delete') {
            const { before, ...notice } = msg;
            const seen = await ctx.kernel.dispatch<{ readable: boolean }>('fw.could_read_deleted', { model: m.key, values: before ?? null }, ctx.principal);
            return seen.readable ? notice : null;
          }
          try {
            return { ...msg, record: await ctx.kernel.dispatch('fw.read_one', { model: m.key, id: msg.id }, ctx.principal) };
          } catch (err) {
            if (err instanceof FwError && err.status === 404) return null;
            throw err;
          }
        });
      },
      resolve: (c: Rec) => c,
    }));
  }

  b.subscriptionField('clientReload', (t: AnyRef) => t.field({
    type: 'JSON', nullable: false,
    description: 'web.client.reload notifications of your tenant (e.g. the organization slug changed)',
    subscribe: (_r: unknown, _a: Args, ctx: GqlContext) => topicIterator(ctx, 'client.reload'),
    resolve: (m: unknown) => m,
  }));

  const outputs = outputTypes(b, registry.outputTypes, objects);
  for (const app of registry.apps) {
    for (const sub of app.module.subscriptions ?? []) {
      b.subscriptionField(sub.name, (t: AnyRef) => t.field({
        type: sub.output ? outputs.typeOf(sub.output) : 'JSON', nullable: false, description: sub.description,
        args: Object.fromEntries(Object.entries(sub.args ?? {}).map(([k, a]) => [k,
          a.id ? t.arg.id({ required: a.required ?? false, description: a.description }) : t.arg.string({ required: a.required ?? false, description: a.description })])),
        subscribe: async (_r: unknown, a: Args, ctx: GqlContext) => {
          if (ctx.principal.kind === 'anonymous') throw new AuthenticationRequired('subscriptions need a bearer access token');
          return topicIterator(ctx, await sub.topic({ kernel: ctx.kernel, principal: ctx.principal, args: a }));
        },
        resolve: (m: unknown) => m,
      }));
    }
  }

  for (const cmd of registry.commands.values()) {
    if (cmd.kernel || cmd.internal) continue;
    commandField(b, registry, cmd, objects, outputs, (m, f) => scalarType(m, f));
  }
  b.mutationField('command', (t: AnyRef) => t.field({
    type: 'JSON', nullable: true, description: 'Dispatch any command by name (the command bus over GraphQL)',
    args: { name: t.arg.string({ required: true }), payload: t.arg({ type: 'JSON' }) },
    resolve: (_r: unknown, a: Args, ctx: GqlContext) => {
      const name = publicCommandName(registry, String(a.name));
      return ctx.kernel.dispatch(name, publicPayload(name, (a.payload as Rec) ?? {}, limits), ctx.principal);
    },
  }));
  return b.toSchema({ sortSchema: true });
}

function commandField(b: Builder, registry: Registry, cmd: ResolvedCommand, objects: Map<string, AnyRef>, outputs: OutputTypes,
  scalarType: (m: ResolvedModel, f: ResolvedField) => AnyRef): void {
  const name = cmd.graphql_name ?? commandFieldName(cmd.name);
  const model = cmd.model ? registry.model(cmd.model) : null;
  const returnsRecord = cmd.returns === 'record' && model;
  // a command that returns nothing answers true once done (null with an error), as Directus's
  // `auth_logout: Boolean` does: a field typed JSON would promise a value that never comes
  const returnsNothing = cmd.returns === 'void' && !cmd.output;
  const field = (t: AnyRef) => {
    const args: Rec = {};
    if (cmd.record) args.id = t.arg.id({ required: true });
    if (cmd.file_upload) args.file = t.arg({ type: 'File', required: true });
    for (const f of cmd.inputFields?.values() ?? []) {
      args[f.name] = t.arg({ type: scalarType(model ?? fakeModel(cmd), f), required: f.required && f.default === undefined });
    }
    return t.field({
      // the field itself stays nullable whatever the shape says: a failed command answers null
      type: returnsRecord ? objects.get(model.key) : cmd.output ? outputs.typeOf(cmd.output) : returnsNothing ? 'Boolean' : 'JSON',
      nullable: cmd.output?.kind === 'list' ? { list: true, items: cmd.output.of.nullable } : true,
      description: cmd.description,
      args,
      resolve: (_r: unknown, a: Args, ctx: GqlContext) => {
        const { file, ...rest } = a;
        const payload: Rec = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined && v !== null));
        if (cmd.file_upload) Object.assign(payload, fileContent(file as File));
        const from = cmd.output?.from;
        const result = ctx.kernel.dispatch<Rec>(cmd.name, payload, ctx.principal);
        if (returnsNothing) return result.then(() => true);
        return from ? result.then(from) : result;
      },
    });
  };
  const dyn: AnyRef = b;
  if (cmd.mutates) dyn.mutationField(name, field);
  else dyn.queryField(name, field);
}

interface OutputTypes { typeOf(shape: OutputShape): AnyRef }

/**
 * Pothos types of the commands' output shapes (src/kernel/output.ts), one per type name (the
 * registry checked that a name has one shape). A union becomes an interface of the fields its
 * members share, or a plain union when they share none; the discriminator picks the member.
 * A record shape is its model's own object type.
 */
function outputTypes(b: Builder, shapes: ReadonlyMap<string, NamedShape>, objects: ReadonlyMap<string, AnyRef>): OutputTypes {
  const refs = new Map<string, AnyRef>();
  const nullability = (s: OutputShape) => (s.kind === 'list' ? { list: s.nullable, items: s.of.nullable } : s.nullable);
  const fieldsOf = (t: AnyRef, fields: Readonly<Record<string, OutputShape>>, names = Object.keys(fields)) =>
    Object.fromEntries(names.map((name) => {
      const f = fields[name];
      return [name, t.field({
        type: typeOf(f), nullable: nullability(f), description: f.kind === 'object' || f.kind === 'union' ? undefined : f.description,
        resolve: (parent: Rec) => (f.from ? f.from(parent) : parent[name]) ?? null,
      })];
    }));
  // union members that share fields implement the union's interface, wherever they are used
  const interfacesOf = new Map<string, UnionShape[]>();
  for (const u of shapes.values()) {
    if (u.kind !== 'union' || !sharedFields(u).length) continue;
    for (const m of Object.values(u.members)) interfacesOf.set(m.name, [...interfacesOf.get(m.name) ?? [], u]);
  }
  const named = (name: string): AnyRef => {
    if (refs.has(name)) return refs.get(name);
    const shape = shapes.get(name)!;
    if (shape.kind === 'object') {
      const ifaces = interfacesOf.get(name) ?? [];
      const inherited = new Set(ifaces.flatMap(sharedFields));
      refs.set(name, b.objectRef<Rec>(name));
      refs.get(name).implement({
        description: shape.description,
        interfaces: ifaces.map((u) => named(u.name)),
        fields: (t: AnyRef) => fieldsOf(t, shape.fields, Object.keys(shape.fields).filter((k) => !inherited.has(k))),
      });
      return refs.get(name);
    }
    const members = Object.values(shape.members);
    const shared = sharedFields(shape);
    const resolveType = (v: Rec) => {
      const m = shape.members[String(v[shape.discriminator])] ?? shape.members[UNION_OTHERS];
      if (!m) throw new Error(`${shape.name}: no member for ${shape.discriminator} = ${String(v[shape.discriminator])}`);
      return m.name;
    };
    if (!shared.length) {
      refs.set(name, b.unionType(name, { description: shape.description, types: members.map((m) => named(m.name)), resolveType }));
      return refs.get(name);
    }
    refs.set(name, b.interfaceRef<Rec>(name));
    refs.get(name).implement({ description: shape.description, fields: (t: AnyRef) => fieldsOf(t, members[0].fields, shared), resolveType });
    for (const m of members) named(m.name);
    return refs.get(name);
  };
  const typeOf = (s: OutputShape): AnyRef =>
    (s.kind === 'scalar' ? s.scalar : s.kind === 'list' ? [typeOf(s.of)] : s.kind === 'record' ? objects.get(s.model) : named(s.name));
  return { typeOf };
}

/**
 * A subscription stream of one topic of the subscriber's tenant; `select` may drop (null) or
 * enrich a message.
 */
function topicIterator(ctx: GqlContext, topic: string, select?: (m: Rec) => Promise<Rec | null>): AsyncIterable<Rec> {
  if (ctx.principal.kind === 'anonymous') throw new AuthenticationRequired('subscriptions need a bearer access token');
  return new Repeater<Rec>(async (push, stop) => {
    const off = await ctx.kernel.subscribe(ctx.principal.tenant_id, topic, (raw) => {
      const msg = raw as Rec;
      if (!select) return void push(msg);
      void select(msg).then((m) => m && push(m), (err) => stop(err));
    });
    await stop;
    off();
  });
}

/** A multipart File as the payload keys file-upload commands read. */
function fileContent(file: File): Rec {
  if (!file || typeof file.stream !== 'function') throw new BadRequest('file must be a multipart file', undefined, 'NO_CONTENT');
  return {
    // yoga hands over a ponyfill File whose stream is not Node's ReadableStream class, but every
    // web stream is async-iterable
    stream: Readable.from(file.stream() as unknown as AsyncIterable<Uint8Array>, { objectMode: false }),
    filename: file.name,
    content_type: file.type || undefined,
    declared_size: file.size,
  };
}

/** Enum payload fields of app-level commands get type names from the command. */
const fakeModel = (cmd: ResolvedCommand) => ({ names: { typeName: pascalName(cmd.name) } }) as ResolvedModel;

export const encodeCursor = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');
export function decodeCursor(cursor: string): number {
  const m = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new RangeError('invalid cursor');
  return Number(m[1]);
}

function commonTypes(b: Builder) {
  const SortOrder = b.enumType('SortOrder', { values: ['asc', 'desc'] as const });
  const QueryMode = b.enumType('QueryMode', { values: ['default', 'insensitive'] as const });
  const cmp = (name: string, type: AnyRef, extra: (t: AnyRef) => Rec = () => ({})) => b.inputType(name, {
    fields: (t: AnyRef) => ({
      eq: t.field({ type, required: false }), ne: t.field({ type, required: false }),
      in: t.field({ type: [type], required: false }), notIn: t.field({ type: [type], required: false }),
      ...extra(t),
    }),
  });
  const ordered = (t: AnyRef, type: AnyRef) => ({
    lt: t.field({ type, required: false }), lte: t.field({ type, required: false }),
    gt: t.field({ type, required: false }), gte: t.field({ type, required: false }),
  });
  // the domain's text patterns (like, ilike, not like, not ilike, startswith, istartswith)
  const pattern = (t: AnyRef) => ({
    contains: t.field({ type: 'String', required: false, description: 'Contains the text ("like"; `%` and `_` are wildcards)' }),
    notContains: t.field({ type: 'String', required: false, description: 'Does not contain the text, or is null ("not like")' }),
    startsWith: t.field({ type: 'String', required: false, description: 'Starts with the text ("startswith")' }),
    mode: t.field({ type: QueryMode, required: false, description: '`insensitive`: contains, notContains and startsWith ignore case ("ilike", "not ilike", "istartswith")' }),
  });
  const PageInfo = b.objectRef<Rec>('PageInfo').implement({
    fields: (t: AnyRef) => ({
      hasNextPage: t.exposeBoolean('hasNextPage'), hasPreviousPage: t.exposeBoolean('hasPreviousPage'),
      startCursor: t.exposeString('startCursor', { nullable: true }), endCursor: t.exposeString('endCursor', { nullable: true }),
    }),
  });
  const connections = new Map<string, AnyRef>();
  return {
    SortOrder,
    StringFilter: cmp('StringFilter', 'String', (t) => ({ ...ordered(t, 'String'), ...pattern(t) })),
    IntFilter: cmp('IntFilter', 'Int', (t) => ordered(t, 'Int')),
    FloatFilter: cmp('FloatFilter', 'Float', (t) => ordered(t, 'Float')),
    DateTimeFilter: cmp('DateTimeFilter', 'DateTime', (t) => ordered(t, 'DateTime')),
    BooleanFilter: cmp('BooleanFilter', 'Boolean'),
    pattern,
    IDFilter: cmp('IDFilter', 'ID'),
    GroupResult: b.objectRef<Rec>('GroupResult').implement({
      fields: (t: AnyRef) => ({
        key: t.field({ type: 'JSON', resolve: (g: Rec) => g.key }),
        count: t.exposeInt('count'),
        aggregates: t.field({ type: 'JSON', resolve: (g: Rec) => g.aggregates }),
      }),
    }),
    BatchResult: b.objectRef<Rec>('BatchResult').implement({
      fields: (t: AnyRef) => ({
        count: t.exposeInt('count'),
        ids: t.exposeIDList('ids', { nullable: false, description: 'The records changed or deleted, in the order they were written' }),
      }),
    }),
    DeleteResult: b.objectRef<Rec>('DeleteResult').implement({
      fields: (t: AnyRef) => ({ id: t.exposeID('id'), deleted: t.exposeBoolean('deleted') }),
    }),
    connection(typeName: string, node: AnyRef): AnyRef {
      if (!connections.has(typeName)) {
        const edge = b.objectRef<Rec>(`${typeName}Edge`).implement({
          fields: (t: AnyRef) => ({ cursor: t.exposeString('cursor'), node: t.field({ type: node, resolve: (e: Rec) => e.node }) }),
        });
        connections.set(typeName, b.objectRef<Rec>(`${typeName}Connection`).implement({
          fields: (t: AnyRef) => ({
            edges: t.field({ type: [edge], resolve: (c: Rec) => c.edges }),
            pageInfo: t.field({ type: PageInfo, resolve: (c: Rec) => c.pageInfo }),
            totalCount: t.exposeInt('totalCount'),
          }),
        }));
      }
      return connections.get(typeName);
    },
  } as Record<string, AnyRef> & { connection(typeName: string, node: AnyRef): AnyRef };
}

/**
 * The References a list's search read in its own statement, kept on each item under a symbol
 * (never serialised: GraphQL picks the selected fields) for its Reference resolvers, which then
 * answer at once instead of loading: the same record, with the fields the selection asks for,
 * that the loader would give. A Reference the search did not join, or whose record the join did
 * not find, is not there: its resolver loads as usual, and its search answers (null for a record
 * the caller may not see).
 */
const JOINED = Symbol('References read with the list');
type Joined = Rec & { [JOINED]?: Record<string, Rec | null> };

function keepJoined(items: Rec[], included: Record<string, Rec[]> | undefined): void {
  if (!included) return;
  const fields = Object.entries(included).map(([field, records]) => ({ field, byId: new Map(records.map((r) => [r.id as string, r])) }));
  for (const item of items as Joined[]) {
    const joined: Record<string, Rec | null> = {};
    for (const { field, byId } of fields) {
      // an id the join has no record for (hidden by the target's rules, or changed by a read
      // hook after the join) is left to the loader, whose own search answers it
      const rec = typeof item[field] === 'string' ? byId.get(item[field].toLowerCase()) : undefined;
      if (rec) joined[field] = rec;
    }
    item[JOINED] = joined;
  }
}

/** Relation filter inputs are shared by every model that points at the same target: built once. */
/** The columns the selection under this field reads (src/server/graphql/selection.ts). */
const fieldsOf = (m: ResolvedModel, info: AnyRef, ctx: GqlContext): string[] =>
  selectedFields(m, info.fieldNodes, info.fragments, ctx.principal);

const relationInputs = new WeakMap<Builder, Map<string, AnyRef>>();
function relationInput(b: Builder, name: string, fields: (t: AnyRef) => Record<string, AnyRef>): AnyRef {
  const cache = relationInputs.get(b) ?? new Map<string, AnyRef>();
  relationInputs.set(b, cache);
  if (!cache.has(name)) cache.set(name, b.inputType(name, { fields }));
  return cache.get(name);
}

function refFilter(b: Builder, wheres: Map<string, AnyRef>, target: string, registry: Registry): AnyRef {
  return relationInput(b, `${registry.model(target).names.typeName}RefFilter`, (t) => ({
    eq: t.id({ required: false }), ne: t.id({ required: false }),
    in: t.idList({ required: false }), notIn: t.idList({ required: false }),
    is: t.field({ type: wheres.get(target), required: false }),
  }));
}

function listFilter(b: Builder, wheres: Map<string, AnyRef>, target: string, registry: Registry): AnyRef {
  const where = wheres.get(target);
  return relationInput(b, `${registry.model(target).names.typeName}ListFilter`, (t) => ({
    some: t.field({ type: where, required: false }),
    none: t.field({ type: where, required: false }),
    every: t.field({ type: where, required: false }),
  }));
}

function enumFilter(b: Builder, e: AnyRef, name: string, pattern: (t: AnyRef) => Rec): AnyRef {
  return b.inputType(name, {
    fields: (t: AnyRef) => ({
      eq: t.field({ type: e, required: false }), ne: t.field({ type: e, required: false }),
      in: t.field({ type: [e], required: false }), notIn: t.field({ type: [e], required: false }),
      // the domain matches text patterns against an Enum's stored value too
      ...pattern(t),
    }),
  });
}

/**
 * `by` with `granularity` ({ closed_at: "month" }) as read_group's `groupby` (`closed_at:month`);
 * a granularity for a field `by` does not name, or one that is not text, is 400 INVALID_GROUPING.
 */
function groupbyOf(by: string[], granularity: unknown): string[] {
  if (granularity === null || granularity === undefined) return by;
  const bad = (message: string) => new BadRequest(message, { granularity }, 'INVALID_GROUPING');
  if (typeof granularity !== 'object' || Array.isArray(granularity)) throw bad('granularity must map datetime fields of `by` to day, week, month, quarter or year');
  const g = granularity as Rec;
  for (const [field, v] of Object.entries(g)) {
    if (!by.includes(field)) throw bad(`granularity names ${field}, which \`by\` does not`);
    if (typeof v !== 'string') throw bad(`granularity of ${field} must be day, week, month, quarter or year`);
  }
  return by.map((k) => (g[k] === undefined ? k : `${k}:${String(g[k])}`));
}
