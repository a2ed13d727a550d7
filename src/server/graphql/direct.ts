/**
 * The direct path for the request almost every client sends: a POST whose body Fastify already
 * parsed as one JSON object, answered with one JSON result.
 *
 * yoga's own entry (`handleNodeRequestAndResponse`) wraps such a request in a Fetch `Request`,
 * runs the HTTP-level hooks (CORS, GraphiQL, health, body parsers, method and batching checks),
 * executes, then builds a Fetch `Response` that the route copies back into Fastify's reply. For a
 * list of 50 rows that bridge was ~20 % of the server's CPU per request (docs/performance.md,
 * issue 30). Here the route calls the part of yoga that holds the GraphQL behaviour,
 * `getResultForParams` (its `onParams` hooks, then parse, validate, context, execute with every
 * envelop plugin and yoga's error masking, then `onExecutionResult`), and formats the result with
 * yoga's exported `processRegularResult`: status, headers and body are yoga's own.
 *
 * The HTTP-level hooks it skips are no-ops for the requests let through (`directParams`):
 * - CORS: only a request without an `Origin` header, or one not in CORS_ORIGINS (yoga adds no
 *   header for it either);
 * - the request parsers and the body-size, batching and method checks: Fastify parsed a JSON body
 *   within HTTP_BODY_LIMIT_BYTES, it is one object, the method is POST;
 * - the result processors: the Accept header names a type of the regular processor, and the
 *   operation cannot be a subscription (the document does not contain the word), so the result is
 *   one execution result, never a stream (the schema has no `@defer`/`@stream`).
 * Everything else (GET, multipart uploads, listed origins, subscriptions, batches, bodies yoga
 * would refuse as parameters) goes through yoga's entry as before.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAsyncIterable, processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import { regularResponseType } from './accept.js';
import type { GqlContext } from './schema.js';

/** What yoga's parameter check lets through (`null` members are ignored, as yoga ignores them). */
interface DirectParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

type Yoga = YogaServerInstance<{ req: FastifyRequest; reply: FastifyReply }, GqlContext>;

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A body Fastify parsed as JSON (`application/json`, parameters allowed). */
export const isJsonContentType = (contentType: unknown): boolean => typeof contentType === 'string' && /^application\/json\s*(;|$)/i.test(contentType);
const isObjectOrNone = (v: unknown): boolean => v == null || isObject(v);

/**
 * The parameters of a request the direct path answers exactly as yoga's entry would, with the
 * response type yoga would pick; null sends the request through yoga's entry. Only parameters
 * yoga's own check (`checkGraphQLQueryParams`) accepts pass, so its refusals keep their wording.
 */
export function directParams(req: Pick<FastifyRequest, 'method' | 'headers' | 'body'>, allowedOrigins: ReadonlySet<string>): { params: DirectParams; type: string } | null {
  if (req.method !== 'POST') return null;
  const contentType = req.headers['content-type'];
  if (!isJsonContentType(contentType)) return null;
  const origin = req.headers.origin;
  if (origin !== undefined && allowedOrigins.has(origin)) return null;
  const body = req.body;
  if (!isObject(body)) return null;
  for (const key in body) if (body[key] != null && !PARAM_NAMES.has(key)) return null;
  const { query, variables, operationName, extensions } = body;
  if (typeof query !== 'string' || query.includes('subscription')) return null;
  if (!isObjectOrNone(variables) || !isObjectOrNone(extensions)) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  const type = regularResponseType(req.headers.accept);
  if (!type) return null;
  const params: DirectParams = { query };
  if (isObject(variables)) params.variables = variables;
  if (typeof operationName === 'string') params.operationName = operationName;
  if (isObject(extensions)) params.extensions = extensions;
  return { params, type };
}

/** Runs the operation through yoga's GraphQL pipeline and answers with yoga's regular result. */
export async function answerDirectly(yoga: Yoga, req: FastifyRequest, reply: FastifyReply, direct: { params: DirectParams; type: string }): Promise<FastifyReply> {
  // plugins read the request's method and headers (yoga's GET-mutation check, the subscription
  // Accept check); a Fetch Request of the same method and headers, without the body already read
  const request = new yoga.fetchAPI.Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
    method: 'POST', headers: req.headers as Record<string, string>,
  });
  const result = await yoga.getResultForParams({ params: direct.params, request }, { req, reply });
  if (!result || isAsyncIterable(result)) {
    // directParams lets no subscription through and the schema has no incremental delivery
    if (result && isAsyncIterable(result)) await result[Symbol.asyncIterator]().return?.();
    throw new Error('the direct GraphQL path got no single result');
  }
  const response = processRegularResult(result, yoga.fetchAPI, direct.type);
  response.headers.forEach((value, key) => { void reply.header(key, value); });
  return reply.status(response.status).send(await response.text());
}
