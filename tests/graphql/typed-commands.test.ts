/**
 * Every field the shipped apps put on Query, Mutation and Subscription answers a type a schema
 * explorer and codegen can use: a model's object type, a declared output (`CommandDecl.output`) or `Boolean`
 * for a command that returns nothing. `JSON` is left only to `command(name, payload)`, whose
 * result is whatever the named command returns, and to fields of a shape that is free by nature
 * (a provider's configuration, a message's values), which are typed inside their object. A new
 * command without `output` fails here instead of reaching clients as `JSON`.
 */
import { buildSchema, getNamedType, type GraphQLObjectType } from 'graphql';
import { expect, it } from 'vitest';
import { projectLayout } from '../../src/kernel/modules/loader.ts';
import { printFeaturesSdl } from '../../src/server/graphql/sdl.ts';

/** Compiled once for both rules (it loads every app and builds the schema). */
const features = printFeaturesSdl(projectLayout()).then((sdl) => buildSchema(sdl));

it('no Query or Mutation field of the shipped apps (every feature on) answers JSON, but the generic command', async () => {
  const schema = await features;
  const untyped: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType()] as GraphQLObjectType[]) {
    for (const field of Object.values(root.getFields())) {
      if (getNamedType(field.type).name === 'JSON') untyped.push(`${root.name}.${field.name}`);
    }
  }
  expect(untyped).toEqual(['Mutation.command']);
});

it('subscriptions are typed too, but clientReload (its publishers send what the reload needs, free-form)', async () => {
  const schema = await features;
  const fields = Object.values(schema.getSubscriptionType()!.getFields());
  expect(fields.filter((f) => getNamedType(f.type).name === 'JSON').map((f) => f.name)).toEqual(['clientReload']);
  expect(String(schema.getSubscriptionType()!.getFields().aiConversationEvents!.type)).toBe('AiConversationEvent!');
});
