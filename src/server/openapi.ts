import type { FastifyInstance } from 'fastify';
import { AuthenticationRequired, NotFound } from '../kernel/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import type { ResolvedModel } from '../kernel/registry/model.js';
import type { Registry, ResolvedCommand } from '../kernel/registry/registry.js';
import { defineSettings } from '../kernel/settings.js';
import { exposureAllows, exposureOf } from './exposure.js';
import { body, errors, idParam, json, listParams, listSchema, recordOperations, recordSchema, ref, writeSchema, type Json } from './openapi-schemas.js';
import { commandAnswer, describedOperation } from './openapi-routes.js';
import { transferPaths } from './transfer/openapi.js';
import type { RouteDescription } from '../kernel/app.js';
import './types.js';

export const openapiSettings = defineSettings('openapi', {
  OPENAPI_DOCUMENT: { kind: 'string', default: 'auto', doc: 'Who may read `GET /api/openapi.json`: `public`, `authenticated` (a bearer token; else 401 OPENAPI_UNAUTHENTICATED), `off` (404 OPENAPI_DISABLED), or `auto`: authenticated with NODE_ENV=production, public otherwise.' },
});

function commandPath(registry: Registry, m: ResolvedModel, c: ResolvedCommand, schemas: Json): Json {
  return {
    post: {
      tags: [m.key], operationId: c.name, summary: c.description ?? c.name,
      parameters: [idParam],
      requestBody: c.inputFields ? body(writeSchema(c.inputFields.values(), true)) : undefined,
      responses: { 200: json(commandAnswer(registry, c, schemas)), ...errors },
    },
  };
}

/** An operation with the error envelope's answers, beside its own (which win: an import's 422 says more). */
const withErrors = <O extends { responses: Json }>(o: O): O => ({ ...o, responses: { ...errors, ...o.responses } });

/** A route as Fastify registered it, with what it says it serves. */
export interface RouteEntry { method: string; url: string; auth: string; describes?: RouteDescription }

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Routes the registry-derived part does not describe (app routes: presentation, storage,
 * connectors, …) still appear, with their path parameters, auth level and the error envelope;
 * those that declare what they serve (`config.describes`) also get their body, query and answer
 * (./openapi-routes.ts).
 */
function describeRemaining(registry: Registry, limits: { defaultLimit: number; maxLimit: number }, paths: Json, schemas: Json, routes: RouteEntry[]): void {
  for (const r of routes) {
    if (!HTTP_METHODS.has(r.method) || r.url.includes('*') || r.url === '/graphql' || r.url === '/') continue;
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    if (/^\/api\/data\/\{model\}/.test(path)) continue; // described per model above
    const item = (paths[path] ??= {}) as Json;
    const method = r.method.toLowerCase();
    if (item[method]) continue;
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const params = names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const tag = path.split('/')[2] ?? 'base';
    const described = r.describes ? describedOperation(registry, r.method, r.describes, names, limits, schemas) : {};
    const { parameters: query = [], responses = { 200: json({}) }, ...rest } = described as { parameters?: Json[]; responses?: Json };
    const parameters = [...params, ...query];
    item[method] = {
      tags: [tag],
      summary: `${r.method} ${path}`,
      ...(r.auth === 'public' ? { security: [] } : r.auth === 'optional' ? { security: [{}, { bearer: [] }] } : {}),
      ...rest,
      ...(parameters.length ? { parameters } : {}),
      // the route's own answers win: a JSON-RPC endpoint's 400 is a JSON-RPC error
      ...withErrors({ responses }),
    };
  }
}

/**
 * OpenAPI 3.1 of the REST layer: record routes per model generated from the registry like the
 * GraphQL schema, plus every other registered route.
 */
export function buildOpenApi(registry: Registry, limits: { defaultLimit: number; maxLimit: number }, routes: RouteEntry[] = []): Json {
  const schemas: Json = {
    Error: {
      type: 'object', required: ['error'],
      properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } } } },
    },
  };
  const paths: Json = {
    '/health': { get: { tags: ['base'], security: [], summary: 'Health ping', responses: { 200: json({ type: 'object', properties: { status: { const: 'ok' } } }) } } },
    '/api/auth/login': { post: { tags: ['auth'], security: [], summary: 'Log in', requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['email', 'password'], properties: { email: { type: 'string' }, password: { type: 'string' }, tenant: { type: 'string' } } } } } }, responses: { 200: json(ref('TokenPair')), 401: errors[401], 429: json(ref('Error'), 'Throttled') } } },
    '/api/auth/refresh': { post: { tags: ['auth'], security: [], summary: 'Rotate the refresh token', requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['refresh_token'], properties: { refresh_token: { type: 'string' } } } } } }, responses: { 200: json(ref('TokenPair')), 401: errors[401] } } },
    '/api/auth/logout': { post: { tags: ['auth'], summary: 'Revoke the current session', responses: { 200: json({ type: 'object' }), 401: errors[401] } } },
    '/api/auth/me': { get: { tags: ['auth'], summary: 'Current user', responses: { 200: json({ type: 'object' }), 401: errors[401] } } },
    '/api/command/{name}': { post: { tags: ['commands'], summary: 'Dispatch any command by name', parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }], requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { 200: json({}), ...errors } } },
  };
  schemas.TokenPair = {
    type: 'object', required: ['access_token', 'refresh_token', 'token_type', 'expires_in'],
    properties: { access_token: { type: 'string' }, refresh_token: { type: 'string' }, token_type: { const: 'bearer' }, expires_in: { type: 'integer' } },
  };
  for (const m of registry.models.values()) {
    const t = m.names.typeName;
    schemas[t] = recordSchema(m);
    const createCmd = m.createCommand ? registry.command(m.createCommand) : null;
    schemas[`${t}Create`] = writeSchema(createCmd?.inputFields?.values() ?? m.fields.values(), true);
    schemas[`${t}Update`] = writeSchema(m.fields.values(), false);
    const base = `/api/data/${m.key}`;
    const list = listSchema(t, limits);
    const ops = recordOperations(t, limits);
    paths[base] = {
      get: { tags: [m.key], operationId: `${m.names.many}List`, summary: `List ${m.description}`, ...withErrors(ops.list) },
      post: { tags: [m.key], operationId: m.names.create, summary: `Create ${m.description}`, ...withErrors(ops.create) },
    };
    paths[`${base}/search`] = {
      post: {
        tags: [m.key], operationId: `${m.names.many}Search`, summary: `List ${m.description} (parameters in the body: a filter too long for a URL)`,
        requestBody: { content: { 'application/json': { schema: { type: 'object', additionalProperties: false, properties: { filter: { type: 'array' }, order: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: limits.maxLimit }, offset: { type: 'integer', minimum: 0 }, fields: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] } } } } } },
        responses: { 200: json(list), ...errors },
      },
    };
    paths[`${base}/count`] = { get: { tags: [m.key], operationId: m.names.count, parameters: [listParams[0]], responses: { 200: json({ type: 'object', properties: { count: { type: 'integer' } } }), ...errors } } };
    paths[`${base}/read_group`] = { post: { tags: [m.key], operationId: m.names.groupBy, requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['groupby'], properties: { groupby: { type: 'array', items: { type: 'string' } }, filter: { type: 'array' }, aggregates: { type: 'object', additionalProperties: { enum: ['sum', 'avg', 'min', 'max', 'count'] } } } } } } }, responses: { 200: json({ type: 'object', properties: { groups: { type: 'array', items: { type: 'object' } } } }), ...errors } } };
    paths[`${base}/{id}`] = {
      get: { tags: [m.key], operationId: m.names.one, parameters: [idParam], ...withErrors(ops.read) },
      patch: { tags: [m.key], operationId: m.names.update, parameters: [idParam], ...withErrors(ops.update) },
      put: { tags: [m.key], operationId: `${m.names.update}Replace`, parameters: [idParam], ...withErrors(ops.update) },
      delete: { tags: [m.key], operationId: m.names.delete, parameters: [idParam], ...withErrors(ops.delete) },
    };
    for (const c of registry.commands.values()) {
      if (c.model === m.key && c.record) paths[`${base}/{id}/${c.name.slice(m.key.length + 1)}`] = commandPath(registry, m, c, schemas);
    }
  }
  for (const [path, item] of Object.entries(transferPaths([...registry.models.keys()], schemas))) {
    paths[path] = Object.fromEntries(Object.entries(item).map(([method, op]) => [method, withErrors(op as { responses: Json })]));
  }
  describeRemaining(registry, limits, paths, schemas, routes);
  return {
    openapi: '3.1.0',
    info: { title: 'fw REST API', version: '1.0.0', description: 'Generated from the model registry. Conventions: docs/api.md.' },
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The access token as a query parameter, on the routes that say so: those a browser opens without headers (an EventSource)' },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

export const OPENAPI_DISABLED = 'OPENAPI_DISABLED';
export const OPENAPI_UNAUTHENTICATED = 'OPENAPI_UNAUTHENTICATED';

/**
 * `GET /api/openapi.json`, built once on first request, for the callers OPENAPI_DOCUMENT allows
 * (`../exposure.ts`: signed-in callers only by default with NODE_ENV=production). The route is
 * `optional`: a bearer token, when sent, is checked as on any route.
 */
export function openApiRoute(server: FastifyInstance, kernel: Kernel, limits: { defaultLimit: number; maxLimit: number }, routes: RouteEntry[]): void {
  const exposure = exposureOf(kernel.settings, 'OPENAPI_DOCUMENT', openapiSettings(kernel.settings).OPENAPI_DOCUMENT);
  let doc: Json | undefined;
  server.get('/api/openapi.json', { config: { auth: exposure === 'public' ? 'public' : 'optional' } }, async (req) => {
    const verdict = exposureAllows(exposure, req.principal);
    if (verdict === 'off') throw new NotFound('the OpenAPI document is turned off on this server (OPENAPI_DOCUMENT=off)', { setting: 'OPENAPI_DOCUMENT' }, OPENAPI_DISABLED);
    if (verdict === 'anonymous') {
      throw new AuthenticationRequired('the OpenAPI document is served to signed-in callers only (OPENAPI_DOCUMENT=authenticated, the default with NODE_ENV=production): send a bearer access token', OPENAPI_UNAUTHENTICATED);
    }
    return (doc ??= buildOpenApi(kernel.registry, limits, routes));
  });
}
