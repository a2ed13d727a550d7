import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serves, servesRecords, type RouteContext } from '../../kernel/app.js';
import { BadRequest } from '../../kernel/errors.js';
import { createRecord, listPayload } from '../../server/routes/data.js';
import { bodyObject } from '../../server/routes/body.js';
import '../../server/types.js';
import { mcpRoutes } from './mcp/http.js'; // MCP_IMPORT

type Query = Record<string, string | undefined>;
type Body = Record<string, unknown>;

const body = bodyObject;

/**
 * The spec's /api/ai routes (present only when the ai app is loaded, i.e. AI_ENABLED). Each
 * handler translates HTTP into one command dispatch; bodies of confirm (`token`,
 * `approval_case_id`) and undo (`provenance_id`) are our choice (docs/ai.md).
 */
export function aiRoutes(server: FastifyInstance, ctx: RouteContext): void {
  const { kernel } = ctx;
  const limits = { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE };
  const conversations = kernel.registry.model('ai.conversation');
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;
  const run = (name: string, req: FastifyRequest, payload: Body) => kernel.dispatch(name, payload, req.principal);

  server.get('/api/ai/tools', serves('ai.catalogue', { pick: 'tools' }), async (req) => {
    const q = req.query as Query;
    return ((await run('ai.catalogue', req, q.skill_pack ? { skill_pack: q.skill_pack } : {})) as { tools: unknown[] }).tools;
  });
  server.get('/api/ai/usage', serves('ai.usage'), (req) => {
    const q = req.query as Query;
    if (!q.day) throw new BadRequest('query parameter "day" (YYYY-MM-DD) is required', { field: 'day' }, 'VALIDATION_FAILED');
    return run('ai.usage', req, { day: q.day, ...(q.tenant !== undefined ? { tenant: q.tenant } : {}) });
  });
  server.post('/api/ai/invoke', serves('ai.invoke'), (req) => run('ai.invoke', req, body(req)));

  server.get('/api/ai/conversations', servesRecords(conversations.key, 'list'), (req) => run('fw.search', req, listPayload(conversations.key, req.query as Query, limits)));
  server.post('/api/ai/conversations', servesRecords(conversations.key, 'create'), async (req, reply) => reply.status(201).send(await createRecord(kernel, req, conversations, body(req))));
  server.get('/api/ai/conversations/:id', async (req) => {
    const conv = await run('fw.read_one', req, { model: conversations.key, id: id(req) }) as Body;
    const messages = await run('fw.search', req, { model: 'ai.message', domain: [['conversation_id', '=', conv.id]], order: 'sequence asc', limit: limits.maxLimit }) as { items: unknown[] };
    return { ...conv, messages: messages.items };
  });
  server.patch('/api/ai/conversations/:id', servesRecords(conversations.key, 'update'), (req) => {
    const { revision, ...values } = body(req);
    return run('fw.update', req, { model: conversations.key, id: id(req), values, revision });
  });
  server.delete('/api/ai/conversations/:id', servesRecords(conversations.key, 'delete'), (req) => run('fw.delete', req, { model: conversations.key, id: id(req) }));
  server.get('/api/ai/conversations/:id/messages', servesRecords('ai.message', 'list'), async (req) => {
    await run('fw.read_one', req, { model: conversations.key, id: id(req) });
    const payload = listPayload('ai.message', req.query as Query, limits);
    payload.domain = [['conversation_id', '=', id(req)], ...((payload.domain as unknown[] | undefined) ?? [])];
    payload.order ??= 'sequence asc';
    return run('fw.search', req, payload);
  });
  server.post('/api/ai/conversations/:id/messages', serves('ai.conversation.send_message'), (req) => run('ai.conversation.send_message', req, { ...body(req), id: id(req) }));
  server.post('/api/ai/conversations/:id/confirm', serves('ai.conversation.confirm'), (req) => run('ai.conversation.confirm', req, { ...body(req), id: id(req) }));
  server.post('/api/ai/conversations/:id/undo', serves('ai.conversation.undo'), (req) => run('ai.conversation.undo', req, { ...body(req), id: id(req) }));
  server.post('/api/ai/conversations/:id/close', serves('ai.conversation.close'), (req) => run('ai.conversation.close', req, { id: id(req) }));
  server.post('/api/ai/conversations/:id/cancel', serves('ai.conversation.cancel'), (req) => run('ai.conversation.cancel', req, { id: id(req) }));
  mcpRoutes(server, ctx); // MCP_ROUTES
}
