/**
 * Parameter problems of a GraphQL request that yoga would answer wrongly, refused first with a
 * 400 BAD_REQUEST in yoga's own words:
 * - `variables` or `extensions` in a GET query string that is not JSON: yoga's `JSON.parse`
 *   threw a SyntaxError, which left its pipeline as a 500 INTERNAL_ERROR (any anonymous caller
 *   could ask for one);
 * - no `query` at all: yoga answered "Must provide query string." with 200, where every other
 *   malformed request gets 400; a POST body of `{}` fared worse, since Fastify had read the body
 *   and the Fetch bridge, seeing an empty object, read the stream again and found nothing
 *   ("POST body sent invalid JSON.", with the SyntaxError attached).
 * A persisted-query request (`extensions.persistedQuery`, no query text) is left to yoga.
 */
import type { FastifyRequest } from 'fastify';
import { BadRequest } from '../../kernel/errors.js';
import { isJsonContentType, isObject } from './direct.js';

function jsonParam(name: string, raw: unknown): unknown {
  if (typeof raw !== 'string' || raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw new BadRequest(`"${name}" param must be JSON (an object), but could not be parsed`, { parameter: name });
  }
}

const persisted = (extensions: unknown): boolean => isObject(extensions) && extensions.persistedQuery !== undefined;
const missingQuery = () => new BadRequest('Must provide query string.');

/**
 * Throws for the requests above; `graphqlRequest` says the client asked for a GraphQL result
 * (a browser's GET without a query is the explorer page, or its refusal).
 */
export function refuseBadParams(req: Pick<FastifyRequest, 'method' | 'headers' | 'query' | 'body'>, graphqlRequest: boolean): void {
  if (req.method === 'GET') {
    const q = (req.query ?? {}) as Record<string, unknown>;
    jsonParam('variables', q.variables);
    const extensions = jsonParam('extensions', q.extensions);
    if (graphqlRequest && (typeof q.query !== 'string' || q.query === '') && !persisted(extensions)) throw missingQuery();
    return;
  }
  if (req.method === 'POST' && isJsonContentType(req.headers['content-type'])) {
    const body = req.body;
    // no body at all (an empty one, src/server/json-body.ts) asks nothing either
    if (body === undefined || body === null) throw missingQuery();
    // a list is a batch, refused by yoga in its own words
    if (isObject(body) && (typeof body.query !== 'string' || body.query === '') && !persisted(body.extensions)) throw missingQuery();
  }
}
