import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canAccess } from '../../kernel/access.js';
import { AccessDenied, AuthenticationRequired, BadRequest, TokenError, ValidationError } from '../../kernel/errors.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';
import { authenticatorOf } from '../authenticate.js';
import { contentDisposition } from '../content-disposition.js';
import { checkRequestData } from '../input.js';
import { exportRows } from '../transfer/export.js';
import { exportableFields, importableFields } from '../transfer/fields.js';
import { CONTENT_TYPES, csvWriter, readTable, xlsxWriter } from '../transfer/formats.js';
import { defaultKey, runImport, sampleRows, suggestMapping } from '../transfer/import.js';
import { exportPlan } from '../transfer/params.js';
import '../types.js';

/**
 * Export and import of any model's records as CSV or XLSX (docs/api.md, "Export and import").
 * Export streams: a page of records is read through `fw.search` as the caller and written out
 * before the next is read. Import takes the whole file as the request body (at most
 * IMPORT_MAX_BYTES), reads it, and writes through `fw.import_batch` on the command bus.
 */
type Rec = Record<string, unknown>;
type Query = Record<string, string | undefined>;

function jsonParam(q: Query, name: string, code: string): unknown {
  const raw = q[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    checkRequestData(v, `query parameter ${name}`, code);
    return v;
  } catch (err) {
    if (err instanceof BadRequest) throw err;
    throw new BadRequest(`query parameter ${name} must be JSON`, { parameter: name }, code);
  }
}

async function sendExport(kernel: KernelHandle, req: FastifyRequest, reply: FastifyReply, model: ResolvedModel, o: Rec, principal = req.principal) {
  const { format, columns, domain, order } = exportPlan(kernel.registry, model, principal, o);
  // counted first: access, the filter and the order are checked before any byte is sent, so a
  // refusal is an ordinary error answer (the order by an empty read of one row)
  const { count } = await kernel.dispatch<{ count: number }>('fw.count', { model: model.key, domain }, principal);
  await kernel.dispatch('fw.search', { model: model.key, domain, order, limit: 1, fields: ['record_uuid'] }, principal);
  const out = new PassThrough();
  const header = columns.map((c) => ({ header: c.label, datetime: c.type === 'datetime' }));
  const writer = format === 'csv' ? await csvWriter(out, header) : xlsxWriter(out, header, model.description);
  const stamp = new Date().toISOString().slice(0, 10);
  void (async () => {
    try {
      for await (const cells of exportRows(kernel, principal, { model, columns, domain, order, pageSize: kernel.settings.EXPORT_PAGE_SIZE })) {
        await writer.row(cells);
      }
      await writer.end();
    } catch (err) {
      // the status line is out: a cut connection is the only way left to say the file is incomplete
      if (!out.destroyed) req.log.warn({ err, model: model.key }, 'export ended early');
      out.destroy(err as Error);
    }
  })();
  return reply
    .header('content-type', CONTENT_TYPES[format])
    .header('content-disposition', contentDisposition(`${model.key}-${stamp}.${format}`))
    .header('x-export-rows', String(count))
    .header('cache-control', 'no-store')
    .send(out);
}

/** The uploaded file: the raw body, whatever its Content-Type. */
function fileOf(req: FastifyRequest): Buffer {
  const b = req.body;
  if (!Buffer.isBuffer(b) || b.length === 0) throw new BadRequest('send the CSV or XLSX file as the request body', undefined, 'IMPORT_EMPTY_FILE');
  return b;
}

/** Import needs create or update on the model (each row is checked again by the bus). */
function importModel(kernel: KernelHandle, req: FastifyRequest): ResolvedModel {
  const model = kernel.registry.model((req.params as { model: string }).model);
  if (!canAccess(model, req.principal, 'create') && !canAccess(model, req.principal, 'update')) {
    throw new AccessDenied(`your role may neither create nor update ${model.key}`, { model: model.key });
  }
  return model;
}

export async function transferRoutes(server: FastifyInstance, kernel: KernelHandle): Promise<void> {
  const model = (req: FastifyRequest) => kernel.registry.model((req.params as { model: string }).model);
  await server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
      try {
        done(null, text === '' ? {} : JSON.parse(text as string));
      } catch {
        done(new BadRequest('malformed JSON body', undefined, 'INVALID_JSON'), undefined);
      }
    });
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: kernel.settings.IMPORT_MAX_BYTES }, (_req, buf, done) => done(null, buf));

    // a link of the GraphQL `exportLink` mutation: no bearer header (a browser follows it as a
    // plain link); the signed token names the user, session and parameters (docs/api.md)
    scope.get('/api/export/download', { config: { auth: 'public' } }, async (req, reply) => {
      const token = (req.query as Query).token;
      const redeem = authenticatorOf(kernel)?.redeemLink;
      if (!redeem) throw new AuthenticationRequired('no authentication app is active');
      if (!token) throw new TokenError('EXPORT_LINK_INVALID', 'the download link has no token');
      const h = req.headers['x-tenant'];
      const { principal, data } = await redeem(token, 'export', typeof h === 'string' && h ? h : null);
      return sendExport(kernel, req, reply, kernel.registry.model(String(data.model)), data, { ...principal, client: req.principal.client });
    });
    scope.get('/api/export/:model/fields', (req) => ({ fields: exportableFields(kernel.registry, model(req), req.principal) }));
    scope.get('/api/export/:model', (req, reply) => {
      const q = req.query as Query;
      return sendExport(kernel, req, reply, model(req), {
        format: q.format,
        fields: q.fields ? q.fields.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
        filter: jsonParam(q, 'filter', 'INVALID_FILTER'),
        ids: q.ids ? q.ids.split(',') : undefined,
        order: q.order,
      });
    });
    scope.post('/api/export/:model', (req, reply) => {
      const b = req.body;
      if (b !== undefined && (typeof b !== 'object' || b === null || Array.isArray(b) || Buffer.isBuffer(b))) {
        throw new BadRequest('the request body must be a JSON object', undefined, 'INVALID_BODY');
      }
      return sendExport(kernel, req, reply, model(req), (b ?? {}) as Rec);
    });

    scope.post('/api/import/:model/inspect', async (req) => {
      const m = importModel(kernel, req);
      const table = await readTable(fileOf(req), kernel.settings.IMPORT_MAX_ROWS, kernel.settings.IMPORT_MAX_UNZIPPED_BYTES);
      const fields = importableFields(kernel.registry, m, req.principal);
      const columns = suggestMapping(table.headers, fields);
      return {
        format: table.format, rows: table.rows.length, columns, sample: sampleRows(table), fields,
        key: defaultKey(m, columns.map((c) => c.field).filter((f): f is string => !!f)),
      };
    });
    scope.post('/api/import/:model', async (req) => {
      const m = importModel(kernel, req);
      const q = req.query as Query;
      if (q.dry_run !== undefined && q.dry_run !== 'true' && q.dry_run !== 'false') {
        throw new BadRequest('dry_run must be true or false', { parameter: 'dry_run' }, 'BAD_REQUEST');
      }
      const table = await readTable(fileOf(req), kernel.settings.IMPORT_MAX_ROWS, kernel.settings.IMPORT_MAX_UNZIPPED_BYTES);
      const mapping = jsonParam(q, 'mapping', 'IMPORT_INVALID_MAPPING') ?? suggestMapping(table.headers, importableFields(kernel.registry, m, req.principal)).map((c) => c.field);
      const report = await runImport(kernel, req.principal, m, table, {
        mapping, key: q.key, dryRun: q.dry_run === 'true', batchSize: kernel.settings.IMPORT_BATCH_SIZE,
      });
      // a refusal changes nothing: 422 only when nothing was written; a run that stopped after
      // writing some batches answers 200 with `committed: false`, saying what it wrote
      if (!report.dry_run && !report.committed && report.created + report.updated === 0) {
        throw new ValidationError(`the import wrote nothing: ${report.errors.length} row error(s)`, { ...report }, 'IMPORT_FAILED');
      }
      return report;
    });
  });
}
