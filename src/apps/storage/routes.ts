import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendsFile, serves, servesRecords, type RouteContext } from '../../kernel/app.js';
import { BadRequest, ValidationError } from '../../kernel/errors.js';
import type { RootDbClient } from '../../kernel/env.js';
import { concreteKernel, type Kernel } from '../../kernel/kernel.js';
import { contentDisposition } from '../../server/content-disposition.js';
import { listPayload } from '../../server/routes/data.js';
import '../../server/types.js';
import { ResponseClosed } from './backends/errors.js';
import type { OpenContent } from './backends/types.js';
import { findVersion, openVersion } from './documents.js';
import { uploadLimit } from './settings.js';

// kept here too: the storage tests and app code import it from the storage routes
export { contentDisposition };

type Rec = Record<string, unknown>;
/** What PUT /api/storage/documents/{id} may change; `folder` moves the document (null = top level). */
const EDITABLE = ['name', 'description', 'tags', 'folder'];
type Q = Record<string, string | undefined>;

/** One `bytes=a-b` range (or suffix `bytes=-n`); null when absent, 'invalid' when unsatisfiable. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'invalid' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'invalid';
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return 'invalid';
  return { start, end };
}

async function sendDownload(kernel: Kernel, req: FastifyRequest, reply: FastifyReply, id: string, version?: number) {
  // a request opens only a tenant that exists (its token's, checked when it was verified)
  const client = await kernel.tenants.getExisting(req.principal.tenant_id);
  // two commands on one client: held across both, so an eviction in between cannot close it
  return kernel.tenants.hold(client, () => sendHeld(kernel, client, req, reply, id, version));
}

async function sendHeld(kernel: Kernel, client: RootDbClient, req: FastifyRequest, reply: FastifyReply, id: string, version?: number) {
  const v = await kernel.execute(client, req.principal, (env) => findVersion(env, id, version), false);
  const etag = `"${v.checksum}"`;
  if (req.headers['if-none-match'] === etag) return reply.status(304).header('etag', etag).send();
  const range = parseRange(req.headers.range, v.size);
  if (range === 'invalid') {
    return reply.status(416).header('content-range', `bytes */${v.size}`)
      .send({ error: { code: 'RANGE_NOT_SATISFIABLE', message: 'the requested range is outside the content' } });
  }
  const d = await kernel.execute(client, req.principal, (env) => openVersion(env, v, range ?? undefined), false);
  reply
    .header('content-type', v.content_type)
    .header('content-disposition', contentDisposition(v.filename))
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    // the type is the uploader's word: never let a browser sniff a different one
    .header('x-content-type-options', 'nosniff')
    .header('content-length', String(d.size));
  if (range) reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${v.size}`);
  if (!d.open) return reply.send(d.stream);
  // opened before anything is sent, so a failure here is still an ordinary error response; HEAD
  // sends the headers only (Fastify's own HEAD handling would answer Content-Length: 0)
  const content = req.method === 'HEAD' ? null : await d.open();
  return sendOpen(req, reply, content, id);
}

/** Writes the response itself (so Fastify must not), with the headers the route set. */
async function sendOpen(req: FastifyRequest, reply: FastifyReply, content: OpenContent | null, id: string): Promise<void> {
  reply.hijack();
  // a response queued behind another on a pipelined connection only learns of the client's
  // departure from the socket
  const gone = new AbortController();
  const abort = () => gone.abort();
  req.raw.socket.once('close', abort);
  try {
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.writeHead(reply.statusCode);
    if (content) await content.writeTo(reply.raw, gone.signal);
    reply.raw.end();
  } catch (err) {
    await content?.close().catch(() => undefined);
    // once the status line is out, a cut connection is the only way left to say the body is incomplete
    if (err instanceof ResponseClosed) req.log.debug({ document: id }, 'download: the client went away');
    else req.log.warn({ err, document: id }, 'download ended early');
    reply.raw.destroy();
  } finally {
    req.raw.socket.off('close', abort);
  }
}

/** Largest version number: `version_number` is a 32-bit integer column (PostgreSQL refuses a larger value in a query). */
export const VERSION_NUMBER_MAX = 2 ** 31 - 1;

/**
 * A version number from the URL: a whole number from 1 to VERSION_NUMBER_MAX, else 400
 * INVALID_PARAMETER. Safe integers only: a larger one (`9223372036854780000`) has no exact value,
 * and one past the column's range made PostgreSQL fail the query (a 500) instead of finding nothing.
 */
export const intParam = (v: string | undefined, name: string, max = VERSION_NUMBER_MAX): number | undefined => {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new BadRequest(`${name} must be a whole number from 1 to ${max}`, { parameter: name, max }, 'INVALID_PARAMETER');
  }
  return n;
};

/** Upload fields from the query string (binary mode) or the JSON body (base64 mode). */
function uploadPayload(req: FastifyRequest, kind: 'document' | 'version'): Rec {
  const q = req.query as Q;
  if (req.headers['content-type']?.startsWith('application/json')) {
    const b = req.body;
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw new BadRequest('the request body must be a JSON object', undefined, 'INVALID_BODY');
    return b as Rec;
  }
  const len = req.headers['content-length'];
  const fields = kind === 'document'
    ? { name: q.name, description: q.description, tags: q.tags, owner_model: q.owner_model, owner_record_uuid: q.owner_record_uuid, folder: q.folder }
    : { change_note: q.change_note };
  const payload: Rec = {
    stream: req.body,
    filename: q.filename ?? q.name,
    content_type: req.headers['content-type'],
    declared_size: len ? Number(len) : undefined,
    ...fields,
  };
  return Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
}

/**
 * The spec's /api/storage routes. Binary bodies reach the handlers as the raw request stream
 * (never buffered; the backend cuts it off at the upload limit); JSON bodies are bounded by the
 * same limit, base64-inflated, before they are parsed.
 */
export async function storageRoutes(server: FastifyInstance, { kernel }: RouteContext): Promise<void> {
  // downloads stream from a tenant client held across two reads (`tenants.hold`, `execute`)
  const internals = concreteKernel(kernel);
  const { limit } = uploadLimit(kernel.settings);
  await server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: Math.ceil(limit * 4 / 3) + 65_536 }, (_req, text, done) => {
      try {
        done(null, text === '' ? {} : JSON.parse(text as string));
      } catch {
        done(new BadRequest('malformed JSON body', undefined, 'INVALID_JSON'), undefined);
      }
    });
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    const limits = { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE };
    const id = (req: FastifyRequest) => (req.params as { id: string }).id;
    const isJson = (req: FastifyRequest) => req.headers['content-type']?.startsWith('application/json') ?? false;

    const upload = async (req: FastifyRequest, reply: FastifyReply) => {
      const payload = uploadPayload(req, 'document');
      const doc = isJson(req)
        ? await kernel.dispatch('storage.document.upload', payload, req.principal)
        : await kernel.dispatch('storage.document.upload_stream', payload, req.principal);
      return reply.status(201).send(doc);
    };
    const uploads = serves('storage.document.upload', { status: 201, stream: 'storage.document.upload_stream' });
    scope.post('/api/storage/documents', uploads, upload);
    scope.post('/api/storage/upload', uploads, upload);
    scope.get('/api/storage/documents', servesRecords('storage.document', 'list'), (req) => {
      const q = req.query as Q;
      const p = listPayload('storage.document', q, limits);
      if (q.include_inactive !== 'true') p.domain = [...((p.domain as unknown[]) ?? []), ['is_active', '=', true]];
      // the documents directly in one folder; `root` = those in no folder
      if (q.folder) p.domain = [...((p.domain as unknown[]) ?? []), ['folder', '=', q.folder === 'root' ? null : q.folder]];
      return kernel.dispatch('fw.search', p, req.principal);
    });
    scope.get('/api/storage/documents/:id', servesRecords('storage.document', 'read'), (req) => kernel.dispatch('fw.read_one', { model: 'storage.document', id: id(req) }, req.principal));
    // not the records' update: only name, description, tags and folder may be sent here
    scope.put('/api/storage/documents/:id', servesRecords('storage.document', 'update', { fields: EDITABLE }), (req) => {
      const b = (req.body ?? {}) as Rec;
      const values: Rec = {};
      for (const k of Object.keys(b)) {
        if (k === 'revision') continue;
        if (!EDITABLE.includes(k)) throw new ValidationError(`only name, description, tags and folder can be changed here ("${k}")`, { field: k }, 'READONLY_FIELD');
        values[k] = b[k];
      }
      return kernel.dispatch('fw.update', { model: 'storage.document', id: id(req), values, revision: b.revision }, req.principal);
    });
    scope.delete('/api/storage/documents/:id', servesRecords('storage.document', 'delete'), (req) => kernel.dispatch('fw.delete', { model: 'storage.document', id: id(req) }, req.principal));
    // every version, oldest first: the records' list without its parameters
    scope.get('/api/storage/documents/:id/versions', servesRecords('storage.document_version', 'list', { paged: false }), async (req) => {
      const doc = await kernel.dispatch<Rec>('fw.read_one', { model: 'storage.document', id: id(req) }, req.principal);
      return kernel.dispatch('fw.search', { model: 'storage.document_version', domain: [['document_id', '=', doc.id]], order: 'version_number asc', count: true }, req.principal);
    });
    scope.post('/api/storage/documents/:id/versions', serves('storage.document.add_version', { status: 201, stream: 'storage.document.add_version_stream' }), async (req, reply) => {
      const payload = { ...uploadPayload(req, 'version'), id: id(req) };
      const doc = isJson(req)
        ? await kernel.dispatch('storage.document.add_version', payload, req.principal)
        : await kernel.dispatch('storage.document.add_version_stream', payload, req.principal);
      return reply.status(201).send(doc);
    });
    const download = sendsFile({ ranges: true });
    scope.get('/api/storage/documents/:id/download', download, (req, reply) => sendDownload(internals, req, reply, id(req)));
    scope.get('/api/storage/documents/:id/versions/:n/download', download, (req, reply) =>
      sendDownload(internals, req, reply, id(req), intParam((req.params as { n: string }).n, 'n')));
    scope.get('/api/storage/download/:id', sendsFile({ ranges: true, query: { version_number: 'integer' } }), (req, reply) =>
      sendDownload(internals, req, reply, id(req), intParam((req.query as Q).version_number, 'version_number')));
  });
}
