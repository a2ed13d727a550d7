/**
 * Who may introspect the schema (`__schema`, `__type`): GRAPHQL_INTROSPECTION, through
 * `../exposure.ts` (`public` in development, signed-in callers only with NODE_ENV=production).
 * The check runs before the operation executes or subscribes, with the caller known, so it
 * cannot be a validation rule: yoga caches a document's validation result for every caller.
 * Whether a document introspects is graphql-js's own rule (`NoSchemaIntrospectionCustomRule`,
 * any field of type `__Schema` or `__Type`), remembered per document. `__typename` is not
 * introspection. A refusal is a request error with no `data`:
 * - `off`: 403 INTROSPECTION_DISABLED, for everyone;
 * - `authenticated` and no bearer token: 401 INTROSPECTION_UNAUTHENTICATED.
 *
 * graphql-js's "Did you mean …?" hints are introspection by other means: a mistyped field,
 * argument, type, input field or enum value is answered with the names that do exist, so an
 * anonymous caller could rebuild the schema one guess at a time. They are left out of the
 * errors of callers who may not introspect (`suggestionsHidden`).
 */
import { GraphQLError, NoSchemaIntrospectionCustomRule, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Principal } from '../../kernel/env.js';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { exposureAllows, type Exposure } from '../exposure.js';
import type { GqlContext } from './schema.js';
import { copyError } from './errors.js';
import { refuseWhen } from './guard.js';

export const INTROSPECTION_DISABLED = 'INTROSPECTION_DISABLED';
export const INTROSPECTION_UNAUTHENTICATED = 'INTROSPECTION_UNAUTHENTICATED';

const introspects = new WeakMap<DocumentNode, boolean>();
function isIntrospection(schema: GraphQLSchema, document: DocumentNode): boolean {
  let yes = introspects.get(document);
  if (yes === undefined) {
    yes = validate(schema, document, [NoSchemaIntrospectionCustomRule]).length > 0;
    introspects.set(document, yes);
  }
  return yes;
}

function refusal(verdict: 'anonymous' | 'off'): GraphQLError {
  return verdict === 'off'
    ? new GraphQLError('GraphQL introspection has been disabled on this server (GRAPHQL_INTROSPECTION=off)', {
      extensions: { code: INTROSPECTION_DISABLED, details: { setting: 'GRAPHQL_INTROSPECTION' }, http: { status: 403 } },
    })
    : new GraphQLError('GraphQL introspection needs a signed-in caller on this server (GRAPHQL_INTROSPECTION=authenticated, the default with NODE_ENV=production): send a bearer access token', {
      extensions: { code: INTROSPECTION_UNAUTHENTICATED, details: { setting: 'GRAPHQL_INTROSPECTION' }, http: { status: 401 } },
    });
}

/** Refuses introspecting operations of callers the exposure does not allow; nothing for `public`. */
export function introspectionAccess(exposure: Exposure): Plugin[] {
  if (exposure === 'public') return [];
  const check = (args: { schema: GraphQLSchema; document: DocumentNode; contextValue?: unknown }): GraphQLError | null => {
    const verdict = exposureAllows(exposure, (args.contextValue as Partial<GqlContext>).principal);
    return verdict !== 'allowed' && isIntrospection(args.schema, args.document) ? refusal(verdict) : null;
  };
  return [refuseWhen(check)];
}

/** graphql-js ends a message with its hint: `… Did you mean "crmLead" or "crmLeads"?` */
const SUGGESTION = / Did you mean .*\?$/s;

/** The error without the names it suggests; the same object when it suggests none. */
export function withoutSuggestion<E>(error: E): E {
  if (!(error instanceof GraphQLError) || !SUGGESTION.test(error.message)) return error;
  return copyError(error, { message: error.message.replace(SUGGESTION, '') }) as E;
}

const stripped = <R extends ExecutionResult>(result: R): R =>
  result.errors?.some((e) => SUGGESTION.test(e.message)) ? { ...result, errors: result.errors.map(withoutSuggestion) } : result;

/**
 * Leaves graphql-js's suggestions out of every error of a result (validation, variables,
 * execution) for callers the exposure does not let introspect; nothing for `public`. yoga caches
 * a document's validation result for every caller, so the hints are removed from the result each
 * request gets, never from what the cache keeps.
 */
export function suggestionsHidden(exposure: Exposure): Plugin[] {
  if (exposure === 'public') return [];
  return [{
    onExecutionResult({ result, setResult, context }) {
      const principal = (context as { req?: { principal?: Principal } }).req?.principal;
      if (exposureAllows(exposure, principal) === 'allowed') return;
      // a stream (subscriptions, which need a signed-in caller anyway) is left as it is
      if (result && !isAsyncIterable(result)) setResult(stripped(result));
    },
  }];
}
