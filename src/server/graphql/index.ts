import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  GraphQLError, isInputObjectType, Kind, NoSchemaIntrospectionCustomRule, type DocumentNode, type GraphQLSchema, type TypeNode,
} from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { FwError, PayloadTooLarge, toErrorBody } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import { defineSettings } from '../../kernel/settings.js';
import '../types.js';
import { createLoaders } from './loaders.js';
import { buildGraphQLSchema, type GqlContext } from './schema.js';
import { graphqlWebSocket } from './ws.js';

export const graphqlSettings = defineSettings('graphql', {
  GRAPHQL_MAX_DEPTH: { kind: 'int', default: '10', doc: 'Deepest selection a GraphQL operation may have.' },
  GRAPHQL_MAX_COST: { kind: 'int', default: '5000', doc: 'Largest computed cost (graphql-armor cost-limit) of an operation.' },
  GRAPHQL_UPLOAD_MAX_BYTES: { kind: 'int', default: String(25 * 1024 * 1024), doc: 'Largest multipart request /graphql accepts (file uploads are held in memory by the multipart parser); larger ones get 413 before they are read.' },
  GRAPHQL_INTROSPECTION: { kind: 'bool', default: 'true', doc: 'Answer introspection queries (schema explorers, codegen). Set false to hide the schema.' },
});

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

/** Our errors keep their code and status; anything else is masked as INTERNAL_ERROR. */
function maskError(error: unknown): Error {
  // GraphQL's own errors (syntax, validation, variable coercion) chain only GraphQLErrors: shown as they are
  if (onlyGraphQLErrors(error)) return error as GraphQLError;
  const original = error instanceof GraphQLError ? error.originalError ?? error : error;
  if (original instanceof RangeError) {
    return new GraphQLError(original.message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  }
  const { status, body } = toErrorBody(original);
  const gqlError = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(body.error.message, {
    nodes: gqlError?.nodes, path: gqlError?.path,
    extensions: { code: body.error.code, ...(body.error.details ? { details: body.error.details } : {}), http: { status: original instanceof FwError ? status : 500 } },
  });
}

function onlyGraphQLErrors(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as GraphQLError).originalError) {
    if (!(e instanceof GraphQLError)) return false;
  }
  return error instanceof GraphQLError;
}

const jitChecked = new WeakMap<DocumentNode, boolean>();
/**
 * graphql-jit cannot compile the coercion of variables whose type is a recursive input object
 * (our `where` inputs nest AND/OR; zalando-incubator/graphql-jit#175, open): operations with an
 * input-object variable run on graphql-js. Inline arguments and scalar variables compile fine.
 * Subscriptions run on graphql-js too: graphql-jit's subscribe fails on an aliased root field
 * ("executionContext.resolveInfos[resolveInfoName] is not a function"), and a subscription is
 * compiled once per connection anyway, so there is nothing to gain.
 */
function jitCanRun(schema: GraphQLSchema, document: DocumentNode): boolean {
  let ok = jitChecked.get(document);
  if (ok === undefined) {
    ok = document.definitions.every((d) => d.kind !== Kind.OPERATION_DEFINITION
      || (d.operation !== 'subscription' && (d.variableDefinitions ?? []).every((v) => !isInputObjectType(schema.getType(namedTypeOf(v.type))))));
    jitChecked.set(document, ok);
  }
  return ok;
}
const namedTypeOf = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedTypeOf(t.type));

const hideSchema: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule(NoSchemaIntrospectionCustomRule);
  },
};

/** Mounts graphql-yoga at /graphql inside Fastify; the principal comes from the auth hook. */
export function graphqlRoutes(server: FastifyInstance, kernel: Kernel): void {
  const s = graphqlSettings(kernel.settings);
  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }, GqlContext>({
    schema: graphqlSchemaOf(kernel),
    graphqlEndpoint: '/graphql',
    logging: false,
    landingPage: false,
    maskedErrors: { maskError },
    context: ({ req }) => ({ kernel, principal: req.principal, loaders: createLoaders(kernel, req.principal) }),
    plugins: [
      maxDepthPlugin({ n: s.GRAPHQL_MAX_DEPTH, exposeLimits: true }),
      costLimitPlugin({ maxCost: s.GRAPHQL_MAX_COST, exposeLimits: true }),
      ...(s.GRAPHQL_INTROSPECTION ? [] : [hideSchema]),
      // operations are compiled to JavaScript once per document (graphql-jit) instead of being
      // interpreted per request: list queries resolve hundreds of fields
      useGraphQlJit({}, { enableIf: (args) => jitCanRun(args.schema, args.document) }),
    ],
  });
  graphqlWebSocket(server, kernel, yoga);
  // yoga parses multipart (GraphQL file uploads) itself from the raw request
  server.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
  server.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    // login and refresh run anonymously; a bearer token, when sent, must be valid
    config: { auth: 'optional' },
    handler: async (req, reply) => {
      const length = Number(req.headers['content-length'] ?? 0);
      if (req.headers['content-type']?.startsWith('multipart/') && length > s.GRAPHQL_UPLOAD_MAX_BYTES) {
        throw new PayloadTooLarge(`multipart requests are limited to ${s.GRAPHQL_UPLOAD_MAX_BYTES} bytes`, { limit: s.GRAPHQL_UPLOAD_MAX_BYTES });
      }
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => { void reply.header(key, value); });
      void reply.status(response.status);
      // a single result is sent as its text; only streams (SSE subscriptions, incremental
      // delivery) go through Fastify's stream path, which costs a pipe per request
      const type = response.headers.get('content-type') ?? '';
      if (type.startsWith('application/json') || type.startsWith('application/graphql-response+json')) return reply.send(await response.text());
      return reply.send(response.body);
    },
  });
}
