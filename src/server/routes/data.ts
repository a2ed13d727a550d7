import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canWriteField } from '../../kernel/access.js';
import { BadRequest } from '../../kernel/errors.js';
import { publicCommandName, publicPayload } from '../commands.js';
import { bodyObject } from './body.js';
import { checkRequestData } from '../input.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';
import '../types.js';

type Query = Record<string, string | string[] | undefined>;

/** The error code of a bad list parameter. */
const PARAM_CODES: Record<string, string> = { filter: 'INVALID_FILTER', order: 'INVALID_ORDER', limit: 'INVALID_PAGING', offset: 'INVALID_PAGING', fields: 'INVALID_FIELDS' };

/** A query parameter given at most once (`?fields=a&fields=b` is a list the routes do not take). */
function single(q: Query, name: string): string | undefined {
  const raw = q[name];
  if (Array.isArray(raw)) throw new BadRequest(`query parameter ${name} may be given only once`, { parameter: name }, PARAM_CODES[name] ?? 'BAD_REQUEST');
  return raw;
}
type Body = Record<string, unknown>;

export interface PageLimits { defaultLimit: number; maxLimit: number }

function parseJsonParam(q: Query, name: string): unknown {
  const raw = single(q, name);
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new BadRequest(`query parameter ${name} must be JSON (a list of [field, operator, value] terms)`, { parameter: name }, 'INVALID_FILTER');
  }
  checkRequestData(parsed, `query parameter ${name}`, 'INVALID_FILTER');
  return parsed;
}

/**
 * A count or a position written in decimal digits (NaN otherwise): Number() also reads `0x3`,
 * `1e1`, `+3`, ` 3` and `3.0`, spellings the API documents nowhere (import refuses them); and a
 * safe integer: 1e308 is an integer to JavaScript, but no database takes it as an OFFSET.
 */
function decimalInteger(raw: string): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) ? n : NaN;
}

function parseIntParam(q: Query, name: string, fallback: number, max?: number): number {
  const raw = single(q, name);
  if (raw === undefined || raw === '') return fallback;
  const n = decimalInteger(raw);
  if (Number.isNaN(n)) throw new BadRequest(`${name} must be a non-negative integer`, { parameter: name }, 'INVALID_PAGING');
  if (max !== undefined && n > max) throw new BadRequest(`${name} may be at most ${max}`, { parameter: name, max }, 'PAGE_TOO_LARGE');
  return n;
}

/** `?filter=&order=&limit=&offset=&fields=a,b` as a fw.search payload; the REST list shape. */
export function listPayload(model: string, q: Query, limits: PageLimits): Body {
  const limit = parseIntParam(q, 'limit', limits.defaultLimit, limits.maxLimit);
  if (limit === 0) throw new BadRequest('limit must be at least 1', { parameter: 'limit' }, 'INVALID_PAGING');
  const fields = single(q, 'fields');
  const domain = parseJsonParam(q, 'filter') ?? undefined;
  // routes add their own terms to it (connectors, storage): a filter that is not a list is refused here
  if (domain !== undefined && !Array.isArray(domain)) throw new BadRequest('filter must be a list of [field, operator, value] terms', { parameter: 'filter' }, 'INVALID_DOMAIN');
  return {
    model,
    domain,
    order: single(q, 'order') || undefined,
    limit,
    offset: parseIntParam(q, 'offset', 0),
    fields: fields ? fields.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    count: true,
  };
}

/**
 * `POST /api/data/{model}/search`'s body as the list's query parameters: the same list, for a
 * filter too long for a URL (Node refuses request heads over 16 KiB: a filter of 1,500 ids).
 * Values are taken as JSON (`filter` a list, `limit` a number, `fields` a list or "a,b") and
 * checked by the list's own rules, so both routes refuse the same things with the same codes.
 */
const SEARCH_PARAMETERS = ['filter', 'order', 'limit', 'offset', 'fields'] as const;

function searchQuery(b: Body): Query {
  const q: Query = {};
  const text = (name: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (name === 'fields' && Array.isArray(v) && v.every((x) => typeof x === 'string')) q.fields = v.join(',');
    else if (name === 'filter' && typeof v !== 'string') q.filter = JSON.stringify(v);
    else if (typeof v === 'string' || (typeof v === 'number' && (name === 'limit' || name === 'offset'))) q[name] = String(v);
    else throw new BadRequest(`${name} must be ${name === 'fields' ? 'a list of field names' : name === 'order' ? 'text such as "name asc"' : 'a number'}`, { parameter: name }, PARAM_CODES[name]);
  };
  for (const name of SEARCH_PARAMETERS) text(name, b[name]);
  const unknown = Object.keys(b).filter((k) => !(SEARCH_PARAMETERS as readonly string[]).includes(k));
  if (unknown.length) throw new BadRequest(`unknown search parameter ${unknown[0]}: filter, order, limit, offset and fields are read`, { parameter: unknown[0] }, 'INVALID_BODY');
  return q;
}

/** Optimistic locking from the body's `revision` or an `If-Match: "<revision>"` header. */
function revisionOf(req: FastifyRequest, b: Body): unknown {
  if (b.revision !== undefined) return b.revision;
  const h = req.headers['if-match'];
  if (typeof h !== 'string') return undefined;
  const digits = h.replace(/^W\//, '').replace(/"/g, '');
  // a revision is a counter: a huge or fractional value is malformed, not merely stale
  const n = decimalInteger(digits);
  if (Number.isNaN(n)) throw new BadRequest('If-Match must carry the record revision, e.g. "3"', undefined, 'INVALID_REVISION');
  return n;
}

/** Creates go through the model's create command when it declares one (res.user → register). */
export async function createRecord(kernel: KernelHandle, req: FastifyRequest, model: ResolvedModel, values: Body): Promise<unknown> {
  if (model.createCommand) return kernel.dispatch(model.createCommand, values, req.principal);
  return kernel.dispatch('fw.create', { model: model.key, values }, req.principal);
}

/**
 * PUT semantics: every writable field not sent is reset to its default (or null). Not a Reference
 * filled from the caller on create (`default_principal`: the record's organization or owner): its
 * default is whoever creates the record, so "reset" would move the record into the organization
 * of whoever replaces it (an admin's PUT took a lead out of every list of its organization, a
 * user's was refused as ACCESS_DENIED). Left out, it keeps its value, as in a PATCH.
 */
function replacementValues(model: ResolvedModel, req: FastifyRequest, values: Body): Body {
  const out: Body = {};
  for (const f of model.fields.values()) {
    if (!f.stored || f.auto || f.readonly || f.defaultPrincipal || !canWriteField(model, f, req.principal)) continue;
    out[f.name] = f.name in values ? values[f.name] : f.default ?? null;
  }
  for (const k of Object.keys(values)) if (!(k in out)) out[k] = values[k];
  return out;
}

const created = (reply: FastifyReply, record: unknown) => reply.status(201).send(record);

/** The generic record routes for every model: /api/data/{model_key}[/{id}[/{command}]]. */
export function dataRoutes(server: FastifyInstance, kernel: KernelHandle, limits: PageLimits): void {
  const model = (req: FastifyRequest) => kernel.registry.model((req.params as { model: string }).model);
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;

  server.get('/api/data/:model', (req) =>
    kernel.dispatch('fw.search', listPayload(model(req).key, req.query as Query, limits), req.principal));
  server.post('/api/data/:model/search', (req) =>
    kernel.dispatch('fw.search', listPayload(model(req).key, searchQuery(bodyObject(req)), limits), req.principal));
  server.get('/api/data/:model/count', (req) =>
    kernel.dispatch('fw.count', { model: model(req).key, domain: parseJsonParam(req.query as Query, 'filter') }, req.principal));
  server.post('/api/data/:model/read_group', (req) => {
    const b = bodyObject(req);
    return kernel.dispatch('fw.read_group', { model: model(req).key, groupby: b.groupby, domain: b.filter, aggregates: b.aggregates }, req.principal);
  });
  server.post('/api/data/:model', async (req, reply) => created(reply, await createRecord(kernel, req, model(req), bodyObject(req))));
  server.get('/api/data/:model/:id', (req) =>
    kernel.dispatch('fw.read_one', { model: model(req).key, id: id(req), fields: listPayload(model(req).key, req.query as Query, limits).fields }, req.principal));
  server.patch('/api/data/:model/:id', (req) => {
    const { revision: _r, ...values } = bodyObject(req);
    return kernel.dispatch('fw.update', { model: model(req).key, id: id(req), values, revision: revisionOf(req, bodyObject(req)) }, req.principal);
  });
  server.put('/api/data/:model/:id', (req) => {
    const m = model(req);
    const { revision: _r, ...values } = bodyObject(req);
    return kernel.dispatch('fw.update', { model: m.key, id: id(req), values: replacementValues(m, req, values), revision: revisionOf(req, bodyObject(req)) }, req.principal);
  });
  server.delete('/api/data/:model/:id', (req) => kernel.dispatch('fw.delete', { model: model(req).key, id: id(req) }, req.principal));
  server.post('/api/data/:model/:id/:command', (req) => {
    const m = model(req);
    const name = publicCommandName(kernel.registry, `${m.key}.${(req.params as { command: string }).command}`);
    return kernel.dispatch(name, { ...bodyObject(req), id: id(req) }, req.principal);
  });
  server.post('/api/command/:name', (req) => {
    const name = publicCommandName(kernel.registry, (req.params as { name: string }).name);
    return kernel.dispatch(name, publicPayload(name, bodyObject(req), limits), req.principal);
  });
}
