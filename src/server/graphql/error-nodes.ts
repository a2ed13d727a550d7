/**
 * The AST nodes of field errors raised under graphql-jit. graphql-jit's errors carry `path` and
 * `locations` but not the `nodes` graphql-js gives them, and every error that leaves the server
 * is rebuilt from its nodes (our masking in ./errors.ts, yoga's result formatting): a document's
 * compiled runs answered without `locations` where its first, interpreted run had them. The
 * fields are found again along the error's path, as graphql-js collects them (every field of the
 * response key, through fragments), before the errors are masked.
 */
import {
  getOperationAST, GraphQLError, Kind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** The fields of `set` answering under `key`, inline fragments and spreads included. */
function fieldsUnder(set: SelectionSetNode, key: string, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen = new Set<string>()): FieldNode[] {
  const out: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if ((s.alias?.value ?? s.name.value) === key) out.push(s);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      out.push(...fieldsUnder(s.selectionSet, key, fragments, seen));
    } else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = fragments.get(s.name.value);
      if (fragment) out.push(...fieldsUnder(fragment.selectionSet, key, fragments, seen));
    }
  }
  return out;
}

/** The field nodes an error's path ends at (list indices skipped); none when the path leads nowhere. */
export function fieldNodesAt(document: DocumentNode, operationName: string | null | undefined, path: ReadonlyArray<string | number>): FieldNode[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  let sets: SelectionSetNode[] = [operation.selectionSet];
  let nodes: FieldNode[] = [];
  for (const key of path) {
    if (typeof key === 'number') continue;
    nodes = sets.flatMap((set) => fieldsUnder(set, key, fragments));
    if (!nodes.length) return [];
    sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  }
  return nodes;
}

function withNodes(error: GraphQLError, document: DocumentNode, operationName: string | null | undefined): GraphQLError {
  if (error.nodes?.length || !error.path?.length) return error;
  const nodes = fieldNodesAt(document, operationName, error.path);
  if (!nodes.length) return error;
  return new GraphQLError(error.message, { nodes, path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions });
}

/** What a plugin's `onExecute` may hand back: the hooks of the execution's end. */
type ExecuteHooks = Exclude<ReturnType<NonNullable<Plugin['onExecute']>>, void | PromiseLike<unknown>>;

/** Gives field errors without nodes (graphql-jit's) the nodes of their path; listed before the error masking. */
export function fieldErrorNodes(): Plugin {
  // one hooks object for every execution: onExecuteDone gets the execution's arguments itself
  const hooks: ExecuteHooks = {
    onExecuteDone({ args, result, setResult }) {
      if (isAsyncIterable(result)) return;
      const errors = result.errors;
      if (!errors?.some((e) => !e.nodes?.length && e.path?.length)) return;
      setResult({ ...result, errors: errors.map((e) => withNodes(e, args.document, args.operationName)) });
    },
  };
  return { onExecute: () => hooks };
}
