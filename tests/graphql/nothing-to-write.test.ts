/**
 * A model with nothing a client may write (every field read-only, automatic or computed) still
 * gets a valid schema: GraphQL has no empty input object, so such a model has no create or update
 * input types, its create takes no `input` (a record of its defaults), and createMany, update and
 * updateMany are left out. Models with something to write keep all of them.
 */
import { validateSchema, type GraphQLInputObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { defineModel, f } from '../../src/kernel/declare.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { buildGraphQLSchema } from '../../src/server/graphql/schema.ts';
import { fixtureApp } from '../helpers/kernel.ts';

const schema = buildGraphQLSchema(createRegistry([fixtureApp('fixture', {
  models: [
    defineModel({
      key: 'fixture.stamp', description: 'Stamp',
      fields: { at: f.datetime({ readonly: true }), n: f.integer({ readonly: true, default: 1 }) },
      access: { roles: { admin: 'crud' } },
    }),
    defineModel({
      key: 'fixture.note', description: 'Note',
      fields: { body: f.text({ required: true }), seen: f.boolean({ readonly: true }) },
      access: { roles: { admin: 'crud' } },
    }),
  ],
})]), { defaultLimit: 50, maxLimit: 500 });
const mutations = (schema.getMutationType() as GraphQLObjectType).getFields();

describe('a model with nothing to write', () => {
  it('yields a schema that passes GraphQL validation (no empty input object)', () => {
    expect(validateSchema(schema).map((e) => e.message)).toEqual([]);
  });

  it('has no create or update input types', () => {
    expect(schema.getType('FixtureStampCreateInput')).toBeUndefined();
    expect(schema.getType('FixtureStampUpdateInput')).toBeUndefined();
  });

  it('creates without arguments and answers the record; createMany, update and updateMany are left out', () => {
    expect(mutations.fixtureStampCreate.args).toEqual([]);
    expect(String(mutations.fixtureStampCreate.type)).toBe('FixtureStamp!');
    expect(Object.keys(mutations).filter((k) => k.startsWith('fixtureStamp')).sort())
      .toEqual(['fixtureStampCreate', 'fixtureStampDelete', 'fixtureStampDeleteMany']);
  });
});

describe('a model with a writable field', () => {
  it('keeps its input types (read-only fields left out) and every mutation', () => {
    const fieldsOf = (name: string) => Object.values((schema.getType(name) as GraphQLInputObjectType).getFields()).map((x) => `${x.name}: ${String(x.type)}`);
    expect(fieldsOf('FixtureNoteCreateInput')).toEqual(['body: String!']);
    expect(fieldsOf('FixtureNoteUpdateInput')).toEqual(['body: String']);
    expect(mutations.fixtureNoteCreate.args.map((a) => `${a.name}: ${String(a.type)}`)).toEqual(['input: FixtureNoteCreateInput!']);
    expect(Object.keys(mutations).filter((k) => k.startsWith('fixtureNote')).sort()).toEqual([
      'fixtureNoteCreate', 'fixtureNoteCreateMany', 'fixtureNoteDelete', 'fixtureNoteDeleteMany', 'fixtureNoteUpdate', 'fixtureNoteUpdateMany',
    ]);
  });
});
