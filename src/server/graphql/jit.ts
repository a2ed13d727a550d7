/**
 * Which operations graphql-jit (`@envelop/graphql-jit`) compiles to JavaScript, and when: the
 * rest run on graphql-js. Compiled operations are faster per request (list queries resolve
 * hundreds of fields), but compiling costs more than one interpreted run.
 */
import {
  getOperationAST, getVariableValues, GraphQLError, isInputObjectType, isScalarType, Kind, visit,
  type DocumentNode, type GraphQLSchema, type NamedTypeNode, type OperationDefinitionNode, type TypeNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

const jitChecked = new WeakMap<DocumentNode, boolean>();
/**
 * graphql-jit cannot compile the coercion of variables whose type is a recursive input object
 * (our `where` inputs nest AND/OR; zalando-incubator/graphql-jit#175, open): operations with an
 * input-object variable run on graphql-js. Inline arguments and scalar variables compile fine.
 * Subscriptions run on graphql-js too: graphql-jit's subscribe fails on an aliased root field
 * ("executionContext.resolveInfos[resolveInfoName] is not a function"), and a subscription is
 * compiled once per connection anyway, so there is nothing to gain.
 */
export function jitCanRun(schema: GraphQLSchema, document: DocumentNode): boolean {
  let ok = jitChecked.get(document);
  if (ok === undefined) {
    ok = document.definitions.every((d) => d.kind !== Kind.OPERATION_DEFINITION || (d.operation !== 'subscription' && !hasInputObjectVariable(schema, d)));
    jitChecked.set(document, ok);
  }
  return ok;
}
const namedTypeOf = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedTypeOf(t.type));

const hasSubscription = (document: DocumentNode): boolean =>
  document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'subscription');

/** Whether an operation declares a variable of an input-object type (`where`, `orderBy`, inputs). */
const hasInputObjectVariable = (schema: GraphQLSchema, operation: OperationDefinitionNode): boolean =>
  (operation.variableDefinitions ?? []).some((v) => isInputObjectType(schema.getType(namedTypeOf(v.type))));

/**
 * Compiling a document with graphql-jit takes longer than running it once on graphql-js (about
 * 0.1 ms per field; the 10,000 aliases of a hostile document took over a second): only documents
 * run `minUses` times are compiled, so a flood of distinct documents is never compiled and a
 * client's fixed operations are, from their second run on. yoga's parse cache hands out the same
 * DocumentNode for the same text, which is what is counted.
 */
export function jitAfterUses(minUses: number): (document: DocumentNode) => boolean {
  const uses = new WeakMap<DocumentNode, number>();
  return (document) => {
    if (minUses <= 0) return false;
    const n = (uses.get(document) ?? 0) + 1;
    if (n <= minUses) uses.set(document, n);
    return n >= minUses;
  };
}


const JSON_TYPE: NamedTypeNode = { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'JSON' } };

/**
 * The document with every variable declared as the `JSON` scalar (`JSON!` where it was non-null)
 * and no defaults: what graphql-jit compiles for an operation whose variables were already
 * coerced. Its selections are the original's, node for node.
 */
function withJsonVariables(document: DocumentNode): DocumentNode {
  return visit(document, {
    VariableDefinition: (node) => ({
      ...node,
      type: node.type.kind === Kind.NON_NULL_TYPE ? { kind: Kind.NON_NULL_TYPE, type: JSON_TYPE } : JSON_TYPE,
      defaultValue: undefined,
    }),
  });
}

/**
 * Lets graphql-jit run operations with input-object variables (a list's `where` and `orderBy`,
 * which the web client sends with every list): their variables are coerced here by graphql-js,
 * against the operation as written (types, defaults, non-null, enums, the same errors), and the
 * operation then runs as its twin whose variables are all `JSON` (identity), which graphql-jit
 * compiles without meeting the recursive input types it cannot (see `jitCanRun`). Arguments
 * take variables as they are, so resolvers get exactly the values graphql-js would give them.
 * Runs last before the compiler (the guards see the document as sent); anonymous callers and
 * subscriptions are left alone. The twin is made once per document.
 */
export function precoercedVariables(enabled: (contextValue: unknown) => boolean): Plugin {
  const twins = new WeakMap<DocumentNode, DocumentNode | null>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!enabled(args.contextValue)) return;
      let twin = twins.get(args.document);
      if (twin === undefined) {
        // the twin's variables need the schema's JSON scalar (fw's passes values through as they are)
        twin = isScalarType(args.schema.getType('JSON')) && !jitCanRun(args.schema, args.document) && !hasSubscription(args.document)
          ? withJsonVariables(args.document) : null;
        twins.set(args.document, twin);
      }
      if (!twin) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation || operation.operation === 'subscription') return;
      const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {}, { maxErrors: 50 });
      if (coerced.errors) {
        // a request error (400), as yoga's executor answers the same refusal
        setResultAndStopExecution({ errors: coerced.errors.map(requestError) });
        return;
      }
      // the executor is called with these args (envelop spreads them after the hooks)
      Object.assign(args, { document: twin, variableValues: coerced.coerced });
    },
  };
}

const requestError = (e: GraphQLError): GraphQLError => new GraphQLError(e.message, {
  nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, originalError: e.originalError,
  extensions: { ...e.extensions, http: { status: 400 } },
});
