/**
 * How errors leave GraphQL, on HTTP (yoga's `maskedErrors`) and graphql-ws alike.
 */
import { GraphQLError } from 'graphql';
import { asFwError, toErrorBody } from '../../kernel/errors.js';

/** Our errors keep their code and status; anything else is masked as INTERNAL_ERROR. */
export function maskError(error: unknown): GraphQLError {
  // GraphQL's own errors (syntax, validation, variable coercion) chain only GraphQLErrors: shown as they are
  if (onlyGraphQLErrors(error)) return error as GraphQLError;
  const original = error instanceof GraphQLError ? error.originalError ?? error : error;
  if (original instanceof RangeError) {
    return new GraphQLError(original.message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  }
  const { status, body } = toErrorBody(original);
  const gqlError = error instanceof GraphQLError ? error : undefined;
  // a refusal that says when to come back (503 DATABASE_BUSY, 429) says it in a header, as on REST
  const fw = asFwError(original);
  const retryAfter = fw && 'retryAfterSeconds' in fw ? { headers: { 'retry-after': String((fw as { retryAfterSeconds: number }).retryAfterSeconds) } } : {};
  return new GraphQLError(body.error.message, {
    nodes: gqlError?.nodes, path: gqlError?.path,
    extensions: { code: body.error.code, ...(body.error.details ? { details: body.error.details } : {}), http: { status: fw ? status : 500, ...retryAfter } },
  });
}

function onlyGraphQLErrors(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as GraphQLError).originalError) {
    if (!(e instanceof GraphQLError)) return false;
  }
  return error instanceof GraphQLError;
}


/** `error` with another message or other extensions, the rest (nodes, source, positions, path, cause) kept. */
export function copyError(error: GraphQLError, change: { message?: string; extensions?: GraphQLError['extensions'] }): GraphQLError {
  return new GraphQLError(change.message ?? error.message, {
    nodes: error.nodes, source: error.source, positions: error.positions, path: error.path,
    originalError: error.originalError, extensions: change.extensions ?? error.extensions,
  });
}
