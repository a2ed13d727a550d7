/**
 * What the fuzzer knows about the server, read from the server itself: every operation of
 * `GET /api/openapi.json` (path, method, parameters, request-body schema, auth level) and every
 * root field of the GraphQL schema (introspection over `POST /graphql`).
 *
 * App routes that declare what they serve (a command or a model's records) come with their
 * schemas; a few hints below name the body and query fields of the others (uploads, the storage
 * list's own filters) as docs/api.md lists them; everything else comes from the document.
 */
import { buildClientSchema, getIntrospectionQuery, type GraphQLField, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import type { FuzzHarness } from './harness.ts';

export type JsonSchema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  'x-reference'?: string;
  $ref?: string;
  allOf?: JsonSchema[];
  description?: string;
};

export interface Param { name: string; in: 'path' | 'query' | 'header'; schema: JsonSchema; required?: boolean }

export interface RestOp {
  /** `METHOD /path/{template}` as in the document. */
  id: string;
  method: string;
  path: string;
  /** The model the path is about (ids in it and the body's fields). */
  model: string | null;
  params: Param[];
  body: JsonSchema | null;
  /** Raw bytes are a valid body (storage uploads). */
  binaryBody: boolean;
  auth: 'public' | 'optional' | 'user';
}

export interface GqlRoot {
  id: string;
  root: 'query' | 'mutation' | 'subscription';
  name: string;
  field: GraphQLField<unknown, unknown>;
}

export interface FuzzSpec {
  rest: RestOp[];
  gql: GraphQLSchema;
  gqlRoots: GqlRoot[];
  models: string[];
  /** Record schema (REST record shape) per model key. */
  records: Record<string, JsonSchema>;
  /** Every property and parameter name the document mentions (keys for extra fields). */
  vocabulary: string[];
  /** Command names: the record commands of the document, plus the kernel's `fw.*` and the app commands docs/api.md lists. */
  commands: string[];
}

/** Commands `/api/command/{name}` accepts that the document does not enumerate (docs/api.md, docs/architecture.md). */
const KNOWN_COMMANDS = [
  'fw.search', 'fw.count', 'fw.read_one', 'fw.read_group', 'fw.create', 'fw.create_many', 'fw.update', 'fw.update_many',
  'fw.delete', 'fw.delete_many', 'fw.copy', 'auth.login', 'auth.refresh', 'auth.logout', 'auth.me', 'ir.session.revoke_all',
  'presentation.list_views', 'presentation.get_view_plan', 'presentation.bootstrap', 'connectors.list_types',
  'connectors.oauth_callback', 'storage.document.upload', 'storage.document.upload_stream', 'res.user.register',
];

const q = (name: string, schema: JsonSchema = { type: 'string' }): Param => ({ name, in: 'query', schema });
const UPLOAD_FIELDS: Record<string, JsonSchema> = {
  filename: { type: 'string' }, name: { type: 'string' }, content_b64: { type: 'string', format: 'byte' }, content_type: { type: 'string' },
  description: { type: 'string' }, tags: { type: 'string' }, owner_model: { type: 'string' }, owner_record_uuid: { type: 'string', format: 'uuid' },
  folder: { type: ['string', 'null'], format: 'uuid', 'x-reference': 'storage.folder' },
};
const VERSION_FIELDS: Record<string, JsonSchema> = {
  content_b64: { type: 'string', format: 'byte' }, file_content: { type: 'string', format: 'byte' }, filename: { type: 'string' }, file_name: { type: 'string' },
  content_type: { type: 'string' }, file_mime: { type: 'string' }, change_note: { type: 'string' },
};

/** Bodies and query parameters of app routes the document lists without schemas, or without all of theirs (docs/api.md). */
function appHints(op: RestOp, comp: Record<string, JsonSchema>): void {
  const obj = (properties: Record<string, JsonSchema>, required?: string[]): JsonSchema => ({ type: 'object', properties, ...(required ? { required } : {}) });
  switch (op.id) {
    case 'GET /api/connectors': op.params.push(q('category'), q('organization_id', { type: 'string', format: 'uuid', 'x-reference': 'res.organization' })); break;
    case 'POST /api/connectors': op.body = obj({ ...comp.IrConnectorCreate?.properties, config: { type: 'object' } }, ['name', 'category', 'provider_type']); break;
    case 'GET /api/storage/documents': op.params.push(q('include_inactive', { type: 'boolean' }), q('folder', { type: 'string', format: 'uuid', 'x-reference': 'storage.folder' })); break;
    // uploads: the document gives the query of a binary body; the body's fields as the routes read them
    case 'POST /api/storage/documents':
    case 'POST /api/storage/upload':
      op.body = obj(UPLOAD_FIELDS, ['filename', 'content_b64']);
      op.binaryBody = true;
      break;
    case 'POST /api/storage/documents/{id}/versions':
      op.body = obj(VERSION_FIELDS);
      op.binaryBody = true;
      break;
    case 'PUT /api/storage/documents/{id}': op.body = obj({ name: { type: 'string' }, description: { type: 'string' }, tags: { type: 'string' }, folder: UPLOAD_FIELDS.folder, revision: { type: 'integer' } }); break;
    case 'GET /api/storage/download/{id}': op.params.push(q('version_number', { type: 'integer', minimum: 1 })); break;
    case 'GET /api/presentation/events': op.params.push(q('access_token')); break;
  }
}

/** The model a path is about: `/api/data/<key>…`, `/api/res/<name>`, `/api/connectors…`, `/api/storage/…`. */
function modelOfPath(path: string, models: Set<string>): string | null {
  const data = /^\/api\/data\/([^/{}]+)/.exec(path);
  if (data && models.has(data[1])) return data[1];
  const res = /^\/api\/res\/(\w+)/.exec(path);
  if (res && models.has(`res.${res[1]}`)) return `res.${res[1]}`;
  if (path.startsWith('/api/connectors')) return 'ir.connector';
  if (path.startsWith('/api/storage/')) return 'storage.document';
  return null;
}

export async function deriveSpec(h: FuzzHarness): Promise<FuzzSpec> {
  const doc = (await h.send({ target: 'spec', method: 'GET', url: '/api/openapi.json', headers: {}, auth: 'none' })).json as {
    paths: Record<string, Record<string, { parameters?: Param[]; requestBody?: { content?: Record<string, { schema: JsonSchema }> }; security?: unknown[]; operationId?: string; responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
    components: { schemas: Record<string, JsonSchema> };
  };
  if (!doc?.paths) throw new Error('fuzz: GET /api/openapi.json did not answer a document');
  const comp = doc.components.schemas;
  const resolve = (s: JsonSchema | undefined, seen = 0): JsonSchema | null => {
    if (!s) return null;
    if (s.$ref) return resolve(comp[s.$ref.replace('#/components/schemas/', '')], seen + 1);
    if (s.allOf) {
      const parts = s.allOf.map((p) => resolve(p, seen + 1)).filter(Boolean) as JsonSchema[];
      return { type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})), required: parts.flatMap((p) => p.required ?? []) };
    }
    return s;
  };

  const models = new Set(Object.keys(doc.paths).map((p) => /^\/api\/data\/([^/{}]+)$/.exec(p)?.[1]).filter(Boolean) as string[]);
  const records: Record<string, JsonSchema> = {};
  for (const m of models) {
    const schema = doc.paths[`/api/data/${m}/{id}`]?.get?.responses?.['200']?.content?.['application/json']?.schema;
    const r = resolve(schema);
    if (r) records[m] = r;
  }

  const vocabulary = new Set<string>();
  for (const s of Object.values(comp)) for (const k of Object.keys(s.properties ?? {})) vocabulary.add(k);
  const commands = new Set(KNOWN_COMMANDS);
  const rest: RestOp[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const security = op.security;
      const auth = Array.isArray(security) && security.length === 0 ? 'public' : Array.isArray(security) && security.some((s) => s && Object.keys(s as object).length === 0) ? 'optional' : 'user';
      if (op.operationId?.includes('.')) commands.add(op.operationId);
      const params = (op.parameters ?? []).map((p) => ({ ...p, schema: resolve(p.schema) ?? {} }));
      for (const p of params) vocabulary.add(p.name);
      const r: RestOp = {
        id: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path,
        model: modelOfPath(path, models), params,
        body: resolve(op.requestBody?.content?.['application/json']?.schema),
        binaryBody: false,
        auth,
      };
      appHints(r, comp);
      for (const k of Object.keys(r.body?.properties ?? {})) vocabulary.add(k);
      rest.push(r);
    }
  }

  const intro = await h.send({
    target: 'spec', method: 'POST', url: '/graphql', auth: 'admin',
    headers: { authorization: `Bearer ${h.fixtures.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const data = (intro.json as { data?: IntrospectionQuery })?.data;
  if (!data) throw new Error(`fuzz: GraphQL introspection failed: ${intro.status} ${intro.body.slice(0, 300)}`);
  const gql = buildClientSchema(data);
  const gqlRoots: GqlRoot[] = [];
  for (const [root, type] of [['query', gql.getQueryType()], ['mutation', gql.getMutationType()], ['subscription', gql.getSubscriptionType()]] as const) {
    for (const field of Object.values(type?.getFields() ?? {})) gqlRoots.push({ id: `gql ${root} ${field.name}`, root, name: field.name, field });
  }
  return { rest, gql, gqlRoots, models: [...models], records, vocabulary: [...vocabulary].sort(), commands: [...commands].sort() };
}
