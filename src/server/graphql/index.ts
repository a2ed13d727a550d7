import { useGraphQlJit } from '@envelop/graphql-jit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { Transform } from 'node:stream';
import { storageSettings } from '../../apps/storage/settings.js';
import { BadRequest, FwError, PayloadTooLarge } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import { defineSettings } from '../../kernel/settings.js';
import '../types.js';
import { exemptFromIdleTimeout } from '../timeouts.js';
import { answerableTypes, GRAPHQL_RESPONSE_TYPES, isGraphQLRequest, notAcceptable, SUBSCRIPTION_STREAM_TYPES, subscriptionAccept } from './accept.js';
import { exposureOf, switchOf } from '../exposure.js';
import { answerDirectly, directParams } from './direct.js';
import { documentBounds, validationErrorCap } from './bounds.js';
import { boundedParseCaches } from './cache.js';
import { costLimit } from './cost.js';
import { checkCsrf, CSRF_HEADERS } from './csrf.js';
import { fieldErrorNodes } from './error-nodes.js';
import { internalErrorLog, maskError } from './errors.js';
import { depthLimit } from './depth.js';
import { graphiqlAssetRoutes, graphiqlDisabled, graphiqlRenderer } from './graphiql.js';
import { introspectionAccess, suggestionsHidden } from './introspection.js';
import { refuseBadParams } from './params.js';
import { jitAfterUses, jitCanRun, precoercedVariables } from './jit.js';
import { createLoaders } from './loaders.js';
import { buildGraphQLSchema, type GqlContext } from './schema.js';
import { graphqlWebSocket } from './ws.js';
import { CSP_DIRECTIVES, replaceCsp } from '../security.js';

export const graphqlSettings = defineSettings('graphql', {
  GRAPHQL_MAX_DEPTH: { kind: 'int', default: '10', doc: 'Deepest selection a GraphQL operation may have, in nested fields (introspection not counted). Deeper ones get 400 QUERY_TOO_DEEP and nothing runs.' },
  GRAPHQL_MAX_COST: { kind: 'int', default: '50000', doc: 'Largest cost of an operation: the number of values it can return, with every list counted at its `limit`/`first` (docs/api.md#guards). Larger ones get 400 QUERY_TOO_COSTLY and nothing runs.' },
  GRAPHQL_COST_LIST_SIZE: { kind: 'int', default: '10', doc: 'Size the cost guard assumes for a list field without a `limit`/`first` argument (One2Many relations, command outputs).' },
  GRAPHQL_MAX_TOKENS: { kind: 'int', default: '1000', min: 1, doc: 'Most tokens a GraphQL document may have (names, punctuation, values; not comments), counted while it is parsed: a longer one gets 400 QUERY_TOO_MANY_TOKENS before it is validated.' },
  GRAPHQL_ANONYMOUS_MAX_TOKENS: { kind: 'int', default: '250', min: 1, doc: 'Most tokens a document of an anonymous caller may have (login, refresh and, in development, the schema explorer\'s introspection query need fewer than 200): a longer one gets 400 QUERY_TOO_MANY_TOKENS before it is validated. GRAPHQL_MAX_TOKENS applies if smaller.' },
  GRAPHQL_MAX_FIELDS: { kind: 'int', default: '300', min: 1, doc: 'Most fields a GraphQL document may select, fragments counted every time they are spread: more get 400 QUERY_TOO_MANY_FIELDS before the document is validated.' },
  GRAPHQL_MAX_ALIASES: { kind: 'int', default: '15', min: 0, doc: 'Most aliases a GraphQL document may have, fragments counted every time they are spread: more get 400 QUERY_TOO_MANY_ALIASES before the document is validated.' },
  GRAPHQL_MAX_DIRECTIVES: { kind: 'int', default: '50', min: 0, doc: 'Most directives (`@include`, `@skip`, …) a GraphQL document may have, fragments counted every time they are spread: more get 400 QUERY_TOO_MANY_DIRECTIVES before the document is validated.' },
  GRAPHQL_JIT_MIN_USES: { kind: 'int', default: '2', min: 0, doc: 'A document is compiled to JavaScript by graphql-jit from its Nth execution on; the ones before run on graphql-js, so a document sent once is never compiled (nor any of an anonymous caller). 1 = compile at once, 0 = never.' },
  GRAPHQL_UPLOAD_MAX_BYTES: { kind: 'int', default: String(25 * 1024 * 1024), doc: 'Largest multipart request /graphql accepts (file uploads are held in memory by the multipart parser): a larger Content-Length gets 413 before the body is read, a body without one is cut off with 413 once it passes the limit.' },
  GRAPHQL_INTROSPECTION: { kind: 'string', default: 'auto', doc: 'Who may introspect the schema (`__schema`, `__type`): `public`, `authenticated` (a bearer token; else 401 INTROSPECTION_UNAUTHENTICATED), `off` (403 INTROSPECTION_DISABLED), or `auto`: authenticated with NODE_ENV=production, public otherwise. `true`/`false` mean public/off.' },
  GRAPHIQL: { kind: 'string', default: 'auto', doc: 'The GraphiQL explorer page at `GET /graphql` in a browser: `on`, `off` (404 GRAPHIQL_DISABLED), or `auto`: off with NODE_ENV=production, on otherwise.' },
});

const GRAPHQL_ENDPOINT = '/graphql';

const schemas = new WeakMap<Kernel, GraphQLSchema>();
/** The schema is compiled once per kernel from its registry. */
export function graphqlSchemaOf(kernel: Kernel): GraphQLSchema {
  let s = schemas.get(kernel);
  if (!s) {
    s = buildGraphQLSchema(kernel.registry, { defaultLimit: kernel.settings.API_DEFAULT_PAGE_SIZE, maxLimit: kernel.settings.API_MAX_PAGE_SIZE });
    schemas.set(kernel, s);
  }
  return s;
}

const isMultipart = (contentType: string | null | undefined): boolean => !!contentType && /^multipart\/form-data\b/i.test(contentType);

/**
 * A pass-through that fails with 413 once more than `max` bytes went through: bounds a multipart
 * body while it streams, whether or not it declared a Content-Length.
 */
function byteLimit(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) callback(new PayloadTooLarge(`multipart requests are limited to ${max} bytes`, { limit: max, setting: 'GRAPHQL_UPLOAD_MAX_BYTES' }));
      else callback(null, chunk);
    },
  });
}

/**
 * Reads a multipart body (GraphQL file uploads) with per-part limits before yoga's own parser
 * runs, which then gets the parsed form. busboy counts each file while it streams, so a file over
 * `fileLimit` ends the request with 413 without the rest being read or buffered, and before any
 * resolver (and so any storage command) runs.
 */
function multipartLimits(file: { limit: number; setting: string }, fieldLimit: number): Plugin {
  const fileLimit = file.limit;
  const refusal = (err: unknown): unknown => {
    if (err instanceof FwError || (err instanceof Error && err.name === 'AbortError')) return err;
    const message = err instanceof Error ? err.message : String(err);
    if (message.startsWith('File size limit exceeded')) return new PayloadTooLarge(`an uploaded file may be at most ${fileLimit} bytes`, { limit: fileLimit, setting: file.setting });
    if (message.startsWith('Field value size exceeded')) return new PayloadTooLarge(`a multipart field may be at most ${fieldLimit} bytes`, { limit: fieldLimit, setting: 'HTTP_BODY_LIMIT_BYTES' });
    return new BadRequest(`invalid multipart body: ${message}`, undefined, 'INVALID_MULTIPART');
  };
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (!requestParser || request.method !== 'POST' || !isMultipart(request.headers.get('content-type'))) return;
      // yoga's multipart parser (set by its own hook, which runs first) reads `formData()`: read it
      // first with busboy's limits (the fetch ponyfill takes them), so yoga gets this parsed form
      setRequestParser((req) => {
        const formData = req.formData as unknown as (this: Request, o: { formDataLimits: Record<string, number> }) => Promise<unknown>;
        return formData.call(req, { formDataLimits: { fileSize: fileLimit, fieldSize: fieldLimit } })
          .then(() => requestParser(req), (err: unknown) => { throw refusal(err); });
      });
    },
  };
}

/**
 * yoga's `cors`: an Origin listed in CORS_ORIGINS is answered with itself, and no response allows
 * credentials; any other Origin (every Origin when the setting is empty) gets no CORS header at
 * all, so its page cannot read the answer and its preflight fails. Preflights (OPTIONS) are
 * answered 204 either way, by yoga's CORS plugin, rather than reaching GraphQL.
 */
export function corsOptions(origins: readonly string[]): (request: Request) => false | { origin: string[]; credentials: false; methods: string[]; allowedHeaders: string[]; maxAge: number } {
  const allowed = corsOrigins(origins);
  return (request) => {
    const origin = request.headers.get('origin');
    if (!origin || !allowed.has(origin)) return false;
    return {
      origin: [origin], credentials: false, methods: ['GET', 'POST'], maxAge: 600,
      allowedHeaders: ['authorization', 'content-type', 'accept', 'x-tenant', 'x-fw-organization', ...CSRF_HEADERS],
    };
  };
}

/** The origins of CORS_ORIGINS as an Origin header names them (no trailing slash). */
const corsOrigins = (origins: readonly string[]): Set<string> => new Set(origins.map((o) => o.replace(/\/+$/, '')));

/**
 * The GraphiQL page's policy: the default one (no inline script, this origin only) except for
 * styles: GraphiQL and its Monaco editor create `<style>` elements at run time.
 */
const GRAPHIQL_CSP: Readonly<Record<string, string[]>> = { ...CSP_DIRECTIVES, 'style-src': ["'self'", "'unsafe-inline'"] };

/** Mounts graphql-yoga at /graphql inside Fastify; the principal comes from the auth hook. */
export function graphqlRoutes(server: FastifyInstance, kernel: Kernel): void {
  const s = graphqlSettings(kernel.settings);
  const storage = storageSettings(kernel.settings);
  // a file through GraphQL multipart is held in memory (bound by STORAGE_MAX_UPLOAD_BYTES) and
  // then stored (bound by STORAGE_MAX_FILE_SIZE_BYTES): the smaller one applies while it streams
  // (details name the setting that decided, as the storage routes' 413s do)
  const fileLimit = storage.STORAGE_MAX_UPLOAD_BYTES <= storage.STORAGE_MAX_FILE_SIZE_BYTES
    ? { limit: storage.STORAGE_MAX_UPLOAD_BYTES, setting: 'STORAGE_MAX_UPLOAD_BYTES' }
    : { limit: storage.STORAGE_MAX_FILE_SIZE_BYTES, setting: 'STORAGE_MAX_FILE_SIZE_BYTES' };
  const introspection = exposureOf(kernel.settings, 'GRAPHQL_INTROSPECTION', s.GRAPHQL_INTROSPECTION, { true: 'public', false: 'off' });
  const graphiql = switchOf(kernel.settings, 'GRAPHIQL', s.GRAPHIQL);
  const compileNow = jitAfterUses(s.GRAPHQL_JIT_MIN_USES);
  const allowedOrigins = corsOrigins(kernel.settings.CORS_ORIGINS);
  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }, GqlContext>({
    schema: graphqlSchemaOf(kernel),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    logging: false,
    landingPage: false,
    // yoga reflects any Origin with credentials by default: only the listed origins, never credentials
    cors: corsOptions(kernel.settings.CORS_ORIGINS),
    graphiql,
    // GraphiQL from local, immutable assets instead of yoga's CDN page (./graphiql.ts)
    renderGraphiQL: graphiqlRenderer(GRAPHQL_ENDPOINT),
    maskedErrors: { maskError },
    // the parsed documents and parse errors yoga keeps, bounded in bytes (./cache.ts)
    parserAndValidationCache: boundedParseCaches(),
    context: ({ req }) => ({ kernel, principal: req.principal, loaders: createLoaders(kernel, req.principal) }),
    plugins: [
      // the document's size is bounded while it is parsed, before validation or compilation
      // look at it (HTTP and graphql-ws parse through here alike)
      documentBounds({
        maxTokens: s.GRAPHQL_MAX_TOKENS, maxFields: s.GRAPHQL_MAX_FIELDS, maxAliases: s.GRAPHQL_MAX_ALIASES, maxDirectives: s.GRAPHQL_MAX_DIRECTIVES,
      }, s.GRAPHQL_ANONYMOUS_MAX_TOKENS),
      validationErrorCap(),
      // a subscription over HTTP is answered as an event stream only: refused before it subscribes
      subscriptionAccept(),
      multipartLimits(fileLimit, kernel.settings.HTTP_BODY_LIMIT_BYTES),
      // who may introspect is known only per request (the principal): checked before it runs
      ...introspectionAccess(introspection),
      // … nor learn the names it may not introspect from "Did you mean …?" hints
      ...suggestionsHidden(introspection),
      // depth, then cost: both refuse before anything runs, with a code and HTTP 400
      depthLimit(s.GRAPHQL_MAX_DEPTH),
      costLimit({
        maxCost: s.GRAPHQL_MAX_COST, unsizedListSize: s.GRAPHQL_COST_LIST_SIZE,
        defaultListSize: kernel.settings.API_DEFAULT_PAGE_SIZE, maxListSize: kernel.settings.API_MAX_PAGE_SIZE,
      }),
      // graphql-jit's field errors get back the AST nodes their locations come from (./error-nodes.ts)
      fieldErrorNodes(),
      // what the client will see as INTERNAL_ERROR is logged with its cause, tenant and user
      internalErrorLog((entry) => server.log.error(entry, 'graphql field failed')),
      // operations run often are compiled to JavaScript (graphql-jit) instead of being
      // interpreted per request: list queries resolve hundreds of fields. Not those of anonymous
      // callers, who may only log in or refresh: compiling is work anyone could ask for (./jit.ts)
      // operations with input-object variables (every list of the web client) compile too
      precoercedVariables((ctx) => (ctx as Partial<GqlContext>).principal?.kind !== 'anonymous'),
      useGraphQlJit({}, {
        enableIf: (args) => (args.contextValue as Partial<GqlContext>).principal?.kind !== 'anonymous'
          && jitCanRun(args.schema, args.document) && compileNow(args.document),
      }),
    ],
  });
  graphqlWebSocket(server, kernel, yoga);
  if (graphiql) graphiqlAssetRoutes(server, GRAPHQL_ENDPOINT);
  // yoga parses multipart (GraphQL file uploads) itself from the raw request
  server.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
  server.route({
    url: GRAPHQL_ENDPOINT,
    method: ['GET', 'POST', 'OPTIONS'],
    // login and refresh run anonymously; a bearer token, when sent, must be valid
    config: { auth: 'optional', errorFormat: 'graphql' },
    handler: async (req, reply) => {
      try {
        checkCsrf(req);
      } catch (err) {
        if (isMultipart(req.headers['content-type'])) void reply.header('connection', 'close');
        throw err;
      }
      // yoga picks the response type after executing and answers 406 (no body) when the client
      // accepts none: decide first, with yoga's own rules (./accept.ts), so nothing runs (or
      // commits) for a request that will be refused
      const graphqlRequest = isGraphQLRequest(req.method, req.headers.accept);
      // a browser asking for the explorer page: refused when it is off, rather than answered
      // as a GraphQL request without a query
      if (!graphqlRequest && req.method === 'GET' && !graphiql) throw graphiqlDisabled();
      if (graphqlRequest && answerableTypes(req.headers.accept).length === 0) {
        // an unread multipart body (an upload) is not worth reading to refuse it
        if (isMultipart(req.headers['content-type'])) void reply.header('connection', 'close');
        throw notAcceptable(GRAPHQL_RESPONSE_TYPES);
      }
      // parameters yoga would answer with a 500 or a 200 (./params.ts)
      refuseBadParams(req, graphqlRequest);
      // one JSON object in, one JSON result out: yoga's GraphQL pipeline without its Fetch bridge (./direct.ts)
      const direct = directParams(req, allowedOrigins);
      if (direct) return answerDirectly(yoga, req, reply, direct);
      let response: Response;
      if (req.method === 'POST' && isMultipart(req.headers['content-type'])) {
        const length = Number(req.headers['content-length'] ?? 0);
        if (length > s.GRAPHQL_UPLOAD_MAX_BYTES) {
          throw new PayloadTooLarge(`multipart requests are limited to ${s.GRAPHQL_UPLOAD_MAX_BYTES} bytes`, { limit: s.GRAPHQL_UPLOAD_MAX_BYTES, setting: 'GRAPHQL_UPLOAD_MAX_BYTES' });
        }
        // the body reaches yoga through a byte counter, so a chunked request is bounded too
        const body = byteLimit(s.GRAPHQL_UPLOAD_MAX_BYTES);
        req.raw.once('error', (err) => body.destroy(err));
        req.raw.pipe(body);
        const aborted = new AbortController();
        reply.raw.once('close', () => { if (!reply.raw.writableFinished) aborted.abort(); });
        const request = new yoga.fetchAPI.Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
          method: 'POST', headers: req.headers as Record<string, string>, body: body as unknown as ReadableStream, duplex: 'half', signal: aborted.signal,
        } as RequestInit);
        response = await yoga.fetch(request, { req, reply });
        // a refused upload leaves the rest of its body unread: close the connection after answering
        if (!req.raw.complete) void reply.header('connection', 'close');
      } else {
        response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      }
      if (response.status === 406) {
        // past the check above, only a subscription can still be refused (its stream is answered
        // as text/event-stream only): subscriptionAccept() refuses it before it subscribes, and
        // yoga sends that refusal without a body when the Accept names no JSON type either
        // (`multipart/mixed` alone): answer it with our body
        const text = await response.text();
        if (!text) throw notAcceptable(SUBSCRIPTION_STREAM_TYPES);
        response.headers.forEach((value, key) => { void reply.header(key, value); });
        return reply.status(406).send(text);
      }
      response.headers.forEach((value, key) => { void reply.header(key, value); });
      void reply.status(response.status);
      // a single result is sent as its text; only streams (SSE subscriptions, incremental
      // delivery) go through Fastify's stream path, which costs a pipe per request
      const type = response.headers.get('content-type') ?? '';
      if (type.startsWith('application/json') || type.startsWith('application/graphql-response+json')) return reply.send(await response.text());
      // the GraphiQL page names versioned assets: revalidated on every load, so an upgrade is picked up
      if (type.startsWith('text/html')) {
        replaceCsp(reply, GRAPHIQL_CSP);
        return reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(await response.text());
      }
      // a subscription stream may be quiet between events for longer than the idle timeout
      if (type.startsWith('text/event-stream') || type.startsWith('multipart/mixed')) exemptFromIdleTimeout(req);
      return reply.send(response.body);
    },
  });
}
