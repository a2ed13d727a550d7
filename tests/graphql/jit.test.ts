/**
 * When graphql-jit compiles (src/server/graphql/jit.ts): a document from its GRAPHQL_JIT_MIN_USES-th
 * execution on (2 by default), so a document sent once, as a flood of fresh ones is, runs on
 * graphql-js and is never compiled; 1 compiles at once, 0 never. The answers are the same
 * either way.
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import { buildSchema, GraphQLScalarType, parse } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/kernel/settings.ts';
import { graphqlSettings } from '../../src/server/graphql/index.ts';
import { coercedKey, jitAfterUses, jitCanRun, precoercedVariables } from '../../src/server/graphql/jit.ts';
import { gql, gqlOk, startServerWithApps, type ApiServer } from '../helpers/api.ts';

describe('jitAfterUses', () => {
  it('with 2 (the default), a document is compiled from its second execution on, each document counted apart', () => {
    expect(graphqlSettings(loadSettings({})).GRAPHQL_JIT_MIN_USES).toBe(2);
    const compile = jitAfterUses(2);
    const a = parse('{ me { email } }');
    const b = parse('{ me { email } }');
    expect([compile(a), compile(a), compile(a)]).toEqual([false, true, true]);
    expect(compile(b)).toBe(false);
  });

  it('1 compiles at the first execution, 0 never', () => {
    const doc = parse('{ __typename }');
    expect(jitAfterUses(1)(doc)).toBe(true);
    const never = jitAfterUses(0);
    expect([never(doc), never(doc), never(doc)]).toEqual([false, false, false]);
  });
});

describe('on a server', () => {
  let ts: ApiServer;
  let token: string;
  beforeAll(async () => {
    ts = await startServerWithApps([]);
    token = await ts.adminToken();
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('the first (interpreted) and later (compiled) runs of a document answer the same', async () => {
    const q = '{ resOrganizations(limit: 50) { id name code country { code name } } me { email organization { name } } }';
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await gqlOk(ts, q, {}, { token }));
    expect(runs[0].me.email).toBe('admin@example.com');
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  it('an error of a resolver answers the same on the interpreted and the compiled run: code, path and locations', async () => {
    const q = 'mutation {\n  resOrganizationCreate(input: { name: "" }) { name }\n}';
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await gql(ts, q, {}, { token }));
    const errors = runs.map((r) => r.body.errors);
    expect(errors[0]).toEqual([expect.objectContaining({ path: ['resOrganizationCreate'], locations: [{ line: 2, column: 3 }], extensions: expect.objectContaining({ code: 'VALIDATION_FAILED' }) })]);
    // graphql-jit's errors carry locations but not the AST nodes graphql-js builds them from
    expect(errors[1]).toEqual(errors[0]);
    expect(errors[2]).toEqual(errors[0]);
    expect(runs.map((r) => r.status)).toEqual([422, 422, 422]);
  });

  it('lists with where and orderBy variables answer the same on every run (interpreted, then compiled) as the same list with inline arguments', async () => {
    const q = 'query L($where: ResCountryWhere, $orderBy: [ResCountryOrderBy!], $limit: Int) { resCountries(where: $where, orderBy: $orderBy, limit: $limit) { code name } }';
    const inline = await gqlOk(ts, '{ resCountries(where: { code: { in: ["FR", "DE", "IT"] } }, orderBy: [{ name: desc }], limit: 2) { code name } }', {}, { token });
    expect(inline.resCountries.map((c: { code: string }) => c.code)).toEqual(['IT', 'DE']);
    for (let i = 0; i < 3; i++) {
      // a single orderBy object stands for a list of one, as graphql-js coerces it
      const orderBy = i === 2 ? { name: 'desc' } : [{ name: 'desc' }];
      expect(await gqlOk(ts, q, { where: { code: { in: ['FR', 'DE', 'IT'] } }, orderBy, limit: 2 }, { token })).toEqual(inline);
    }
    const bad = await gql(ts, q, { where: { code: { nope: 'x' } } }, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.message).toMatch(/Variable "\$where" got invalid value/);
  });

  it('a scalar variable that does not fit is refused the same on every run: 400 and graphql-js\'s words, interpreted or compiled', async () => {
    const q = 'query S($limit: Int) { resCountries(limit: $limit) { code } }';
    // compiled from its second use on (GRAPHQL_JIT_MIN_USES=2)
    expect((await gqlOk(ts, q, { limit: 1 }, { token })).resCountries).toHaveLength(1);
    expect((await gqlOk(ts, q, { limit: 2 }, { token })).resCountries).toHaveLength(2);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await gql(ts, q, { limit: 'many' }, { token }));
    expect(runs.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(runs[0].body.errors).toEqual([expect.objectContaining({ message: 'Variable "$limit" got invalid value "many"; Int cannot represent non-integer value: "many"' })]);
    expect(runs[1].body).toEqual(runs[0].body);
    expect(runs[2].body).toEqual(runs[0].body);
    // and a fresh document whose first use is refused answers the same as a compiled one
    const fresh = await gql(ts, 'query S2($limit: Int) { resCountries(limit: $limit) { name } }', { limit: 'many' }, { token });
    expect([fresh.status, fresh.body.errors?.[0]?.message]).toEqual([400, runs[0].body.errors![0]!.message]);
  });
});

describe('precoercedVariables', () => {
  // a recursive input (as every model's `where` is), which graphql-jit cannot coerce itself
  const schema = createSchema({
    typeDefs: `scalar JSON
      input Where { AND: [Where!], name: String }
      enum Dir { up, down }
      type Query { names(where: Where, dir: Dir, limit: Int = 2): [String!]! }`,
    resolvers: { Query: { names: (_: unknown, a: { where?: unknown; dir?: string; limit: number }) => [JSON.stringify(a.where ?? null), a.dir ?? '-', String(a.limit)] } },
  });
  function server() {
    const compiled: boolean[] = [];
    const yoga = createYoga({
      schema, logging: false,
      plugins: [precoercedVariables(() => true), useGraphQlJit({}, { enableIf: (args) => { const ok = jitCanRun(args.schema, args.document); compiled.push(ok); return ok; } })],
    });
    const run = async (variables: unknown) => {
      const res = await yoga.fetch('http://localhost/graphql', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'query Q($where: Where, $dir: Dir, $limit: Int = 2) { names(where: $where, dir: $dir, limit: $limit) }', variables }),
      });
      return { status: res.status, body: await res.json() };
    };
    return { run, compiled };
  }

  it('an operation with a recursive input variable reaches the compiler as one it can compile, and answers as graphql-js does', async () => {
    const { run, compiled } = server();
    const r = await run({ where: { AND: [{ name: 'a' }] }, dir: 'down' });
    expect(r).toEqual({ status: 200, body: { data: { names: ['{"AND":[{"name":"a"}]}', 'down', '2'] } } });
    expect(compiled).toEqual([true]);
    // defaults and absent variables as graphql-js coerces them
    expect((await run({ limit: 5 })).body.data.names).toEqual(['null', '-', '5']);
  });

  it('a schema without a JSON scalar is left to graphql-js, as before', async () => {
    const plain = createSchema({
      typeDefs: 'input Where { AND: [Where!], name: String } type Query { names(where: Where): [String!]! }',
      resolvers: { Query: { names: (_: unknown, a: { where?: unknown }) => [JSON.stringify(a.where ?? null)] } },
    });
    const compiled: boolean[] = [];
    const yoga = createYoga({ schema: plain, logging: false, plugins: [precoercedVariables(() => true), useGraphQlJit({}, { enableIf: (args) => { const ok = jitCanRun(args.schema, args.document); compiled.push(ok); return ok; } })] });
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query Q($where: Where) { names(where: $where) }', variables: { where: { name: 'a' } } }),
    });
    expect(await res.json()).toEqual({ data: { names: ['{"name":"a"}'] } });
    expect(compiled).toEqual([false]);
  });

  it('variables that do not fit their types are refused with 400 and graphql-js\'s message, before anything runs', async () => {
    const { run, compiled } = server();
    const r = await run({ where: { nope: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toMatch(/Variable "\$where" got invalid value .*Field "nope" is not defined by type "Where"/);
    const e = await run({ dir: 'sideways' });
    expect(e.status).toBe(400);
    expect(e.body.errors[0].message).toMatch(/Variable "\$dir" got invalid value "sideways"/);
    expect(compiled).toEqual([]);
  });
});

describe('coerced variables are kept per query and variables', () => {
  // what each call of the resolver was given, to tell a kept coercion (the same frozen object) from a fresh one
  const seen: Array<{ where: unknown; frozen: boolean }> = [];
  const schema = createSchema({
    typeDefs: `scalar JSON
      scalar Stamp
      input Where { AND: [Where!], name: String, tags: [String!] }
      type Query { names(where: Where, limit: Int = 2): [String!]! at(when: Stamp): String }
      type Mutation { touch(where: Where): String! }`,
    resolvers: {
      // a custom scalar whose values are not plain JSON: variables holding one are not kept
      Stamp: new GraphQLScalarType({ name: 'Stamp', parseValue: (v) => new Date(String(v)), serialize: (v) => (v as Date).toISOString() }),
      Query: {
        names: (_: unknown, a: { where?: Record<string, unknown>; limit: number }) => { seen.push({ where: a.where, frozen: Object.isFrozen(a.where) }); return [JSON.stringify(a.where ?? null), String(a.limit)]; },
        at: (_: unknown, a: { when?: Date }) => { seen.push({ where: a.when, frozen: Object.isFrozen(a.when) }); return a.when?.toISOString() ?? null; },
      },
      Mutation: { touch: (_: unknown, a: { where?: Record<string, unknown> }) => { seen.push({ where: a.where, frozen: Object.isFrozen(a.where) }); return JSON.stringify(a.where ?? null); } },
    },
  });
  const yoga = createYoga({ schema, logging: false, plugins: [precoercedVariables(() => true), useGraphQlJit({}, { enableIf: (args) => jitCanRun(args.schema, args.document) })] });
  const QUERY = 'query Q($where: Where, $limit: Int = 2) { names(where: $where, limit: $limit) }';
  const run = async (query: string, variables: unknown) => {
    const res = await yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return { status: res.status, body: await res.json() };
  };

  it('the same query with the same variables gets the same coerced values, frozen; other variables are coerced apart', async () => {
    seen.length = 0;
    const a = await run(QUERY, { where: { name: 'a', tags: ['x'] } });
    const again = await run(QUERY, { where: { name: 'a', tags: ['x'] } });
    const b = await run(QUERY, { where: { name: 'b' }, limit: 7 });
    expect(a).toEqual({ status: 200, body: { data: { names: ['{"name":"a","tags":["x"]}', '2'] } } });
    expect(again).toEqual(a);
    expect(b.body.data.names).toEqual(['{"name":"b"}', '7']);
    expect(seen[1]!.where).toBe(seen[0]!.where);
    expect(seen[0]!.frozen).toBe(true);
    expect(Object.isFrozen((seen[0]!.where as { tags: string[] }).tags)).toBe(true);
    expect(seen[2]!.where).not.toBe(seen[0]!.where);
  });

  it('variables that do not fit are refused every time they are sent: refusals are not kept', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await run(QUERY, { where: { nope: 1 } });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toMatch(/Field "nope" is not defined by type "Where"/);
    }
  });

  it('variables longer than 4 KiB and the variables of mutations are coerced every time, not kept', async () => {
    seen.length = 0;
    const long = { where: { tags: Array.from({ length: 600 }, (_, i) => `tag-${i}`) } };
    expect((await run(QUERY, long)).body.data.names[0]).toContain('tag-599');
    expect((await run(QUERY, long)).status).toBe(200);
    expect(seen.map((s) => s.frozen)).toEqual([false, false]);
    expect(seen[1]!.where).not.toBe(seen[0]!.where);
    seen.length = 0;
    const MUTATION = 'mutation M($where: Where) { touch(where: $where) }';
    for (let i = 0; i < 2; i++) expect((await run(MUTATION, { where: { name: 'm' } })).body).toEqual({ data: { touch: '{"name":"m"}' } });
    expect(seen.map((s) => s.frozen)).toEqual([false, false]);
  });

  it('variables holding a value that is not plain JSON (a custom scalar\'s object) are coerced every time, not kept', async () => {
    seen.length = 0;
    const q = 'query S($where: Where, $when: Stamp) { names(where: $where) at(when: $when) }';
    const vars = { where: { name: 'a' }, when: '2026-01-02T03:04:05.000Z' };
    for (let i = 0; i < 2; i++) expect((await run(q, vars)).body.data.at).toBe('2026-01-02T03:04:05.000Z');
    const stamps = seen.filter((s) => s.where instanceof Date);
    expect(stamps).toHaveLength(2);
    expect(stamps[1]!.where).not.toBe(stamps[0]!.where);
    expect(seen.every((s) => !s.frozen)).toBe(true);
  });

  it('the key tells schemas and documents apart, and is null for variables longer than 4 KiB', () => {
    const document = parse(QUERY);
    const one = buildSchema('input Where { name: String } type Query { names(where: Where): [String!]! }');
    const two = buildSchema('input Where { name: String } type Query { names(where: Where): [String!]! }');
    const vars = { where: { name: 'a' } };
    expect(coercedKey(one, document, vars)).toBe(coercedKey(one, document, { where: { name: 'a' } }));
    expect(coercedKey(one, document, vars)).not.toBe(coercedKey(two, document, vars));
    expect(coercedKey(one, document, vars)).not.toBe(coercedKey(one, parse(QUERY), vars));
    expect(coercedKey(one, document, { where: { name: 'x'.repeat(5000) } })).toBeNull();
  });
});
