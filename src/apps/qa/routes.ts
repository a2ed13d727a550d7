import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendsFile, serves, servesRecords, type RouteContext } from '../../kernel/app.js';
import { BadRequest, NotFound } from '../../kernel/errors.js';
import { createRecord, listPayload } from '../../server/routes/data.js';
import { bodyObject } from '../../server/routes/body.js';
import '../../server/types.js';
import { qaSettings } from './settings.js';

type Query = Record<string, string | undefined>;
type Body = Record<string, unknown>;

const body = bodyObject;

/**
 * The spec's /api/qa routes plus read routes (present only when ENABLE_QA_AUTOMATION loads the
 * app). Each handler is one dispatch; access (roles admin and qa) is the models'.
 */
export function qaRoutes(server: FastifyInstance, { kernel }: RouteContext): void {
  const limits = { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE };
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;
  const run = (name: string, req: FastifyRequest, payload: Body) => kernel.dispatch(name, payload, req.principal);
  const withChildren = async (req: FastifyRequest, model: string, recordId: string, child: string, field: string) => {
    const rec = await run('fw.read_one', req, { model, id: recordId }) as Body;
    const items = await run('fw.search', req, { model: child, domain: [[field, '=', rec.id]], order: 'sequence asc', limit: limits.maxLimit }) as { items: unknown[] };
    return { ...rec, steps: items.items };
  };

  server.post('/api/qa/recordings', servesRecords('qa.recording', 'create'), async (req, reply) => reply.status(201).send(await createRecord(kernel, req, kernel.registry.model('qa.recording'), body(req))));
  server.get('/api/qa/recordings', servesRecords('qa.recording', 'list'), (req) => run('fw.search', req, listPayload('qa.recording', req.query as Query, limits)));
  server.get('/api/qa/recordings/:id', (req) => withChildren(req, 'qa.recording', id(req), 'qa.recording.step', 'recording_id'));
  // the path's id is the command's recording_id
  server.post('/api/qa/recordings/:id/step', serves('qa.recording.step.create', { status: 201, path: { id: 'recording_id' } }), async (req, reply) => reply.status(201).send(await run('qa.recording.step.create', req, { ...body(req), recording_id: id(req) })));
  server.post('/api/qa/recordings/:id/finalize', serves('qa.recording.finalize'), (req) => run('qa.recording.finalize', req, { id: id(req) }));
  server.post('/api/qa/recordings/:id/promote', serves('qa.recording.promote'), (req) => run('qa.recording.promote', req, { ...body(req), id: id(req) }));

  server.get('/api/qa/usecases', servesRecords('qa.usecase', 'list'), (req) => run('fw.search', req, listPayload('qa.usecase', req.query as Query, limits)));
  server.get('/api/qa/usecases/:key', async (req) => {
    const key = (req.params as { key: string }).key;
    const found = await run('fw.search', req, { model: 'qa.usecase', domain: [['key', '=', key]], limit: 1 }) as { items: Body[] };
    if (!found.items.length) throw new NotFound(`no use case "${key}"`, { key }, 'QA_USECASE_NOT_FOUND');
    return withChildren(req, 'qa.usecase', String(found.items[0].id), 'qa.usecase.step', 'usecase_id');
  });
  server.get('/api/qa/runs', servesRecords('qa.run', 'list'), (req) => run('fw.search', req, listPayload('qa.run', req.query as Query, limits)));
  server.get('/api/qa/runs/:id', async (req) => {
    const r = await run('fw.read_one', req, { model: 'qa.run', id: id(req) }) as Body;
    const results = await run('fw.search', req, { model: 'qa.run.result', domain: [['run_id', '=', r.id]], order: 'dbid asc', limit: limits.maxLimit }) as { items: Body[] };
    for (const res of results.items) {
      res.steps = (await run('fw.search', req, { model: 'qa.run.step', domain: [['result_id', '=', res.id]], order: 'sequence asc', limit: limits.maxLimit }) as { items: unknown[] }).items;
    }
    return { ...r, results: results.items };
  });
  server.get('/api/qa/gate', serves('qa.gate'), (req) => {
    const q = req.query as Query;
    if (!q.module) throw new BadRequest('query parameter "module" is required', { field: 'module' }, 'VALIDATION_FAILED');
    let hours: number | undefined;
    if (q.freshness_hours !== undefined) {
      hours = Number(q.freshness_hours);
      if (q.freshness_hours.trim() === '' || !Number.isFinite(hours)) throw new BadRequest('freshness_hours must be a number of hours', { field: 'freshness_hours' }, 'VALIDATION_FAILED');
    }
    return run('qa.gate', req, { module: q.module, ...(hours !== undefined ? { freshness_hours: hours } : {}) });
  });
  // a run's Playwright trace (npx playwright show-trace, or trace.playwright.dev), from the trace folder only;
  // a result names its run's trace
  const sendTrace = (reply: FastifyReply, owner: Body) => {
    const root = path.resolve(qaSettings(kernel.settings).QA_E2E_TRACE_DIR);
    const file = owner.trace_path ? path.resolve(root, String(owner.trace_path)) : null;
    if (!file || !file.startsWith(root + path.sep) || !fs.existsSync(file)) throw new NotFound('this run kept no trace', { id: owner.id }, 'QA_TRACE_NOT_FOUND');
    return reply.type('application/zip').header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(path.basename(file))}`)
      .header('cache-control', 'private, max-age=3600').send(fs.createReadStream(file));
  };
  const trace = sendsFile({ types: ['application/zip'] });
  server.get('/api/qa/runs/:id/trace', trace, async (req, reply) => sendTrace(reply, await run('fw.read_one', req, { model: 'qa.run', id: id(req) }) as Body));
  server.get('/api/qa/run-results/:id/trace', trace, async (req, reply) => sendTrace(reply, await run('fw.read_one', req, { model: 'qa.run.result', id: id(req) }) as Body));
  // the screenshot of a replayed step, served only from the trace folder
  server.get('/api/qa/run-steps/:id/screenshot', sendsFile({ types: ['image/png'] }), async (req, reply) => {
    const step = await run('fw.read_one', req, { model: 'qa.run.step', id: id(req) }) as Body;
    const root = path.resolve(qaSettings(kernel.settings).QA_E2E_TRACE_DIR);
    const file = step.screenshot_path ? path.resolve(root, String(step.screenshot_path)) : null;
    if (!file || !file.startsWith(root + path.sep) || !fs.existsSync(file)) throw new NotFound('this step has no screenshot', { id: step.id }, 'QA_SCREENSHOT_NOT_FOUND');
    return reply.type('image/png').header('cache-control', 'private, max-age=3600').send(fs.createReadStream(file));
  });
}
