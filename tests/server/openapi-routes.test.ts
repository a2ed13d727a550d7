/**
 * App routes in the OpenAPI document (src/server/openapi-routes.ts): a route that says what it
 * serves (`serves(command)`, `servesRecords(model, as)`) is described with the body, query and
 * answer the registry has for them; a name the registry lacks stops the boot. Against a server with
 * the foundation apps whose routes say so (connectors, storage, presentation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootError } from '../../src/kernel/errors.ts';
import { checkDescription } from '../../src/server/openapi-routes.ts';
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
    // what says nothing keeps the generic description
    expect(ops['/api/storage/documents/{id}/download'].get.responses[200]).toEqual({ description: 'OK', content: { 'application/json': { schema: {} } } });
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
