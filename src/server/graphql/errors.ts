/**
 * How errors leave GraphQL, on HTTP (yoga's `maskedErrors`) and graphql-ws alike.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { asFwError, toErrorBody } from '../../kernel/errors.js';
import type { GqlContext } from './schema.js';

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

/** The cause `maskError` hides behind INTERNAL_ERROR (not ours, not GraphQL's own, not a RangeError, which is a 400), else null. */
function internalCause(error: GraphQLError): unknown {
  if (onlyGraphQLErrors(error)) return null;
  const original = error.originalError ?? error;
  return original instanceof RangeError || asFwError(original) ? null : original;
}

/**
 * Logs what `maskError` will hide from the client (INTERNAL_ERROR), with the tenant, the user and
 * the field's path: without it a failing field left no trace on the server at all. Runs before
 * yoga's masking (its plugins come after the ones given here).
 */
export function internalErrorLog(log: (entry: { err: unknown; tenant: string | null; user: string | null; path: string }) => void): Plugin<GqlContext> {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, args }) {
          if (isAsyncIterable(result)) return;
          for (const error of result.errors ?? []) {
            const original = internalCause(error);
            if (original === null) continue;
            const principal = (args.contextValue as Partial<GqlContext>).principal;
            log({ err: original, tenant: principal?.tenant_id ?? null, user: principal?.user_id ?? null, path: (error.path ?? []).join('.') });
          }
        },
      };
    },
  };
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
