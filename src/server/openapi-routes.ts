/**
 * The operations of app routes that declare what they serve (`config.describes`, src/server/types.ts):
 * their body, query and answer, from the registry. A route that declares nothing keeps the
 * generic description (path parameters, auth level, the error envelope).
 */
import { BootError } from '../kernel/errors.js';
import type { Registry, ResolvedCommand } from '../kernel/registry/registry.js';
import { answerSchema, outputSchema } from './openapi-output.js';
import { body, fieldSchema, json, nullable, recordOperations, ref, revisionMember, writeSchema, type Json } from './openapi-schemas.js';
import { requiredOnCreate } from '../kernel/registry/model.js';
import type { EventStream, FileAnswer, JsonRpcEndpoint, RouteDescription } from '../kernel/app.js';

type Limits = { defaultLimit: number; maxLimit: number };

const CONTENT_TYPE = /^[\w.+-]+\/[\w.+*-]+$/;
const EVENT_NAME = /^[^\s:]+$/;

/** An unknown command or model in a route's description stops the boot, naming the route. */
export function checkDescription(registry: Registry, method: string, url: string, d: RouteDescription): void {
  const what = `route ${method} ${url} describes itself with`;
  const badType = (types: readonly string[] | undefined) => {
    const bad = (types ?? []).find((t) => !CONTENT_TYPE.test(t));
    if (bad !== undefined) throw new BootError(`${what} the content type "${bad}", which is not a type/subtype`, { route: url, type: bad }, 'ROUTE_DESCRIPTION_INVALID');
  };
  if ('file' in d) {
    badType(d.file.types);
  } else if ('events' in d) {
    // an event name is written on an `event:` line: a line break or a blank name would break the stream
    const bad = d.events.events.length ? d.events.events.find((e) => !EVENT_NAME.test(e)) : '';
    if (bad !== undefined) throw new BootError(`${what} the event name "${bad}", which is not one name without spaces or line breaks (at least one is needed)`, { route: url, event: bad }, 'ROUTE_DESCRIPTION_INVALID');
  } else if ('jsonRpc' in d) {
    badType(d.jsonRpc.accept);
    if (d.jsonRpc.allow === method) throw new BootError(`${what} a 405 naming ${method} itself as the method allowed`, { route: url, allow: method }, 'ROUTE_DESCRIPTION_INVALID');
  } else if ('command' in d) {
    const c = registry.commands.get(d.command);
    if (!c) throw new BootError(`${what} command ${d.command}, which no active app declares`, { route: url, command: d.command }, 'ROUTE_DESCRIPTION_INVALID');
    if (d.pick && !(c.output?.kind === 'object' && d.pick in c.output.fields)) {
      throw new BootError(`${what} the field ${d.pick} of ${d.command}'s output, which has no such field`, { route: url, command: d.command, pick: d.pick }, 'ROUTE_DESCRIPTION_INVALID');
    }
    if (d.stream && !registry.commands.get(d.stream)?.file_upload) {
      throw new BootError(`${what} ${d.stream} for raw bodies, which is not a file_upload command`, { route: url, command: d.stream }, 'ROUTE_DESCRIPTION_INVALID');
    }
    for (const field of Object.values(d.path ?? {})) {
      if (!c.inputFields?.has(field)) throw new BootError(`${what} the path filling ${d.command}'s input field ${field}, which it does not have`, { route: url, command: d.command, field }, 'ROUTE_DESCRIPTION_INVALID');
    }
  } else {
    const m = registry.models.get(d.records);
    if (!m) throw new BootError(`${what} the records of ${d.records}, a model no active app declares`, { route: url, model: d.records }, 'ROUTE_DESCRIPTION_INVALID');
    const unknown = (d.fields ?? []).find((f) => !m.fields.get(f)?.stored);
    if (unknown !== undefined) throw new BootError(`${what} the field ${unknown} of ${d.records}, which it has not stored`, { route: url, model: d.records, field: unknown }, 'ROUTE_DESCRIPTION_INVALID');
  }
}

/**
 * What a described route adds to its generic operation: `requestBody`, query `parameters` and the
 * success response. `pathParams` are the route's (they are not body fields). Named output types
 * are added to `components`.
 */
export function describedOperation(registry: Registry, method: string, d: RouteDescription, pathParams: readonly string[], limits: Limits, components: Json): Json {
  if ('records' in d) return recordsOperation(registry, d, limits);
  if ('file' in d) return fileOperation(d.file);
  if ('events' in d) return eventsOperation(d.events);
  if ('jsonRpc' in d) return jsonRpcOperation(d.jsonRpc, components);
  const c = registry.command(d.command);
  const fromPath = new Set([...pathParams, ...Object.values(d.path ?? {})]);
  const inputs = [...(c.inputFields?.values() ?? [])].filter((f) => !fromPath.has(f.name));
  const out: Json = {};
  if (method === 'GET') {
    if (inputs.length) out.parameters = inputs.map((f) => ({ name: f.name, in: 'query', ...(requiredOnCreate(f) ? { required: true } : {}), schema: nullable(fieldSchema(f), f) }));
  } else if (c.inputFields) {
    if (inputs.length) out.requestBody = body(writeSchema(inputs, true));
  } else if (!c.record) {
    // a payload the command does not declare (a record command without input takes its id only)
    out.requestBody = body({ type: 'object' });
  }
  if (d.stream) {
    // the same route takes the file's bytes as they are, the stream command's input in the query
    const s = registry.command(d.stream);
    const asJson = (out.requestBody as { content?: Json } | undefined)?.content ?? {};
    out.requestBody = { required: true, content: { ...asJson, 'application/octet-stream': { schema: { type: 'string', format: 'binary', description: `the file's bytes (any Content-Type but JSON): ${s.description ?? s.name}` } } } };
    const raw = (name: string, schema: Json) => ({ name, in: 'query', description: 'with a binary body', schema });
    out.parameters = [raw('filename', { type: 'string' }), ...[...(s.inputFields?.values() ?? [])].filter((f) => !fromPath.has(f.name)).map((f) => raw(f.name, fieldSchema(f)))];
  }
  const status = d.status ?? 200;
  out.responses = { [status]: json(commandAnswer(registry, c, components, d.pick), status === 201 ? 'Created' : 'OK') };
  if (c.description) out.summary = c.description;
  return out;
}

/**
 * The schema of what a command answers over REST: its model's record (`returns: 'record'`), its
 * declared output (or the field `pick` of it), else any JSON. Named output types go to `components`.
 */
export function commandAnswer(registry: Registry, c: ResolvedCommand, components: Json, pick?: string): Json {
  const typeName = (model: string) => registry.model(model).names.typeName;
  if (c.returns === 'record' && c.model) return ref(typeName(c.model));
  if (pick && c.output?.kind === 'object') return outputSchema(c.output.fields[pick]!, components, typeName);
  return answerSchema(c.output, components, typeName) ?? {};
}

/** A model's records as `/api/data/{key}` serves them, less what the route does not take. */
function recordsOperation(registry: Registry, d: Extract<RouteDescription, { records: string }>, limits: Limits): Json {
  const m = registry.model(d.records);
  const op = recordOperations(m.names.typeName, limits)[d.as];
  if (d.as === 'list' && d.paged === false) return { responses: op.responses };
  if (d.as === 'update' && d.fields) {
    const only = writeSchema(d.fields.map((f) => m.fields.get(f)!), false);
    return { ...op, requestBody: body({ ...only, properties: { ...(only.properties as Json), ...revisionMember(false) } }) };
  }
  return op;
}

/** The query parameters a download or an event stream names, with their JSON types. */
const queryParameters = (query: Readonly<Record<string, 'string' | 'integer'>> = {}): Json[] => Object.entries(query).map(([name, type]) => ({ name, in: 'query', schema: { type } }));

/** A download: the file's bytes in each of its types, and with `ranges` the partial and revalidated answers. */
function fileOperation(f: FileAnswer): Json {
  const bytes = { schema: { type: 'string', format: 'binary' } };
  const content = Object.fromEntries((f.types?.length ? f.types : ['*/*']).map((t) => [t, bytes]));
  const disposition = { 'Content-Disposition': { schema: { type: 'string' }, description: 'attachment, with the file\'s name' } };
  const parameters = queryParameters(f.query);
  if (!f.ranges) return { ...(parameters.length ? { parameters } : {}), responses: { 200: { description: 'The file', headers: disposition, content } } };
  const etag = { ETag: { schema: { type: 'string' } }, 'Accept-Ranges': { schema: { const: 'bytes' } } };
  return {
    parameters: [
      ...parameters,
      { name: 'Range', in: 'header', description: 'one byte range (`bytes=0-1023`, `bytes=-500`)', schema: { type: 'string' } },
      { name: 'If-None-Match', in: 'header', description: 'the ETag of a copy held: 304 while it is current', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'The file', headers: { ...disposition, ...etag }, content },
      206: { description: 'The requested range', headers: { ...disposition, ...etag, 'Content-Range': { schema: { type: 'string' }, description: 'bytes <start>-<end>/<size>' } }, content },
      304: { description: 'The copy held is current', headers: { ETag: etag.ETag } },
      416: json(ref('Error'), 'The range is outside the file (RANGE_NOT_SATISFIABLE)'),
    },
  };
}

/** An event stream: `text/event-stream` (OpenAPI 3.1 has no schema for its events: they are named in the description). */
function eventsOperation(e: EventStream): Json {
  const parameters = [
    ...queryParameters(e.query),
    ...(e.replay ? [{ name: 'Last-Event-ID', in: 'header', description: 'the id of the last event received: the events sent since then come first (those the server still keeps)', schema: { type: 'string' } }] : []),
  ];
  const names = e.events.map((n) => `\`${n}\``).join(', ');
  return {
    ...(e.tokenInQuery ? { security: [{ bearer: [] }, { accessToken: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    responses: {
      200: {
        description: `Server-sent events until the client or its session ends: ${names}, each with an \`id\` and JSON \`data\`; comment lines keep the connection open`,
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
    },
  };
}

/** The JSON-RPC 2.0 shapes, as components (named once however many endpoints use them). */
function jsonRpcSchemas(components: Json): void {
  const id = { type: ['string', 'integer', 'null'] };
  components.JsonRpcMessage ??= {
    type: 'object', required: ['jsonrpc', 'method'],
    description: 'A request (with `id`) or a notification (without)',
    properties: { jsonrpc: { const: '2.0' }, method: { type: 'string' }, params: { type: ['object', 'array'] }, id },
  };
  components.JsonRpcError ??= {
    type: 'object', required: ['jsonrpc', 'error', 'id'],
    properties: { jsonrpc: { const: '2.0' }, error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } }, id },
  };
  components.JsonRpcResponse ??= {
    oneOf: [
      { type: 'object', required: ['jsonrpc', 'result', 'id'], properties: { jsonrpc: { const: '2.0' }, result: {}, id } },
      ref('JsonRpcError'),
    ],
  };
}

/** A JSON-RPC endpoint: one message or a batch in, the responses out; refusals are JSON-RPC errors. */
function jsonRpcOperation(r: JsonRpcEndpoint, components: Json): Json {
  jsonRpcSchemas(components);
  const rpcError = (description: string) => json(ref('JsonRpcError'), description);
  if (r.allow) {
    return { responses: { 405: { ...rpcError(`Not served: this endpoint takes ${r.allow}`), headers: { Allow: { schema: { const: r.allow } } } } } };
  }
  const oneOrBatch = (item: Json) => ({ oneOf: [item, { type: 'array', items: item, minItems: 1 }] });
  return {
    // OpenAPI ignores a header parameter named Accept: the requirement is said in words, and by the 406
    ...(r.accept?.length ? { description: `JSON-RPC 2.0. The request's \`Accept\` must name ${r.accept.join(' and ')} (else 406).` } : { description: 'JSON-RPC 2.0.' }),
    requestBody: { required: true, content: { 'application/json': { schema: oneOrBatch(ref('JsonRpcMessage')) } } },
    responses: {
      200: json(oneOrBatch(ref('JsonRpcResponse')), 'The response (a batch of responses for a batch)'),
      202: { description: 'Only notifications or responses were sent: no body' },
      // the body is parsed before the endpoint sees it: malformed JSON is the server's own refusal
      400: json({ oneOf: [ref('JsonRpcError'), ref('Error')] }, 'JSON that is not a JSON-RPC message (a JSON-RPC error), or malformed JSON (INVALID_JSON)'),
      ...(r.accept?.length ? { 406: rpcError(`Accept does not name ${r.accept.join(' and ')}`) } : {}),
      413: json(ref('Error'), 'The body is over the server\'s limit (PAYLOAD_TOO_LARGE)'),
      415: rpcError('Content-Type is not application/json'),
    },
  };
}
