import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serves, servesRecords, type RouteContext } from '../../kernel/app.js';
import { anonymousPrincipal } from '../../kernel/env.js';
import { createRecord, listPayload } from '../../server/routes/data.js';
import { bodyObject } from '../../server/routes/body.js';
import '../../server/types.js';
import { tenantOfState } from './services/oauth.js';

type Query = Record<string, string | undefined>;
type Body = Record<string, unknown>;

const body = bodyObject;

/**
 * The spec's /api/connectors routes. Every handler translates HTTP into one command dispatch
 * (access control, record rules and hooks happen on the bus). All need a user, except the OAuth
 * callback: the browser returns from the provider without a token, and the single-use state
 * (which also names the tenant) is the credential.
 */
export function connectorRoutes(server: FastifyInstance, { kernel }: RouteContext): void {
  const limits = { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE };
  const model = kernel.registry.model('ir.connector');
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;
  const run = (name: string, req: FastifyRequest, payload: Body) => kernel.dispatch(name, payload, req.principal);

  const records = (as: Parameters<typeof servesRecords>[1]) => servesRecords(model.key, as);

  server.get('/api/connectors', records('list'), (req) => {
    const q = req.query as Query;
    const payload = listPayload(model.key, q, limits);
    const filters: unknown[] = [];
    if (q.category) filters.push(['category', '=', q.category]);
    if (q.organization_id) filters.push(['organization_id', '=', q.organization_id]);
    if (filters.length) payload.domain = [...filters, ...((payload.domain as unknown[] | undefined) ?? [])];
    return run('fw.search', req, payload);
  });
  server.post('/api/connectors', records('create'), async (req, reply) => reply.status(201).send(await createRecord(kernel, req, model, body(req))));
  server.get('/api/connectors/types', serves('connectors.list_types', { pick: 'types' }), async (req) => {
    const category = (req.query as Query).category;
    return ((await run('connectors.list_types', req, category ? { category } : {})) as { types: unknown[] }).types;
  });
  server.get('/api/connectors/oauth/callback/:provider_type', { config: { auth: 'public', describes: { command: 'connectors.oauth_callback' } } }, (req) => {
    const q = req.query as Query;
    const principal = { ...anonymousPrincipal(tenantOfState(q.state)), client: req.principal.client };
    const payload: Body = { provider_type: (req.params as { provider_type: string }).provider_type, state: q.state };
    for (const k of ['code', 'error', 'error_description'] as const) if (q[k] !== undefined) payload[k] = q[k];
    return kernel.dispatch('connectors.oauth_callback', payload, principal);
  });
  server.get('/api/connectors/:id', serves('ir.connector.read_with_params'), (req) => run('ir.connector.read_with_params', req, { id: id(req) }));
  // partial update: fields not sent keep their value
  server.put('/api/connectors/:id', records('update'), (req) => {
    const { revision, ...values } = body(req);
    return run('fw.update', req, { model: model.key, id: id(req), values, revision });
  });
  server.delete('/api/connectors/:id', records('delete'), (req) => run('fw.delete', req, { model: model.key, id: id(req) }));
  server.post('/api/connectors/:id/test', serves('ir.connector.test_connection'), (req) => run('ir.connector.test_connection', req, { id: id(req) }));
  server.post('/api/connectors/:id/activate', serves('ir.connector.activate'), (req) => run('ir.connector.activate', req, { id: id(req) }));
  server.post('/api/connectors/:id/deactivate', serves('ir.connector.deactivate'), (req) => run('ir.connector.deactivate', req, { id: id(req) }));
  server.post('/api/connectors/:id/import-config', serves('ir.connector.import_config'), (req) => {
    const b = body(req);
    const payload: Body = { id: id(req) };
    for (const k of ['json_data', 'file_content', 'file_name', 'file_mime']) if (b[k] !== undefined) payload[k] = b[k];
    return run('ir.connector.import_config', req, payload);
  });
  server.get('/api/connectors/:id/config', serves('ir.connector.get_config'), (req) => run('ir.connector.get_config', req, { id: id(req) }));
}
