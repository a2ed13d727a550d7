import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { asFwError, BadRequest, FwError, PayloadTooLarge, toErrorBody, type ErrorBody } from '../kernel/errors.js';
import { sendShell, wantsAppShell } from './web-client.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `graphql`: errors raised outside GraphQL execution (auth, body limits) answer as a GraphQL response. */
    errorFormat?: 'rest' | 'graphql';
  }
}

/**
 * The GraphQL-over-HTTP shape of an error that ends a request before GraphQL runs (an invalid
 * token, a body over a limit): `{ errors: [{ message, extensions: { code, details? } }] }`, the
 * status kept; `application/graphql-response+json` when the client accepts it.
 */
function graphqlShape(request: FastifyRequest, body: ErrorBody): { type: string; payload: string } {
  const { code, message, details } = body.error;
  const accept = request.headers.accept ?? '';
  return {
    type: accept.includes('application/graphql-response+json') ? 'application/graphql-response+json; charset=utf-8' : 'application/json; charset=utf-8',
    payload: JSON.stringify({ errors: [{ message, extensions: { code, ...(details ? { details } : {}) } }] }),
  };
}

const CLIENT_ERROR_CODES: Record<number, string> = { 412: 'PRECONDITION_FAILED', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 416: 'RANGE_NOT_SATISFIABLE' };

/** Fastify's own client errors (bad JSON, body too large, …) keep their status under our envelope. */
function fromFastify(err: FastifyError): FwError | null {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLarge(err.message);
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new FwError('UNSUPPORTED_MEDIA_TYPE', 415, err.message);
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new BadRequest('the JSON body is empty', undefined, 'INVALID_JSON');
  if (err.statusCode === 400 && (err instanceof SyntaxError || err.code?.startsWith('FST_ERR_CTP'))) {
    return new BadRequest(`malformed JSON body: ${err.message}`, undefined, 'INVALID_JSON');
  }
  if (err.validation) return new BadRequest(err.message, { validation: err.validation }, 'INVALID_REQUEST');
  // any other client error Fastify or a plugin raises keeps its status: a QUERY request without
  // a Content-Type (FST_ERR_ROUTE_MISSING_CONTENT_TYPE), @fastify/static's 412 for an If-Match or
  // 416 for a Range the web client's files do not satisfy (http-errors, `expose: true`)
  const status = err.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && (err.code?.startsWith('FST_') || (err as { expose?: boolean }).expose === true)) {
    return new FwError(CLIENT_ERROR_CODES[status] ?? 'BAD_REQUEST', status, err.message);
  }
  return null;
}

/** The one place HTTP errors are shaped: `{ error: { code, message, details? } }` (GraphQL's shape on GraphQL routes). */
export function installErrorHandling(server: FastifyInstance, opts: { appShell?: () => (() => Buffer) | null } = {}): void {
  server.setErrorHandler((err: FastifyError, request, reply) => {
    const mapped = asFwError(err) ?? fromFastify(err);
    const { status, body } = toErrorBody(mapped ?? err);
    // with one database per tenant, which tenant (and who) is what an operator needs first
    if (status >= 500) request.log.error({ err, tenant: request.principal?.tenant_id ?? null, user: request.principal?.user_id ?? null }, 'request failed');
    if (mapped && 'retryAfterSeconds' in mapped) reply.header('retry-after', String((mapped as { retryAfterSeconds: number }).retryAfterSeconds));
    if (request.routeOptions.config?.errorFormat === 'graphql') {
      const g = graphqlShape(request, body);
      return void reply.status(status).type(g.type).send(g.payload);
    }
    void reply.status(status).send(body);
  });
  server.setNotFoundHandler((request, reply) => {
    // a browser navigating to a web-client URL gets the client, which routes it
    const shell = opts.appShell?.();
    if (shell && wantsAppShell(request)) return void sendShell(reply, shell());
    void reply.status(404).send({ error: { code: 'ROUTE_NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
}
