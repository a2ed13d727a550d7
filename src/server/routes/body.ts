import type { FastifyRequest } from 'fastify';
import { BadRequest, FwError } from '../../kernel/errors.js';

/**
 * A route's JSON body as an object: none = `{}`, anything else than an object = 400 INVALID_BODY;
 * a body sent as another type (text/plain, which Fastify reads as text) is 415, saying which one.
 */
export function bodyObject(req: FastifyRequest): Record<string, unknown> {
  const b = req.body;
  if (b === undefined || b === null) return {};
  const type = req.headers['content-type'] ?? '';
  if (typeof b === 'string' && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new FwError('UNSUPPORTED_MEDIA_TYPE', 415, `the request body was sent as ${type.split(';')[0]!.trim() || 'no type'}: send it as application/json`, { contentType: type });
  }
  if (typeof b !== 'object' || Array.isArray(b)) throw new BadRequest('the request body must be a JSON object', undefined, 'INVALID_BODY');
  return b as Record<string, unknown>;
}
