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
import { LRUCache } from 'lru-cache';
import { copyError } from './errors.js';
import { variablesKey } from './variables-key.js';

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
 *
 * Operations graphql-jit compiles as they are (scalar variables only) get their variables checked
 * here too, and run unchanged: graphql-jit's own coercion words its refusals otherwise and answers
 * them with 200, so the same bad variable was a 400 while a document ran interpreted and a 200
 * from its second use on. Here a refusal is graphql-js's 400 whichever executor would run.
 *
 * Runs last before the compiler (the guards see the document as sent); anonymous callers and
 * subscriptions are left alone. The twin is made once per document.
 */
export function precoercedVariables(enabled: (contextValue: unknown) => boolean): Plugin {
  const twins = new WeakMap<DocumentNode, DocumentNode | null>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!enabled(args.contextValue) || hasSubscription(args.document)) return;
      let twin = twins.get(args.document);
      if (twin === undefined) {
        // the twin's variables need the schema's JSON scalar (fw's passes values through as they are)
        twin = isScalarType(args.schema.getType('JSON')) && !jitCanRun(args.schema, args.document)
          ? withJsonVariables(args.document) : null;
        twins.set(args.document, twin);
      }
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation || operation.operation === 'subscription' || !operation.variableDefinitions?.length) return;
      const key = operation.operation === 'query' ? coercedKey(args.schema, args.document, args.variableValues) : null;
      let variableValues = key === null ? undefined : coercedVariables.get(key);
      if (!variableValues) {
        const coerced = getVariableValues(args.schema, operation.variableDefinitions, args.variableValues ?? {}, { maxErrors: 50 });
        if (coerced.errors) {
          // a request error (400), as yoga's executor answers the same refusal
          setResultAndStopExecution({ errors: coerced.errors.map(requestError) });
          return;
        }
        variableValues = coerced.coerced;
        if (key !== null && isPlain(variableValues)) coercedVariables.set(key, deepFreeze(variableValues));
      }
      // the executor is called with these args (envelop spreads them after the hooks); an
      // operation without a twin keeps its variables as sent, which its executor coerces
      if (twin) Object.assign(args, { document: twin, variableValues });
    },
  };
}

/**
 * Coerced variables kept per (schema, document, variables as sent), for queries: coercing a
 * list's `where` and `orderBy` walks every field of their input types (about 5 % of an uncached
 * list's CPU, docs/performance.md), and clients send the same few pages and filters again and
 * again. Mutations' variables are rarely sent twice and are not kept. Bounded: 1 MiB of keys in
 * all, variables of up to 4 KiB of JSON each (./variables-key.ts: longer ones are coerced every
 * time). The kept values are frozen, so no resolver can change what the next request gets.
 */
const coercedVariables = new LRUCache<string, Record<string, unknown>>({
  max: 4096, maxSize: 1024 * 1024, sizeCalculation: (_value, key) => Math.max(1, key.length),
});
const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;
const idOf = (o: object): number => {
  let id = objectIds.get(o);
  if (id === undefined) objectIds.set(o, (id = nextObjectId++));
  return id;
};

/**
 * The cache key of a query's variables, or null when they are too long to keep. The schema is
 * part of it: the cache is per process, and one process may hold several schemas (tests build
 * many servers), whose types, enums and defaults may differ.
 */
export function coercedKey(schema: GraphQLSchema, document: DocumentNode, variables: unknown): string | null {
  const json = variablesKey(variables);
  return json === null ? null : `${idOf(schema)}:${idOf(document)}:${json}`;
}

/**
 * Whether `value` holds only JSON-like values (plain objects, arrays, primitives): the only
 * variables kept, as `Object.freeze` makes them read-only; not an upload's File or an object a
 * custom scalar made.
 */
function isPlain(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every(isPlain);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const requestError = (e: GraphQLError): GraphQLError => copyError(e, { extensions: { ...e.extensions, http: { status: 400 } } });
