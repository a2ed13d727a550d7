/**
 * A command's declared output (`o.*` shapes, src/kernel/output.ts) as the JSON Schema of its REST
 * answer. A REST answer is the handler's result unchanged, while GraphQL may compute a field
 * (`from`) from it: such a field is not in the REST answer under its name, so it is left out, and
 * an output computed as a whole has no schema here (`{}`). Named objects and unions become
 * components, under the names GraphQL gives them; a record shape refers to its model's schema,
 * named by `typeName` (the components of every model are there already).
 */
import type { OutputShape, ScalarName } from '../kernel/output.js';
import { UNION_OTHERS } from '../kernel/output.js';
import { ref, type Json } from './openapi-schemas.js';

const SCALARS: Record<ScalarName, Json> = {
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  JSON: {},
  DateTime: { type: 'string', format: 'date-time' },
};

function orNull(schema: Json, nullable: boolean): Json {
  if (!nullable) return schema;
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  // a $ref, or free JSON (which already allows null)
  return Object.keys(schema).length ? { oneOf: [schema, { type: 'null' }] } : schema;
}

/** The schema of one use of `shape`, registering the named types it uses in `components`. */
export function outputSchema(shape: OutputShape, components: Json, typeName: (model: string) => string): Json {
  const described = (s: Json): Json => (shape.description ? { ...s, description: shape.description } : s);
  switch (shape.kind) {
    case 'scalar':
      return described(orNull(SCALARS[shape.scalar], shape.nullable));
    case 'list':
      return described(orNull({ type: 'array', items: outputSchema(shape.of, components, typeName) }, shape.nullable));
    case 'record':
      return described(orNull(ref(typeName(shape.model)), shape.nullable));
    case 'object': {
      if (!(shape.name in components)) {
        components[shape.name] = {}; // a shape that contains itself refers to the name
        const properties: Json = {};
        const required: string[] = [];
        for (const [name, field] of Object.entries(shape.fields)) {
          if (field.from) continue;
          properties[name] = outputSchema(field, components, typeName);
          if (!field.nullable) required.push(name);
        }
        components[shape.name] = { type: 'object', properties, ...(required.length ? { required } : {}) };
      }
      return orNull(ref(shape.name), shape.nullable);
    }
    case 'union': {
      if (!(shape.name in components)) {
        components[shape.name] = {};
        const members = Object.entries(shape.members);
        const named = members.filter(([value]) => value !== UNION_OTHERS);
        components[shape.name] = {
          oneOf: members.map(([, member]) => outputSchema({ ...member, nullable: false }, components, typeName)),
          discriminator: { propertyName: shape.discriminator, mapping: Object.fromEntries(named.map(([value, member]) => [value, `#/components/schemas/${member.name}`])) },
        };
      }
      return orNull(ref(shape.name), shape.nullable);
    }
  }
}

/** The REST answer of a command with this output, or null when it is not what REST sends (computed for GraphQL). */
export function answerSchema(output: OutputShape | undefined, components: Json, typeName: (model: string) => string): Json | null {
  if (!output || output.from) return null;
  return outputSchema(output, components, typeName);
}
