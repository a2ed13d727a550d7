/**
 * Which response types /graphql can answer, decided from the `Accept` header before anything runs.
 *
 * graphql-yoga picks its response type only after the operation ran (its result processors,
 * `graphql-yoga/esm/plugins/use-result-processor.js`), and answers 406 with an empty body when
 * none fits: a mutation would commit and then be refused. The rules below copy yoga 5's, so the
 * check here refuses exactly the requests yoga would refuse after executing them:
 *
 * - the header is read as yoga reads it (`result-processor/accept.js`): a missing or empty header
 *   is `*\/*`; whitespace is removed, letters lower-cased, the list split on `,`; an entry whose
 *   `charset` parameter is not `utf-8` is dropped; **other parameters, `q` included, are
 *   ignored** (`application/json;q=0` is still answered with JSON, as yoga does);
 * - an entry matches a response type when its type and subtype are each `*` or equal
 *   (`*\/*`, `application/*`, `text/*`, `*\/json`, …);
 * - queries and mutations can be answered as `text/event-stream`, `multipart/mixed`,
 *   `application/graphql-response+json` or `application/json`; a subscription's stream only as
 *   `text/event-stream` (its errors as JSON too).
 *
 * A GET whose Accept contains `text/html` is not a GraphQL request: yoga serves GraphiQL for it
 * (`shouldRenderGraphiQL`); OPTIONS is a CORS preflight. Neither is checked.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { NotAcceptable } from '../../kernel/errors.js';

export const NOT_ACCEPTABLE = 'NOT_ACCEPTABLE';

/** yoga's result processors in its own order (sse, multipart, regular) and the types each answers. */
const SSE_TYPES = ['text/event-stream'];
const MULTIPART_TYPES = ['multipart/mixed'];
const REGULAR_TYPES = ['application/graphql-response+json', 'application/json'];
/** Every response type a query or mutation can be answered with. */
export const GRAPHQL_RESPONSE_TYPES: readonly string[] = [...SSE_TYPES, ...MULTIPART_TYPES, ...REGULAR_TYPES];
/** The response type of a subscription's event stream. */
export const SUBSCRIPTION_STREAM_TYPES: readonly string[] = SSE_TYPES;

/** The media types of an Accept header, as yoga reads them (`getMediaTypesForRequestInOrder`). */
export function acceptedMediaTypes(accept: string | null | undefined): string[] {
  const types: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    // yoga: the first parameter mentioning `charset=` decides; none means utf-8; only utf-8 is answered
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    types.push(mediaType);
  }
  return types;
}

/** Whether an accepted media type (maybe with wildcards) covers a response type (yoga's `isMatchingMediaType`). */
function covers(accepted: string, responseType: string): boolean {
  const [type, subtype] = accepted.split('/');
  const [responseMain, responseSub] = responseType.split('/');
  return (type === '*' || type === responseMain) && (subtype === '*' || subtype === responseSub);
}

/** The response types (of `offered`) an Accept header lets us answer with; empty: 406. */
export function answerableTypes(accept: string | null | undefined, offered: readonly string[] = GRAPHQL_RESPONSE_TYPES): string[] {
  // every GraphQL request asks this of the endpoint's own list: answered from the memo
  return offered === GRAPHQL_RESPONSE_TYPES ? answerable(accept) : typesAnswering(accept, offered);
}
const typesAnswering = (accept: string | null | undefined, offered: readonly string[]): string[] => {
  const accepted = acceptedMediaTypes(accept);
  return offered.filter((t) => accepted.some((a) => covers(a, t)));
};

/**
 * `answer` kept per Accept header: clients send a handful of them, and every GraphQL request
 * asks. Bounded, as the header is the caller's text: 64 headers of up to 256 characters.
 */
function perAccept<T>(answer: (accept: string | null | undefined) => T): (accept: string | null | undefined) => T {
  const kept = new Map<string, T>();
  return (accept) => {
    // a missing header is kept too (as ''): many API clients send none, and it reads as `*/*`
    const key = accept ?? '';
    if (key.length > 256) return answer(accept);
    const hit = kept.get(key);
    if (hit !== undefined) return hit;
    const out = answer(key);
    if (kept.size >= 64) kept.clear();
    kept.set(key, out);
    return out;
  };
}
const answerable = perAccept((accept) => typesAnswering(accept, GRAPHQL_RESPONSE_TYPES));

/**
 * The type yoga's regular result processor answers a query or mutation's single result with, or
 * null when the Accept header names neither of its types. yoga tries its processors for every
 * accepted type from the last listed to the first and keeps the last match
 * (`use-result-processor.js`), and the regular processor comes last: so the first type listed in
 * the header that covers one of the two wins, `application/json` for a wildcard.
 */
export const regularResponseType = perAccept((accept): string | null => {
  let chosen: string | null = null;
  for (const accepted of acceptedMediaTypes(accept).reverse()) {
    for (const type of REGULAR_TYPES) if (covers(accepted, type)) chosen = type;
  }
  return chosen;
});

/** yoga answers these itself without running GraphQL: GraphiQL's page and CORS preflights. */
export function isGraphQLRequest(method: string, accept: string | null | undefined): boolean {
  if (method === 'OPTIONS') return false;
  // yoga's shouldRenderGraphiQL: case-sensitive, anywhere in the raw header
  return !(method === 'GET' && !!accept?.includes('text/html'));
}

const message = (offered: readonly string[]): string =>
  `the Accept header names no response type this endpoint can answer with: send one of ${offered.join(', ')} (or */*), with charset utf-8 if any`;

/** The refusal of a request whose Accept names none of `offered`. */
export function notAcceptable(offered: readonly string[] = GRAPHQL_RESPONSE_TYPES): NotAcceptable {
  return new NotAcceptable(message(offered), { accept: [...offered] });
}

/**
 * A subscription sent over HTTP is answered as an event stream only; yoga would subscribe first
 * and then answer 406 (leaving the stream it opened unconsumed). Refuses it before subscribing.
 * graphql-ws operations (no HTTP request in their context) are not concerned.
 */
export function subscriptionAccept(): Plugin {
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      const request = (args.contextValue as { request?: { headers?: { get?: (name: string) => string | null } } }).request;
      if (typeof request?.headers?.get !== 'function') return;
      if (answerableTypes(request.headers.get('accept'), SUBSCRIPTION_STREAM_TYPES).length) return;
      setResultAndStopExecution({
        errors: [new GraphQLError(message(SUBSCRIPTION_STREAM_TYPES), {
          extensions: { code: NOT_ACCEPTABLE, details: { accept: [...SUBSCRIPTION_STREAM_TYPES] }, http: { status: 406 } },
        })],
      });
    },
  };
}
