/**
 * A command's declared output as the JSON Schema of its REST answer (src/server/openapi-output.ts):
 * the REST answer is the handler's result unchanged, so a field GraphQL computes (`from`) is not in
 * it under its name and is left out, and an output computed as a whole has no schema.
 */
import { describe, expect, it } from 'vitest';
import { o, UNION_OTHERS } from '../../src/kernel/output.ts';
import { answerSchema, outputSchema } from '../../src/server/openapi-output.ts';

/** The model schemas' names, as openapi.ts registers every model's (its GraphQL type name). */
const typeName = (model: string) => ({ 'qa.usecase': 'QaUsecase' })[model] ?? `Unknown<${model}>`;

describe('output shapes as JSON Schema', () => {
  it('scalars map to their JSON types; nullable ones also take null; JSON is any value', () => {
    const c = {};
    expect(outputSchema(o.int(), c, typeName)).toEqual({ type: 'integer' });
    expect(outputSchema(o.string({ nullable: true, description: 'said' }), c, typeName)).toEqual({ type: ['string', 'null'], description: 'said' });
    expect(outputSchema(o.datetime(), c, typeName)).toEqual({ type: 'string', format: 'date-time' });
    expect(outputSchema(o.json({ nullable: true }), c, typeName)).toEqual({});
    expect(outputSchema(o.list(o.boolean()), c, typeName)).toEqual({ type: 'array', items: { type: 'boolean' } });
  });

  it('a named object is a component under its GraphQL name, its non-null fields required, fields GraphQL computes (from) left out', () => {
    const c: Record<string, unknown> = {};
    const Item = o.object('Item', { id: o.id(), note: o.string({ nullable: true }), label: o.string({ from: (p) => String(p.id) }) });
    expect(outputSchema(o.list(Item), c, typeName)).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Item' } });
    expect(c.Item).toEqual({ type: 'object', properties: { id: { type: 'string' }, note: { type: ['string', 'null'] } }, required: ['id'] });
    expect(outputSchema(o.nullable(Item), c, typeName)).toEqual({ oneOf: [{ $ref: '#/components/schemas/Item' }, { type: 'null' }] });
  });

  it('a record shape refers to its model\'s schema (registered with every model), nullable ones also take null', () => {
    const c: Record<string, unknown> = {};
    expect(outputSchema(o.record('qa.usecase'), c, typeName)).toEqual({ $ref: '#/components/schemas/QaUsecase' });
    expect(outputSchema(o.record('qa.usecase', { nullable: true, description: 'the use case' }), c, typeName))
      .toEqual({ oneOf: [{ $ref: '#/components/schemas/QaUsecase' }, { type: 'null' }], description: 'the use case' });
    expect(outputSchema(o.list(o.record('qa.usecase')), c, typeName)).toEqual({ type: 'array', items: { $ref: '#/components/schemas/QaUsecase' } });
    // no component of its own: the model's schema is the one
    expect(c).toEqual({});
  });

  it('a shape that contains itself refers to its own component instead of recursing', () => {
    const fields: Record<string, ReturnType<typeof o.string> | ReturnType<typeof o.list>> = { name: o.string() };
    const Node = o.object('Node', fields);
    fields.children = o.list(Node);
    const c: Record<string, unknown> = {};
    outputSchema(Node, c, typeName);
    expect((c.Node as { properties: Record<string, unknown> }).properties.children).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Node' } });
  });

  it('a union is oneOf its members with the discriminator mapping the named values (the catch-all member has none)', () => {
    const c: Record<string, unknown> = {};
    const List = o.object('ListPlan', { type: o.string(), columns: o.list(o.string()) });
    const Other = o.object('OtherPlan', { type: o.string() });
    expect(outputSchema(o.union('Plan', 'type', { list: List, [UNION_OTHERS]: Other }), c, typeName)).toEqual({ $ref: '#/components/schemas/Plan' });
    expect(c.Plan).toEqual({
      oneOf: [{ $ref: '#/components/schemas/ListPlan' }, { $ref: '#/components/schemas/OtherPlan' }],
      discriminator: { propertyName: 'type', mapping: { list: '#/components/schemas/ListPlan' } },
    });
  });

  it('an output GraphQL computes as a whole (from on the output) has no REST schema; no output, none either', () => {
    expect(answerSchema(o.object('Tree', { a: o.int() }, { from: (r) => r }), {}, typeName)).toBeNull();
    expect(answerSchema(undefined, {}, typeName)).toBeNull();
    expect(answerSchema(o.object('Flat', { a: o.int() }), {}, typeName)).toEqual({ $ref: '#/components/schemas/Flat' });
  });
});
