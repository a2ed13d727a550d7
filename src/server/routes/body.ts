import type { FastifyRequest } from 'fastify';
import { BadRequest } from '../../kernel/errors.js';

/** A route's JSON body as an object: none = `{}`, anything else than an object = 400 INVALID_BODY. */
export function bodyObject(req: FastifyRequest): Record<string, unknown> {
  const b = req.body;
  if (b === undefined || b === null) return {};
  if (typeof b !== 'object' || Array.isArray(b)) throw new BadRequest('the request body must be a JSON object', undefined, 'INVALID_BODY');
  return b as Record<string, unknown>;
}
