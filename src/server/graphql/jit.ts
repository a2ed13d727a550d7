/**
 * Which operations graphql-jit (`@envelop/graphql-jit`) compiles to JavaScript, and when: the
 * rest run on graphql-js. Compiled operations are faster per request (list queries resolve
 * hundreds of fields), but compiling costs more than one interpreted run.
 */
import { isInputObjectType, Kind, type DocumentNode, type GraphQLSchema, type TypeNode } from 'graphql';

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
    ok = document.definitions.every((d) => d.kind !== Kind.OPERATION_DEFINITION
      || (d.operation !== 'subscription' && (d.variableDefinitions ?? []).every((v) => !isInputObjectType(schema.getType(namedTypeOf(v.type))))));
    jitChecked.set(document, ok);
  }
  return ok;
}
const namedTypeOf = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedTypeOf(t.type));

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
