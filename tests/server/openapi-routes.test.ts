/**
 * App routes in the OpenAPI document (src/server/openapi-routes.ts): a route that says what it
 * serves (`serves(command)`, `servesRecords(model, as)`) is described with the body, query and
 * answer the registry has for them; a name the registry lacks stops the boot. Against a server with
 * the foundation apps whose routes say so (connectors, storage, presentation).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootError } from '../../src/kernel/errors.ts';
import { checkDescription, describedOperation } from '../../src/server/openapi-routes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let doc: any;
beforeAll(async () => {
  ts = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors,storage' });
  const res = await ts.request('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => { await ts?.close(); });

describe('OpenAPI of app routes', () => {
  it('app routes that say what they serve (config.describes) carry the body, query and answer of their command or records', () => {
    const ops = doc.paths;
    const schemaOf = (op: any, status = 200) => op.responses[status].content['application/json'].schema;
    // records: the same components as /api/data/ir.connector
    expect(schemaOf(ops['/api/connectors'].get).properties.items.items).toEqual({ $ref: '#/components/schemas/IrConnector' });
    expect(ops['/api/connectors'].get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['filter', 'order', 'limit', 'offset']));
    expect(ops['/api/connectors'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/IrConnectorCreate' });
    expect(schemaOf(ops['/api/connectors'].post, 201)).toEqual({ $ref: '#/components/schemas/IrConnector' });
    expect(ops['/api/connectors/{id}'].put.requestBody.content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/IrConnectorUpdate' });
    // a command: its output is the answer, as a component; the path's id is not a body field
    const test = ops['/api/connectors/{id}/test'].post;
    // (declared nullable: a REST answer may be null)
    expect(schemaOf(test)).toEqual({ oneOf: [{ $ref: '#/components/schemas/ConnectorTestResult' }, { type: 'null' }] });
    expect(doc.components.schemas.ConnectorTestResult).toMatchObject({ type: 'object', required: ['success'], properties: { success: { type: 'boolean' }, message: { type: ['string', 'null'] } } });
    expect(test.requestBody).toBeUndefined();
    expect(test.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path' })]);
    // a GET: the command's input is the query; a public route says so
    const callback = ops['/api/connectors/oauth/callback/{provider_type}'].get;
    expect(callback.security).toEqual([]);
    expect(callback.parameters.map((p: any) => [p.name, p.in])).toEqual(expect.arrayContaining([['provider_type', 'path'], ['state', 'query'], ['code', 'query']]));
    expect(callback.parameters.find((p: any) => p.name === 'state').required).toBe(true);
    // `pick`: the route answers one field of the output
    expect(schemaOf(ops['/api/connectors/types'].get)).toEqual({ type: 'array', items: { $ref: '#/components/schemas/ConnectorType' } });
    expect(ops['/api/connectors/types'].get.parameters.map((p: any) => p.name)).toEqual(['category']);
    // a body from the command's input
    const importBody = ops['/api/connectors/{id}/import-config'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(importBody.properties)).toEqual(expect.arrayContaining(['json_data', 'file_content']));
    expect(importBody.properties).not.toHaveProperty('id');
    // an upload: a JSON body (the command's input) or the file's bytes (the stream command's input in the query)
    const upload = ops['/api/storage/documents'].post;
    expect(Object.keys(upload.requestBody.content).sort()).toEqual(['application/json', 'application/octet-stream']);
    expect(upload.requestBody.content['application/json'].schema.properties).toHaveProperty('content_b64');
    expect(upload.requestBody.content['application/octet-stream'].schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(upload.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['filename', 'name', 'folder', 'owner_model']));
    expect(schemaOf(upload, 201)).toEqual({ $ref: '#/components/schemas/StorageDocument' });
    const version = ops['/api/storage/documents/{id}/versions'].post;
    expect(version.parameters.map((p: any) => [p.name, p.in])).toEqual([['id', 'path'], ['filename', 'query'], ['change_note', 'query']]);
    expect(version.requestBody.content['application/json'].schema.properties).not.toHaveProperty('id');
    // a route that takes some of the record's fields, a list without list parameters, a command
    // whose input field the path fills under another name
    const put = ops['/api/storage/documents/{id}'].put;
    expect(Object.keys(put.requestBody.content['application/json'].schema.properties).sort()).toEqual(['description', 'folder', 'name', 'revision', 'tags']);
    expect(put.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    const versions = ops['/api/storage/documents/{id}/versions'].get;
    expect(schemaOf(versions).properties.items.items).toEqual({ $ref: '#/components/schemas/StorageDocumentVersion' });
    expect(versions.parameters.map((p: any) => p.name)).toEqual(['id']);
  });

  it('the event stream (sendsEvents) is described as it answers: text/event-stream with its event names, Last-Event-ID, the token as a header or a parameter', async () => {
    const op = doc.paths['/api/presentation/events'].get;
    expect(Object.keys(op.responses[200].content)).toEqual(['text/event-stream']);
    expect(op.responses[200].description).toContain('`web.client.reload`');
    expect(op.parameters.map((p: any) => [p.name, p.in])).toEqual([['organization', 'query'], ['Last-Event-ID', 'header']]);
    expect(op.security).toEqual([{ bearer: [] }, { accessToken: [] }]);
    expect(doc.components.securitySchemes.accessToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'access_token' });
    // the route: the token as the parameter the scheme names opens the stream; none is a 401
    const token = (await ts.loginAdmin()).access_token;
    await ts.server.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(ts.server.server.address() as AddressInfo).port}`;
    const ctl = new AbortController();
    const res = await fetch(`${base}/api/presentation/events?${doc.components.securitySchemes.accessToken.name}=${encodeURIComponent(token)}`, { signal: ctl.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const first = await res.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('retry:');
    ctl.abort();
    const none = await ts.request('GET', '/api/presentation/events');
    expect([none.status, Object.keys(op.responses)]).toEqual([401, expect.arrayContaining(['401'])]);
  });

  it('an event name that is blank or would break its line, an Accept that is no content type, or a 405 naming its own method stops the boot (ROUTE_DESCRIPTION_INVALID)', () => {
    const registry = ts.kernel.registry;
    for (const events of [[], ['a\nb'], ['x y'], ['x:y']]) {
      expect(() => checkDescription(registry, 'GET', '/x', { events: { events } }), JSON.stringify(events)).toThrow(expect.objectContaining({ code: 'ROUTE_DESCRIPTION_INVALID' }));
    }
    expect(() => checkDescription(registry, 'GET', '/x', { events: { events: ['web.client.reload', 'x.changed'] } })).not.toThrow();
    expect(() => checkDescription(registry, 'POST', '/rpc', { jsonRpc: { accept: ['json'] } })).toThrow(expect.objectContaining({ code: 'ROUTE_DESCRIPTION_INVALID' }));
    expect(() => checkDescription(registry, 'POST', '/rpc', { jsonRpc: { allow: 'POST' } })).toThrow(/405 naming POST/);
    expect(() => checkDescription(registry, 'GET', '/rpc', { jsonRpc: { allow: 'POST' } })).not.toThrow();
  });

  it('the body a route describes is the one it takes: the document PUT refuses a field its description leaves out, and takes one it names', async () => {
    const token = (await ts.loginAdmin()).access_token;
    const up = await ts.request('POST', '/api/storage/documents?filename=put.txt', { token, body: 'put', headers: { 'content-type': 'text/plain' } });
    expect(up.status).toBe(201);
    const described = Object.keys(doc.paths['/api/storage/documents/{id}'].put.requestBody.content['application/json'].schema.properties);
    expect(described).not.toContain('filename');
    const refused = await ts.request('PUT', `/api/storage/documents/${up.body.id}`, { token, body: { filename: 'other.txt' } });
    expect([refused.status, refused.body.error.code]).toEqual([422, 'READONLY_FIELD']);
    const taken = await ts.request('PUT', `/api/storage/documents/${up.body.id}`, { token, body: { description: 'described', revision: up.body.revision } });
    expect(taken.status).toBe(200);
    expect(taken.body.description).toBe('described');
    const stale = await ts.request('PUT', `/api/storage/documents/${up.body.id}`, { token, body: { description: 'again', revision: up.body.revision } });
    expect([stale.status, stale.body.error.code]).toEqual([409, 'STALE_REVISION']);
  });

  it('a download (sendsFile) is described with its bytes, and with ranges its 206, 304 and 416, as the route answers them', async () => {
    const token = (await ts.loginAdmin()).access_token;
    const op = doc.paths['/api/storage/documents/{id}/download'].get;
    expect(op.responses[200].content).toEqual({ '*/*': { schema: { type: 'string', format: 'binary' } } });
    expect(op.parameters.map((p: any) => [p.name, p.in])).toEqual([['id', 'path'], ['Range', 'header'], ['If-None-Match', 'header']]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '416', '403', '404']));
    expect(doc.paths['/api/storage/download/{id}'].get.parameters.map((p: any) => p.name)).toContain('version_number');
    // each described answer, from the route itself
    const up = await ts.request('POST', '/api/storage/documents?filename=ten.txt', { token, body: '0123456789', headers: { 'content-type': 'text/plain' } });
    expect(up.status).toBe(201);
    const url = `/api/storage/documents/${up.body.id}/download`;
    const whole = await ts.request('GET', url, { token });
    expect(whole.status).toBe(200);
    for (const h of Object.keys(op.responses[200].headers)) expect(whole.headers, h).toHaveProperty(h.toLowerCase());
    const part = await ts.request('GET', url, { token, headers: { range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(part.body).toBe(234);
    for (const h of Object.keys(op.responses[206].headers)) expect(part.headers, h).toHaveProperty(h.toLowerCase());
    expect((await ts.request('GET', url, { token, headers: { 'if-none-match': String(whole.headers.etag) } })).status).toBe(304);
    const outside = await ts.request('GET', url, { token, headers: { range: 'bytes=50-60' } });
    expect(outside.status).toBe(416);
    expect(outside.body.error.code).toBe('RANGE_NOT_SATISFIABLE');
    // a file of a known type says it, and without ranges only 200 (the QA app's screenshots)
    const png = describedOperation(ts.kernel.registry, 'GET', { file: { types: ['image/png'] } }, ['id'], { defaultLimit: 50, maxLimit: 500 }, {}) as any;
    expect(Object.keys(png.responses)).toEqual(['200']);
    expect(Object.keys(png.responses[200].content)).toEqual(['image/png']);
  });

  it('a path filling an input field the command lacks, or a field the model has not stored, stops the boot (ROUTE_DESCRIPTION_INVALID)', () => {
    const registry = ts.kernel.registry;
    expect(() => checkDescription(registry, 'POST', '/x/:id', { command: 'storage.document.add_version', path: { id: 'nope' } })).toThrow(/input field nope/);
    expect(() => checkDescription(registry, 'PUT', '/x/:id', { records: 'storage.document', as: 'update', fields: ['name', 'nope'] })).toThrow(/field nope/);
    expect(() => checkDescription(registry, 'PUT', '/x/:id', { records: 'storage.document', as: 'update', fields: ['name'] })).not.toThrow();
    // the field the path fills is not a body field (as /api/qa/recordings/:id/step's recording_id)
    const op = describedOperation(registry, 'POST', { command: 'storage.document.add_version', path: { doc: 'id' } }, ['doc'], { defaultLimit: 50, maxLimit: 500 }, {}) as any;
    const props = Object.keys(op.requestBody.content['application/json'].schema.properties);
    expect(props).toContain('content_b64');
    expect(props).not.toContain('id');
  });

  it('a download describing itself with something that is not a content type stops the boot (ROUTE_DESCRIPTION_INVALID)', () => {
    expect(() => checkDescription(ts.kernel.registry, 'GET', '/x/:id', { file: { types: ['png'] } })).toThrow(BootError);
    expect(() => checkDescription(ts.kernel.registry, 'GET', '/x/:id', { file: { types: ['image/png', 'application/vnd.ms-excel'] } })).not.toThrow();
  });

  it('export and import are described as they answer: the file types, the parameters, the inspect and import reports (src/server/transfer/openapi.ts)', async () => {
    const ops = doc.paths;
    const schemas = doc.components.schemas;
    const token = (await ts.loginAdmin()).access_token;
    /** the answer has every required member of the schema and none it does not name */
    const fits = (value: Record<string, unknown>, schema: { required: string[]; properties: Record<string, unknown> }) => {
      expect(Object.keys(value).sort()).toEqual(expect.arrayContaining([...schema.required].sort()));
      for (const k of Object.keys(value)) expect(schema.properties, `undescribed member ${k}`).toHaveProperty(k);
    };
    const exp = ops['/api/export/{model}'].get;
    expect(exp.parameters[0]).toMatchObject({ name: 'model', in: 'path', schema: { enum: expect.arrayContaining(['res.country', 'ir.connector']) } });
    expect(exp.parameters.map((p: any) => p.name)).toEqual(['model', 'format', 'fields', 'filter', 'ids', 'order']);
    expect(Object.keys(exp.responses[200].content).sort()).toEqual(['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv']);
    expect(exp.responses[403]).toBeDefined(); // the error envelope, as every route
    // the route answers one of the described types, with the described headers
    for (const format of ['csv', 'xlsx']) {
      const res = await ts.request('GET', `/api/export/res.country?format=${format}&fields=name,code&filter=${encodeURIComponent('[["code","=","FR"]]')}`, { token });
      expect(res.status).toBe(200);
      expect(Object.keys(exp.responses[200].content)).toContain(String(res.headers['content-type']).split(';')[0]);
      for (const h of Object.keys(exp.responses[200].headers)) expect(res.headers, h).toHaveProperty(h.toLowerCase());
    }
    expect(Object.keys(ops['/api/export/{model}'].post.requestBody.content['application/json'].schema.properties)).toEqual(['format', 'fields', 'filter', 'where', 'ids', 'order']);
    expect(ops['/api/export/download'].get.security).toEqual([]);

    const fieldsAnswer = await ts.request('GET', '/api/export/res.country/fields', { token });
    for (const f of fieldsAnswer.body.fields) fits(f, schemas.TransferField);

    // inspect and import take the file's bytes; their answers fit their schemas
    const file = 'name,code\nOpenAPI Land,QQ\n';
    const insp = ops['/api/import/{model}/inspect'].post;
    expect(insp.requestBody.content['text/csv'].schema).toEqual({ type: 'string', format: 'binary' });
    const inspected = await ts.request('POST', '/api/import/res.country/inspect', { token, body: file, headers: { 'content-type': 'text/csv' } });
    expect(inspected.status).toBe(200);
    fits(inspected.body, insp.responses[200].content['application/json'].schema);
    const imp = ops['/api/import/{model}'].post;
    expect(imp.parameters.map((p: any) => p.name)).toEqual(['model', 'dry_run', 'mapping', 'key']);
    const report = await ts.request('POST', '/api/import/res.country?dry_run=true', { token, body: file, headers: { 'content-type': 'text/csv' } });
    expect(report.status).toBe(200);
    fits(report.body, imp.responses[200].content['application/json'].schema);
    // a refused row: its error fits ImportRowError (a second QQ: code is unique)
    const refused = await ts.request('POST', '/api/import/res.country?dry_run=true', { token, body: 'name,code\nNo code,\n', headers: { 'content-type': 'text/csv' } });
    expect(refused.status).toBe(200);
    expect(refused.body.errors.length).toBeGreaterThan(0);
    for (const e of refused.body.errors) fits(e, schemas.ImportRowError);
    expect(imp.responses[422].description).toMatch(/IMPORT_FAILED/);
  });

  it('a route describing itself with a command, an output field or a model the registry lacks stops the boot (ROUTE_DESCRIPTION_INVALID), naming the route', () => {
    const reg = ts.kernel.registry;
    for (const d of [{ command: 'ir.connector.teleport' }, { command: 'connectors.list_types', pick: 'kinds' }, { command: 'ir.connector.activate', pick: 'x' }, { records: 'crm.nothing', as: 'list' as const }, { command: 'storage.document.upload', stream: 'storage.document.upload' }]) {
      const err = (() => { try { checkDescription(reg, 'GET', '/api/x/:id', d); } catch (e) { return e; } return null; })();
      expect(err, JSON.stringify(d)).toBeInstanceOf(BootError);
      expect(err).toMatchObject({ code: 'ROUTE_DESCRIPTION_INVALID' });
      expect((err as Error).message).toContain('GET /api/x/:id');
    }
    expect(() => checkDescription(reg, 'GET', '/api/x', { command: 'connectors.list_types', pick: 'types' })).not.toThrow();
  });


  it('every $ref of the document resolves, output types included', () => {
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (k === '$ref' ? refs.add(x as string) : walk(x));
    };
    walk(doc);
    expect([...refs].filter((r) => r.startsWith('#/components/schemas/Connector')).length).toBeGreaterThan(1);
    for (const r of refs) expect(doc.components.schemas[r.split('/').at(-1)!], r).toBeDefined();
  });

  it('every `type` is a JSON type name or a list of them: a nullable field of no JSON type (json) takes any value, not `[null, "null"]`', () => {
    const bad: string[] = [];
    // `names`: the object maps names to schemas (properties, components), so its keys are no keywords
    const walk = (v: unknown, at: string, names = false): void => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (!names && k === 'type' && !(typeof x === 'string' || (Array.isArray(x) && x.every((t) => typeof t === 'string')))) bad.push(`${at}/${k}`);
          walk(x, `${at}/${k}`, !names && (k === 'properties' || k === 'schemas'));
        }
      }
    };
    walk(doc, '#');
    expect(bad).toEqual([]);
    expect(doc.components.schemas.IrConnector.properties).toBeDefined();
  });
});
