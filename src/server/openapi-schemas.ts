/**
 * The JSON Schemas the OpenAPI document is made of (src/server/openapi.ts): a field, a record,
 * a write body, the list envelope, the error envelope, and the parameters the list routes share.
 * One place, so a model's record routes and an app's routes that serve the same records
 * (src/server/openapi-routes.ts) describe them alike.
 */
import { requiredOnCreate, type ResolvedField, type ResolvedModel } from '../kernel/registry/model.js';

export type Json = Record<string, unknown>;

export function fieldSchema(f: ResolvedField): Json {
  const base: Json = { description: f.description };
  switch (f.type) {
    case 'char': return { ...base, type: 'string', maxLength: f.size };
    case 'text': return { ...base, type: 'string' };
    case 'integer': return { ...base, type: 'integer', ...(f.min !== undefined ? { minimum: f.min } : {}), ...(f.max !== undefined ? { maximum: f.max } : {}) };
    case 'float': return { ...base, type: 'number' };
    case 'boolean': return { ...base, type: 'boolean' };
    case 'datetime': return { ...base, type: 'string', format: 'date-time' };
    case 'uuid': return { ...base, type: 'string', format: 'uuid' };
    case 'reference': return { ...base, type: 'string', format: 'uuid', 'x-reference': f.target };
    case 'enum': return { ...base, type: 'string', enum: [...f.values!] };
    default: return base;
  }
}

/** A field that may be null also takes null; one of no JSON type (json) takes any value already. */
export const nullable = (s: Json, f: ResolvedField): Json => (f.notNull || s.type === undefined ? s : { ...s, type: [s.type, 'null'] });

export function recordSchema(m: ResolvedModel): Json {
  const props: Json = { id: { type: 'string', format: 'uuid' } };
  const required = ['id'];
  for (const f of m.fields.values()) {
    if (!f.stored || f.private || f.name === 'record_uuid') continue;
    props[f.name] = nullable(fieldSchema(f), f);
    if (f.notNull) required.push(f.name);
  }
  return { type: 'object', description: m.description, properties: props, required };
}

export function writeSchema(fields: Iterable<ResolvedField>, create: boolean): Json {
  const props: Json = {};
  const required: string[] = [];
  for (const f of fields) {
    if (!f.stored || f.auto || f.readonly) continue;
    props[f.name] = nullable(fieldSchema(f), f);
    if (create && requiredOnCreate(f)) required.push(f.name);
  }
  return { type: 'object', properties: props, additionalProperties: false, ...(required.length ? { required } : {}) };
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Json, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
export const errors = {
  400: json(ref('Error'), 'Bad input'), 401: json(ref('Error'), 'Not authenticated'),
  403: json(ref('Error'), 'Denied'), 404: json(ref('Error'), 'Unknown record or model'),
  409: json(ref('Error'), 'Conflict (unique or stale revision)'), 422: json(ref('Error'), 'Validation failed'),
};
export const listParams = [
  { name: 'filter', in: 'query', description: 'JSON domain: [[field, operator, value], …] with &, |, ! prefixes', schema: { type: 'string' } },
  { name: 'order', in: 'query', description: '"<field> asc|desc[, …]"', schema: { type: 'string' } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
  { name: 'fields', in: 'query', description: 'comma-separated field names', schema: { type: 'string' } },
];
export const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** The list envelope of a model's records (`GET /api/data/{key}` and the app routes that list them). */
export function listSchema(typeName: string, limits: { defaultLimit: number; maxLimit: number }): Json {
  return { type: 'object', properties: { items: { type: 'array', items: ref(typeName) }, total: { type: 'integer' }, limit: { type: 'integer', default: limits.defaultLimit, maximum: limits.maxLimit }, offset: { type: 'integer' } } };
}

/** A JSON request body. */
export const body = (schema: Json, required = false): Json => ({ ...(required ? { required: true } : {}), content: { 'application/json': { schema } } });

/** An update's `revision` (the optimistic lock); `ifMatch`: the route also reads it from `If-Match`. */
export const revisionMember = (ifMatch: boolean): Json => ({
  revision: { type: 'integer', description: ifMatch ? 'optimistic lock; or send If-Match' : 'optimistic lock: refused (409 STALE_REVISION) unless the record is at this revision' },
});

type Fragment = { parameters?: unknown[]; requestBody?: Json; responses: Json };

/**
 * What listing, creating, reading, updating and deleting a model's records take and answer, the
 * same for `/api/data/{key}` and an app's routes that serve those records: the query, body and
 * success response of each (path parameters, tags and errors are the caller's).
 */
export function recordOperations(typeName: string, limits: { defaultLimit: number; maxLimit: number }): Record<'list' | 'create' | 'read' | 'update' | 'delete', Fragment> {
  const revision = { type: 'object', properties: revisionMember(true) };
  return {
    list: { parameters: listParams, responses: { 200: json(listSchema(typeName, limits)) } },
    create: { requestBody: body(ref(`${typeName}Create`), true), responses: { 201: json(ref(typeName), 'Created') } },
    read: { responses: { 200: json(ref(typeName)) } },
    update: { requestBody: body({ allOf: [ref(`${typeName}Update`), revision] }), responses: { 200: json(ref(typeName)) } },
    delete: { responses: { 200: json({ type: 'object', properties: { id: { type: 'string' }, deleted: { type: 'boolean' } } }) } },
  };
}
