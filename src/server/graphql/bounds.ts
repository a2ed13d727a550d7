/**
 * The GraphQL document bounds: how large a document may be before it is validated, executed or
 * compiled. The depth and cost guards (`depth.ts`, `cost.ts`) run after validation, and
 * validating and compiling a document takes time in proportion to its size (some rules more:
 * fields sharing a response name are compared pair by pair): a 259 KB document of 10,000 aliases
 * of `me { email }` costs only 40,000 and held the event loop for seconds, for every tenant, and
 * fresh alias names defeat the parse and validation caches. So the document itself is bounded
 * while it is parsed, before anything else looks at it:
 *
 * - tokens: graphql-js's own parser stops at `maxTokens` (so a long document is never read to
 *   its end); counted as graphql-js counts them (punctuators, names, values; not comments);
 * - fields, aliases and directives of the operations, **with fragments expanded**: a fragment
 *   counts every time it is spread (weighed once and memoised, so a fragment "bomb" that doubles
 *   at every level is refused without being expanded). Fragments no operation uses count once.
 *
 * A refusal is a request error with no `data`: `extensions.code` QUERY_TOO_MANY_TOKENS,
 * QUERY_TOO_MANY_FIELDS, QUERY_TOO_MANY_ALIASES or QUERY_TOO_MANY_DIRECTIVES, details
 * `{ count, limit }` (tokens: `{ limit }`, counting stops there), HTTP 400, on every path that
 * parses a document: POST, GET, SSE and graphql-ws. graphql-armor's max-tokens, max-aliases and
 * max-directives do the same counting, but refuse with "Syntax Error: …" and no code
 * (docs/decisions.md, "GraphQL document bounds").
 */
import {
  Kind, Lexer, parse, Source, TokenKind, validate,
  type DocumentNode, type FragmentDefinitionNode, type ParseOptions, type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../../kernel/env.js';
import { BadRequest } from '../../kernel/errors.js';

export interface DocumentLimits {
  maxTokens: number;
  maxFields: number;
  maxAliases: number;
  maxDirectives: number;
}

export interface DocumentCounts {
  fields: number;
  aliases: number;
  directives: number;
}

export const QUERY_TOO_MANY_TOKENS = 'QUERY_TOO_MANY_TOKENS';
export const QUERY_TOO_MANY_FIELDS = 'QUERY_TOO_MANY_FIELDS';
export const QUERY_TOO_MANY_ALIASES = 'QUERY_TOO_MANY_ALIASES';
export const QUERY_TOO_MANY_DIRECTIVES = 'QUERY_TOO_MANY_DIRECTIVES';

/**
 * The fields, aliases and directives of a parsed document's operations, fragments expanded where
 * they are spread (plus the fragments no operation spreads, once each). Unknown and cyclic
 * spreads count nothing: validation refuses them.
 */
export function documentCounts(document: DocumentNode): DocumentCounts {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, DocumentCounts>();
  const inProgress = new Set<string>();
  const spread = new Set<string>();

  /** What a fragment adds wherever it is spread: its own directives and its selections. */
  function fragmentCounts(name: string): DocumentCounts {
    spread.add(name);
    const fragment = fragments.get(name);
    if (!fragment || inProgress.has(name)) return { fields: 0, aliases: 0, directives: 0 };
    let c = memo.get(name);
    if (!c) {
      inProgress.add(name);
      c = { fields: 0, aliases: 0, directives: fragment.directives?.length ?? 0 };
      addSet(c, fragment.selectionSet);
      inProgress.delete(name);
      memo.set(name, c);
    }
    return c;
  }

  function addSet(into: DocumentCounts, set: SelectionSetNode): void {
    for (const s of set.selections) {
      into.directives += s.directives?.length ?? 0;
      if (s.kind === Kind.FIELD) {
        into.fields += 1;
        if (s.alias) into.aliases += 1;
        if (s.selectionSet) addSet(into, s.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        addSet(into, s.selectionSet);
      } else {
        const f = fragmentCounts(s.name.value);
        into.fields += f.fields;
        into.aliases += f.aliases;
        into.directives += f.directives;
      }
    }
  }

  const total: DocumentCounts = { fields: 0, aliases: 0, directives: 0 };
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    total.directives += (d.directives?.length ?? 0) + (d.variableDefinitions ?? []).reduce((n, v) => n + (v.directives?.length ?? 0), 0);
    addSet(total, d.selectionSet);
  }
  // fragments no operation spreads are validated all the same: counted once
  for (const name of fragments.keys()) {
    if (spread.has(name)) continue;
    const f = fragmentCounts(name);
    total.fields += f.fields;
    total.aliases += f.aliases;
    total.directives += f.directives;
  }
  return total;
}

/**
 * A bound's refusal. It is thrown from the parser as our own error, not as a GraphQLError: yoga
 * marks every GraphQLError out of the parser as a spec "request error", which it answers with
 * 200 when the client accepts `application/json`; ours is mapped by `maskError` (`./errors.ts`)
 * to a GraphQL error with its code and 400, whatever the Accept header.
 */
function boundError(code: string, what: string, setting: string, count: number | null, limit: number): BadRequest {
  const amount = count === null ? `more than ${limit} ${what}` : `${count} ${what}`;
  return new BadRequest(`the document has ${amount}, over the limit of ${limit} (${setting}): send a smaller document`, count === null ? { limit } : { count, limit }, code);
}

/** Whether `source` has more than `max` tokens, counted as graphql-js's parser counts them (stops at max + 1). */
function overTokens(source: string | Source, max: number): boolean {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let n = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) if (++n > max) return true;
  } catch {
    return false; // a lexical error before the limit: graphql's syntax error is the answer
  }
  return false;
}

/**
 * Parses `source` within the limits, or throws the bound's refusal (a syntax error stays
 * graphql's own). The parser stops at `maxTokens`; only when it failed is the source lexed again
 * (up to the limit) to tell an oversized document from a malformed one.
 */
export function boundedParse(source: string | Source, limits: DocumentLimits, options?: ParseOptions): DocumentNode {
  let document: DocumentNode;
  try {
    document = parse(source, { ...options, maxTokens: limits.maxTokens });
  } catch (err) {
    if (overTokens(source, limits.maxTokens)) throw boundError(QUERY_TOO_MANY_TOKENS, 'tokens', 'GRAPHQL_MAX_TOKENS', null, limits.maxTokens);
    throw err;
  }
  const c = documentCounts(document);
  if (c.fields > limits.maxFields) throw boundError(QUERY_TOO_MANY_FIELDS, 'fields', 'GRAPHQL_MAX_FIELDS', c.fields, limits.maxFields);
  if (c.aliases > limits.maxAliases) throw boundError(QUERY_TOO_MANY_ALIASES, 'aliases', 'GRAPHQL_MAX_ALIASES', c.aliases, limits.maxAliases);
  if (c.directives > limits.maxDirectives) throw boundError(QUERY_TOO_MANY_DIRECTIVES, 'directives', 'GRAPHQL_MAX_DIRECTIVES', c.directives, limits.maxDirectives);
  return document;
}

/**
 * Replaces the parser of every request (yoga's HTTP paths, and graphql-ws through the same
 * enveloped `parse`) with `boundedParse`. yoga caches a document by its text, and the refusal
 * likewise, so a document is counted once.
 *
 * An anonymous caller may only log in, refresh, follow an OAuth callback (and introspect in
 * development): documents of a few dozen tokens. Its documents are held to `anonymousMaxTokens`,
 * checked on every request, cached document or not (lexing that many tokens costs microseconds),
 * so what one anonymous document can cost to validate stays far below what a signed-in caller's
 * may. The principal comes from the request (`req.principal`, set by the auth hook; graphql-ws
 * operations are always signed in).
 */
export function documentBounds(limits: DocumentLimits, anonymousMaxTokens: number): Plugin {
  const anonymous = { ...limits, maxTokens: Math.min(limits.maxTokens, anonymousMaxTokens) };
  return {
    onParse({ context, params, setParseFn }) {
      const principal = (context as { req?: { principal?: Principal } }).req?.principal;
      if (principal?.kind === 'anonymous') {
        if (overTokens(params.source, anonymous.maxTokens)) {
          throw new BadRequest(`the document has more than ${anonymous.maxTokens} tokens, over the limit of ${anonymous.maxTokens} for anonymous callers (GRAPHQL_ANONYMOUS_MAX_TOKENS): sign in, or send a smaller document`, { limit: anonymous.maxTokens }, QUERY_TOO_MANY_TOKENS);
        }
        setParseFn((source, options) => boundedParse(source, anonymous, options));
        return;
      }
      setParseFn((source, options) => boundedParse(source, limits, options));
    },
  };
}

/**
 * How many validation errors a document gets before validation stops (graphql-js's `maxErrors`,
 * 100 by default). Each error is a GraphQLError that captures a stack trace, about 40 µs apiece on
 * the loaded bench machine: 245 unused variables, a document within every bound, cost 13 ms of
 * errors alone. Twenty is plenty to fix a document by; the last one says validation stopped.
 */
export const MAX_VALIDATION_ERRORS = 20;

/** Validation stops at `maxErrors` errors (yoga validates with graphql-js's default of 100). */
export function validationErrorCap(maxErrors = MAX_VALIDATION_ERRORS): Plugin {
  return {
    onValidate({ setValidationFn }) {
      // envelop hands (schema, document, rules, typeInfo, options); graphql-js takes options before typeInfo
      setValidationFn((schema, document, rules) => validate(schema, document, rules, { maxErrors }));
    },
  };
}
