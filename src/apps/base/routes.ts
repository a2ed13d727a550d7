import type { FastifyInstance } from 'fastify';
import { servesRecords, type RouteContext } from '../../kernel/app.js';
import { createRecord, listPayload } from '../../server/routes/data.js';
import '../../server/types.js';

/** The spec's /api/res/* paths: the generic list and create of the shared resources. */
export function baseRoutes(server: FastifyInstance, { kernel }: RouteContext): void {
  const limits = { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE };
  for (const name of ['country', 'organization', 'user']) {
    const model = kernel.registry.model(`res.${name}`);
    server.get(`/api/res/${name}`, servesRecords(model.key, 'list'), (req) =>
      kernel.dispatch('fw.search', listPayload(model.key, req.query as Record<string, string>, limits), req.principal));
    if (name === 'country') continue;
    server.post(`/api/res/${name}`, servesRecords(model.key, 'create'), async (req, reply) =>
      reply.status(201).send(await createRecord(kernel, req, model, (req.body ?? {}) as Record<string, unknown>)));
  }
}
